"""Contradicting sentences: two sentences of one report that cannot both be true.

``find_contradictions(ctx)`` returns the pairs (heart size, global normal, presence, side,
severity; docs/audit.md lists the rules and their guards); ``detections(ctx)`` flags both
sentences of each pair, each naming the other and saying which side is doubted and why;
``undoes_paired_finding(ctx, index, suggestion)`` tells another detector that its suggestion
would remove or negate the positive finding of a pair; ``unsettled_pair(ctx, index)`` that the
sentence is one of two statements of what is there that disagree, which no detector corrects
automatically.
"""
from workers.contradiction.detect import DETECTOR, detections
from workers.contradiction.find import find_contradictions
from workers.contradiction.pairs import KINDS, Claim, Contradiction
from workers.contradiction.safety import undoes_paired_finding, unsettled_pair

__all__ = ["DETECTOR", "KINDS", "Claim", "Contradiction", "detections", "find_contradictions",
           "undoes_paired_finding", "unsettled_pair"]
