"""Restoring a replaced finding when no library sentence is worded like the report's.

A substituted term ("Small right gastroesophageal reflux disease increased.") stands where a
chest finding stood. The library's whole-sentence wordings (workers.study.slots) only help
when the library writes sentences like the report's; a library in another style (the IU
reports against a hospital's own wording) seldom does. Two sources that do not need it:

* **the report's own other section** — the IMPRESSION restates what the FINDINGS describe
  (and the other way round): a finding there with the same words around it ("small right
  pleural effusion" against "small right ___") is what stood in the gap;
* **similar contexts** — which chest finding the library writes between the same words (one
  to three words either side, each position counted apart: "remote rib ___", "bilateral ___
  are"), a naive-Bayes reading of the library's finding mentions, smoothed towards how often
  each word stands near any finding, so one odd sentence does not decide.

The gap is the suspect term grown over the neighbouring words that are no radiology word
(a disease name of several words: "obstructive sleep apnea"), never over a finding, a side, a
size or a function word.
"""
from __future__ import annotations

import math
import re
import weakref
from collections import Counter, defaultdict
from dataclasses import dataclass

from workers.correction.own_words import describes_fracture, fracture_cues, fracture_wording
from workers.library.stats import tokenize
from workers.library.vectors import report_sentences
from workers.nlp import extract_findings
from workers.nlp.lexicon import in_lists, is_radiology_word
from workers.nlp.polarity import is_negated
from workers.nlp.vocabulary import (
    LATERALITY_RE,
    concept_spans,
    is_concept_form,
    mentions_concept,
)
from workers.study.context import STOPWORDS, StudyContext

# positions of the context words read around a mention (negative: before it)
POSITIONS = (-3, -2, -1, 1, 2)
# the weight of a wording's own context counts against all findings' (interpolation)
WEIGHT = 0.6
MIN_MENTIONS = 5
# context words the library writes beside findings fewer times than this are skipped (a
# library in another style never writes "increased" after a finding; that says nothing)
INFORMATIVE_FROM = 5
# the nearer a word, the more it says about what stands in the gap
_NEARNESS = {1: 1.0, 2: 0.6, 3: 0.3}
MAX_WORDS = 3
# context words a mention of another sentence shares in the same places for that sentence to
# restate the gap's (then its finding is the gap's even where the section names it already)
RESTATED_FROM = 2
# a neighbour of the suspect term that stands beside a finding fewer times than this in the
# library is part of the term's name ("gastroesophageal reflux disease"), not its context
NAME_WORD_BELOW = 3
# nouns that end a disease's name of several words
_NAME_HEADS = frozenset({"disease", "syndrome", "dysfunction", "disorder", "cancer",
                         "carcinoma"})
# adjectives of an organ that begin a disease's name ("pulmonary embolism", "hepatic
# steatosis"); not places ("retrocardiac", "bibasilar"), which stand before findings too
_ORGAN_ADJECTIVES = frozenset({"pulmonary", "gastric", "hepatic", "renal", "esophageal",
                               "pancreatic", "colonic", "intestinal", "bronchial", "tracheal",
                               "laryngeal", "cardiac", "thyroid", "splenic", "biliary"})
_PUNCT_RE = re.compile(r"[,;:.()]")
# one word that ends a disease's name by its ending ("pancreatitis", "ulcerative colitis")
_DISEASE_WORD_RE = re.compile(r"[a-z]+(?:itis|osis|iasis|oma|emia|pathy|paresis|malacia)")
# a word that names where or what kind ("rib fractures", "interstitial edema") joins a mention
_MODIFIER_LISTS = ("anatomy", "findings")
_WORD_RE = re.compile(r"[a-z]")
_EDGE = {-1: "<s>", 1: "</s>"}
_ATTRIBUTE_RE = re.compile(r"^(?:mild\w*|moderate\w*|severe\w*|small|large|tiny|trace|"
                           r"minimal\w*|bilateral|bibasilar|basilar|apical|upper|lower|mid|"
                           r"multiple|new|old|chronic|acute|stable|unchanged|persistent|remote|"
                           r"healed|healing|residual|prior|previous|increas\w*|decreas\w*|"
                           r"worse\w*|improv\w*|layering|loculated|patchy|focal|diffuse)$")


@dataclass(frozen=True)
class Restoration:
    """The words to put at ``sentence[start:end]`` and where they come from."""

    start: int
    end: int
    words: str
    source: str  # "report", "sentence" (its own words) or "library"
    detail: str
    support: int = 0


def _context(words: list[str], a: int, b: int) -> list[tuple[int, str]]:
    """Positional context of ``words[a:b]``: (position, word) for POSITIONS."""
    out = []
    for p in POSITIONS:
        i = a + p if p < 0 else b + p - 1
        if 0 <= i < len(words):
            out.append((p, words[i]))
        elif i == -1 or i == len(words):
            out.append((p, _EDGE[-1] if p < 0 else _EDGE[1]))
    return out


def _mentions(text: str, polarity: bool = False) -> list[tuple]:
    """Every finding mention of a sentence (and the mention with the word before it, when
    that word is no side, size or function word: "rib fractures"), with its context; with
    ``polarity``, also whether the sentence denies it."""
    tokens = tokenize(text)
    words = [t.text for t in tokens]
    out = []
    for m_start, m_end in concept_spans(text.lower()):
        inside = [i for i, t in enumerate(tokens) if t.start >= m_start and t.end <= m_end]
        if not inside:
            continue
        a, b = inside[0], inside[-1] + 1
        extra = (is_negated(text, m_start, m_end),) if polarity else ()
        out.append((tuple(words[a:b]), _context(words, a, b), *extra))
        if a > 0 and _plain_word(words[a - 1]) and in_lists(words[a - 1], _MODIFIER_LISTS):
            out.append((tuple(words[a - 1:b]), _context(words, a - 1, b), *extra))
    return out


def _plain_word(word: str) -> bool:
    return (word not in STOPWORDS
            and not LATERALITY_RE.fullmatch(word) and not _ATTRIBUTE_RE.match(word)
            and not is_concept_form(word) and bool(_WORD_RE.search(word)))


class ContextModel:
    """How often each finding wording stands beside each word, over a library; apart for the
    mentions the library affirms and those it denies (``negated``), because what stood in an
    affirmed gap is a finding reports state, not one they mostly deny ("There is unchanged
    ___." held cardiomegaly, hardly a pneumothorax, which the library names mostly in "No
    pneumothorax")."""

    def __init__(self, reports: list[list[str]]):
        self.per_report: list[list] = []
        self.phrases: Counter = Counter()
        self.features: dict[tuple[str, ...], Counter] = defaultdict(Counter)
        self.background: Counter = Counter()
        self.by_polarity = {flag: (Counter(), defaultdict(Counter)) for flag in (False, True)}
        for sentences in reports:
            found = [m for s in sentences for m in _mentions(s, polarity=True)]
            self.per_report.append(found)
            for phrase, context, negated in found:
                self.phrases[phrase] += 1
                self.features[phrase].update(context)
                self.background.update(context)
                self.by_polarity[negated][0][phrase] += 1
                self.by_polarity[negated][1][phrase].update(context)
        self.total = max(1, sum(self.phrases.values()))

    def _counts(self, exclude: int | None, negated: bool | None = None):
        """(phrases, features, background) of the mentions of that polarity (all with None),
        with the excluded report's mentions taken out."""
        phrases, features = (self.phrases, self.features) if negated is None \
            else self.by_polarity[negated]
        if exclude is None or not (0 <= exclude < len(self.per_report)):
            return phrases, features, self.background
        phrases, features = Counter(phrases), dict(features)
        background = Counter(self.background)
        for phrase, context, was_negated in self.per_report[exclude]:
            background.subtract(context)
            if negated is not None and was_negated != negated:
                continue
            phrases[phrase] -= 1
            features[phrase] = features[phrase] - Counter(context)
        return phrases, features, background

    def rank(self, context: list[tuple[int, str]], exclude: int | None = None,
             accept=None, negated: bool | None = None
             ) -> list[tuple[float, tuple[str, ...], int]]:
        """(log score, wording, mentions) of the finding wordings for this context, best
        first; with ``negated``, among the library's mentions of that polarity."""
        phrases, features, background = self._counts(exclude, negated)
        total = max(1, sum(phrases.values())) if negated is not None else self.total
        ranked = []
        for phrase, n in phrases.items():
            if n < MIN_MENTIONS or len(phrase) > MAX_WORDS or not _labelled(phrase) \
                    or (accept is not None and not accept(" ".join(phrase))):
                continue
            score = math.log(n / total)
            own = features.get(phrase, Counter())
            for feature in context:
                seen = background.get(feature, 0)
                if seen < INFORMATIVE_FROM:
                    continue  # a word the library seldom writes beside a finding tells nothing
                # interpolated with how often any finding stands beside the word, at the same
                # weight for every wording: a rare wording gains nothing from being rare
                prior = (seen + 1) / (total + len(background))
                score += _NEARNESS[abs(feature[0])] * math.log(
                    WEIGHT * own.get(feature, 0) / n + (1 - WEIGHT) * prior)
            ranked.append((score, phrase, n))
        ranked.sort(key=lambda r: -r[0])
        number = _expected_number(context)
        if number is not None and any(_number(r[1]) == number for r in ranked):
            ranked = [r for r in ranked if _number(r[1]) == number]
        return ranked


_SINGULAR_VERBS = frozenset({"is", "was", "has"})
_PLURAL_VERBS = frozenset({"are", "were", "have"})


def _expected_number(context: list[tuple[int, str]]) -> str | None:
    """The number the verb right after the gap asks for ("___ are small": plural)."""
    after = dict(context).get(1)
    if after in _SINGULAR_VERBS:
        return "singular"
    if after in _PLURAL_VERBS:
        return "plural"
    return None


def _number(phrase: tuple[str, ...]) -> str:
    last = phrase[-1]
    plural = last.endswith("s") and not last.endswith(("sis", "xis", "ss", "us"))
    return "plural" if plural else "singular"


_LABELLED: dict[tuple[str, ...], bool] = {}


def _labelled(phrase: tuple[str, ...]) -> bool:
    """A wording of one of the observations a chest radiograph report is labelled with
    (CheXpert's), not a granuloma, a degenerative change or a device."""
    if phrase not in _LABELLED:
        found = [f for f in extract_findings(" ".join(phrase)) if not f.implied]
        # a device is no condition: a disease-shaped word does not stand in a device's place
        _LABELLED[phrase] = bool(found) and all(
            f.labels and "Support Devices" not in f.labels for f in found)
    return _LABELLED[phrase]


_MODELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def context_model(library) -> ContextModel:
    """The library's context model, built once per library object."""
    model = _MODELS.get(library)
    if model is None:
        model = ContextModel([report_sentences(e.text) for e in library.entries])
        _MODELS[library] = model
    return model


def keep_context_model(library, model: ContextModel) -> None:
    """Use ``model`` (counted before over the same texts) as this library's context model."""
    _MODELS[library] = model


def _absorbable(word: str, position: int, background: Counter | None) -> bool:
    """A neighbour of the suspect term that belongs to the same name: a word that is neither
    a function word, a side, a size or course, nor a finding, and that the library seldom
    writes at this place beside a finding (or, without a library, no radiology word)."""
    if not _WORD_RE.search(word) or word in STOPWORDS or describes_fracture(word):
        return False
    if position > 0 and word in _NAME_HEADS:
        return True  # the head of a disease's name ("reflux disease", "esophageal cancer")
    if LATERALITY_RE.fullmatch(word) or _ATTRIBUTE_RE.match(word) or mentions_concept(word):
        return False
    if in_lists(word, ("outside_chest", "clinical_only")):
        return True
    rare_here = background is None or background.get((position, word), 0) < NAME_WORD_BELOW
    if is_radiology_word(word):
        # an organ's adjective ("gastroesophageal", "esophageal") belongs to a disease's name
        # when the library does not write it beside a finding; a report's verb ("reflect")
        # never does
        return background is not None and rare_here \
            and in_lists(word, ("anatomy", "partly_shown_organs", "positions"))
    return rare_here


def gap_of(sentence: str, start: int, end: int, background: Counter | None = None
           ) -> tuple[int, int, list[str], int, int]:
    """The gap around ``sentence[start:end]`` grown over the rest of the name: (start, end)
    offsets, the sentence's words, and the gap's word positions a:b."""
    tokens = tokenize(sentence)
    inside = [i for i, t in enumerate(tokens) if t.start < end and t.end > start]
    words = [t.text for t in tokens]
    if not inside:
        return start, end, words, 0, 0
    a, b = inside[0], inside[-1] + 1
    def joined(i: int) -> bool:  # no punctuation between word i and the next
        return not _PUNCT_RE.search(sentence[tokens[i].end:tokens[i + 1].start])

    # a name ends with its head noun ("esophageal cancer reflective of ...": the name is
    # "esophageal cancer"), and an organ's adjective before that head is part of the name
    # ("thoracic outlet syndrome"), whatever the library writes beside findings, unless the
    # name already has its organ ("retrocardiac esophageal cancer": a place, then the name)
    # one disease-shaped word ("pancreatitis") ends a name: the words after it ("___ despite
    # the projection") are the report's, unless they name an organ or a name's head
    whole = len(inside) == 1 and bool(_DISEASE_WORD_RE.fullmatch(words[inside[0]]))

    def grows(word: str, position: int) -> bool:
        if whole and position > 0:
            return in_lists(word, ("outside_chest", "clinical_only")) or word in _NAME_HEADS
        return _absorbable(word, position, background)

    while b < len(words) and b - inside[-1] - 1 < 2 and words[b - 1] not in _NAME_HEADS \
            and joined(b - 1) and grows(words[b], 1):
        b += 1
    named = words[b - 1] in _NAME_HEADS
    # one word a radiograph cannot show or only suggests takes the organ's adjective before
    # it as part of its name ("pulmonary embolism": the gap is the whole name, not "pulmonary
    # ___", which would keep half of the wrong words and ask for a pulmonary nodule)
    organ_named = len(inside) == 1 and a == inside[0] and a > 0 and joined(a - 1) \
        and words[a - 1] in _ORGAN_ADJECTIVES and (whole or in_lists(
            words[a], ("suggested_only", "clinical_only", "outside_chest")))
    if organ_named:
        a -= 1
    while a > 0 and inside[0] - a < 2 and joined(a - 1) \
            and (grows(words[a - 1], -1)
                 or named and _organ_adjective(words[a - 1])
                 and not any(in_lists(w, ("partly_shown_organs", "outside_chest"))
                             for w in words[a:b])):
        a -= 1
    return tokens[a].start, tokens[b - 1].end, words, a, b


def _organ_adjective(word: str) -> bool:
    return not (LATERALITY_RE.fullmatch(word) or _ATTRIBUTE_RE.match(word)
                or mentions_concept(word)) \
        and in_lists(word, ("anatomy", "partly_shown_organs", "positions"))


def _same_slot(context: list[tuple[int, str]], other: list[tuple[int, str]]) -> int:
    """How many context words the two mentions share in the same place (function words and
    sentence edges do not count)."""
    theirs = set(other)
    return sum(1 for f in context if f in theirs and f[1] not in STOPWORDS
               and f[1] not in _EDGE.values())


def _content_words(words) -> set[str]:
    return {w for w in words if w not in STOPWORDS and _WORD_RE.search(w) and len(w) > 2}


def from_report(ctx: StudyContext, index: int, context: list[tuple[int, str]], accept,
                around: set[str] | None = None, restated_accept=None
                ) -> tuple[tuple[str, ...], int, int] | None:
    """A finding of another sentence of the report in the same slot: (wording, sentence,
    shared context words), the most shared first; between mentions that share as many, the
    one whose sentence restates more of this one (``around``: this sentence's words outside
    the gap) — an impression's "Mild ___ with small bilateral pleural effusions." restates
    "There is mild pulmonary edema, new in the interval with small bilateral pleural
    effusions.", not "There is mild cardiomegaly with dense mitral annular calcifications.".
    ``restated_accept(words, other)`` (looser than ``accept``) takes a mention with two words
    or more in the same places: a sentence that repeats another's words around a finding
    repeats the finding, even where its section names it already in that other sentence
    ("Increased bilateral lower lobe opacities ..." and "The bilateral lower lung ___ appear
    to have progressed")."""
    best = None
    around = _content_words(around or ())
    for other in ctx.image_sentences:
        if other == index:
            continue
        text = ctx.sentence(other).text
        restated = None
        for phrase, theirs in _mentions(text):
            shared = _same_slot(context, theirs)
            if shared == 0 or not _labelled(phrase):
                continue
            words = " ".join(phrase)
            if not accept(words) and not (shared >= RESTATED_FROM and restated_accept is not None
                                          and restated_accept(words, other)):
                continue
            if restated is None:
                restated = around & _content_words(t.text for t in tokenize(text))
            key = (shared, len(restated - set(phrase)), -len(phrase))
            if best is None or key > best[0]:
                best = (key, phrase, other, shared)
    if best is None:
        return None
    return best[1], best[2], best[3]


# words a library grades a finding with ("subsegmental atelectasis", "airspace opacity"):
# the report around the gap did not write them, so a restoration does not claim them
_DESCRIPTORS = frozenset({"airspace", "subsegmental", "streaky", "patchy", "nodular",
                          "linear", "platelike", "plate-like", "discoid", "interstitial",
                          "alveolar", "focal", "hazy", "confluent"})


def _plain_name(phrase: tuple[str, ...], n: int, ranked) -> tuple[tuple[str, ...], int]:
    """The library's wording without the descriptors it graded the finding with, when the
    library writes that plain name in the gap's place too ("subsegmental atelectasis" ->
    "atelectasis"); else the wording as it is."""
    plain = tuple(w for w in phrase if w not in _DESCRIPTORS)
    if not plain or plain == phrase:
        return phrase, n
    found = next((row for row in ranked if row[1] == plain), None)
    return (plain, found[2]) if found is not None else (phrase, n)


def restore(ctx: StudyContext, index: int, start: int, end: int, accept,
            restated_accept=None) -> Restoration | None:
    """The finding that most likely stood at ``sentence[start:end]`` (grown over the rest of
    the name), from the report's own other sentences, else from the sentence's own words
    (workers.correction.own_words), else from the library's contexts."""
    sentence = ctx.sentence(index).text
    model = context_model(ctx.library) if ctx.library is not None and len(ctx.library) else None
    g_start, g_end, words, a, b = gap_of(sentence, start, end,
                                         model.background if model is not None else None)
    if a == b:
        return None
    context = _context(words, a, b)
    own = from_report(ctx, index, context, accept, set(words[:a] + words[b:]), restated_accept)
    if own is not None:
        phrase, other, shared = own
        return Restoration(g_start, g_end, " ".join(phrase), "report",
                           f"sentence {other + 1} of this report names "
                           f"'{' '.join(phrase)}' with the same words around it", shared)
    # the sentence's own words: a bone, a fracture's grade or a rib's place around the gap
    fracture = fracture_wording(words, a, b)
    if fracture is not None and accept(fracture):
        return Restoration(g_start, g_end, fracture, "sentence",
                           "the sentence's own words around it "
                           f"({', '.join(repr(w) for w in fracture_cues(words, a, b))})"
                           f" describe a fracture")
    if model is None:
        return None
    # the library's mentions of the gap's own polarity ("No ___." among its denials)
    ranked = model.rank(context, ctx.exclude, accept,
                        negated=is_negated(sentence, g_start, g_end))
    if not ranked:
        return None
    score, graded, n = ranked[0]
    phrase, n = _plain_name(graded, n, ranked)
    dropped = [w for w in graded if w not in phrase]
    return Restoration(g_start, g_end, " ".join(phrase), "library",
                       f"library sentences write '{' '.join(phrase)}' between the same words "
                       f"({n} mentions)" + (f"; the library's '{' '.join(dropped)}' is not "
                                            "the report's word" if dropped else ""), n)


__all__ = ["ContextModel", "Restoration", "context_model", "gap_of", "restore"]
