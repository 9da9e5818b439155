"""The three stages with the built-in rule engine: detect, localize, correct.

Stage 1 (detect) scores every image sentence from the judge's checks (contradictions, sides,
impression against findings, out-of-domain terms, what the library never writes), from the
comparative detector's finding (a comparison in a study with no prior exam) and from checks
of its own: an affirmative list joined by "or" ("Consolidation, effusion or pneumothorax."),
which reads as a denial that lost its "no" unless a hedge explains it; a finding worded as a
denial ("Definite pneumothorax."); and a denial worded as a present finding ("No ET tube ends
4.5 cm above the carina."), a statement that gained a "no". A sentence's score is
the noisy-OR of its signals; the report has an error when the best score reaches
``DETECT_THRESHOLD``.

Stage 2 (localize) ranks the sentences that reach it, best first.

Stage 3 (correct) proposes a replacement from what flagged the sentence:

* a substituted term -> the library's wording for that place in sentences worded like this
  one ("No pleural effusion or ___." -> "pneumothorax"), else the term removed from its list,
  else the sentence removed;
* a polarity problem -> the library's own opposite-polarity wording of the sentence when it
  has one, else the most idiomatic of the generic negations (or affirmations), ranked by the
  library's trigram model;
* a side conflict -> the sides swapped;
* a comparison without a prior exam -> the sentence without the comparison.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from workers.contradiction import undoes_paired_finding, unsettled_pair
from workers.correction.direction import Verdict, judge_direction, rests_on_own_text
from workers.correction.restore import context_model, gap_of, restore
from workers.correction.rewrite import (
    affirmations_of,
    apply_tokens,
    negations_of,
    replace_span,
    swap_sides,
)
from workers.library.stats import tokenize, tokens_of
from workers.nlp import extract_findings, harm_of
from workers.nlp.denial_words import denial_starts, denied_after, denied_words
from workers.nlp.findings import ABSENT, PRESENT
from workers.nlp.hedges import leaves_choice_open
from workers.nlp.polarity import negation_count, plain_denial
from workers.nlp.vocabulary import (
    CONCEPT_BY_NAME,
    LATERALITY_RE,
    LUNGS,
    MUSCULOSKELETAL,
    PLEURA,
    concept_mentions,
    mentions_concept,
)
from workers.rules import comparative
from workers.rules.checks import (
    CONTRADICTION,
    IMPRESSION_VS_FINDINGS,
    LATERALITY,
    RULE_OUT_OF_DOMAIN,
    UNSUPPORTED,
    Issue,
)
from workers.rules.denials import finding_counts
from workers.study.context import StudyContext
from workers.study.slots import slot_fills
from workers.types import Harm

DETECT_THRESHOLD = 0.5
DISJUNCTION = "disjunction"
DENIAL_SHAPE = "denial_shape"
AFFIRMATION_SHAPE = "affirmation_shape"
NEVER_DENIED = "never_denied"
COMPARATIVE = "comparative"


@dataclass(frozen=True)
class Signal:
    """One reason to suspect a sentence."""

    kind: str  # a judge rule, "disjunction" or "comparative"
    confidence: float
    explanation: str
    issue: Issue | None = None
    suggestion: str | None = None


@dataclass
class SentenceScore:
    index: int
    signals: list[Signal] = field(default_factory=list)

    @property
    def score(self) -> float:
        remaining = 1.0
        for signal in self.signals:
            remaining *= 1.0 - signal.confidence
        return 1.0 - remaining

    @property
    def top(self) -> Signal:
        return max(self.signals, key=lambda s: s.confidence)


@dataclass(frozen=True)
class Fix:
    """Stage 3's proposal: the replacement sentence ("" = remove it; None = no automatic
    replacement, the radiologist chooses between ``readings``), how it was made, and why it
    goes this way (``reason``, workers.correction.direction)."""

    text: str | None
    method: str  # library_wording, library_polarity, negation, affirmation, sides, removal
    detail: str
    support: int = 0
    reason: str = ""
    readings: tuple[dict, ...] = ()
    basis: str = ""  # what the direction rests on (workers.correction.direction.Verdict)
    # offsets in the sentence of the words a term fix replaced (the whole name it grew over)
    span: tuple[int, int] | None = None


def disjunction_signals(ctx: StudyContext) -> list[tuple[int, Signal]]:
    """Affirmative sentences that list two or more findings joined by "or" with no hedge."""
    out = []
    for i in ctx.image_sentences:
        sentence = ctx.sentence(i).text
        stated = [f for f in ctx.findings.get(i, []) if f.status == PRESENT and not f.implied]
        if len({f.observation for f in stated}) < 2 or not re.search(r"\bor\b", sentence, re.I):
            continue
        if any(f.status == ABSENT and not f.implied for f in ctx.findings.get(i, [])):
            continue
        if leaves_choice_open(sentence):
            continue
        names = ", ".join(dict.fromkeys(f.text.lower() or f.observation for f in stated))
        # a list of pleural or bone findings with no side, size or place is no differential
        # of one opacity ("atelectasis or scarring in the left base"): each of them, if there,
        # would be placed ("Pneumothorax or appreciable pleural effusion.")
        unplaced = all(_unplaced(f) for f in stated)
        why = ("; pleural and bone findings that are there are given a side, a size or a place"
               if unplaced else "")
        out.append((i, Signal(DISJUNCTION, 0.6 if unplaced else 0.5,
                              f"The sentence affirms a list joined by 'or' ({names}), the "
                              f"shape of a denial that lost its 'no'{why}.")))
    return out


def _unplaced(f) -> bool:
    """A pleural or bone finding stated with no side, size or place."""
    return (f.category in _PLACED_CATEGORIES and f.laterality is None and f.severity is None
            and f.location is None)


# Words reports use to deny a finding, hardly ever to state one: "no definite pneumothorax",
# "no appreciable effusion", "no evidence of edema"; and a caveat on how well a radiograph
# shows a finding, which only qualifies its absence ("although the sensitivity to detect a
# pneumothorax is diminished").
# ("appreciable" is not one: correct dev reports write "Appreciable right pleural effusion.")
_DENIAL_QUALIFIER_RE = re.compile(r"\b(?:definite|definitely|obvious|convincing|"
                                  r"evidence\s+of)\s+(?:[\w-]+\s+){0,2}$", re.IGNORECASE)
_SENSITIVITY_CAVEAT_RE = re.compile(r"\bsensitivity\s+(?:to|for)\s+(?:detect\w*|exclu\w*)",
                                    re.IGNORECASE)


# a denial given as an example of what the sentence said before ("..., notably no
# pneumothorax"): it exemplifies a denial ("No acute process, specifically no ...")
_EXAMPLE_RE = re.compile(r",\s*(notably|specifically|in particular|namely|particularly)\s+",
                         re.IGNORECASE)


def _denied_example(text: str) -> re.Match | None:
    """The first example word followed by a denial ("notably" of ", notably no ...")."""
    return next((m for m in _EXAMPLE_RE.finditer(text) if denial_starts(text, m.end())), None)


# "Pneumothorax is identified.", "There are pneumothoraces.", "Displaced fractures are
# demonstrated.": the whole sentence is a finding and a verb of seeing, nothing else
_BARE_RE = re.compile(r"^\s*(?:there\s+(?:is|are)\s+)?(?P<finding>[\w\s-]+?)\s*"
                      r"(?:(?:(?:is|are)\s+)?(?:clearly\s+)?(?:identified|seen|demonstrated|"
                      r"appreciated|detected|noted|present|visualized))?\s*\.?\s*$",
                      re.IGNORECASE)
# findings a report always places (a side, a size, a site) when they are there
_PLACED_CATEGORIES = frozenset({"Pleura", "Musculoskeletal"})


# what comes before a colon is a heading ("AP chest compared to ___: There is pneumothorax.")
_HEADING_RE = re.compile(r"^[^:]*:\s*")


def _bare_placed_finding(text: str, stated) -> bool:
    """One pleural or bone finding stated present with no side, size or place, in a sentence
    of nothing but it and a verb of seeing; or with "large", the size denials name ("no large
    effusion") and the one a report never leaves without a side ("Large pneumothorax is
    detected.")."""
    if len(stated) != 1:
        return False
    f = stated[0]
    text = _HEADING_RE.sub("", text)
    m = _BARE_RE.match(text)
    if not m or f.category not in _PLACED_CATEGORIES or f.laterality is not None \
            or f.location is not None:
        return False
    if f.severity is not None:
        return f.severity.lower() == "large"
    # a noun alone ("Pleural effusions." in a list of impressions) says too little
    return m.group(0).strip().rstrip(".").strip().lower() != m.group("finding").strip().lower()


def denial_shape_signals(ctx: StudyContext) -> list[tuple[int, Signal]]:
    """Affirmative sentences worded as a denial: a finding qualified by a word that reports
    use to deny it ("Definite pneumothorax.", "Evidence of pulmonary edema."), or stated with
    a caveat on the sensitivity to detect it."""
    out = []
    for i in ctx.image_sentences:
        sentence = ctx.sentence(i)
        example = _denied_example(sentence.text)
        if example and not negation_count(tokens_of(sentence.text[:example.start()])):
            out.append((i, Signal(DENIAL_SHAPE, 0.6,
                                  f"The sentence gives a denial ('{example.group(1)} no …') as "
                                  "an example of what it affirms; an example of an affirmation "
                                  "cannot be a denial ('There is no evidence of complications, "
                                  "notably no pneumothorax'): the shape of a denial that lost "
                                  "its 'no'.")))
            continue
        # conditions only: "evidence of prior vertebroplasty" states a procedure's trace
        stated = [f for f in ctx.findings.get(i, []) if f.status == PRESENT and not f.implied
                  and f.labels and "Support Devices" not in f.labels]
        if not stated:
            continue
        caveat = _SENSITIVITY_CAVEAT_RE.search(sentence.text)
        # the finding the caveat names ("to detect a pneumothorax") is no denial of its own
        caveat_at = sentence.start + caveat.start() if caveat else None
        if any(f.status == ABSENT and not f.implied
               and (caveat_at is None or f.start < caveat_at) for f in ctx.findings.get(i, [])):
            continue
        first = min(stated, key=lambda f: f.start)
        if caveat_at is not None and first.start > caveat_at:
            continue
        before = sentence.text[:first.start - sentence.start]
        m = _DENIAL_QUALIFIER_RE.search(before)
        bare = _bare_placed_finding(sentence.text, stated)
        if not m and not caveat and not bare:
            continue
        name = (first.text or first.observation).lower()
        if m:
            why = f"'{m.group().split()[0].lower()}', a word reports use to deny a finding"
        elif caveat:
            why = "a caveat on the sensitivity to detect it, which only a denial needs"
        else:
            why = ("no side, size or place, which a pleural or bone finding that is there "
                   "always has ('Pneumothorax is identified.' is 'No pneumothorax is "
                   "identified.' without its 'no')")
        out.append((i, Signal(DENIAL_SHAPE, 0.6,
                              f"The sentence affirms {name} with {why}: the shape of a denial "
                              "that lost its 'no'.")))
    return out


# What a report says only of a thing that is there, said right after a denied finding: where
# a device lies ("No ET tube ends 4.5 cm above the carina."), how it changed since a prior
# exam ("No right apical pneumothorax unchanged since ___.", "No remote rib fractures again"),
# or what it may be ("There is no left base opacity which may represent atelectasis"). A thing
# that is absent has no position, no course and no cause: the shape of a statement that gained
# a "no". ("No focal opacity to suggest pneumonia" is a denial's own idiom, not one of these.)
_POSITION_RE = re.compile(r"^(?:[\w-]+\s+){0,3}?(?:ends|terminates|passes|remains|projects|"
                          r"courses|extends|lies|traverses|sits|overlies|measures)\b",
                          re.IGNORECASE)
_CHANGE_RE = re.compile(r"^,?\s*(?:[\w-]+\s+){0,4}?(?:unchanged|again|stable|"
                        r"(?:that|which)\s+(?:has|have)\s+(?:increased|decreased|improved|"
                        r"worsened)|(?:slightly\s+)?(?:improved|worsened)\s+compared)\b",
                        re.IGNORECASE)
_CAUSE_RE = re.compile(r"^(?:[\w-]+\s+){0,8}?(?:(?:which|that)\s+(?:may|might|could|would|"
                       r"likely|probably)\s+(?:represent|reflect|be|indicate)|suggesting|"
                       r"reflective\s+of|likely\s+(?:reflecting|representing)|due\s+to)\b",
                       re.IGNORECASE)
_CLAUSE_END_RE = re.compile(r";|,\s*(?:although|but|however|though)\b|\s(?:although|but)\s",
                            re.IGNORECASE)


def _present_only_words(tail: str) -> str | None:
    """What the words after a denied finding say that only a present one can have."""
    if _POSITION_RE.search(tail):
        return "where it lies"
    if _CHANGE_RE.search(tail):
        return "how it changed since a prior exam"
    if _CAUSE_RE.search(tail):
        return "what it may represent"
    return None


# What a denial's own words may not say of the denied finding, since only a finding that is
# there has it: a grade below the largest ("No mild to moderate cardiomegaly"; a denial names
# at most the size it rules out: "no large effusion", "no moderate or large", "no more than
# mild"), a count or a numbered rib ("Multiple rib fractures ... are not seen", "No displaced
# right 7th rib fracture", "No multilevel degenerative changes"), a distribution ("left
# greater than right", "with a central predominance"), or a verb of persistence inside the
# mention ("No cardiac silhouette remains enlarged"). On the correct reports of the dev sets a
# graded denial comes only with "resolved" / "resolution of" (a finding that was there).
_GRADE_RE = re.compile(r"\b(?:mild|mildly|minimal|minimally|small|trace|tiny|slight|"
                       r"slightly|borderline|moderate|moderately)\b", re.IGNORECASE)
_UPPER_GRADE_RE = re.compile(r"\b(?:large|larger|significant|substantial|more\s+than|"
                             r"greater\s+than|or)\b", re.IGNORECASE)
_COUNT_RE = re.compile(r"\b(?:multiple|several|numerous|multilevel|\d+(?:st|nd|rd|th)|"
                       r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                       r"eleventh|twelfth)\s+rib)\b", re.IGNORECASE)
_DISTRIBUTION_RE = re.compile(r"\b(?:(?:left|right)\s+(?:greater|more)\s+than\s+"
                              r"(?:left|right)|predominan(?:ce|t|tly))\b", re.IGNORECASE)
_PHRASE_START_RE = re.compile(r"[,;:]|\b(?:and|but|or|is|are|was|were|has|have|with|of)\b",
                              re.IGNORECASE)
_PERSISTS_RE = re.compile(r"\b(?:remains?|persists?)\b", re.IGNORECASE)
# in the words between "no" and the finding: a spread over both sides ("No bilateral pleural
# effusions": a denial rules a finding out on either side without spreading it) or a texture
# ("heterogeneous"). Not "patchy" or "confluent" ("no patchy or confluent consolidation" is a
# denial's own wording), nor a course: "no worsening edema" compares, as "no new" does.
_PREMODIFIER_RE = {
    "a distribution": re.compile(r"\b(?:bilateral|bibasilar|bibasal|biapical)\b", re.I),
    "an appearance": re.compile(r"\b(?:heterogeneous)\b", re.I),
}


def _grade(premodifier: str) -> str | None:
    grade = _GRADE_RE.search(premodifier)
    if grade and not _UPPER_GRADE_RE.search(premodifier):
        return f"a grade ('{grade.group().lower()}'; a denial names at most the size it " \
               "rules out, as in 'no large effusion')"
    return None


_AND_OR_END_RE = re.compile(r"and/or\s+$", re.IGNORECASE)


def _readings(before: str, clause_tail: str) -> str | None:
    """Two readings weighed with "and/or" ("no underlying collapse and/or consolidation"):
    what a thing that is there may be; a denial rules both out with "or"."""
    and_or = _AND_OR_END_RE.search(before)
    # "no <one to four words> and/or " ends the words before the finding
    if re.match(r"and/or\b", clause_tail, re.IGNORECASE) \
            or (and_or and denied_words(before[:and_or.start()], 1, 4) is not None):
        return "two readings weighed with 'and/or', as of a thing that is there"
    return None


def _companions(ctx: StudyContext, index: int, f, clause_tail: str, clause_end: int
                ) -> str | None:
    """Findings the sentence states present and attaches to the denied one with "with" ("No
    cardiomegaly with retrocardiac atelectasis and a small left pleural effusion."): a
    finding that is not there comes with nothing."""
    if not re.match(r"with\s", clause_tail):
        return None
    # conditions only: "No pneumothorax with the chest tube in place" says where a device is
    stated = [g for g in ctx.findings.get(index, []) if g.status == PRESENT and not g.implied
              and f.end < g.start < clause_end and g.labels
              and "Support Devices" not in g.labels]
    if not stated:
        return None
    return f"what comes with it ('{stated[0].text or stated[0].observation}')"


def _present_only_attributes(premodifier: str, mention: str, tail: str) -> str | None:
    """What the denied mention itself, or the words that qualify it, say that only a finding
    that is there has."""
    grade = _grade(premodifier)
    if grade:
        return grade
    count = _COUNT_RE.search(premodifier)
    if count:
        return f"a count or a numbered place ('{count.group().lower()}')"
    spread = _DISTRIBUTION_RE.search(premodifier) or _DISTRIBUTION_RE.search(tail)
    if spread:
        return f"a distribution ('{spread.group().lower()}')"
    for what, pattern in _PREMODIFIER_RE.items():
        word = pattern.search(premodifier)
        if word:
            return f"{what} ('{word.group().lower()}')"
    if _PERSISTS_RE.search(mention):
        return "persistence ('remains', 'persists')"
    return None


def affirmation_shape_signals(ctx: StudyContext) -> list[tuple[int, Signal]]:
    """Denials worded as reports word a present finding: the finding denied ("no X",
    "without X", "X is not seen") and then given a position, a change since a prior exam or a
    cause, or a grade, a count or a distribution, which only a finding that is there has."""
    out = []
    for i in ctx.image_sentences:
        sentence = ctx.sentence(i)
        for f in ctx.findings.get(i, []):
            if f.status != ABSENT or f.implied:
                continue
            before = sentence.text[:f.start - sentence.start]
            after = sentence.text[f.end - sentence.start:]
            tail = after.lstrip()
            cut = _CLAUSE_END_RE.search(tail)
            clause_tail = tail[:cut.start()] if cut else tail
            clause_end = f.end + len(after) - len(tail) + len(clause_tail)
            # the words between a "no" / "without" and the finding, near it or further
            denied = denied_words(before)
            far = None if denied is not None else denied_words(before, 5, 9)
            verb, cue = "then says", "no"
            readings = _readings(before, clause_tail)
            if readings:
                what = readings
            elif denied is not None:
                premodifier = denied
                what = (_present_only_words(clause_tail)
                        or _companions(ctx, i, f, clause_tail, clause_end))
                if what is None:
                    verb = "gives it"
                    what = _present_only_attributes(premodifier, f.text, clause_tail)
            elif far is not None:
                # further from its "no" ("no interval appearance of mild to moderate ...
                # edema"), only a grade is read: the words between may name other things
                verb = "gives it"
                what = _grade(far)
            elif denied_after(clause_tail):
                # a denial stated after the finding ("Aortic calcifications are not seen.")
                # the words of its noun phrase before the finding
                premodifier = _PHRASE_START_RE.split(before)[-1]
                verb, cue = "gives it", "not"
                what = _present_only_attributes(premodifier, f.text, "")
            else:
                continue
            if what is None:
                continue
            name = f.text or f.observation
            out.append((i, Signal(AFFIRMATION_SHAPE, 0.6,
                                  f"The sentence denies {name} and {verb} {what}, which "
                                  "only a finding that is there has: the shape of a statement "
                                  f"that gained a '{cue}'.")))
            break
    return out


def never_denied_signals(ctx: StudyContext) -> list[tuple[int, Signal]]:
    """Plain denials of a finding the library states many times and never denies
    (workers.rules.denials): reports leave such a finding out when it is not there."""
    if ctx.library is None or not len(ctx.library):
        return []
    counts = finding_counts(ctx.library)
    out = []
    for i in ctx.image_sentences:
        named = {f.observation for f in ctx.findings.get(i, []) if not f.implied}
        # a finding denied in a list ("No consolidation, atelectasis or infiltrate.") or beside
        # another it is told apart from ("Calcification is seen ... a calcified lymph node is
        # not identified") is a deliberate checklist or contrast: only a denial of one finding
        # alone has the shape
        if len(named) != 1:
            continue
        for f in ctx.findings.get(i, []):
            # a device's absence is news after its removal ("No central line."), not a habit
            if f.status != ABSENT or f.implied or not plain_denial(f.cue) \
                    or "Support Devices" in f.labels:
                continue
            stated = counts.never_denied(f.observation, ctx.exclude)
            if not stated:
                continue
            name = f.text or f.observation
            out.append((i, Signal(NEVER_DENIED, 0.6,
                                  f"The sentence denies {name}, which the reference reports "
                                  f"state {stated} times and never deny on its own: reports "
                                  "name it when it is there and leave it out when it is not, "
                                  "so a denial of it is the shape of a statement that gained "
                                  "a 'no'.")))
            break
    return out


def comparison_signals(ctx: StudyContext) -> list[tuple[int, Signal]]:
    """Comparisons with a prior exam in a study that has none (the comparative detector's
    finding, with its explanation, so the combination aligns the two)."""

    return [(d.sentence_index, Signal(COMPARATIVE, d.confidence, d.explanation, None,
                                      d.suggestion)) for d in comparative.detect(ctx)]


def score_sentences(ctx: StudyContext, issues: list[Issue]) -> list[SentenceScore]:
    """Stage 1's per-sentence scores, best first."""
    scores: dict[int, SentenceScore] = {}
    for issue in issues:
        scores.setdefault(issue.sentence, SentenceScore(issue.sentence)).signals.append(
            Signal(issue.rule, issue.confidence, issue.explanation, issue))
    for index, signal in (disjunction_signals(ctx) + denial_shape_signals(ctx)
                          + affirmation_shape_signals(ctx) + never_denied_signals(ctx)
                          + comparison_signals(ctx)):
        scores.setdefault(index, SentenceScore(index)).signals.append(signal)
    return sorted(scores.values(), key=lambda s: (-s.score, s.index))


# --- stage 3 -------------------------------------------------------------------------------


@lru_cache(maxsize=16384)
def _single_finding(words: str) -> bool:
    """A wording that names exactly one finding of the vocabulary (a substituted term was one
    mention, so its replacement is one mention, not a list)."""
    return len(concept_mentions(words.lower())) == 1 and not re.search(r"\b(?:or|and)\b", words)


def _stated_elsewhere(ctx: StudyContext, index: int) -> dict[str, set[str | None]]:
    """Observations other sentences of the same section already state, each with the sides
    they are stated on (None: no side)."""
    section = ctx.sentence(index).section
    stated: dict[str, set[str | None]] = {}
    for i, items in ctx.findings.items():
        if i != index and ctx.sentence(i).section == section:
            for f in items:
                if not f.implied:
                    side = f.laterality or _one_side(ctx.sentence(i).text)
                    stated.setdefault(f.observation, set()).add(side)
    return stated


def _one_side(text: str) -> str | None:
    """The one side a sentence names, where the engine gave its finding none ("Numerous rib
    fractures are seen, particularly on the right"): left or right, else None."""
    return _only_side({m.lastgroup for m in LATERALITY_RE.finditer(text.lower())})


def _only_side(sides: set[str]) -> str | None:
    """"left" or "right" when it is the one side named, else None."""
    return next(iter(sides)) if len(sides) == 1 and sides <= {"left", "right"} else None


def _stated_besides(ctx: StudyContext, index: int, source: int, observations: set[str]
                    ) -> bool:
    """Whether a sentence of ``index``'s section other than ``source`` (and itself) states one
    of the observations: a restatement of ``source`` does not repeat what a third sentence
    says ("Unchanged moderate bilateral ___." is not a second "bilateral moderate pleural
    effusions" of its own impression)."""
    section = ctx.sentence(index).section
    return any(f.observation in observations and not f.implied
               for i, items in ctx.findings.items()
               if i not in (index, source) and ctx.sentence(i).section == section
               for f in items)


_SIDED = frozenset({PLEURA, LUNGS, MUSCULOSKELETAL})


def _gap_side(sentence: str, start: int) -> str | None:
    """The side the words just before a gap give it ("Right ___ tiny if any", "left-sided
    ___"): left or right, else None."""
    before = tokenize(sentence[:start])[-3:]
    return _only_side({m.lastgroup for t in before for m in [LATERALITY_RE.fullmatch(t.text)]
                       if m})


def rules_out(observation: str, sides: set[str | None] | None, gap_side: str | None) -> bool:
    """Whether a finding the section states elsewhere (on ``sides``) cannot have stood in a
    gap as well: it can when the gap has a side and the finding is one of a side (pleura,
    lung, bone) stated on the other side only ("Right ___ tiny if any." beside "Residual left
    pleural effusion small"); a heart has no side."""
    if sides is None:
        return False
    concept = CONCEPT_BY_NAME.get(observation)
    return gap_side is None or concept is None or concept.category not in _SIDED \
        or any(s not in ("left", "right") or s == gap_side for s in sides)


def _term_fix(ctx: StudyContext, index: int, issue: Issue) -> Fix | None:
    sentence = ctx.sentence(index).text
    if issue.start is None or issue.end is None:
        return None
    elsewhere = _stated_elsewhere(ctx, index)
    side = _gap_side(sentence, issue.start)

    def one_finding(words: str) -> bool:
        # one finding in the term's place, never a denial ("no evidence of pneumothorax"
        # would flip the sentence, not restore a word)
        return _single_finding(words) and not negation_count(tokens_of(words))

    def accept(words: str) -> bool:
        return one_finding(words) and not any(rules_out(o, elsewhere.get(o), side)
                                              for o in _observations(words))

    # the term grown over the rest of its name ("gastric" -> "gastric cancer"): the words
    # found wrong, which a fix may replace; the report's other words stay
    model = context_model(ctx.library) if ctx.library is not None and len(ctx.library) else None
    gap = gap_of(sentence, issue.start, issue.end,
                 model.background if model is not None else None)[:2]
    fills = [f for f in slot_fills(ctx, index, issue.start, issue.end, widen=1, widen_left=2,
                                   accept=accept)
             if not _repeats(sentence, f.start, f.end, " ".join(f.words))
             and _keeps_attributes(sentence, f.start, f.end, f.words)
             and _keeps_own_words(sentence, f.start, f.end, f.words, gap)]

    def library_fix(fill) -> Fix:
        words = " ".join(fill.words)
        where = " (also in a similar report)" if fill.nearby else ""
        return Fix(replace_span(sentence, fill.start, fill.end, words), "library_wording",
                   f"library sentences worded like this one read '{words}' there "
                   f"({fill.count} time{'s' if fill.count != 1 else ''}{where})", fill.count,
                   span=(min(fill.start, gap[0]), max(fill.end, gap[1])))

    # the report's own other section first: the impression restates the findings
    # a finding the sentence already names elsewhere did not stand in the gap as well
    restored = restore(ctx, index, issue.start, issue.end,
                       lambda words: accept(words) and not _repeats(sentence, *gap, words),
                       lambda words, other: one_finding(words)
                       and not _repeats(sentence, *gap, words)
                       and not _stated_besides(ctx, index, other, _observations(words)))
    if restored is not None and restored.source in ("report", "sentence") \
            and not _repeats(sentence, restored.start, restored.end, restored.words):
        return Fix(replace_span(sentence, restored.start, restored.end, restored.words),
                   f"{restored.source}_wording", restored.detail, restored.support,
                   span=(restored.start, restored.end))
    for fill in fills:
        if fill.whole:
            return library_fix(fill)
    if fills:
        return library_fix(fills[0])
    if restored is not None and not _repeats(sentence, restored.start, restored.end,
                                             restored.words):
        return Fix(replace_span(sentence, restored.start, restored.end, restored.words),
                   "library_context", restored.detail, restored.support,
                   span=(restored.start, restored.end))
    without = replace_span(sentence, gap[0], gap[1], "")
    if len(tokens_of(without)) >= 2 and mentions_concept(without.lower()):
        return Fix(without, "removal", f"'{sentence[gap[0]:gap[1]]}' removed", span=gap)
    return Fix("", "removal", "the sentence removed")


_ATTRIBUTE_WORD_RE = re.compile(r"^(?:left|right|bilateral\w*|bi\w+|mild\w*|moderate\w*|"
                                r"severe\w*|small|large|tiny|trace|minimal\w*)$")


_FUNCTION_WORDS = frozenset({"a", "an", "the", "there", "is", "are", "was", "were", "be", "of",
                             "in", "at", "on", "to", "and", "with"})


# the sentence's verb keeps its number: "There is ___ at the right lung base." is not refilled
# with "are calcified granulomas"
_NUMBER_VERBS = frozenset({"is", "are", "was", "were"})


def _keeps_own_words(sentence: str, start: int, end: int, words, gap: tuple[int, int]) -> bool:
    """A wording that took in words around the term's name keeps them all ("There is
    unchanged ___." is not refilled with "hyperinflation of the lungs", nor "extensive ___"
    with "a small hiatal hernia"): only the words found wrong are replaced."""
    outside = [t for t in tokenize(sentence) if start <= t.start and t.end <= end
               and not (gap[0] <= t.start and t.end <= gap[1])
               and (t.text not in _FUNCTION_WORDS or t.text in _NUMBER_VERBS)]
    return all(t.text in words for t in outside)


def _keeps_attributes(sentence: str, start: int, end: int, words) -> bool:
    """A wording that took in words around the term keeps the report's own side and size
    ("Right ___ is unchanged" is not refilled with a finding of no side)."""
    taken = [w for w in tokens_of(sentence[start:end]) if _ATTRIBUTE_WORD_RE.match(w)]
    return all(w in words for w in taken)


def _observations(text: str) -> set[str]:

    return {f.observation for f in extract_findings(text) if not f.implied}


@lru_cache(maxsize=16384)
def _repeats(sentence: str, start: int, end: int, words: str) -> bool:
    rest = (sentence[:start] + " " + sentence[end:]).lower()
    lower = words.lower()
    return any(lower[a:b] in rest for _, a, b in concept_mentions(lower))


def _polarity_fix(ctx: StudyContext, index: int, deny: bool) -> Fix | None:
    sentence = ctx.sentence(index).text
    polarity = ctx.polarity(index)
    if polarity.variant is not None:
        return Fix(apply_tokens(sentence, polarity.variant), "library_polarity",
                   f"the library writes '{' '.join(polarity.variant)}' "
                   f"{polarity.variant_count} time{'s' if polarity.variant_count != 1 else ''}",
                   polarity.variant_count)
    tokens = ctx.tokens(index)
    candidates = negations_of(tokens) if deny else affirmations_of(tokens)
    if not candidates:
        return None
    if ctx.library is not None:
        stats = ctx.library.stats
        best = max(candidates, key=lambda t: (stats.count(t, ctx.exclude),
                                              stats.fluency(t, ctx.exclude)))
    else:
        best = candidates[0]
    return Fix(apply_tokens(sentence, best), "negation" if deny else "affirmation",
               "the most idiomatic " + ("denial" if deny else "affirmation")
               + " of the sentence")


def _candidate(ctx: StudyContext, scored: SentenceScore) -> tuple[Fix, Signal | None]:
    """Stage 3's first proposal for the localized sentence, and the signal it answers."""
    index = scored.index
    sentence = ctx.sentence(index).text
    for signal in sorted(scored.signals, key=lambda s: -s.confidence):
        issue = signal.issue
        if issue is not None and issue.term and issue.rule in (RULE_OUT_OF_DOMAIN, UNSUPPORTED) \
                and issue.start is not None:
            fix = _term_fix(ctx, index, issue)
            if fix:
                return fix, signal
        if signal.kind == COMPARATIVE and signal.suggestion is not None:
            return Fix(signal.suggestion, "comparison_removed",
                       "the comparison with a prior exam removed"), signal
        if signal.kind == LATERALITY and issue is not None:
            swapped = swap_sides(sentence)
            if swapped:
                return Fix(swapped, "sides", "left and right swapped"), signal
        if signal.kind in (CONTRADICTION, IMPRESSION_VS_FINDINGS, UNSUPPORTED, DISJUNCTION,
                           DENIAL_SHAPE, AFFIRMATION_SHAPE, NEVER_DENIED):
            deny = _states_present(ctx, index, issue)
            fix = _polarity_fix(ctx, index, deny)
            if fix:
                return fix, signal
    return Fix("", "removal", "the sentence removed"), None


_METHOD_REASONS = {
    "report_wording": "a word a chest radiograph cannot show stands where another section of "
                      "this report names a finding with the same words around it",
    "sentence_wording": "a word a chest radiograph cannot show stands where the sentence's own "
                        "words (a bone, a fracture's grade or a rib's place) describe a "
                        "fracture",
    "library_context": "a word a chest radiograph cannot show stands where library sentences "
                       "name this finding between the same words",
    "library_wording": "a word a chest radiograph cannot show, or no reference report uses, "
                       "stands where sentences worded like this one name a finding",
    "removal": "the sentence's words are what is wrong, and nothing it states is lost",
    "comparison_removed": "the study has no prior exam, so the comparison has nothing to "
                          "compare with; the finding itself is kept",
    "sides": "the impression and the findings put the finding on opposite sides",
    "affirmation": "the sentence denies what its own words describe as present, or what the "
                   "report states elsewhere",
    "library_polarity": "reference reports write these words with the other polarity",
    "negation": "the sentence's claim disagrees with the rest of the report",
}


def library_denial(ctx: StudyContext, index: int) -> tuple[str, int] | None:
    """(wording, times) when the library writes the sentence's words only as a denial: word
    for word at least twice, or its content words at least three times, and never as here."""
    polarity = ctx.polarity(index)
    if polarity.own:
        return None
    if polarity.variant is not None and polarity.variant_count >= 2:
        return " ".join(polarity.variant), polarity.variant_count
    if polarity.loose_variant is not None and polarity.loose_variants >= 3 \
            and polarity.loose_own == 0:
        return " ".join(polarity.loose_variant), polarity.loose_variants
    return None


# the sentence's own words that make a lost denial the reason for a fix's direction
_SHAPE_REASONS = {
    DISJUNCTION: "the sentence affirms a list joined by 'or', the shape of a denial that lost "
                 "its 'no'",
    DENIAL_SHAPE: "the sentence words the finding as reports word a denial ('definite', "
                  "'appreciable', 'evidence of', a caveat on the sensitivity to detect it)",
}


def correct_sentence(ctx: StudyContext, scored: SentenceScore) -> Fix:
    """Stage 3 for the localized sentence, in the direction the report's own text supports
    (workers.correction.direction): a fix that would delete a finding the sentence states,
    with only a summary or the library against it, becomes two readings to choose from."""
    fix, signal = _candidate(ctx, scored)
    issue = signal.issue if signal is not None else None
    own_span = None
    if issue is not None and issue.rule in (RULE_OUT_OF_DOMAIN, UNSUPPORTED) and issue.term \
            and issue.start is not None \
            and fix.method in ("library_wording", "report_wording", "sentence_wording",
                               "library_context", "removal") \
            and fix.text != "":
        own_span = fix.span or (issue.start, issue.end)
    own_shape = next((_SHAPE_REASONS[s.kind] for s in scored.signals
                      if s.kind in _SHAPE_REASONS), None)
    related = issue.related if issue is not None else None
    denial_wording = library_denial(ctx, scored.index) \
        if fix.method in ("library_polarity", "negation") else None
    verdict = judge_direction(ctx, scored.index, fix.text, own_span=own_span,
                              own_shape=own_shape, related=related,
                              method_reason=_METHOD_REASONS.get(fix.method, fix.detail),
                              denial_wording=denial_wording)
    pair = None if rests_on_own_text(verdict.basis) else \
        undoes_paired_finding(ctx, scored.index, fix.text)
    if pair is not None and verdict.allowed:
        verdict = _refused_by_pair(scored.index, pair, verdict)
    unsettled = None if "own_words" in verdict.basis.split("+") or fix.text is None \
        or fix.text == ctx.sentence(scored.index).text else unsettled_pair(ctx, scored.index)
    if unsettled is not None and verdict.allowed:
        other = unsettled.other_of(scored.index).sentence
        verdict = Verdict(False, f"sentence {other + 1} says otherwise and either may be right: "
                                 f"the text alone cannot say which, so neither is changed "
                                 f"automatically", verdict.lost, other, "none")
        readings = (
            {"choice": "keep", "sentence": scored.index, "text": ctx.sentence(scored.index).text,
             "label": f"Keep this sentence as written (then sentence {other + 1} is the one "
                      f"to correct)"},
            {"choice": "other", "sentence": scored.index, "text": fix.text,
             "label": f"Or, if sentence {other + 1} is right, change this sentence to"})
        return Fix(None, "two_readings", f"not made automatically ({fix.detail})", fix.support,
                   verdict.reason, readings, "none")
    if verdict.allowed:
        return replace(fix, reason=verdict.reason, basis=verdict.basis)
    # against a contradicting normal statement the finding's removal is not even offered
    readings = readings_for(ctx, scored.index, fix.text, verdict, offer_other=pair is None)
    return Fix(None, "two_readings", f"not made automatically ({fix.detail})", fix.support,
               verdict.reason, readings, "none")


def _refused_by_pair(index: int, pair, verdict: Verdict) -> Verdict:
    """A fix whose reason is not the report's own text may not remove the positive finding of
    a contradicting pair (workers.contradiction): the normal side is the one doubted."""
    other = pair.other_of(index).sentence
    return Verdict(False, f"sentence {other + 1} contradicts this finding, and with the text "
                          f"alone the normal statement is the side in doubt: the finding is "
                          f"not removed to agree with it", verdict.lost, other, "none")


def readings_for(ctx: StudyContext, index: int, other_reading: str, verdict, *,
                 offer_other: bool = True) -> tuple[dict, ...]:
    """The choices when the text does not say which side is wrong: keep the sentence (and
    align the sentence that disagrees with it), or (``offer_other``) the other reading."""
    sentence = ctx.sentence(index).text
    readings = [{"choice": "keep", "sentence": index, "text": sentence,
                 "label": "Keep this sentence as written"}]
    if verdict.related is not None and verdict.related != index:
        aligned = _aligned_summary(ctx, verdict.related, index, verdict.lost)
        if aligned:
            readings.append({"choice": "align", "sentence": verdict.related, "text": aligned,
                             "label": f"and change sentence {verdict.related + 1} to agree"})
    if not offer_other:
        return tuple(readings)
    if other_reading:
        readings.append({"choice": "other", "sentence": index, "text": other_reading,
                         "label": "Or, if the finding is not there, change this sentence to"})
    else:
        readings.append({"choice": "other", "sentence": index, "text": "",
                         "label": "Or, if the finding is not there, remove this sentence"})
    return tuple(readings)


def _aligned_summary(ctx: StudyContext, summary: int, index: int, lost) -> str | None:
    """The disagreeing sentence made to agree with the finding: its own affirmation when it
    denies the finding in so many words ("No pleural effusion." -> "Pleural effusion."), else
    (a normal statement, "No acute cardiopulmonary process.") the finding's own sentence."""
    observations = {f.observation for f in lost}
    explicit = [f for f in ctx.findings.get(summary, []) if f.status == ABSENT
                and not f.implied and f.observation in observations]
    if explicit:
        fix = _polarity_fix(ctx, summary, deny=False)
        if fix is not None and fix.text:
            return fix.text
    return ctx.sentence(index).text


def _states_present(ctx: StudyContext, index: int, issue: Issue | None) -> bool:
    """Whether the sentence's suspect claim is an affirmation (so the fix denies it)."""
    findings = [f for f in ctx.findings.get(index, []) if not f.implied]
    if issue is not None and issue.observation:
        for f in findings:
            if f.observation == issue.observation:
                return f.status != ABSENT
    return negation_count(ctx.tokens(index)) == 0


def harm_for(ctx: StudyContext, index: int, signal: Signal) -> Harm:
    """The harm of the finding the signal is about, else of the sentence's worst finding."""
    if signal.issue is not None:
        return signal.issue.harm
    findings = [f for f in ctx.findings.get(index, []) if not f.implied]
    if not findings:
        return Harm.LOW
    return max((harm_of(f.observation, f.status) for f in findings), key=lambda h: h.rank)


def confidence_band(score: float) -> float:
    """A stage-1 score as a detection's confidence (never a certainty)."""
    return round(min(0.99, max(0.0, score)), 3)


__all__ = ["DETECT_THRESHOLD", "Fix", "SentenceScore", "Signal", "affirmation_shape_signals",
           "correct_sentence", "denial_shape_signals", "disjunction_signals", "harm_for",
           "never_denied_signals", "readings_for", "score_sentences"]
