"""The consistency and plausibility checks (no model needed).

Each check reads a ``StudyContext`` and returns ``Issue`` records; ``workers.judge`` turns
them into detections and the three-stage correction reads them as its stage 1 signals.
The rules (docs/audit.md explains each):

* ``contradiction`` — a finding stated present in one sentence and absent in another of the
  same section, or in the same sentence ("lungs are clear with focal consolidation"); denied
  in words that describe it as present ("no mild cardiomegaly", "no old fracture"), or
  denied and then conceded as persisting ("heart is not enlarged but unchanged"); an
  unnamed acute abnormality affirmed ("emphysema with acute disease");
* ``impression_vs_findings`` — the same across FINDINGS and IMPRESSION (an IMPRESSION of "no
  acute cardiopulmonary abnormality" against a consolidation in the FINDINGS);
* ``laterality`` — the IMPRESSION puts a finding on the side the FINDINGS do not;
* ``out_of_domain`` — a condition a chest radiograph cannot show (workers.nlp's mechanism:
  disease-shaped words, organs outside the chest, clinical-only conditions), or one it can
  only suggest, surer when the library never names it or writes a chest finding in its place;
* ``unsupported_by_library`` — the library writes the sentence's words with the opposite
  polarity and never as written; a phrase no library report contains stands where the
  library's sentences of the same wording (or lists of the same findings) have a finding; a
  short denial of words no library report uses ("No anemia.").

A normal summary ("lungs are clear", "no acute cardiopulmonary abnormality") is loose wording:
it denies only specific acute findings, and the finding, not the summary, is the suspect. Of
two explicit statements that contradict each other, the suspect is the one the rest of the
report supports less, then the one the library writes less often as it is (and more often the
other way round), then the affirmative one (a hallucinated finding is the commoner error of a
drafted report).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from workers.library.stats import tokens_of
from workers.nlp import harm_of
from workers.nlp.denial_words import negating_words
from workers.nlp.findings import ABSENT, PRESENT, UNCERTAIN, Finding
from workers.nlp.hierarchy import overlapping, readings_of_one
from workers.nlp.polarity import assertion_at, denial_before, denied_with_no
from workers.nlp.vocabulary import (
    GLOBAL_BONE_PHRASE,
    GLOBAL_NORMAL_PHRASE,
    ancestors,
    mentions_concept,
)
from workers.rules.denials import MIN_STATED, finding_counts
from workers.study.context import (
    BORDERLINE,
    OUT_OF_DOMAIN,
    STOPWORDS,
    UNKNOWN_TO_LIBRARY,
    StudyContext,
)
from workers.study.slots import slot_fills
from workers.types import Harm

CONTRADICTION = "contradiction"
LATERALITY = "laterality"
IMPRESSION_VS_FINDINGS = "impression_vs_findings"
RULE_OUT_OF_DOMAIN = "out_of_domain"
UNSUPPORTED = "unsupported_by_library"
RULES = (CONTRADICTION, LATERALITY, IMPRESSION_VS_FINDINGS, RULE_OUT_OF_DOMAIN, UNSUPPORTED)

_EXCEPTION_RE = re.compile(r"\b(?:otherwise|except|apart from|aside from|other than|besides|"
                           r"remainder|rest of|elsewhere)\b", re.IGNORECASE)
# A denial of "other", "additional" or "further" findings leaves room for the one the report
# names; so does a redacted word there ("No XXXX focal consolidation": de-identification often
# swallows "other").
_OTHER_THAN_NAMED_RE = re.compile(r"\b(?:other|additional|further|remaining|new|xxxx)\b",
                                  re.IGNORECASE)
# "No focal airspace disease" does not deny patchy, streaky or band-like opacity.
_FOCAL_RE = re.compile(r"\bfocal\b", re.IGNORECASE)
_NOT_FOCAL_RE = re.compile(r"\b(?:patchy|streaky|band-?like|linear|reticular\w*|diffuse|"
                           r"interstitial|plate-?like|discoid|subsegmental|hazy|scattered)\b",
                           re.IGNORECASE)
_SIDES = ("left", "right")
# Acute findings a normal summary ("lungs are clear", "no acute cardiopulmonary abnormality")
# does deny; "opacity", "atelectasis" and the like often stand beside one in real reports.
_ACUTE_SPECIFIC = frozenset({"consolidation", "pneumonia", "edema", "pleural effusion",
                             "pneumothorax"})
_ACUTE_QUALIFIER_RE = re.compile(r"\b(?:acute|new|recent|active)\b", re.IGNORECASE)
_EXPLAINED_RE = re.compile(r"\b(?:reflect\w*|represent\w*|relat\w* to|consistent with|"
                           r"compatible with|secondary to|due to|likely|probabl\w*|may|might|"
                           r"could|suggest\w*|attribut\w*|artifact\w*|overlying|projecting|"
                           r"correspond\w*|from|fat|nipple|soft tissue)\b", re.IGNORECASE)
# Wording that makes a finding old or chronic, which "no acute ..." does not deny.
_CHRONIC_RE = re.compile(r"\b(?:old|healed|healing|chronic|calcifi\w*|granulom\w*|scar\w*|"
                         r"stable|unchanged|remote|sequela\w*|postoperative|postsurgical|"
                         r"known|prior|previous|longstanding|degenerative)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Issue:
    """One problem the judge found in sentence ``sentence`` (``related``: the other sentence
    of a contradiction or laterality conflict)."""

    rule: str
    sentence: int
    confidence: float
    harm: Harm
    explanation: str
    detail: str
    related: int | None = None
    observation: str | None = None
    term: str | None = None
    start: int | None = None  # offsets of the words involved, in the sentence
    end: int | None = None


def _sides_overlap(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b or "bilateral" in (a, b)


def _wording(f: Finding) -> str:
    return (f.text or f.observation).strip()


def library_balance(ctx: StudyContext, index: int) -> float:
    """How much the library favours sentence ``index`` as written over its opposite polarity
    (log ratio; 0 without a library or without counts)."""
    polarity = ctx.polarity(index)
    return math.log1p(polarity.own) - math.log1p(polarity.variant_count)


def _support(ctx: StudyContext, index: int, finding: Finding, other: int) -> int:
    """How many further sentences (neither ``index`` nor ``other``) say what ``finding`` says
    about its observation, with the same status."""
    return len([i for i in ctx.internal_support(index, finding) if i != other])


def _more_suspect(ctx: StudyContext, first: tuple[int, Finding], second: tuple[int, Finding]
                  ) -> tuple[tuple[int, Finding], tuple[int, Finding]]:
    """(suspect, other) of two conflicting statements: the one the rest of the report
    supports less; then the one the library writes less often as it is (and more often the
    other way round); then the one stating a finding present."""
    support_a = _support(ctx, first[0], first[1], second[0])
    support_b = _support(ctx, second[0], second[1], first[0])
    if support_a != support_b:
        return (first, second) if support_a < support_b else (second, first)
    a, b = library_balance(ctx, first[0]), library_balance(ctx, second[0])
    if abs(a - b) > 1e-9:
        return (first, second) if a < b else (second, first)
    return (first, second) if first[1].status != ABSENT else (second, first)


def _denial_qualifiers(before: str) -> str:
    """The words between the last denial cue and the finding it denies ("no other focal
    consolidation" -> " other focal "); empty when no cue stands before the finding."""
    cue = denial_before(before, len(before))
    return before[cue.end():] if cue else ""


def _conflicts(present: Finding, absent: Finding, same_sentence: bool, ctx: StudyContext,
               present_index: int) -> bool:
    """Whether ``absent`` denies ``present``. Across sentences the observation must be the
    same ("no focal airspace disease" says nothing of a basal scar's opacity); within one
    sentence a normal statement also denies the narrower findings it covers ("lungs are clear
    with focal consolidation")."""
    if absent.observation != present.observation and not (
            same_sentence and (absent.observation in ancestors(present.observation)
                               or (absent.implied
                                   and present.observation in ancestors(absent.observation)))):
        return False
    if not _sides_overlap(present.laterality, absent.laterality):
        return False
    # "no large effusion" does not deny a small one; "no upper lobe opacity" not a basal one
    if absent.severity and absent.severity != present.severity:
        return False
    if absent.location and present.location and absent.location != present.location:
        return False
    # "no new nodules", "no increase in effusion": a comparison, not a denial
    if absent.comparison and absent.comparison not in ("unchanged", "stable", "again"):
        return False
    sentence = ctx.sentence(present_index).text
    denial = ctx.sentence(absent.sentence_index).text
    if not absent.implied:
        denial_start = ctx.sentence(absent.sentence_index).start
        qualifiers = _denial_qualifiers(denial[:absent.start - denial_start])
        if _OTHER_THAN_NAMED_RE.search(qualifiers):
            return False  # "no other focal consolidation" beside the one named
        if _FOCAL_RE.search(qualifiers) and _NOT_FOCAL_RE.search(sentence):
            return False  # "no focal airspace disease" beside a patchy opacity
    if not absent.implied and _ACUTE_QUALIFIER_RE.search(denial) and _CHRONIC_RE.search(sentence):
        return False  # "no acute fracture" does not deny a healed one
    if present.observation == "opacity" and any(
            f.status == PRESENT and f.observation not in ("opacity",) and not f.implied
            for f in ctx.findings.get(present_index, [])):
        return False  # an opacity the sentence names ("bibasilar opacities, atelectasis")
    if absent.implied:
        # A normal statement ("lungs are clear", "no acute cardiopulmonary abnormality") is a
        # summary: it does not deny old or chronic changes, nor a trace of something
        if _CHRONIC_RE.search(sentence):
            return False
        if absent.cue in (GLOBAL_NORMAL_PHRASE, GLOBAL_BONE_PHRASE) and present.severity in (
                "trace", "minimal", "mild", "small"):
            return False
    # "opacity" is a description until explained; an explained one ("streaky opacity likely
    # atelectasis", "opacity related to overlying soft tissue") is not the denied airspace disease
    if present.observation == "opacity" and _EXPLAINED_RE.search(sentence):
        return False
    return True


def contradictions(ctx: StudyContext) -> list[Issue]:
    """A finding stated present and absent (same sentence, another sentence, across
    sections)."""
    image = set(ctx.image_sentences)
    statements = [(i, f) for i in ctx.image_sentences for f in ctx.findings.get(i, [])]
    present = [(i, f) for i, f in statements if f.status == PRESENT and not f.implied]
    absent = [(i, f) for i, f in statements if f.status == ABSENT]
    issues: dict[tuple[int, int], Issue] = {}
    for i, p in present:
        for j, a in absent:
            if j not in image or not _conflicts(p, a, i == j, ctx, i):
                continue
            if i == j and not a.implied:
                continue  # both spelled out in one sentence: scope, not a contradiction
            if a.implied and _EXCEPTION_RE.search(ctx.sentence(j).text):
                continue  # "lungs are otherwise clear" leaves room for the finding
            if p.comparison == "resolved":
                continue
            if a.implied and i != j and _detail_agrees(ctx, i, p, j):
                continue  # the summary is at odds with the findings' own detail, not with p
            if i == j or a.implied:
                # a normal summary is loose wording, not a claim to weigh against a finding:
                # the finding is the suspect, and only an acute one contradicts the summary
                if i != j and p.observation not in _ACUTE_SPECIFIC:
                    continue
                (s, sf), (o, of) = (i, p), (j, a)
            else:
                (s, sf), (o, of) = _more_suspect(ctx, (i, p), (j, a))
            key = (s, o)
            if key in issues:
                continue
            across = ctx.sentence(s).section != ctx.sentence(o).section
            rule = IMPRESSION_VS_FINDINGS if across and {ctx.sentence(s).section,
                                                         ctx.sentence(o).section} == {
                "findings", "impression"} else CONTRADICTION
            claim = f"{_wording(sf)} is stated {'absent' if sf.status == ABSENT else 'present'}"
            if s == o:
                explanation = (f"The sentence contradicts itself: it calls the "
                               f"{_wording(a).lower()} normal yet states {_wording(p).lower()}.")
                detail = f"{_wording(p)} present, but '{a.cue or 'normal'}' in the same sentence"
                related, confidence = None, 0.75
            else:
                where = "the impression" if ctx.sentence(o).section == "impression" else (
                    "the findings" if ctx.sentence(o).section == "findings" else "another sentence")
                if rule == CONTRADICTION:
                    where = "another sentence"
                explanation = (f"{claim} here, but {where} states the opposite "
                               f"({_wording(of).lower() if not of.implied else of.cue}).")
                detail = (f"{sf.observation} {sf.status} vs {of.observation} {of.status} in "
                          f"sentence {o + 1}")
                related = o
                confidence = 0.6 if of.implied or sf.implied else 0.7
            issues[key] = Issue(rule, s, confidence, harm_of(sf.observation, sf.status),
                                explanation, detail, related, sf.observation, sf.text or None,
                                sf.start - ctx.sentence(s).start if not sf.implied else None,
                                sf.end - ctx.sentence(s).start if not sf.implied else None)
    return list(issues.values())


def _detail_agrees(ctx: StudyContext, index: int, present: Finding, summary: int) -> bool:
    """A summary section's finding that a FINDINGS sentence other than the summary's states
    too (the same finding, a narrower or close one, or another reading of it at its place, on
    its side): "Right lower lobe pneumonia." after "Dense consolidation is present in the
    right lower lobe" agrees with the findings, so a "The lungs are clear." among them is at
    odds with their own detail (the contradiction detector pairs those), not with it."""
    if ctx.sentence(index).section == "findings":
        return False
    for other in ctx.image_sentences:
        if other in (index, summary) or ctx.sentence(other).section != "findings":
            continue
        for f in ctx.findings.get(other, []):
            if f.implied or f.status != PRESENT or not _sides_overlap(f.laterality,
                                                                      present.laterality):
                continue
            if overlapping(f.observation, present.observation) or (
                    readings_of_one(f.observation, present.observation)
                    and f.location is not None and f.location == present.location):
                return True
    return False


def _same_process(a: Finding, b: Finding) -> bool:
    """Two statements about one process: the same observation, one narrower than the other,
    or two readings of one opacity at the same place ("left lower lobe consolidation" and
    "right lower lobe pneumonia")."""
    if a.observation == b.observation or a.observation in ancestors(b.observation) \
            or b.observation in ancestors(a.observation):
        return True
    shared = ancestors(a.observation) & ancestors(b.observation)
    return bool(shared) and a.location is not None and a.location == b.location


# Words that say a finding is there: a size, an age, a course. "No mild cardiomegaly", "no old
# rib fracture", "no stable opacity" deny what their own words describe.
_PRESENCE_WORDS = frozenset({"mild", "mildly", "minimal", "minimally", "moderate",
                             "moderately", "severe", "severely", "marked", "markedly", "trace",
                             "old", "healed", "healing", "chronic", "stable", "unchanged",
                             "persistent", "redemonstrated", "again", "remote", "known"})
_GAP_BREAK_RE = re.compile(r"[,;:]|\b(?:and|but|or|with|however|although|while)\b",
                           re.IGNORECASE)


def self_denials(ctx: StudyContext) -> list[Issue]:
    """A denial of a finding that the same words describe as present: "no mild cardiomegaly",
    "no old healed rib fracture", "no stable nodule"."""
    issues = []
    for i in ctx.image_sentences:
        sentence = ctx.sentence(i)
        for f in ctx.findings.get(i, []):
            if f.implied:  # (the scope rules may read "no stable X" either way)
                continue
            start = f.start - sentence.start
            cue = denial_before(sentence.text, start)
            if cue is None:
                continue
            gap = sentence.text[cue.end():start]
            if _GAP_BREAK_RE.search(gap) or mentions_concept(gap.lower()):
                continue  # the denial is about something else ("no effusion and mild ...")
            between = tokens_of(gap)
            described = [w for w in between if w in _PRESENCE_WORDS]
            if not described:
                continue
            words = " ".join(described)
            issues.append(Issue(
                CONTRADICTION, i, 0.6, harm_of(f.observation, ABSENT),
                f"The sentence denies {_wording(f).lower()} yet describes it as {words}, "
                f"which only a present finding can be.",
                f"'{cue.group().lower()}' before '{words} {_wording(f).lower()}'", None,
                f.observation, f.text or None, start, f.end - sentence.start))
            break
    return issues


# "Enlarged but unchanged": "but" concedes that an abnormality has not changed, which is news
# only of a finding that is there. After a denial ("Heart is not enlarged but unchanged.") it
# concedes nothing: the shape of a statement that gained a "not". The concession must be the
# whole clause (a "but" that names another finding, "no effusion but stable atelectasis", is a
# contrast), and the denial no comparison of its own ("no new ...", "no other ...").
_CONCESSION_RE = re.compile(
    r",?\s+but\s+(?:(?:is|are|remains?|appears?|otherwise)\s+)?"
    r"(?P<course>unchanged|stable|persistent|similar)\b(?P<rest>[^,;:.]*)", re.IGNORECASE)
_CLAUSE_BREAK_RE = re.compile(r"[,;:.]")
_DENIED_REACH = 60  # characters between the denial's word and the concession
_DENIAL_COMPARES_RE = re.compile(r"\b(?:new|other|additional|further|longer|change|changed|"
                                 r"interval|significant(?:ly)?)\b", re.IGNORECASE)


def conceded_denials(ctx: StudyContext) -> list[Issue]:
    """A denial followed by a concession of persistence ("Heart is not enlarged but
    unchanged."): only a finding that is there can be unchanged in spite of itself."""
    issues = []
    for i in ctx.image_sentences:
        text = ctx.sentence(i).text
        found = _conceded_denial(text)
        if found is None:
            continue
        start, concession = found
        findings = [f for f in ctx.findings.get(i, []) if not f.implied]
        observation = findings[0].observation if findings else None
        harm = harm_of(observation, ABSENT) if observation else Harm.MEDIUM
        denied = text[start:concession.start()].strip().lower()
        issues.append(Issue(
            CONTRADICTION, i, 0.6, harm,
            f"The sentence denies ('{denied}') and then concedes "
            f"'but {concession.group('course')}', which only a finding that is there can be.",
            f"'{text[start:concession.end()].lower()}'", None, observation, None, start,
            concession.end()))
    return issues


def _conceded_denial(text: str) -> tuple[int, re.Match] | None:
    """(where the denial's word starts, the concession) of the first concession that follows
    a denial in its own clause, within reach, with neither a comparison in the denial nor a
    finding in the concession."""
    for concession in _CONCESSION_RE.finditer(text):
        if mentions_concept(concession.group("rest").lower()):
            continue
        for start, end in negating_words(text[:concession.start()]):
            denied = text[end:concession.start()]
            if 0 < len(denied) <= _DENIED_REACH and not _CLAUSE_BREAK_RE.search(denied) \
                    and not _DENIAL_COMPARES_RE.search(denied):
                return start, concession
    return None


# An unnamed acute abnormality ("acute cardiopulmonary disease", "acute process"): reports
# deny one ("no acute disease") and name what they find.
_UNNAMED_ACUTE_RE = re.compile(
    r"\b(?:acute|active)\s+(?:\w+\s+){0,2}?(?:disease|process(?:es)?|findings?|abnormalit(?:y|ies)|"
    r"pathology)\b", re.IGNORECASE)


def unnamed_acute(ctx: StudyContext) -> list[Issue]:
    """A sentence that affirms an acute abnormality without naming it ("Emphysema with acute
    disease."), the shape of "without acute disease" that lost its denial."""
    issues = []
    for i in ctx.image_sentences:
        text = ctx.sentence(i).text
        m = _UNNAMED_ACUTE_RE.search(text)
        # denied, hedged, asked about or history: only an affirmed one is the lost denial
        if not m or not assertion_at(text, m.start(), m.end()).affirmed:
            continue
        words = m.group().lower()
        issues.append(Issue(
            CONTRADICTION, i, 0.6, Harm.MEDIUM,
            f"The sentence affirms '{words}' without saying what it is; reports deny an "
            f"unnamed acute abnormality and name what they find.",
            f"'{words}' affirmed", None, None, m.group(), m.start(), m.end()))
    return issues


def laterality_conflicts(ctx: StudyContext) -> list[Issue]:
    """The IMPRESSION and the FINDINGS put one finding on opposite sides, and nothing in the
    FINDINGS puts it on the impression's side."""
    by_section: dict[str, list[tuple[int, Finding]]] = {"findings": [], "impression": []}
    for i in ctx.image_sentences:
        section = ctx.sentence(i).section
        if section in by_section:
            by_section[section].extend((i, f) for f in ctx.findings.get(i, [])
                                       if f.status in (PRESENT, UNCERTAIN) and not f.implied)
    issues = []
    seen = set()
    for i, f in by_section["impression"]:
        if f.laterality not in _SIDES:
            continue
        related = [(j, g) for j, g in by_section["findings"] if _same_process(f, g)]
        if not related:
            continue
        sides = {g.laterality for _, g in related}
        if f.laterality in sides or "bilateral" in sides or None in sides:
            continue
        j, g = related[0]
        (s, sf), (o, of) = _more_suspect(ctx, (i, f), (j, g))
        if (s, o) in seen:
            continue
        seen.add((s, o))
        explanation = (f"{_wording(sf)} is on the {sf.laterality} here but on the "
                       f"{of.laterality} in sentence {o + 1}.")
        issues.append(Issue(LATERALITY, s, 0.65, harm_of(sf.observation, sf.status),
                            explanation, f"{sf.laterality} vs {of.laterality}", o,
                            sf.observation, sf.text or None,
                            sf.start - ctx.sentence(s).start, sf.end - ctx.sentence(s).start))
    return issues


# words with which an impression rules out, on the whole, what the findings leave open ("no
# definite pneumothorax", "no new consolidation", "no acute process")
_DENIAL_SOFTENER_RE = re.compile(r"\b(?:definite|definitely|convincing|appreciable|evidence|"
                                 r"significant|obvious|large|new|other|acute|focal|"
                                 r"substantial|frank|overt)\b", re.IGNORECASE)


def _excerpt(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rsplit(" ", 1)[0] + "…"


def denied_possibilities(ctx: StudyContext) -> list[Issue]:
    """The IMPRESSION denies outright ("No basilar right pneumothorax.") a finding the FINDINGS
    raise as possible ("may represent localized basilar pneumothorax"): a summary that rules
    out what the findings leave open says how ("no definite ..."). The impression's denial is
    the doubted sentence; the findings' possibility is the related one. None of the correct
    dev reports does it."""
    possible: dict[str, tuple[int, Finding]] = {}
    for i in ctx.image_sentences:
        if ctx.sentence(i).section != "findings":
            continue
        for f in ctx.findings.get(i, []):
            if f.status == UNCERTAIN and not f.implied:
                possible.setdefault(f.observation, (i, f))
    issues = []
    for i in ctx.image_sentences:
        sentence = ctx.sentence(i)
        if sentence.section != "impression" or not possible:
            continue
        for f in ctx.findings.get(i, []):
            if f.status != ABSENT or f.implied or f.observation not in possible \
                    or not denied_with_no(f.cue):
                continue
            if _DENIAL_SOFTENER_RE.search(sentence.text[:f.start - sentence.start]):
                continue
            j, g = possible[f.observation]
            if not _sides_overlap(f.laterality, g.laterality):
                continue
            issues.append(Issue(
                IMPRESSION_VS_FINDINGS, i, 0.6, harm_of(g.observation, PRESENT),
                f"{_wording(f)} is denied outright here, but sentence {j + 1}, in the "
                f"findings, raises it as possible (“{_excerpt(ctx.sentence(j).text)}”); an "
                "impression that rules out what the findings leave open says how ('no "
                "definite ...').",
                f"denied vs possible ({g.observation})", j, f.observation, f.text or None,
                f.start - sentence.start, f.end - sentence.start))
            break
    return issues


# Sides the chest's anatomy does not have: the left lung has no middle lobe (the lingula is
# its counterpart), the right lung no lingula, the minor fissure is the right lung's, and the
# lung behind the heart ("retrocardiac") is the left lower lobe. None of these is written in
# the 1,371 correct reports of the dev sets.
_NO_SUCH_SIDE = [
    (re.compile(r"\bleft\s+middle\b(?=(?:[\s-]+[\w]+){0,3}?[\s-]+lobes?\b)", re.I),
     "the left lung has no middle lobe"),
    (re.compile(r"\bright(?:[\s-]+sided)?\s+lingul(?:a|ar)\b", re.I),
     "the right lung has no lingula"),
    (re.compile(r"\bleft\s+(?:minor|horizontal)\s+fissure\b", re.I),
     "the minor fissure is the right lung's"),
    (re.compile(r"\bright(?:[\s-]+sided)?\s+retrocardiac\b", re.I),
     "the lung behind the heart is the left lower lobe"),
]


def anatomy_sides(ctx: StudyContext) -> list[Issue]:
    """A side the named part of the chest does not have ("left middle lobe", "right
    retrocardiac consolidation"): one of the two words is wrong, and a swapped side is the
    commoner slip."""
    issues = []
    for i in ctx.image_sentences:
        text = ctx.sentence(i).text
        for pattern, why in _NO_SUCH_SIDE:
            m = pattern.search(text)
            if m is None:
                continue
            findings = [f for f in ctx.findings.get(i, []) if not f.implied]
            observation = findings[0].observation if findings else None
            harm = harm_of(observation, findings[0].status) if findings else Harm.LOW
            issues.append(Issue(LATERALITY, i, 0.65, harm,
                                f"'{m.group()}' names a side that part of the chest does not "
                                f"have: {why}.", f"anatomy: {m.group().lower()}", None,
                                observation, m.group(), m.start(), m.end()))
            break
    return issues


_ADVICE_RE = re.compile(r"\b(?:correlat\w*|recommend\w*|follow-?up|advis\w*|"
                        r"further evaluation|could be performed|would be helpful)\b",
                        re.IGNORECASE)


def _template_fills(ctx: StudyContext, index: int, term) -> int:
    """How often library sentences worded exactly like this one fill the term's place with a
    finding of the engine's vocabulary."""
    fills = slot_fills(ctx, index, term.start, term.end, widen=1, widen_left=2,
                       accept=mentions_concept)
    return sum(f.count for f in fills if f.whole)


# A library that names a condition a radiograph cannot show once or twice ("the known
# pancreatitis" of one history) has no habit of stating it: that is no reason to trust it.
RARELY_NAMED = 2


# nouns that end a disease's name after an organ ("inflammatory bowel disease")
_NAME_HEAD_RE = re.compile(r"^\s+(?:disease|syndrome|dysfunction|disorder|cancer|carcinoma)\b",
                           re.IGNORECASE)


def _library_names(ctx: StudyContext, index: int, term) -> int | None:
    """How many library sentences name the condition: an organ's word followed by a name's
    head counts as the whole name ("bowel disease"), since a library that names the organ
    ("normal bowel gas pattern") does not name the disease."""
    m = _NAME_HEAD_RE.match(ctx.sentence(index).text[term.end:])
    if m is None or ctx.library is None:
        return term.library_sentences
    return ctx.phrase_count(term.text + m.group())


def out_of_domain(ctx: StudyContext) -> list[Issue]:
    """Conditions a chest radiograph cannot show, or can at most suggest. Surer when the
    library never names the term, and when the library's sentences worded like this one have
    a chest finding where the term stands (a substituted word)."""
    issues = []
    for i in ctx.image_sentences:
        if _ADVICE_RE.search(ctx.sentence(i).text):
            continue  # "correlate for pain": advice to the clinician, not a film finding
        for term in ctx.suspect_terms(i):
            if term.kind not in (OUT_OF_DOMAIN, BORDERLINE):
                continue
            named = _library_names(ctx, i, term)
            template = _template_fills(ctx, i, term) if ctx.library is not None else 0
            if term.kind == OUT_OF_DOMAIN:
                confidence = 0.85 if not named else 0.7 if named <= RARELY_NAMED else 0.45
            else:
                confidence = 0.5 if not named else 0.3
            if template >= 2:
                confidence = max(confidence, 0.8)
            if term.negated:
                confidence -= 0.05
                claim = f"The sentence rules out '{term.text}'"
            else:
                claim = f"The sentence states '{term.text}'"
            what = ("a chest radiograph cannot show" if term.kind == OUT_OF_DOMAIN
                    else "a chest radiograph can at most suggest")
            if ctx.library is None:
                library = ""
            elif not named:
                library = " and no library report names it"
            elif named <= RARELY_NAMED:
                library = f"; only {named} library sentence(s) name it"
            else:
                library = f"; {named} library sentence(s) name it"
            if template >= 2:
                library += (f"; library sentences worded like this one have a chest finding "
                            f"there ({template} times)")
            explanation = f"{claim}, a condition {what}{library}."
            status = ABSENT if term.negated else PRESENT
            issues.append(Issue(RULE_OUT_OF_DOMAIN, i, round(confidence, 3),
                                harm_of(term.text.lower(), status), explanation,
                                f"'{term.text}' is {term.kind.replace('_', ' ')}", None, None,
                                term.text, term.start, term.end))
    return issues


def _affirmed_findings(ctx: StudyContext, index: int) -> list[Finding]:
    return [f for f in ctx.findings.get(index, []) if f.status != ABSENT and not f.implied]


def unsupported_by_library(ctx: StudyContext) -> list[Issue]:
    """The library writes the sentence's words with the other polarity and never as written;
    or a word no library report contains sits where the library's sentences of the same
    wording name a finding."""
    if ctx.library is None:
        return []
    issues = []
    for i in ctx.image_sentences:
        issue = _polarity_issue(ctx, i)
        if issue is not None:
            issues.append(issue)
        for term in ctx.suspect_terms(i):
            if term.kind != UNKNOWN_TO_LIBRARY:
                continue
            total, usual, whole = _unfamiliar_fill(ctx, i, term)
            if not total:
                if _short_denial_of_unseen(ctx, i, term):
                    issues.append(Issue(
                        UNSUPPORTED, i, 0.55,
                        harm_of(term.text.lower(), ABSENT),
                        f"The sentence rules out '{term.text}', which no library report names "
                        f"and which is no chest finding the engine knows.",
                        f"'{term.text}' unknown to the library", None, None, term.text,
                        term.start, term.end))
                continue
            where = "its sentences worded like this one" if whole else "its lists like this one"
            explanation = (f"The library never writes '{term.text}'; {where} read '{usual}' "
                           f"there.")
            issues.append(Issue(UNSUPPORTED, i, 0.6 if whole else 0.55,
                                harm_of(term.text.lower(), ABSENT if term.negated else PRESENT),
                                explanation, f"'{term.text}' unknown to the library "
                                             f"({total} sentences read '{usual}')",
                                None, None, term.text, term.start, term.end))
    return issues


_LIST_BEFORE_RE = re.compile(r"(?:,|\b(?:or|and|no|without|of|for|nor))\s*$", re.IGNORECASE)
_LIST_AFTER_RE = re.compile(r"^\s*(?:,|\b(?:or|and|nor)\b)", re.IGNORECASE)


def _list_item(ctx: StudyContext, index: int, term) -> bool:
    """The term is an item of a list of findings ("no focal ___, pneumothorax, or effusion")."""
    sentence = ctx.sentence(index).text
    if not (_LIST_BEFORE_RE.search(sentence[:term.start])
            or _LIST_AFTER_RE.search(sentence[term.end:])):
        return False
    return mentions_concept((sentence[:term.start] + " " + sentence[term.end:]).lower())


_GENERIC_HEADS = frozenset({"process", "processes", "abnormality", "abnormalities", "disease",
                            "diseases", "finding", "findings", "change", "changes", "pathology"})


def _short_denial_of_unseen(ctx: StudyContext, index: int, term) -> bool:
    """A short denial ("No anemia.", "No visible gallstones.") of words no library report
    uses: a report denies what a radiograph could show, in words radiologists use."""
    sentence = ctx.sentence(index).text
    tokens = tokens_of(sentence)
    if not term.negated or len(tokens) > 5 or not tokens or tokens[0] != "no":
        return False
    if tokens_of(term.text)[-1] in _GENERIC_HEADS:
        return False  # "no acute cardiothoracic process": a summary in unusual words
    return any(ctx.document_frequency(w) == 0 for w in tokens_of(term.text)
               if w not in STOPWORDS)


def _unfamiliar_fill(ctx: StudyContext, index: int, term) -> tuple[int, str, bool]:
    """(how many, the usual wording, whole) of library sentences worded like this one around
    the term that have a chest finding in its place.

    Whole-sentence matches count when the wording around the term says enough (four words,
    one of them a content word: "No ___ or pneumothorax is seen", not "There is ___"). Matches
    of three words either side count only for an item of a list of findings with a word no
    library report uses. (0, "", False) otherwise."""
    fills = slot_fills(ctx, index, term.start, term.end, widen=1, widen_left=2,
                       accept=mentions_concept)
    total = sum(f.count for f in fills)
    if not fills or total < 2:
        return 0, "", False
    usual = " ".join(fills[0].words)
    if fills[0].whole:
        sentence = ctx.sentence(index).text
        frame = tokens_of(sentence[:fills[0].start] + " " + sentence[fills[0].end:])
        if len(frame) < 4 or not [w for w in frame if w not in STOPWORDS]:
            return 0, "", False
        return total, usual, True
    unseen = any(ctx.document_frequency(w) == 0 for w in tokens_of(term.text)
                 if w not in STOPWORDS)
    if total >= 3 and unseen and _list_item(ctx, index, term):
        return total, usual, False
    return 0, "", False


def _usual_polarity_elsewhere(ctx: StudyContext, index: int) -> bool:
    """Whether the library, in whatever words, states the sentence's one finding in the
    sentence's polarity at least as often as in the other ("Cardiac enlargement.": the IU
    library never writes that sentence, but states cardiomegaly 144 times and denies it 3):
    then the sentence's own wording is a habit of style, not a sign of its polarity."""
    if ctx.library is None or not len(ctx.library):
        return False
    findings = [f for f in ctx.findings.get(index, []) if not f.implied]
    if len({f.observation for f in findings}) != 1 or len({f.status for f in findings}) != 1:
        return False
    f = findings[0]
    if f.status not in (PRESENT, ABSENT):
        return False
    counts = finding_counts(ctx.library)
    other = ABSENT if f.status == PRESENT else PRESENT
    own = counts.times(f.observation, f.status, ctx.exclude)
    return own >= MIN_STATED and own >= counts.times(f.observation, other, ctx.exclude)


def _polarity_issue(ctx: StudyContext, index: int) -> Issue | None:
    """The library writes the sentence (or its content words) with the other polarity, and
    not (or seldom) as written."""
    polarity = ctx.polarity(index)
    v, own = polarity.variant_count, polarity.own
    if v and (own == 0 or v >= 3 * (own + 1)):
        confidence = 0.85 * v / (v + own + 1)
        wording, times, loose = " ".join(polarity.variant), v, False
    elif polarity.loose_variants >= 3 and polarity.loose_variants >= 4 * (polarity.loose_own + 1):
        lv, lo = polarity.loose_variants, polarity.loose_own
        confidence = 0.7 * lv / (lv + lo + 1)
        wording, times, loose = " ".join(polarity.loose_variant), lv, True
    else:
        return None
    affirmed = _affirmed_findings(ctx, index)
    if affirmed and all(ctx.internal_support(index, f) for f in affirmed):
        confidence *= 0.5  # another sentence of the report says the same
    elif _usual_polarity_elsewhere(ctx, index):
        confidence *= 0.5
    findings = [f for f in ctx.findings.get(index, []) if not f.implied] or \
        ctx.findings.get(index, [])
    observation = findings[0].observation if findings else None
    status = ABSENT if any(f.status == ABSENT for f in findings) else PRESENT
    how = "these findings" if loose else "this sentence"
    explanation = (f"Reference reports write {how} with the opposite polarity "
                   f"('{wording}'), not as here.")
    return Issue(UNSUPPORTED, index, round(confidence, 3),
                 harm_of(observation, status) if observation else Harm.LOW, explanation,
                 f"library: {own} as written, {times} with the other polarity "
                 f"({'same content words' if loose else 'same words'})", None, observation)


def run_checks(ctx: StudyContext) -> list[Issue]:
    """Every check, in rule order."""
    return (contradictions(ctx) + self_denials(ctx) + conceded_denials(ctx) + unnamed_acute(ctx)
            + denied_possibilities(ctx) + laterality_conflicts(ctx) + anatomy_sides(ctx)
            + out_of_domain(ctx) + unsupported_by_library(ctx))
