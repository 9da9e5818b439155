"""The five kinds of contradiction, each a function of the report's claims.

* ``heart_size``: a normal heart (or "no cardiomegaly") against cardiomegaly / an enlarged
  cardiac silhouette;
* ``global_normal``: "no acute cardiopulmonary process", "normal chest", "no acute
  abnormality" against an acute finding stated elsewhere;
* ``presence``: a finding denied in one sentence (or a structure called normal: "the pleural
  spaces are clear") and stated present in another;
* ``side``: the IMPRESSION puts a finding on the side the FINDINGS do not;
* ``severity``: the same finding small in one sentence and large in another.

What a normal statement denies is the hierarchy's (``hierarchy.contradicts``, the summary rows
of workers/nlp/rules/hierarchy.tsv), not a list kept here. Only two different sentences make a
pair (one sentence at odds with itself is the judge's). ``statement_rules.py`` compares the
statement model's statements (issue 31).
"""
from __future__ import annotations

import re
from dataclasses import replace

from workers.nlp.findings import ABSENT, PRESENT, UNCERTAIN, Finding
from workers.nlp.harm import harm_of
from workers.nlp.hedges import hedged, leans_to, leaves_open
from workers.nlp.hierarchy import contradicts
from workers.nlp.statements import NO_ACUTE_ABNORMALITY, summary_name
from workers.nlp.vocabulary import (
    CONCEPT_BY_NAME,
    GLOBAL_BONE_PHRASE,
    GLOBAL_BONE_RE,
    GLOBAL_NORMAL_PHRASE,
    GLOBAL_NORMAL_RE,
    NON_LUNG_SITES,
    ancestors,
    similar,
)
from workers.study.context import StudyContext

from . import guards
from .pairs import GLOBAL_NORMAL, HEART_SIZE, PRESENCE, SEVERITY, SIDE, Claim, Contradiction, pair

CONFIDENCE = {HEART_SIZE: 0.75, PRESENCE: 0.75, GLOBAL_NORMAL: 0.7, SIDE: 0.7, SEVERITY: 0.7}

# What a global normal statement denies, and what a structure called normal ("the pleural
# spaces are clear", "lungs are clear") denies, is the hierarchy's (workers/nlp/rules/
# hierarchy.tsv, its summary rows): acute findings for "no acute abnormality" (those of the
# heart and lungs for "no acute cardiopulmonary process": it says nothing of a rib), and for a
# clear lung not the atelectasis, scar or nodule real reports often name beside it.
_CARDIOPULMONARY_RE = re.compile(r"\b(?:cardiopulmonary|cardiothoracic|pulmonary|lung|"
                                 r"pleuropulmonary)\b", re.IGNORECASE)
# Wordings of cardiomegaly that are not a heart-size statement: one chamber, a diagnosis.
_NOT_HEART_SIZE_RE = re.compile(r"atri|ventric|cardiomyopathy", re.IGNORECASE)
# Observations of which a report often names several (one per side, one per place).
_MANY = frozenset({"nodule", "granuloma", "calcification", "calcified lymph node", "scarring",
                   "surgical clips", "opacity", "atelectasis", "interstitial markings"})
# Observations whose size words describe the one finding, not one of several.
SIZED = frozenset({"pleural effusion", "pneumothorax", "hydropneumothorax", "cardiomegaly",
                   "edema", "pericardial effusion", "pneumomediastinum",
                   "subcutaneous emphysema", "vascular congestion", "emphysema"})
_RANK = {"trace": (0, 0), "minimal": (0, 0), "mild": (1, 1), "small": (1, 1),
         "moderate": (2, 2), "severe": (3, 3), "large": (3, 3), "small to moderate": (1, 2),
         "mild to moderate": (1, 2), "moderate to large": (2, 3), "moderate to severe": (2, 3),
         "trace to small": (0, 1), "minimal to mild": (0, 1), "small to large": (1, 3)}
_OVERLOOKED_IN_DENIALS = frozenset({"opacity", "support device", "lesion"})


def _text(ctx: StudyContext, index: int) -> str:
    return ctx.sentence(index).text


def _clean_positive(ctx: StudyContext, index: int, f: Finding) -> bool:
    """A positive claim the radiologist committed to: stated present, not implied, not
    hedged, not a prior exam's or the history's, and not in a sentence that revises the
    report."""
    if f.status != PRESENT or f.implied:
        return False
    text = _text(ctx, index)
    start = f.start - ctx.sentence(index).start
    return not (hedged(text) or guards.stated_as_prior(text, start)
                or guards.revision(text))


def _positives(ctx: StudyContext) -> list[tuple[int, Finding]]:
    return [(i, f) for i in ctx.image_sentences for f in ctx.findings.get(i, [])
            if _clean_positive(ctx, i, f)]


def _denials(ctx: StudyContext, implied: bool | None = None) -> list[tuple[int, Finding]]:
    """Absent findings of unhedged sentences (``implied``: only implied ones, only explicit
    ones, or both with None)."""
    out = []
    for i in ctx.image_sentences:
        if hedged(_text(ctx, i)) or guards.revision(_text(ctx, i)):
            continue
        for f in ctx.findings.get(i, []):
            if f.status == ABSENT and (implied is None or f.implied == implied):
                out.append((i, f))
    return out


def _sections(ctx: StudyContext) -> dict[int, str]:
    return {s.index: s.section for s in ctx.parsed.sentences}


def _claim(ctx: StudyContext, index: int, f: Finding) -> Claim:
    return Claim.of(index, f, _text(ctx, index))


def _narrowed(ctx: StudyContext, index: int, denied: Finding, stated_index: int,
              found: Finding | None = None) -> bool:
    """The denial's own words narrow it to something the stated finding is not ("no new",
    "no displaced", "no acute" beside words the finding's sentence does not use)."""
    sentence = ctx.sentence(index)
    words = guards.denial_qualifiers(denied, sentence.text, sentence.start)
    stated = _text(ctx, stated_index).lower()
    if found is not None:
        words -= guards.own_nature(found, stated)
    return any(not re.search(rf"\b{re.escape(w)}\b", stated) for w in words)


def heart_size(ctx: StudyContext) -> list[Contradiction]:
    """A normal heart ("heart size is normal", "no cardiomegaly", "the cardiomediastinal
    silhouette is within normal limits") against cardiomegaly or an enlarged silhouette."""
    sections = _sections(ctx)
    positives = [(i, f) for i, f in _positives(ctx) if f.observation == "cardiomegaly"
                 and not _NOT_HEART_SIZE_RE.search(f.text)]
    out = []
    for j, denied in _denials(ctx):
        if denied.observation != "cardiomegaly" or guards.change_denial(denied):
            continue
        for i, stated in positives:
            if i == j or (not denied.implied and _narrowed(ctx, j, denied, i)):
                continue
            if not guards.sizes_agree(denied, stated):
                continue
            out.append(pair(HEART_SIZE, _claim(ctx, j, denied), _claim(ctx, i, stated),
                            CONFIDENCE[HEART_SIZE], sections))
    return out


def _global_statements(ctx: StudyContext) -> list[tuple[int, Finding, str]]:
    """(sentence, one of its implied findings, the global words) of each unhedged global
    normal statement that is not about a change since a prior exam."""
    out = []
    seen = set()
    for j, f in _denials(ctx, implied=True):
        if f.cue not in (GLOBAL_NORMAL_PHRASE, GLOBAL_BONE_PHRASE) or j in seen:
            continue
        if guards.change_denial(f):
            continue  # "no new acute process": a comparison, not a statement of the film
        seen.add(j)
        lower = _text(ctx, j).lower()
        m = (GLOBAL_NORMAL_RE if f.cue == GLOBAL_NORMAL_PHRASE else GLOBAL_BONE_RE).search(lower)
        words = _text(ctx, j)[m.start():m.end()] if m else _text(ctx, j).rstrip(". ")
        out.append((j, f, words))
    return out


def _related(a: str, b: str) -> bool:
    return a == b or a in ancestors(b) or b in ancestors(a) or similar(a, b)


def global_normal(ctx: StudyContext) -> list[Contradiction]:
    """"No acute cardiopulmonary process" / "normal chest" / "no acute abnormality" against
    an acute finding (effusion, pneumothorax, consolidation, edema, pneumonia, fracture, mass)
    stated in another sentence. Not against an old, stable or trace finding, nor one the
    statement itself names or leaves room for."""
    sections = _sections(ctx)
    out = []
    for j, implied, words in _global_statements(ctx):
        text = _text(ctx, j)
        named = guards.named_beside(ctx.findings.get(j, []))
        bone = implied.cue == GLOBAL_BONE_PHRASE
        cardiopulmonary = bool(_CARDIOPULMONARY_RE.search(words))
        for i, stated in _positives(ctx):
            obs = stated.observation
            summary = GLOBAL_BONE_PHRASE if bone else (
                GLOBAL_NORMAL_PHRASE if cardiopulmonary else NO_ACUTE_ABNORMALITY)
            if i == j or not contradicts(summary, obs):
                continue
            if {implied.laterality, stated.laterality} == {"left", "right"}:
                continue  # "no acute findings on the right" says nothing of the left
            if guards.exception_leaves_room(text, named, obs, _related):
                continue
            if guards.chronic(_text(ctx, i)) or stated.severity in ("trace", "minimal"):
                continue
            if guards.threshold_leaves_room(words, stated):
                continue
            claim = Claim(j, _as_denial(implied, obs), words)
            out.append(pair(GLOBAL_NORMAL, claim, _claim(ctx, i, stated),
                            CONFIDENCE[GLOBAL_NORMAL], sections))
    return out


def _as_denial(implied: Finding, observation: str) -> Finding:
    """The global statement's denial of ``observation`` (its implied findings list only the
    lung and pleura; a fracture or a mass is denied as well)."""
    return replace(implied, observation=observation, harm=harm_of(observation, ABSENT),
                   category=CONCEPT_BY_NAME[observation].category)


def presence(ctx: StudyContext) -> list[Contradiction]:
    """A finding denied ("no pneumothorax") or a structure called normal ("the pleural spaces
    are clear") in one sentence, and stated present in another: same observation, the denial
    on the finding's side, size and place, and not narrowed by its own words."""
    sections = _sections(ctx)
    # "opacity" describes before it names: a basal opacity may be the atelectasis or scar that
    # "no airspace disease" leaves room for
    positives = [(i, f) for i, f in _positives(ctx)
                 if f.observation not in ("cardiomegaly", "opacity")]
    out: dict[tuple[int, int], Contradiction] = {}
    for j, denied in _denials(ctx):
        if denied.observation == "cardiomegaly" or guards.change_denial(denied):
            continue
        if denied.implied and (denied.cue in (GLOBAL_NORMAL_PHRASE, GLOBAL_BONE_PHRASE)
                               or not contradicts(summary_name(denied, _text(ctx, j)),
                                                  denied.observation)
                               or denied.text.lower() == "chest"):
            # "chest" is a subject only in a global statement ("the chest is normal"); in
            # "AP chest compared to ___: heart size normal" it names the film
            continue
        text_j = _text(ctx, j)
        named = guards.named_beside(ctx.findings.get(j, []))
        for i, stated in positives:
            if i == j or (i, j) in out or (j, i) in out:
                continue
            if not (stated.observation == denied.observation or (
                    denied.observation in ancestors(stated.observation)
                    and denied.observation not in _OVERLOOKED_IN_DENIALS)):
                continue
            if not (guards.sides_agree(denied, stated) and guards.places_agree(denied, stated)
                    and guards.sizes_agree(denied, stated)):
                continue
            if denied.implied:
                # a normal structure is a summary: it leaves room for what its sentence names
                # or excepts, for an old or a trace finding, and for a lung finding placed
                # outside the lungs ("chest wall mass" beside "lungs are clear")
                if CONCEPT_BY_NAME[stated.observation].lung \
                        and stated.location in NON_LUNG_SITES:
                    continue
                if guards.exception_leaves_room(text_j, named, stated.observation, _related):
                    continue
                if guards.chronic(_text(ctx, i)) or stated.severity in ("trace", "minimal"):
                    continue
            elif _narrowed(ctx, j, denied, i, stated):
                continue
            if guards.lasting(_text(ctx, i)) or guards.threshold_leaves_room(text_j, stated):
                continue
            out[(j, i)] = pair(PRESENCE, _claim(ctx, j, denied), _claim(ctx, i, stated),
                               CONFIDENCE[PRESENCE], sections)
    return list(out.values())


# A denial that leaves room for a doubt ("no definite pneumonia", "no convincing effusion").
_ROOM_FOR_DOUBT_RE = re.compile(r"\b(?:definite|definitive|convincing|frank|overt|obvious|"
                                r"significant|large|acute|new|other|additional|further)\b",
                                re.IGNORECASE)


def _cued_claim(ctx: StudyContext, index: int, f: Finding) -> Claim:
    """A claim in the words that decide it: its cue and the finding ("concerning for
    pneumonia", "No evidence of pneumonia")."""
    claim = _claim(ctx, index, f)
    return replace(claim, words=f"{f.cue} {claim.words}") if f.cue else claim


def doubted_denial(ctx: StudyContext) -> list[Contradiction]:
    """A finding called likely in one sentence ("patchy opacity, concerning for pneumonia")
    and denied outright in another ("No evidence of pneumonia."): the same observation on the
    same side and place; not a hedge that only leaves it open ("cannot be excluded",
    "versus"), nor a denial that leaves room for a doubt ("no definite pneumonia")."""
    sections = _sections(ctx)
    out = []
    for j, denied in _denials(ctx, implied=False):
        text_j = _text(ctx, j)
        if guards.change_denial(denied) or _ROOM_FOR_DOUBT_RE.search(
                text_j, 0, denied.start - ctx.sentence(j).start):
            continue
        for i in ctx.image_sentences:
            text_i = _text(ctx, i)
            if i == j or leaves_open(text_i) or guards.revision(text_i):
                continue
            for hedged_finding in ctx.findings.get(i, []):
                if hedged_finding.status != UNCERTAIN or hedged_finding.implied \
                        or hedged_finding.observation != denied.observation \
                        or not leans_to(hedged_finding.cue or ""):
                    continue
                if not (guards.sides_agree(denied, hedged_finding)
                        and guards.places_agree(denied, hedged_finding)):
                    continue
                out.append(pair(PRESENCE, _cued_claim(ctx, j, denied),
                                _cued_claim(ctx, i, hedged_finding), CONFIDENCE[PRESENCE],
                                sections))
                break
    return out


def side(ctx: StudyContext) -> list[Contradiction]:
    """The IMPRESSION puts a finding on one side and the FINDINGS only on the other (two
    sentences of one section may name both sides of a bilateral finding)."""
    sections = _sections(ctx)
    stated = [(i, f) for i, f in _positives(ctx) if not CONCEPT_BY_NAME[f.observation].device
              and f.observation not in _MANY]
    findings = [(i, f) for i, f in stated if sections[i] == "findings"]
    out = []
    seen = set()
    for i, f in stated:
        if sections[i] != "impression" or f.laterality not in ("left", "right"):
            continue
        same = [(j, g) for j, g in findings if _related(f.observation, g.observation)
                and (f.location is None or g.location is None or f.location == g.location)]
        sides = {g.laterality for _, g in same}
        if not same or f.laterality in sides or "bilateral" in sides or None in sides:
            continue
        j, g = same[0]
        if (i, j) in seen:
            continue
        seen.add((i, j))
        out.append(pair(SIDE, _claim(ctx, j, g), _claim(ctx, i, f), CONFIDENCE[SIDE],
                        sections))
    return out


def _apart(a: str, b: str) -> bool:
    """Two sizes at least two steps apart (small vs large, mild vs severe)."""
    if a not in _RANK or b not in _RANK:
        return False
    (lo_a, hi_a), (lo_b, hi_b) = _RANK[a], _RANK[b]
    return lo_b - hi_a >= 2 or lo_a - hi_b >= 2


def severity(ctx: StudyContext) -> list[Contradiction]:
    """The same finding (same side, same place) small in one sentence and large in another,
    neither sentence speaking of a change since a prior exam."""
    sections = _sections(ctx)
    stated = [(i, f) for i, f in _positives(ctx) if f.observation in SIZED and f.severity
              and not guards.change_denial(f)]
    out = []
    for n, (i, f) in enumerate(stated):
        for j, g in stated[n + 1:]:
            if i == j or g.observation != f.observation or g.laterality != f.laterality:
                continue
            if f.location and g.location and f.location != g.location:
                continue
            if _apart(f.severity, g.severity):
                out.append(pair(SEVERITY, _claim(ctx, i, f), _claim(ctx, j, g),
                                CONFIDENCE[SEVERITY], sections))
    return out


RULES = (heart_size, global_normal, presence, doubted_denial, side, severity)
