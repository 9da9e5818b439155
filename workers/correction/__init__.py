"""Three-stage report correction (Wu et al.) and the batch audit of report files.

    correct(ctx, llm=None, extractor=None) -> CorrectionResult     detector "correction"
    batch.read_records / reference_library / audit_records / write_jsonl   audit_reports
"""
from workers.correction.three_stage import (
                                            DETECTOR,
                                            CorrectionResult,
                                            apply_suggestion,
                                            correct,
                                            internal_phrases,
)

__all__ = ["DETECTOR", "CorrectionResult", "apply_suggestion", "correct", "internal_phrases"]
