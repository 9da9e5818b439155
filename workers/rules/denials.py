"""What the reference library states and never denies (correction stage 1, judge).

Reports name some findings when they are there and leave them out when they are not:
chronic and incidental ones (aortic calcification, degenerative change, granulomas, scarring,
a tortuous aorta) are no pertinent negative, so no reader expects "no granuloma". The library
says which: a finding its reports state many times and deny never. A denial of one of them
("Aortic calcifications are not noted.") is the shape of a statement that gained a "no".

The counts come from the rule engine's reading of every library report, once per library
(0.7 s of CPU for the 971 reports of the IU dev file, the engine loaded), and leave out the audited
report's own copy, so a report never vouches for itself.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from workers.library.text import TextLibrary
from workers.nlp import extract_findings
from workers.nlp.findings import ABSENT, PRESENT
from workers.nlp.polarity import plain_denial
from workers.nlp.sections import IMAGE_SECTIONS, parse_report

# how often the library must state a finding before its silence on denials means something
MIN_STATED = 10


@dataclass
class FindingCounts:
    """Per observation: the library reports that state it (with how many mentions) and those
    that deny it."""

    stated: dict[str, Counter[int]]
    denied: dict[str, Counter[int]]
    # plain denials of the finding alone in its sentence (the shape never_denied looks for)
    denied_alone: dict[str, Counter[int]]

    def times(self, observation: str, status: str, exclude: int | None = None) -> int:
        """How many times the library states (PRESENT) or denies (ABSENT) the observation."""
        return _count(self.stated if status == PRESENT else self.denied, observation, exclude)

    def never_denied(self, observation: str, exclude: int | None = None) -> int:
        """How many times the library states the observation, when it never denies it (0
        when it does, or states it fewer than ``MIN_STATED`` times)."""
        if _count(self.denied_alone, observation, exclude):
            return 0
        stated = _count(self.stated, observation, exclude)
        return stated if stated >= MIN_STATED else 0


def _count(table: dict[str, Counter[int]], observation: str, exclude: int | None) -> int:
    """The observation's mentions in ``table``, leaving out the report at ``exclude``."""
    return sum(n for position, n in table.get(observation, Counter()).items()
               if position != exclude)


_COUNTS: WeakKeyDictionary[TextLibrary, FindingCounts] = WeakKeyDictionary()


def finding_counts(library: TextLibrary) -> FindingCounts:
    """The library's counts, made on first use and kept while the library lives."""
    counts = _COUNTS.get(library)
    if counts is None:
        stated: dict[str, Counter[int]] = defaultdict(Counter)
        denied: dict[str, Counter[int]] = defaultdict(Counter)
        alone: dict[str, Counter[int]] = defaultdict(Counter)
        for position, entry in enumerate(library.entries):
            parsed = parse_report(entry.text)
            findings = [f for f in extract_findings(parsed) if not f.implied
                        and parsed.sentences[f.sentence_index].section in IMAGE_SECTIONS]
            named: dict[int, set[str]] = defaultdict(set)
            for f in findings:
                named[f.sentence_index].add(f.observation)
            for f in findings:
                if f.status == PRESENT:
                    stated[f.observation][position] += 1
                elif f.status == ABSENT:
                    denied[f.observation][position] += 1
                    if plain_denial(f.cue) and len(named[f.sentence_index]) == 1:
                        alone[f.observation][position] += 1
        counts = _COUNTS[library] = FindingCounts(dict(stated), dict(denied), dict(alone))
    return counts


def keep_finding_counts(library: TextLibrary, counts: FindingCounts) -> None:
    """Use ``counts`` (counted before over the same texts) as this library's counts."""
    _COUNTS[library] = counts


__all__ = ["MIN_STATED", "FindingCounts", "finding_counts", "keep_finding_counts"]
