"""Sections and sentences of a radiology report, with character spans into the original text.

``parse_report(text)`` is the first step of every language stage. It reads the layouts reports
come in: IU-style "FINDINGS: ... IMPRESSION: ..." lines, and the layout most hospital systems
write (MIMIC-CXR style):

* a "FINAL REPORT" banner, "____" separator lines and "*** ... ***" alerts, which hold no text;
* title lines naming the examination ("PA AND LATERAL VIEWS OF THE CHEST"), a technique section;
* header paragraphs (INDICATION, REASON FOR EXAM, HISTORY, COMPARISON, TECHNIQUE, EXAMINATION,
  NOTIFICATION) that end at their paragraph: the unlabelled body after a blank line is read as
  findings, not as part of the indication;
* a "WET READ" (the preliminary reading, with its time stamp skipped) and addenda, both read as
  descriptions of the images;
* headers cut off at the end of the text ("IMPRESS") and text cut off mid-word ("No pneumothor").

Sentences follow workers/nlp/sentences.py (the benchmark's definition). Every ``Sentence.text``
equals ``report[start:end]``; indices count across the whole report.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from workers.nlp import lexicon
from workers.nlp.sentences import continues_sentence, split_sentences, trim

SECTION_NAMES = ("findings", "impression", "wet_read", "addendum", "other", "indication",
                 "comparison", "history", "technique", "notification")
# Sections whose sentences describe the images (the others ask questions, list history, name
# the examination or say who was told).
IMAGE_SECTIONS = frozenset({"findings", "impression", "wet_read", "addendum", "other"})
# Sections that end at their paragraph: what follows a blank line is the unlabelled body.
_PARAGRAPH_SECTIONS = frozenset({"indication", "comparison", "history", "technique",
                                 "notification"})

# Header wording -> section name. Matched case-insensitively on the words before the colon.
_KNOWN_HEADERS = {
    "findings": "findings", "finding": "findings", "report": "findings", "body": "findings",
    "findings/impression": "findings", "findings and impression": "findings",
    "impression": "impression", "impressions": "impression", "conclusion": "impression",
    "conclusions": "impression", "opinion": "impression", "summary": "impression",
    "indication": "indication", "indications": "indication", "reason for exam": "indication",
    "reason for examination": "indication", "reason for study": "indication",
    "reason": "indication", "clinical indication": "indication",
    "comparison": "comparison", "comparisons": "comparison", "prior": "comparison",
    "prior studies": "comparison", "prior study": "comparison", "reference exam": "comparison",
    "history": "history", "clinical history": "history", "clinical information": "history",
    "clinical data": "history", "patient history": "history",
    "technique": "technique", "techniques": "technique", "procedure": "technique",
    "exam": "technique", "examination": "technique", "views": "technique", "study": "technique",
    "notification": "notification", "contact name": "notification",
    "wet read": "wet_read", "addendum": "addendum",
}
# Words that make an ALLCAPS line or header a name of the examination ("CHEST, AP UPRIGHT").
_EXAM_WORDS = frozenset({
    "chest", "radiograph", "radiographs", "film", "films", "view", "views", "x-ray", "xray",
    "portable", "ap", "pa", "lat", "lateral", "frontal", "supine", "upright", "erect",
    "semi-erect", "semierect", "exposures", "cxr",
})
_VERBS = frozenset({"is", "are", "was", "were", "has", "have", "shows", "show", "follows",
                    "demonstrates", "appears", "remains", "seen", "noted"})

# A known header (any case) at the start of a line or right after a sentence end, or an
# ALLCAPS header of 2-8 words at the start of a line. "XXXX" (de-identification) is never one.
_KNOWN_ALT = "|".join(sorted((re.escape(k).replace(r"\ ", r"\s+") for k in _KNOWN_HEADERS),
                             key=len, reverse=True))
_HEADER_RE = re.compile(
    r"(?:(?<=^)|(?<=\n)|(?<=[.?!]\s)|(?<=[.?!]\s\s))[ \t]*"
    r"(?P<header>(?P<known>(?i:" + _KNOWN_ALT + r"))"
    r"|(?P<caps>(?<![^\n])[ \t]*[A-Z][A-Z&/()-]+(?:,?[ \t]+[A-Z&/()-]+){0,7}))"
    r"[ \t]*:",
)
_LINE_RE = re.compile(r"[^\n]*")
_SEPARATOR_RE = re.compile(r"[ \t]*[_=*-]{5,}[ \t_=*-]*")
_BANNER_RE = re.compile(r"[ \t*]*(?:FINAL|PRELIMINARY)[ \t]+REPORT[ \t*]*", re.IGNORECASE)
_ALERT_RE = re.compile(r"[ \t]*\*{2,}[^\n]*\*{2,}[ \t]*")
# "WET READ: ___ ___ 9:22 PM", "WET READ VERSION #1 ___ ___ 8:26 PM": the reading follows the
# time stamp; "ADDENDUM", "*** ADDENDUM #1 ***:"
_WET_READ_RE = re.compile(
    r"[ \t]*(?P<header>WET[ \t]+READ)(?:[ \t]+VERSION[ \t]*#?[ \t]*\d+)?[ \t]*:?"
    r"(?:[ \t]*(?:_+|\d{1,2}:\d{2}(?::\d{2})?|[AP]\.?M\.?(?![a-z])|\d+(?![.)\d])|[/-]))*",
    re.IGNORECASE)
_ADDENDUM_RE = re.compile(r"[ \t*]*(?P<header>ADDEND(?:UM|A))\b(?:[ \t]*#?[ \t]*\d+)?[ \t*]*:?",
                          re.IGNORECASE)
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z-]*")
_TIME_RE = re.compile(r"\d:\d")


@dataclass(frozen=True)
class Section:
    """One section; ``start``/``end`` span its body (after the header), trimmed of whitespace."""

    name: str
    start: int
    end: int
    header: str | None


@dataclass(frozen=True)
class Sentence:
    """One sentence; ``text == report[start:end]``, ``index`` counts across the whole report."""

    index: int
    text: str
    start: int
    end: int
    section: str


@dataclass(frozen=True)
class ParsedReport:
    text: str
    sections: tuple[Section, ...]
    sentences: tuple[Sentence, ...]

    def sentences_in(self, section: str) -> tuple[Sentence, ...]:
        return tuple(s for s in self.sentences if s.section == section)

    def section_text(self, name: str) -> str:
        """The bodies of all sections with this name, joined by a space ("" if none)."""
        return " ".join(self.text[s.start:s.end] for s in self.sections if s.name == name)

    @cached_property
    def image_sentences(self) -> tuple[Sentence, ...]:
        """The sentences that describe the images (FINDINGS, IMPRESSION, WET READ, ...)."""
        return tuple(s for s in self.sentences if s.section in IMAGE_SECTIONS)

    @property
    def reads_images(self) -> bool:
        """False when no sentence is in an image section (only an indication, a comparison,
        a technique, ...): nothing of the report can be audited or labelled, and a caller must
        say so rather than call the report normal."""
        return bool(self.image_sentences)

    @cached_property
    def cut_off(self) -> bool:
        """Whether the text stops in the middle of a sentence: on a word cut short ("No
        pneumothor", "The mediast"), on a word no sentence ends with ("... is", "... the"), or
        on a header cut short ("IMPRESS")."""
        return _ends_cut_off(self.text)

    def whole_words(self, index: int) -> str:
        """Sentence ``index`` with the word the text was cut off in blanked out (spaces, so
        offsets hold): a fragment ("pneumothor") claims nothing."""
        sentence = self.sentences[index]
        if not self.cut_off or index != len(self.sentences) - 1:
            return sentence.text
        last = list(_WORD_RE.finditer(sentence.text))
        if not last or last[-1].end() != len(sentence.text):
            return sentence.text
        start = last[-1].start()
        return sentence.text[:start] + " " * (len(sentence.text) - start)


@dataclass(frozen=True)
class _Mark:
    """Where a section starts (``body`` is where its text starts) or where text stops
    (``name`` None: a banner, a separator, an alert, a header cut off at the end)."""

    start: int
    body: int
    name: str | None
    header: str | None = None
    line: bool = False  # the section is its line (a title line)


def _section_name(header: str) -> str:
    key = " ".join(header.lower().split())
    if key in _KNOWN_HEADERS:
        return _KNOWN_HEADERS[key]
    if set(_WORD_RE.findall(key)) & _EXAM_WORDS:
        return "findings"  # "CHEST, AP UPRIGHT:" introduces the reading of that view
    return "other"


def _is_title(line: str) -> bool:
    """An ALLCAPS line that names the examination ("PA AND LATERAL VIEWS OF THE CHEST",
    "PORTABLE CHEST FILM ___ AT ___") rather than a finding ("LEFT LUNG IS CLEAR.")."""
    words = [w.lower() for w in _WORD_RE.findall(line)]
    return (bool(words) and line == line.upper() and len(words) <= 12
            and bool(set(words) & _EXAM_WORDS) and not set(words) & _VERBS)


def _cut_header(line: str) -> bool:
    """A header cut off at the end of the text: "FIND", "IMPRESS", "TECHNI"."""
    word = line.strip().lower()
    return (len(word) >= 3 and word.isalpha() and line.strip().isupper()
            and any(h.startswith(word) and h != word for h in _KNOWN_HEADERS))


def _line_marks(text: str) -> list[_Mark]:
    """Marks that whole lines make: banners, separators, alerts, wet reads, addenda, title
    lines, a known header alone on its line, a header cut off at the end."""
    marks = []
    lines = [m for m in _LINE_RE.finditer(text) if m.group().strip()]
    for number, m in enumerate(lines):
        line, start, end = m.group(), m.start(), m.end()
        stripped = line.strip()
        if wet := _WET_READ_RE.match(line):
            marks.append(_Mark(start + wet.start("header"), start + wet.end(), "wet_read",
                               wet.group("header")))
        elif (addendum := _ADDENDUM_RE.match(line)) and addendum.end() == len(line.rstrip()):
            marks.append(_Mark(start + addendum.start("header"), start + addendum.end(),
                               "addendum", addendum.group("header")))
        elif _SEPARATOR_RE.fullmatch(line) or _BANNER_RE.fullmatch(line) \
                or _ALERT_RE.fullmatch(line):
            marks.append(_Mark(start, end, None))
        elif stripped.lower() in _KNOWN_HEADERS and stripped[0].isupper():
            at = start + line.index(stripped)
            marks.append(_Mark(at, end, _KNOWN_HEADERS[stripped.lower()], stripped))
        elif number == len(lines) - 1 and _cut_header(line):
            marks.append(_Mark(start, end, None))
        elif ":" not in _TIME_RE.sub("", line) and _is_title(stripped):
            marks.append(_Mark(start, end, "technique", None, line=True))
    return marks


def _header_marks(text: str, taken: list[_Mark]) -> list[_Mark]:
    """Marks of "HEADER:" wording outside the lines ``taken`` already accounts for."""
    marks = []
    for m in _HEADER_RE.finditer(text):
        word = m.group("header").strip()
        if word.upper().strip("X") == "" or (m.group("caps") and len(word.replace(" ", "")) < 3):
            continue
        at = m.start("header") + len(m.group("header")) - len(m.group("header").lstrip())
        if any(t.start <= at < max(t.body, t.start + 1) for t in taken):
            continue
        marks.append(_Mark(at, m.end(), _section_name(word), word))
    return marks


_BLANK_LINE_RE = re.compile(r"\n[ \t\r]*\n")


def find_sections(text: str) -> tuple[Section, ...]:
    """The sections of ``text`` in order. Text under no header is "findings" ("other" when the
    report also has a FINDINGS header); a header paragraph (INDICATION, COMPARISON, ...) ends at
    a blank line and the text after it, up to the next header, is that unlabelled body."""
    line_marks = _line_marks(text)
    marks = sorted(line_marks + _header_marks(text, line_marks), key=lambda m: m.start)
    unlabelled = "other" if any(m.name == "findings" and m.header for m in marks) \
        else "findings"
    pieces: list[tuple[str, int, int, str | None]] = [(unlabelled, 0, marks[0].start if marks
                                                       else len(text), None)]
    for i, mark in enumerate(marks):
        end = marks[i + 1].start if i + 1 < len(marks) else len(text)
        if mark.name is None:
            pieces.append((unlabelled, mark.body, end, None))
        elif mark.line:
            pieces.append((mark.name, mark.start, mark.body, None))
            pieces.append((unlabelled, mark.body, end, None))
        elif mark.name in _PARAGRAPH_SECTIONS:
            content, _ = trim(text, mark.body, end)
            blank = _BLANK_LINE_RE.search(text, content, end)
            stop = blank.start() if blank else end
            pieces.append((mark.name, mark.body, stop, mark.header))
            pieces.append((unlabelled, stop, end, None))
        else:
            pieces.append((mark.name, mark.body, end, mark.header))
    sections = []
    for name, start, end, header in pieces:
        start, end = trim(text, start, end)
        if end > start or header:
            sections.append(Section(name, start, end, header))
    return tuple(sections)


def _ends_cut_off(text: str) -> bool:
    stripped = text.rstrip()
    if not stripped:
        return False
    last_line = stripped[stripped.rfind("\n") + 1:]
    if _cut_header(last_line) and "\n" in stripped:
        return True
    words = _WORD_RE.findall(stripped[-40:])
    if not words or not stripped.endswith(words[-1]):
        return False  # ends on punctuation, a number or a de-identification token
    return continues_sentence(words[-1]) or lexicon.is_fragment(words[-1])


@lru_cache(maxsize=4096)
def parse_report(text: str) -> ParsedReport:
    """Sections and sentences of ``text`` (cached per text; the result is immutable)."""
    sections = find_sections(text)
    sentences: list[Sentence] = []
    for section in sections:
        for s, e in split_sentences(text, section.start, section.end):
            sentences.append(Sentence(len(sentences), text[s:e], s, e, section.name))
    return ParsedReport(text, sections, tuple(sentences))


def as_parsed(report: str | ParsedReport) -> ParsedReport:
    return report if isinstance(report, ParsedReport) else parse_report(report)


__all__ = ["IMAGE_SECTIONS", "SECTION_NAMES", "ParsedReport", "Section", "Sentence",
           "as_parsed", "find_sections", "parse_report", "split_sentences"]
