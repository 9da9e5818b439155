"""One study and what the detectors know around it: the report read once, the library, the
prior report, the images.

``StudyContext`` is built once per study by the stage layer (or once per report by the batch
audit) and handed to every detector of a stage, text and image detectors alike. It answers,
lazily and once each:

* the report's sentences, sections and findings (workers.nlp) and its model of statements
  (``statements``, workers/nlp/statements.py);
* the prior report, parsed (``prior``);
* ``samples``: the reports sampled for the study, when its stage has them (RadFlag);
* ``images``: the study's views, their pixels and descriptors and the reference images
  nearest them (``StudyImages``; None for a report without images);
* ``neighbours``: the k most similar library reports (never one with the report's own id);
* ``polarity(i)``: how often the library writes sentence i as it is, and how often with the
  opposite polarity (the same words with "no"/"without" added or removed);
* ``suspect_terms(i)``: words of sentence i that a chest radiograph cannot show, that only
  borderline belong to one, or that no library report contains.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from workers.library.stats import Token, Tokens, tokenize, tokens_of
from workers.library.text import Neighbour, TextLibrary
from workers.nlp import ParsedReport, findings_by_sentence, out_of_domain_terms, parse_report
from workers.nlp.findings import ABSENT, IMAGE_SECTIONS, Finding, findings_tuple
from workers.nlp.lexicon import is_radiology_word
from workers.nlp.polarity import is_negated
from workers.nlp.statements import Statement, statements
from workers.nlp.vocabulary import ancestors, concept_spans, similar

from .images import StudyImages

DEFAULT_NEIGHBOURS = 5

OUT_OF_DOMAIN = "out_of_domain"
BORDERLINE = "borderline"
UNKNOWN_TO_LIBRARY = "unknown_to_library"

# A word at most this many library reports use is rare.
RARE_REPORTS = 2
# Words that name nothing: a run of other words is a phrase the library may not know.
STOPWORDS = frozenset("""
a an the of in on at to for with without within and or but nor no not none is are was were be
been being there this that these those which who whom whose as by from into onto over under
than then also both either neither any some all each other otherwise may might could can
cannot will would should shall must has have had do does did seen noted identified visualized
visualised demonstrated present evident evidence again stable unchanged new since prior
previous previously compared comparison change changes changed it its per likely possibly
possible probable probably suggest suggests suggesting suggestive consistent compatible
represent represents representing related due secondary given appear appears appearing
remain remains remaining most more less very well only just still now here xxxx
""".split())


@dataclass(frozen=True)
class SuspectTerm:
    """Words of a sentence that may not belong in a chest radiograph report.

    ``start``/``end`` are offsets in the sentence; ``kind`` is out_of_domain, borderline or
    unknown_to_library; ``library_sentences`` counts the library sentences holding the words.
    """

    text: str
    start: int
    end: int
    kind: str
    negated: bool
    library_sentences: int | None


@dataclass(frozen=True)
class Polarity:
    """How the library writes a sentence: ``own`` times as it is, ``variant_count`` times as
    ``variant`` (the same words, another polarity; None when never). ``loose_own`` and
    ``loose_variants`` count the same content words (function words aside) with this and the
    other polarity; ``loose_variant`` is the most written of the latter."""

    own: int
    variant: Tokens | None
    variant_count: int
    loose_own: int = 0
    loose_variant: Tokens | None = None
    loose_variants: int = 0


def _content_runs(sentence: str, tokens: list[Token], taken: list[tuple[int, int]]
                  ) -> list[tuple[int, int]]:
    """Spans of consecutive content words (no punctuation or function word between them) with
    at least one word that names no finding of the engine's vocabulary ("liver cancer",
    "inflammatory bowel disease"): phrases the library may never have written."""
    lower = sentence.lower()
    findings = concept_spans(lower) + list(taken)
    runs: list[tuple[int, int]] = []
    current: list = []

    def close():
        if current and any(not any(a <= t.start and t.end <= b for a, b in findings)
                           for t in current):
            runs.append((current[0].start, current[-1].end))

    for token in tokens:
        content = token.text.isalpha() and token.text not in STOPWORDS and len(token.text) > 2
        joined = current and sentence[current[-1].end:token.start].strip() == ""
        if content and (not current or joined):
            current.append(token)
            continue
        close()
        current = [token] if content else []
    close()
    return runs


@dataclass
class StudyContext:
    """``prior_report``: the text of the study's prior report, when the caller has it (the
    prior report checks compare with it); ``prior_date`` and ``date``: the two studies'
    dates as given (shown in explanations; a "prior" dated after the study is no prior).
    ``images``: the study's images (None: it has none, or no detector of the stage needs
    them); ``samples``: the reports sampled for the study (RadFlag's); ``settings``: a
    detector's site settings by its name (V-RAG's top k, RadFlag's thresholds, ...)."""

    text: str
    library: TextLibrary | None = None
    external_id: str | None = None
    has_prior: bool | None = None
    k: int = DEFAULT_NEIGHBOURS
    prior_report: str | None = None
    prior_date: str | None = None
    date: str | None = None
    images: StudyImages | None = None
    samples: tuple[str, ...] = ()
    settings: dict[str, dict] = field(default_factory=dict)
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.prior_report is not None and not self.prior_report.strip():
            self.prior_report = None
        if self.prior_report is not None and self.has_prior is None:
            self.has_prior = True  # a prior report is a prior exam

    @cached_property
    def parsed(self) -> ParsedReport:
        return parse_report(self.text)

    @cached_property
    def prior(self) -> ParsedReport | None:
        """The prior report, parsed (None without one)."""
        return parse_report(self.prior_report) if self.prior_report is not None else None

    @cached_property
    def findings(self) -> dict[int, list[Finding]]:
        return findings_by_sentence(self.parsed)

    @cached_property
    def all_findings(self) -> tuple[Finding, ...]:
        """Every finding of the report in reading order."""
        return tuple(findings_tuple(self.parsed))

    @cached_property
    def statements(self) -> tuple[Statement, ...]:
        """What the report states, one ``Statement`` per claim (the one model of statements)."""
        return statements(self.parsed)

    def settings_of(self, detector: str) -> dict:
        """The site's settings for one detector ({} when it has none)."""
        return self.settings.get(detector, {})

    @cached_property
    def image_sentences(self) -> list[int]:
        """Indices of the sentences that describe the images (FINDINGS, IMPRESSION, ...)."""
        return [s.index for s in self.parsed.sentences if s.section in IMAGE_SECTIONS]

    def sentence(self, index: int):
        return self.parsed.sentences[index]

    @cached_property
    def exclude(self) -> int | None:
        """The library position the counts leave out (the audited report's own copy)."""
        return self.library.excluded_position(self.external_id) if self.library else None

    @cached_property
    def neighbours(self) -> list[Neighbour]:
        """The k most similar library reports (a batch may set them beforehand, from one
        search for many reports)."""
        if self.library is None or not len(self.library):
            return []
        return self.library.neighbours(self.text, self.k, exclude_external_id=self.external_id)

    def tokens(self, index: int) -> Tokens:
        key = ("tokens", index)
        if key not in self._cache:
            self._cache[key] = tokens_of(self.sentence(index).text)
        return self._cache[key]

    def polarity(self, index: int) -> Polarity:
        key = ("polarity", index)
        if key not in self._cache:
            if self.library is None:
                self._cache[key] = Polarity(0, None, 0)
            else:
                stats, tokens = self.library.stats, self.tokens(index)
                variants = stats.variants(tokens, self.exclude)
                best = variants[0] if variants else (None, 0)
                loose = stats.variants(tokens, self.exclude, loose=True)
                self._cache[key] = Polarity(
                    stats.count(tokens, self.exclude), *best,
                    loose_own=stats.same_polarity(tokens, self.exclude),
                    loose_variant=loose[0][0] if loose else None,
                    loose_variants=sum(n for _, n in loose))
        return self._cache[key]

    def document_frequency(self, word: str) -> int | None:
        if self.library is None:
            return None
        return self.library.stats.document_frequency(word, self.exclude)

    def phrase_count(self, text: str) -> int | None:
        if self.library is None:
            return None
        return self.library.stats.phrase_count(tokens_of(text), self.exclude)

    def suspect_terms(self, index: int) -> list[SuspectTerm]:
        key = ("suspects", index)
        if key not in self._cache:
            self._cache[key] = self._suspect_terms(index)
        return self._cache[key]

    def _suspect_terms(self, index: int) -> list[SuspectTerm]:
        sentence = self.parsed.whole_words(index)  # a word cut off mid-way claims nothing
        lower = sentence.lower()
        found: list[SuspectTerm] = []
        taken: list[tuple[int, int]] = []
        out = set(t.lower() for t in out_of_domain_terms(sentence))
        for term in out_of_domain_terms(sentence, strict=True):
            start = lower.find(term.lower())
            if start < 0:
                continue
            end = start + len(term)
            kind = OUT_OF_DOMAIN if term.lower() in out else BORDERLINE
            found.append(SuspectTerm(sentence[start:end], start, end, kind,
                                     is_negated(sentence, start, end), self.phrase_count(term)))
            taken.append((start, end))
        if self.library is not None:
            tokens = tokenize(sentence)
            for run_start, run_end in _content_runs(sentence, tokens, taken):
                rare = self._first_rare_word(lower, tokens, run_start, run_end)
                if rare is None:
                    continue  # an unusual word before a known finding only describes it
                # from the first rare word to the end of the run: the name, not its modifiers
                # ("focal anemia" -> "anemia"; English names end with their head noun)
                run_start = rare
                phrase = sentence[run_start:run_end]
                count = self.phrase_count(phrase)
                if count is not None and count == 0:
                    found.append(SuspectTerm(phrase, run_start, run_end, UNKNOWN_TO_LIBRARY,
                                             is_negated(sentence, run_start, run_end), count))
        return sorted(found, key=lambda t: t.start)

    def _first_rare_word(self, lower: str, tokens: list[Token], start: int, end: int
                         ) -> int | None:
        """Where the first word of ``lower[start:end]`` (a sentence lower-cased, ``tokens``
        its words) that names no finding and that at most ``RARE_REPORTS`` library reports
        use begins (None when there is none)."""
        findings = concept_spans(lower)
        for token in tokens:
            if token.start < start or token.end > end or token.text in STOPWORDS:
                continue
            if any(a <= token.start and token.end <= b for a, b in findings):
                continue
            if is_radiology_word(token.text):
                continue  # radiology's own word ("detected", "lytic"), if new to the library
            if (self.document_frequency(token.text) or 0) <= RARE_REPORTS:
                return token.start
        return None

    def internal_support(self, index: int, finding: Finding) -> list[int]:
        """Other image sentences that state ``finding`` (or a narrower or similar observation)
        with the same status: the report supports itself there. A normal statement ("lungs
        are clear") supports a denial, never an affirmation."""

        out = []
        for other, items in self.findings.items():
            if other == index or other not in self.image_sentences:
                continue
            for f in items:
                if f.status != finding.status or (f.implied and finding.status != ABSENT):
                    continue
                if (f.observation == finding.observation
                        or finding.observation in ancestors(f.observation)
                        or similar(f.observation, finding.observation)):
                    out.append(other)
                    break
        return out
