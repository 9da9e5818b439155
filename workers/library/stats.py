"""What the library's reports say, counted: sentences, their opposites, words and phrases.

The detectors ask the library questions a radiologist would ask a colleague's reports:

* how often is this exact sentence written (``count``)?
* how often is it written with the opposite polarity — the same words with "no", "not",
  "without" or "negative for" added or removed (``variants``)?
* in how many reports does a word occur (``document_frequency``)?
* what fills the gap in "No pleural effusion or ___." (``fillers``)?
* how idiomatic is a sentence (``fluency``: a trigram model with back-off)?

Every question takes ``exclude``: the position of a library report that must not count (the
report being audited, when the library holds a copy of it).
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from workers.nlp.polarity import Tokens, negation_count, signature

# How many gap questions a library keeps the answers to (a few hundred bytes each).
FILLERS_CACHE_SIZE = 65536

TOKEN_RE = re.compile(r"[a-z0-9]+(?:['\u2019-][a-z0-9]+)*")


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int


def tokenize(text: str) -> list[Token]:
    """Lower-case word tokens of ``text`` with their character spans in it."""
    return [Token(m.group(), m.start(), m.end()) for m in TOKEN_RE.finditer(text.lower())]


def tokens_of(text: str) -> Tokens:
    return tuple(TOKEN_RE.findall(text.lower()))


# Words that carry no finding: "There is no pneumothorax", "No pneumothorax is seen" and "No
# evidence of pneumothorax" say the same thing.
FUNCTION_WORDS = frozenset({
    "there", "is", "are", "was", "were", "be", "been", "being", "seen", "noted", "identified",
    "visualized", "visualised", "demonstrated", "present", "evident", "detected",
    "appreciated", "observed", "evidence", "of", "the", "a", "an", "any", "this", "these",
})


def loose_signature(tokens: Tokens) -> Tokens:
    """The signature without function words: the sentence's content, polarity aside."""
    return tuple(w for w in signature(tokens) if w not in FUNCTION_WORDS)


def _ngrams(tokens: Tokens) -> Iterable[Tokens]:
    padded = ("<s>", "<s>") + tokens + ("</s>",)
    yield ("<s>",)  # the contexts of a sentence's first words
    yield ("<s>", "<s>")
    for i in range(2, len(padded)):
        yield padded[i - 2:i + 1]
        yield padded[i - 1:i + 1]
        yield padded[i:i + 1]


class LibraryStats:
    """Counts over the image-section sentences of ``texts`` (position i = library report i)."""

    def __init__(self, sentences_per_report: list[list[str]]):
        self.n_reports = len(sentences_per_report)
        self._sentences: Counter[Tokens] = Counter()
        self._by_signature: dict[Tokens, Counter[Tokens]] = defaultdict(Counter)
        self._by_loose: dict[Tokens, Counter[Tokens]] = defaultdict(Counter)
        self._words: Counter[str] = Counter()
        self._ngrams: Counter[Tokens] = Counter()
        self._own_sentences: list[Counter[Tokens]] = []
        self._own_words: list[frozenset[str]] = []
        self._own_ngrams: list[Counter[Tokens]] = []
        self._by_first: dict[str, set[Tokens]] = defaultdict(set)
        self._by_last: dict[str, set[Tokens]] = defaultdict(set)
        self._by_word: dict[str, set[Tokens]] = defaultdict(set)
        for sentences in sentences_per_report:
            own = Counter(t for t in (tokens_of(s) for s in sentences) if t)
            grams = Counter(g for t in own.elements() for g in _ngrams(t))
            words = frozenset(w for t in own for w in t)
            self._own_sentences.append(own)
            self._own_words.append(words)
            self._own_ngrams.append(grams)
            self._sentences.update(own)
            self._words.update(words)
            self._ngrams.update(grams)
        for tokens in self._sentences:
            self._by_signature[signature(tokens)][tokens] += self._sentences[tokens]
            self._by_loose[loose_signature(tokens)][tokens] += self._sentences[tokens]
            self._by_first[tokens[0]].add(tokens)
            self._by_last[tokens[-1]].add(tokens)
            for word in set(tokens):
                self._by_word[word].add(tokens)
        self._unigram_total = sum(c for g, c in self._ngrams.items()
                                  if len(g) == 1 and g != ("<s>",))
        # The counts never change after this point, so an answer can be kept; the correction
        # asks the same gaps of the same sentences every time it meets them again.
        self._fillers_between: dict[tuple, Counter[Tokens]] = {}

    # --- counts ------------------------------------------------------------------------------

    def count(self, tokens: Tokens, exclude: int | None = None) -> int:
        """How many times the library writes this sentence."""
        n = self._sentences.get(tokens, 0)
        if n and exclude is not None:
            n -= self._own_sentences[exclude].get(tokens, 0)
        return n

    def sentences_of(self, position: int) -> Counter[Tokens]:
        """How often report ``position`` writes each of its sentences (shared: read it, do
        not change it)."""
        return self._own_sentences[position]

    def variants(self, tokens: Tokens, exclude: int | None = None, *, loose: bool = False
                 ) -> list[tuple[Tokens, int]]:
        """Sentences of the library with the same words and the other polarity (one negated,
        the other not), most written first. ``loose``: the same content words (function words
        such as "there is", "seen", "evidence of" aside)."""
        found = []
        negated = negation_count(tokens) > 0
        pool = (self._by_loose.get(loose_signature(tokens), {}) if loose
                else self._by_signature.get(signature(tokens), {}))
        for other, n in pool.items():
            if other == tokens or (negation_count(other) > 0) == negated:
                continue
            if exclude is not None:
                n -= self._own_sentences[exclude].get(other, 0)
            if n > 0:
                found.append((other, n))
        return sorted(found, key=lambda item: (-item[1], item[0]))

    def same_polarity(self, tokens: Tokens, exclude: int | None = None) -> int:
        """How many library sentences have the same content words and the same polarity
        (the sentence itself included)."""
        negated = negation_count(tokens) > 0
        n = 0
        for other, count in self._by_loose.get(loose_signature(tokens), {}).items():
            if (negation_count(other) > 0) == negated:
                if exclude is not None:
                    count -= self._own_sentences[exclude].get(other, 0)
                n += max(count, 0)
        return n

    def document_frequency(self, word: str, exclude: int | None = None) -> int:
        n = self._words.get(word, 0)
        if n and exclude is not None and word in self._own_words[exclude]:
            n -= 1
        return n

    def fillers(self, prefix: Tokens, suffix: Tokens, exclude: int | None = None, *,
                max_length: int = 4) -> Counter[Tokens]:
        """What fills ``prefix ___ suffix`` in library sentences (1 to ``max_length`` words),
        with how often. Needs a prefix or a suffix."""
        if prefix:
            pool = self._by_first.get(prefix[0], ())
        elif suffix:
            pool = self._by_last.get(suffix[-1], ())
        else:
            return Counter()
        found: Counter[Tokens] = Counter()
        p, s = len(prefix), len(suffix)
        for tokens in pool:
            gap = len(tokens) - p - s
            if not 1 <= gap <= max_length:
                continue
            if tokens[:p] != prefix or (s and tokens[-s:] != suffix):
                continue
            n = self.count(tokens, exclude)
            if n > 0:
                found[tokens[p:p + gap]] += n
        return found

    def phrase_count(self, phrase: Tokens, exclude: int | None = None) -> int:
        """How many library sentences contain ``phrase`` (contiguous words)."""
        if not phrase:
            return 0
        rarest = min(phrase, key=lambda w: self._words.get(w, 0))
        n, width = 0, len(phrase)
        for tokens in self._by_word.get(rarest, ()):
            if any(tokens[i:i + width] == phrase for i in range(len(tokens) - width + 1)):
                n += self.count(tokens, exclude)
        return n

    def fillers_between(self, left: Tokens, right: Tokens, exclude: int | None = None, *,
                        max_length: int = 4) -> Counter[Tokens]:
        """What fills ``left ___ right`` anywhere in library sentences (1 to ``max_length``
        words), with how often. "<s>" and "</s>" anchor a context at a sentence's start or
        end, so ``(<s>, no) ___ (or, pneumothorax, </s>)`` is the whole-sentence pattern.
        The answer is shared between callers asking the same: read it, do not change it."""
        key = (left, right, exclude, max_length)
        found = self._fillers_between.get(key)
        if found is None:
            if len(self._fillers_between) >= FILLERS_CACHE_SIZE:
                self._fillers_between.clear()
            found = self._fillers_between[key] = self._find_fillers_between(
                left, right, exclude, max_length)
        return found

    def _find_fillers_between(self, left: Tokens, right: Tokens, exclude: int | None,
                              max_length: int) -> Counter[Tokens]:
        words = [w for w in left + right if w not in ("<s>", "</s>")]
        if not words:
            return Counter()
        rarest = min(words, key=lambda w: self._words.get(w, 0))
        found: Counter[Tokens] = Counter()
        a, b = len(left), len(right)
        # a context's word next to the gap is compared first: most places of a sentence fail
        # on it, without a slice of the sentence being made; a context anchored at the
        # sentence's start or end (a whole-sentence question) has one place only
        last, first = (left[-1] if a else None), (right[0] if b else None)
        from_start, to_end = bool(a) and left[0] == "<s>", bool(b) and right[-1] == "</s>"
        for tokens in self._by_word.get(rarest, ()):
            n = self.count(tokens, exclude)
            if n <= 0:
                continue
            padded = ("<s>",) + tokens + ("</s>",)
            end = len(padded)
            for i in ((a,) if a < end else ()) if from_start else range(a, end):
                if a and (padded[i - 1] != last or padded[i - a:i] != left):
                    continue
                if to_end:
                    ends = (end - b,) if i < end - b <= i + max_length else ()
                else:
                    ends = range(i + 1, min(i + max_length, end - b) + 1)
                for j in ends:
                    if (not b or padded[j] == first) and padded[j:j + b] == right:
                        filler = padded[i:j]
                        if "</s>" not in filler:
                            found[filler] += n
        return found

    # --- fluency -----------------------------------------------------------------------------

    def _ngram(self, gram: Tokens, exclude: int | None) -> int:
        n = self._ngrams.get(gram, 0)
        if n and exclude is not None:
            n -= self._own_ngrams[exclude].get(gram, 0)
        return n

    def fluency(self, tokens: Tokens, exclude: int | None = None) -> float:
        """Mean log-probability per token under a trigram model of the library's sentences
        (stupid back-off, add-one unigrams): how idiomatic the sentence reads to the library."""
        if not tokens:
            return 0.0
        padded = ("<s>", "<s>") + tokens + ("</s>",)
        vocabulary = len(self._words) + 1
        total = 0.0
        for i in range(2, len(padded)):
            tri, bi, uni = padded[i - 2:i + 1], padded[i - 1:i + 1], padded[i:i + 1]
            n_tri, n_bi_ctx = self._ngram(tri, exclude), self._ngram(padded[i - 2:i], exclude)
            if n_tri and n_bi_ctx:
                total += math.log(n_tri / n_bi_ctx)
                continue
            n_bi, n_ctx = self._ngram(bi, exclude), self._ngram(padded[i - 1:i], exclude)
            if n_bi and n_ctx:
                total += math.log(0.4 * n_bi / n_ctx)
                continue
            total += math.log(0.16 * (self._ngram(uni, exclude) + 1)
                              / (self._unigram_total + vocabulary))
        return total / (len(padded) - 2)
