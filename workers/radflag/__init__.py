"""RadFlag (Zhang, Sambara et al.): sampling, entailment support, calibrated flags. No Django.

    from workers.radflag import (score_support, flag_report, Thresholds, calibrate,
                                 select_lambda1, select_lambda2, read_lines)

* ``support``: ``score_support(sentences, samples, model=None)`` → per-sentence support E and
  verdicts (built-in engine, or the llm role through ``llm_support``);
* ``flags``: ``Thresholds``, ``flag_report(...)`` → sentence flags, report flag, detections;
* ``calibration``: conformal risk control (``select_lambda1``, ``select_lambda2``,
  ``calibrate``) and calibration files (``read_lines``, ``prepare``);
* ``stages``: the ``sample`` and ``radflag`` stage functions the pipeline runs.

docs/radflag.md describes the method, the defaults and the file formats.
"""
from .calibration import (
                          CalibrationInputError,
                          CalibrationReport,
                          CalibrationResult,
                          CalibrationSentence,
                          RawReport,
                          adjusted_risk,
                          calibrate,
                          calibrate_lines,
                          empirical_risk,
                          prepare,
                          read_file,
                          read_lines,
                          select_lambda1,
                          select_lambda2,
)
from .flags import (
                          FlagOutcome,
                          SentenceFlag,
                          SentenceInfo,
                          Thresholds,
                          confidence_of,
                          default_lambda1,
                          flag_report,
                          rescale,
)
from .support import (
                          SampleVerdict,
                          SentenceSupport,
                          SentenceToScore,
                          judge_builtin,
                          judge_sentences,
                          score_support,
)

__all__ = [
    "CalibrationInputError", "CalibrationReport", "CalibrationResult", "CalibrationSentence",
    "FlagOutcome", "RawReport", "SampleVerdict", "SentenceFlag", "SentenceInfo",
    "SentenceSupport", "SentenceToScore", "Thresholds", "adjusted_risk", "calibrate",
    "calibrate_lines", "confidence_of", "default_lambda1", "empirical_risk", "flag_report",
    "judge_builtin", "judge_sentences", "prepare", "read_file", "read_lines", "rescale",
    "score_support", "select_lambda1", "select_lambda2",
]
