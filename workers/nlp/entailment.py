"""RadFlag's radiology entailment: does a report support one sentence?

``entail(sentence, report)`` returns ``Entailment(verdict, reason)`` with verdict "complete",
"partial" or "none", from the findings of both (workers/nlp/findings.py), by these rules
(docs/design.md, RadFlag):

1. A negative (absent) finding is completely entailed unless the report states the opposite:
   the same observation, or a narrower one ("no opacity" vs "left lower lobe consolidation"),
   present on a compatible side -> none; stated uncertain -> partial.
2. A positive finding is completely entailed when the report states it, a narrower finding
   that implies it, or a larger one that includes it (same observation, report laterality
   "bilateral" or unstated for a left/right sentence, report location unstated). The report
   stating it absent -> none.
3. Partial: a difference in severity or size ("mild" vs "moderate cardiomegaly"), in side or
   location, a similar but not identical observation ("endotracheal tube" vs "tracheostomy
   tube", "nodule" vs "mass", "edema" vs "vascular congestion"), a broader report finding for
   a specific sentence ("opacity" for "pneumonia"), a hedge on one side only ("possible
   effusion" vs "effusion"), or a reference to a prior exam ("unchanged", "compared with
   prior", ...) that the report does not make.
4. None: a positive finding absent from the report, or a contradiction.
5. A sentence with several findings takes its weakest verdict.
6. A sentence with no finding ("PA and lateral views were obtained"): complete when it makes
   no comparison (there is nothing to hallucinate); partial when it refers to a prior exam.
7. A disease-like term outside the vocabulary ("cirrhosis", workers/nlp/radiographic.py) is
   a finding of its own: negated ("no cirrhosis") it is entailed like any negative finding;
   affirmed, it is not entailed unless the report names the same term.

Only the report's image sections count (FINDINGS, IMPRESSION, unlabelled text). Findings are
cached per text, and verdicts per (sentence, report) pair, so RadFlag's ten calls per sentence
cost microseconds after the first.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from workers.nlp.findings import ABSENT, IMAGE_SECTIONS, PRESENT, Finding, findings_tuple
from workers.nlp.radiographic import out_of_domain_terms
from workers.nlp.sections import ParsedReport
from workers.nlp.vocabulary import ancestors, comparison_cue, similar

COMPLETE = "complete"
PARTIAL = "partial"
NONE = "none"
VERDICTS = (COMPLETE, PARTIAL, NONE)
_RANK = {NONE: 0, PARTIAL: 1, COMPLETE: 2}

_SEVERITY_GROUP = {
    "trace": 0, "minimal": 0, "mild": 1, "small": 1, "borderline": 1, "small to moderate": 2,
    "moderate": 2, "moderate to large": 3, "mild to moderate": 2, "severe": 3, "large": 3,
}
_LOCATION_GROUP = {
    "lower lobe": "lower", "base": "lower", "lower lung": "lower", "retrocardiac": "lower",
    "costophrenic angle": "lower", "upper lobe": "upper", "apex": "upper", "upper lung": "upper",
    "middle lobe": "middle", "lingula": "middle", "midlung": "middle", "perihilar": "central",
    "central": "central", "peripheral": "peripheral", "fissure": "fissure",
}
_PRIOR_RE = re.compile(r"\b(?:prior|previous(?:ly)?|compared|comparison|interval|since|again|"
                       r"unchanged|stable|redemonstrat\w*|persist\w*|no longer|resolved|"
                       r"improv\w*|worsen\w*|new)\b")


@dataclass(frozen=True)
class Entailment:
    verdict: str
    reason: str


def _report_text(report: str | ParsedReport) -> str:
    return report.text if isinstance(report, ParsedReport) else report


def _image_findings(text: str) -> tuple[Finding, ...]:
    return tuple(f for f in findings_tuple(text) if f.section in IMAGE_SECTIONS)


def _side_ok(sentence_side: str | None, report_side: str | None) -> bool:
    """The report's side covers the sentence's ("bilateral" covers left; unstated covers all)."""
    return (sentence_side is None or report_side is None or sentence_side == report_side
            or report_side == "bilateral")


def _sides_overlap(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b or "bilateral" in (a, b)


def _group(groups: dict, value: str):
    return groups.get(value, value)


def _attribute_differences(s: Finding, r: Finding) -> list[str]:
    diffs = []
    if not _side_ok(s.laterality, r.laterality):
        diffs.append(f"side {s.laterality} vs {r.laterality or 'unstated'}")
    if s.laterality and r.laterality is None:
        pass  # "atelectasis" in the report includes "left atelectasis": a larger finding
    if s.severity and r.severity and _group(_SEVERITY_GROUP, s.severity) != _group(
            _SEVERITY_GROUP, r.severity):
        diffs.append(f"severity {s.severity} vs {r.severity}")
    if s.location and r.location and _group(_LOCATION_GROUP, s.location) != _group(
            _LOCATION_GROUP, r.location):
        diffs.append(f"location {s.location} vs {r.location}")
    return diffs


def _positive(s: Finding, report: tuple[Finding, ...]) -> tuple[str, str]:
    best = (NONE, f"{s.observation} is not stated in the report")
    s_up = ancestors(s.observation)
    for r in report:
        if r.observation == s.observation or s.observation in ancestors(r.observation):
            relation = "same"
        elif r.observation in s_up:
            relation = "broader"
        elif similar(s.observation, r.observation):
            relation = "similar"
        else:
            continue
        if r.status == ABSENT:
            if relation == "same" and _sides_overlap(s.laterality, r.laterality):
                candidate = (NONE, f"the report states no {r.observation}")
            else:
                continue
        elif relation == "broader":
            candidate = (PARTIAL, f"the report states only the broader {r.observation}")
        elif relation == "similar":
            candidate = (PARTIAL, f"the report states the similar {r.observation}")
        elif r.status != s.status:
            candidate = (PARTIAL, f"{s.observation} is {s.status} in the sentence, "
                                  f"{r.status} in the report")
        else:
            diffs = _attribute_differences(s, r)
            candidate = (PARTIAL, "; ".join(diffs)) if diffs else \
                (COMPLETE, f"the report states {r.text or r.observation}")
        if _RANK[candidate[0]] > _RANK[best[0]] or (
                candidate[0] == NONE and best[0] == NONE and "states no" in candidate[1]):
            best = candidate
        if best[0] == COMPLETE:
            break
    return best


def _negative(s: Finding, report: tuple[Finding, ...]) -> tuple[str, str]:
    hedged = None
    for r in report:
        if r.status == ABSENT:
            continue
        if not (r.observation == s.observation or s.observation in ancestors(r.observation)):
            continue
        if not _sides_overlap(s.laterality, r.laterality):
            continue
        if r.status == PRESENT:
            return NONE, f"the report states {r.text or r.observation}"
        hedged = (PARTIAL, f"the report considers {r.text or r.observation} possible")
    return hedged or (COMPLETE, f"the report does not state {s.observation}")


def _finding_verdict(s: Finding, report: tuple[Finding, ...]) -> tuple[str, str]:
    if s.status == ABSENT:
        return _negative(s, report)
    return _positive(s, report)


def _unknown_terms(sentence: str, report_text: str) -> tuple[str, str] | None:
    """The verdict on disease-like terms outside the vocabulary ("cirrhosis"): a negated one is
    a negative finding (entailed), an affirmed one must be named by the report."""
    missing = []
    for term in out_of_domain_terms(sentence):
        if _NEGATED_TERM_RE(term).search(sentence):
            continue
        if term.lower() not in report_text.lower():
            missing.append(term)
    if missing:
        return NONE, f"names {', '.join(missing)}, which the report does not"
    return None


def _NEGATED_TERM_RE(term: str) -> re.Pattern:
    return re.compile(r"\b(?:no|without|negative for|free of|not|nor)\b[^.;]*?\b"
                      + re.escape(term) + r"\b", re.IGNORECASE)


@lru_cache(maxsize=65536)
def _entail(sentence: str, report_text: str) -> Entailment:
    report = _image_findings(report_text)
    own = findings_tuple(sentence)
    lower = sentence.lower()
    unknown = _unknown_terms(sentence, report_text)
    if not own:
        if unknown:
            return Entailment(*unknown)
        if out_of_domain_terms(sentence):
            return Entailment(COMPLETE, "a negative statement the report does not contradict")
        if _PRIOR_RE.search(lower):
            return Entailment(PARTIAL, "no finding; refers to a prior exam")
        return Entailment(COMPLETE, "states no finding")

    verdict, reasons = COMPLETE, []
    for s in own:
        v, why = _finding_verdict(s, report)
        if _RANK[v] < _RANK[verdict]:
            verdict, reasons = v, [why]
        elif v == verdict:
            reasons.append(why)
    if unknown and _RANK[unknown[0]] < _RANK[verdict]:
        return Entailment(*unknown)
    if verdict == COMPLETE and comparison_cue(lower) and _PRIOR_RE.search(lower):
        if not any(r.comparison for r in report):
            return Entailment(PARTIAL, "refers to a prior exam that the report does not mention")
    if verdict == COMPLETE and all(s.status == ABSENT for s in own):
        return Entailment(COMPLETE, "nothing in the report contradicts it")
    return Entailment(verdict, "; ".join(dict.fromkeys(reasons)))


def entail(sentence: str, report: str | ParsedReport) -> Entailment:
    """Whether ``report`` completely, partially or not at all entails ``sentence``."""
    return _entail(sentence, _report_text(report))
