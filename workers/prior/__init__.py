"""Comparison claims checked against the prior report (issue 31).

``find_issues(ctx)`` compares the statements of ``ctx``'s report with those of its prior
report (``StudyContext.prior_report``) through the hierarchy; ``detections(ctx)`` flags the
doubted sentences, each quoting the prior sentence. Without a prior report it finds nothing:
comparison words in a study with no prior exam are the comparative detector's.
"""
from workers.prior.checks import CHECKS, Issue, find_issues
from workers.prior.detect import DETECTOR, detections

__all__ = ["CHECKS", "DETECTOR", "Issue", "detections", "find_issues"]
