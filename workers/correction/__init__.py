"""Three-stage report correction (Wu et al.) and the text audit that runs all text detectors.

    correct(ctx, llm=None, extractor=None) -> CorrectionResult     detector "correction"
    audit.audit_text(text, library=..., external_id=..., has_prior=...) -> TextAudit
    batch.read_records / reference_library / audit_records / write_jsonl   audit_reports
"""
from workers.correction.three_stage import (DETECTOR, CorrectionResult, apply_suggestion,
                                            correct, internal_phrases)

__all__ = ["DETECTOR", "CorrectionResult", "apply_suggestion", "correct", "internal_phrases"]
