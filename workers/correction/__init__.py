"""Three-stage report correction (Wu et al.) and the text audit that runs all text detectors.

    correct(ctx, llm=None, extractor=None) -> CorrectionResult     detector "correction"
    audit_text(text, library=..., external_id=..., has_prior=...) -> TextAudit
    audit_file(...)  (workers.correction.batch)                    the audit_reports command
"""
from workers.correction.three_stage import (DETECTOR, CorrectionResult, apply_suggestion,
                                            correct, internal_phrases)

__all__ = ["DETECTOR", "CorrectionResult", "apply_suggestion", "correct", "internal_phrases"]
