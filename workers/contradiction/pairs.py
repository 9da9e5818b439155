"""What a contradiction is: two claims of one report that cannot both be true.

A ``Claim`` is one sentence's statement about one observation (a finding of workers.nlp, or
the absent findings a normal statement implies). A ``Contradiction`` joins two claims of two
sentences, names its kind and says which side is doubted and why.
"""
from __future__ import annotations

from dataclasses import dataclass

from workers.nlp.findings import ABSENT, Finding
from workers.nlp.statements import claim_words
from workers.types import Harm

HEART_SIZE = "heart_size"
GLOBAL_NORMAL = "global_normal"
PRESENCE = "presence"
SIDE = "side"
SEVERITY = "severity"
COUNT = "count"
TEMPORAL = "temporal"
DEVICE = "device"
KINDS = (HEART_SIZE, GLOBAL_NORMAL, PRESENCE, SIDE, SEVERITY, COUNT, TEMPORAL, DEVICE)
#: Two statements of what is there (no normal side): the text cannot say which is right, so
#: neither is corrected automatically; the suggestion names both readings.
BETWEEN_FINDINGS = frozenset({SIDE, SEVERITY, COUNT, TEMPORAL, DEVICE})

# With text alone the normal or summary statement is the one doubted: accepting a fix of the
# detailed positive finding would delete a finding the radiologist described to agree with a
# summary that may simply have been left unedited.
REASON_NORMAL = ("it is the normal or summary statement, and a detailed positive finding is "
                 "never removed to agree with one")
REASON_IMPRESSION = ("the impression summarises the findings, and the findings describe what "
                     "was seen in detail")
REASON_NEITHER = ("both sentences describe the finding in the same section; the text alone "
                  "cannot say which is right, the images can")


@dataclass(frozen=True)
class Claim:
    """One side of a contradiction: sentence ``sentence`` states ``finding``; ``words`` are
    the words that make the claim ("large right pleural effusion", "Heart size is normal")."""

    sentence: int
    finding: Finding
    words: str

    @classmethod
    def of(cls, sentence: int, finding: Finding, sentence_text: str) -> Claim:
        """A finding's claim in its own words with its size and side ("large right pleural
        effusion"); a normal statement's is its sentence."""
        if finding.implied:
            return cls(sentence, finding, sentence_text.rstrip(". "))
        return cls(sentence, finding, claim_words(finding))

    @property
    def normal(self) -> bool:
        """A normal statement or a denial (the finding stated absent)."""
        return self.finding.status == ABSENT


@dataclass(frozen=True)
class Contradiction:
    """Two claims that disagree. ``doubted``: the sentence index doubted (None: neither side
    can be preferred from the text); ``reason``: why that side."""

    kind: str
    first: Claim
    second: Claim
    doubted: int | None
    reason: str
    confidence: float

    @property
    def sentences(self) -> tuple[int, int]:
        return self.first.sentence, self.second.sentence

    @property
    def harm(self) -> Harm:
        """The more harmful side: a wrong denial hides a finding, a wrong finding invents one."""
        return max((self.first.finding.harm, self.second.finding.harm), key=lambda h: h.rank)

    def claim_of(self, sentence: int) -> Claim:
        return self.first if sentence == self.first.sentence else self.second

    def other_of(self, sentence: int) -> Claim:
        return self.second if sentence == self.first.sentence else self.first


def pair(kind: str, a: Claim, b: Claim, confidence: float, sections: dict[int, str], *,
         by_section: bool = False) -> Contradiction:
    """A contradiction of ``a`` and ``b`` in reading order, with the doubted side chosen:
    the normal statement when there is one, else the impression against the findings, else
    neither. ``by_section``: a finding said to be gone is no normal statement ("the effusion
    has resolved" against "persistent effusion"): only the sections choose."""
    first, second = (a, b) if a.sentence <= b.sentence else (b, a)
    normals = [] if by_section else [c for c in (first, second) if c.normal]
    if len(normals) == 1:
        doubted, reason = normals[0].sentence, REASON_NORMAL
    else:
        where = {sections.get(first.sentence), sections.get(second.sentence)}
        if where == {"findings", "impression"}:
            doubted = first.sentence if sections.get(first.sentence) == "impression" \
                else second.sentence
            reason = REASON_IMPRESSION
        else:
            doubted, reason = None, REASON_NEITHER
    return Contradiction(kind, first, second, doubted, reason, confidence)
