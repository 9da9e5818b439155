"""Sections and sentences of a radiology report, with character spans into the original text.

``parse_report(text)`` is the first step of every language stage: it finds the section headers
("FINDINGS:", "Impression:", any other ALLCAPS "XYZ:" header) and splits each section body into
sentences. The sentence definition follows the benchmark's (../shared/bench/README.md):

* a sentence ends at a period (a run of periods, or "?" / "!") followed by whitespace or by the
  end of its section; text after the last such period is a final sentence;
* a period that only closes a leading list number ("1.", "2)") does not end a sentence, and the
  list number is not part of the sentence span;

and it survives what real reports contain: abbreviations ("Dr.", "e.g.", "approx."), decimal
measurements ("2.5 cm", "1.2 x 3.4 cm"), de-identification tokens ("XXXX"), a missing space
after a period ("normal.Calcified") and double periods ("abnormality..", kept in the span).
A line break ends a sentence when the next line starts a new item (a capital letter, a list
number or a bullet) or after a blank line; a wrapped line that continues in lower case does not.

Every ``Sentence.text`` equals ``report[start:end]``; indices count across the whole report.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

SECTION_NAMES = ("findings", "impression", "indication", "comparison", "history", "technique",
                 "other")

# Header wording -> section name. Matched case-insensitively on the words before the colon.
_KNOWN_HEADERS = {
    "findings": "findings", "finding": "findings", "report": "findings", "body": "findings",
    "impression": "impression", "impressions": "impression", "conclusion": "impression",
    "conclusions": "impression", "opinion": "impression", "summary": "impression",
    "indication": "indication", "indications": "indication", "reason for exam": "indication",
    "reason for examination": "indication", "reason for study": "indication",
    "reason": "indication", "clinical indication": "indication",
    "comparison": "comparison", "comparisons": "comparison", "prior": "comparison",
    "prior studies": "comparison", "prior study": "comparison",
    "history": "history", "clinical history": "history", "clinical information": "history",
    "clinical data": "history",
    "technique": "technique", "techniques": "technique", "procedure": "technique",
    "exam": "technique", "examination": "technique", "views": "technique",
}

# A known header (any case) at the start of a line or right after a sentence end, or an
# ALLCAPS header of 2-5 words at the start of a line. "XXXX" (de-identification) is never one.
_KNOWN_ALT = "|".join(sorted((re.escape(k).replace(r"\ ", r"\s+") for k in _KNOWN_HEADERS),
                             key=len, reverse=True))
_HEADER_RE = re.compile(
    r"(?:(?<=^)|(?<=\n)|(?<=[.?!]\s)|(?<=[.?!]\s\s))[ \t]*"
    r"(?P<header>(?P<known>(?i:" + _KNOWN_ALT + r"))"
    r"|(?P<caps>(?<![^\n])[ \t]*[A-Z][A-Z&/()-]+(?:[ \t]+[A-Z&/()-]+){0,4}))"
    r"[ \t]*:",
)

_ABBREVIATIONS = frozenset({
    "dr", "mr", "mrs", "ms", "prof", "sr", "jr", "st", "approx", "appr", "vs", "e.g", "i.e",
    "eg", "ie", "cf", "fig", "figs", "incl", "est", "resp", "a.m", "p.m", "ca", "no",
    "nos", "al", "et", "pt", "pts",
})

# A sentence boundary candidate: a run of terminal punctuation, optionally closed by a
# bracket or quote. What follows decides whether it is one.
_BOUNDARY_RE = re.compile(r"[.?!]+[)\]\"']?|\n")
_WORD_BEFORE_RE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_LIST_MARKER_RE = re.compile(r"(?:\(?\d{1,2}[.)](?!\d)|[-*\u2022\u2013]|[,;:])[ \t]*")
_BLANK = " \t\r\n"


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


def _section_name(header: str) -> str:
    key = " ".join(header.lower().split())
    return _KNOWN_HEADERS.get(key, "other")


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in _BLANK:
        start += 1
    while end > start and text[end - 1] in _BLANK:
        end -= 1
    return start, end


def find_sections(text: str) -> tuple[Section, ...]:
    """The sections of ``text`` in order. Text without any header is one "findings" section;
    text before the first header is "findings" when no FINDINGS header follows, else "other"."""
    headers = []
    for m in _HEADER_RE.finditer(text):
        word = m.group("header").strip()
        if word.upper().strip("X") == "" or (m.group("caps") and len(word.replace(" ", "")) < 3):
            continue
        header = m.group("header")
        headers.append((m.start("header") + len(header) - len(header.lstrip()), m.end(), word))
    if not headers:
        start, end = _trim(text, 0, len(text))
        return (Section("findings", start, end, None),)

    sections: list[Section] = []
    names = [_section_name(h[2]) for h in headers]
    pre_start, pre_end = _trim(text, 0, headers[0][0])
    if pre_end > pre_start:
        pre_name = "other" if "findings" in names else "findings"
        sections.append(Section(pre_name, pre_start, pre_end, None))
    for i, (_, body_start, word) in enumerate(headers):
        body_end = headers[i + 1][0] if i + 1 < len(headers) else len(text)
        start, end = _trim(text, body_start, body_end)
        sections.append(Section(names[i], start, end, word))
    return tuple(sections)


def _is_boundary(text: str, m: re.Match, end: int) -> bool:
    """Whether the punctuation run (or newline) matched by ``m`` ends a sentence in a body
    that ends at ``end``."""
    after = m.end()
    if m.group() == "\n":
        nxt = after
        while nxt < end and text[nxt] in " \t\r":
            nxt += 1
        if nxt >= end:
            return True
        if text[nxt] == "\n":
            return True
        prev = m.start() - 1
        while prev >= 0 and text[prev] in " \t\r":
            prev -= 1
        if prev >= 0 and text[prev] in ".?!:;":
            return False  # the punctuation before it was already a boundary (or a header)
        return text[nxt].isupper() or text[nxt].isdigit() or text[nxt] in "-*\u2022"
    run = m.group()
    if after >= end:
        return True
    nxt = text[after]
    if "." in run and run.rstrip(")]\"'") == ".":
        # a single period: skip abbreviations and leading list numbers
        before = text[max(0, m.start() - 12):m.start()]
        wm = _WORD_BEFORE_RE.search(before)
        if wm and wm.group(1).lower() in _ABBREVIATIONS and nxt in " \t" \
                and not (wm.group(1).lower() == "no" and after + 1 < end
                         and text[after + 1].isupper()):
            return False
    if nxt in _BLANK:
        return True
    # "normal.Calcified": a period glued to the next capitalised word
    prev = text[m.start() - 1] if m.start() > 0 else ""
    if run[0] == "." and (prev.islower() or prev == ")") and nxt.isupper():
        wm = _WORD_BEFORE_RE.search(text[max(0, m.start() - 12):m.start()])
        return not (wm and wm.group(1).lower() in _ABBREVIATIONS)
    return False


def _strip_marker(text: str, start: int, end: int) -> int:
    """Move ``start`` past leading list numbers, bullets and stray punctuation."""
    while start < end:
        m = _LIST_MARKER_RE.match(text, start, end)
        if not m or m.end() == start:
            break
        # "2.5 cm" is a measurement, not a list marker; the lookahead already keeps it.
        start = m.end()
        while start < end and text[start] in _BLANK:
            start += 1
    return start


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` inside ``text[start:end]``."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    cur = start
    for m in _BOUNDARY_RE.finditer(text, start, end):
        if m.start() < cur:
            continue
        if not _is_boundary(text, m, end):
            continue
        stop = m.end() if m.group() != "\n" else m.start()
        _add_span(text, cur, stop, spans)
        cur = m.end()
    _add_span(text, cur, end, spans)
    return spans


def _add_span(text: str, start: int, stop: int, spans: list[tuple[int, int]]) -> None:
    start, stop = _trim(text, start, stop)
    start = _strip_marker(text, start, stop)
    # a lone list number ("2.") directly followed by the next item is no sentence of its own
    if stop > start and any(c.isalnum() for c in text[start:stop]):
        spans.append((start, stop))


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
