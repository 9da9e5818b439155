"""One negation (issue 17): no negation cue regex or negation word list outside workers/nlp.

The scan reads every module of workers/ (less workers/nlp) and radreview/: a regular expression
given to ``re`` whose pattern holds a negation word as a word of its own ("\\b(?:no|without)",
"is\\s+not\\s+"), or a list, tuple or set literal with two or more negation words, is a second
place deciding what denies, and fails the suite. The few regexes below are not that, each
with its reason; a new one needs a reason here or, better, a function in
workers/nlp (polarity.py, denial_words.py).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCANNED = ("workers", "radreview")
_RE_FUNCTIONS = frozenset({"compile", "search", "match", "fullmatch", "sub", "subn", "findall",
                           "finditer", "split"})
# a negation word standing as a word of the pattern, once its escapes (\b, \s, \w) are blanks
_CUE_IN_PATTERN_RE = re.compile(r"(?<![A-Za-z])(?:no|not|nor|none|neither|without|"
                                r"(?:negative|free|absence)[\s+*]+(?:for|of))(?![A-Za-z])",
                                re.IGNORECASE)
_ESCAPE_RE = re.compile(r"\\[A-Za-z]")
_LIST_WORDS = frozenset({"no", "not", "nor", "none", "neither", "without", "negative for",
                         "free of", "absence of"})

# pattern source -> why it may stay where it is
ALLOWED = {
    # not a cue read in a report
    r"\b(yes|no)\b": "the answer word a model gives to a yes/no question (workers/vrag/probe)",
    r"^no\s+": "the 'no ' the composer itself writes before a negative phrase (workers/rarrg)",
    r"^(?:no|possible)\s+": "the prefix V-RAG writes on its own entity phrases (imagememory)",
    # the judge's list structure: what may stand before and after an item of a list ("no A,
    # B or C"); it decides no polarity (workers/nlp does), only where a list goes on
    r"(?:,|\b(?:or|and|no|without|of|for|nor))\s*$":
        "workers/rules' words before a list item (list structure, not a denial)",
    r"^\s*(?:,|\b(?:or|and|nor)\b)": "workers/rules' words after a list item (list structure)",
}


def _text(node: ast.AST) -> str | None:
    """A string literal, or literals joined with "+"."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        if left is not None and right is not None:
            return left + right
    return None


def negation_cues(source: str) -> list[tuple[int, str]]:
    """(line, pattern or word list) of each negation cue regex or word list in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" \
                and node.func.attr in _RE_FUNCTIONS and node.args:
            pattern = _text(node.args[0])
            if pattern is not None and _CUE_IN_PATTERN_RE.search(_ESCAPE_RE.sub(" ", pattern)):
                found.append((node.lineno, pattern))
        elif isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            words = {e.value.lower() for e in node.elts
                     if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            if len(words & _LIST_WORDS) >= 2:
                found.append((node.lineno, repr(sorted(words))))
    return found


def _modules():
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.relative_to(ROOT).parts[:2] != ("workers", "nlp"):
                yield path


def test_no_negation_cue_regex_outside_workers_nlp():
    found = {f"{path.relative_to(ROOT)}:{line}": pattern for path in _modules()
             for line, pattern in negation_cues(path.read_text(encoding="utf-8"))
             if pattern not in ALLOWED}
    assert found == {}


def test_every_allowed_pattern_is_still_there():
    """An allowed leftover that moved to workers/nlp leaves this list too."""
    seen = {pattern for path in _modules()
            for _, pattern in negation_cues(path.read_text(encoding="utf-8"))}
    assert set(ALLOWED) - seen == set()


# The shapes the correction kept before they moved to workers/nlp/denial_words.py (issue 17),
# and the word list shape polarity.py keeps: each is caught.
CAUGHT = [
    'X = re.compile(r"\\b(?:no|without)\\s+(?:[\\w-]+\\s+){0,4}$", re.IGNORECASE)',
    'X = re.compile(r"\\b(?:no|without)\\s+(?:[\\w-]+\\s+){1,4}and/or\\s+$", re.I)',
    'X = re.compile(r",\\s*(notably|specifically)"\n                r"\\s+(?:no|without)\\b")',
    'X = re.compile(r"^(?:[\\w-]+\\s+){0,5}?(?:is|are)\\s+not\\s+(?:seen|noted)\\b")',
    'X = re.compile(r"^(?:[\\w-]+\\s+){0,5}?(?:is|are)\\s+" + r"not\\s+seen")',
    'if re.search(r"\\b(?:no|without|of)\\s*$", before, re.I): pass',
    'if re.search(r"\\bnegative\\s+for\\b", text): pass',
    'WORDS = frozenset({"no", "not", "none", "nor"})',
    'WORDS = ("without", "free of")',
]


def test_the_scan_catches_each_shape():
    for source in CAUGHT:
        assert negation_cues(source), source


def test_the_scan_leaves_other_words_alone():
    source = ('A = re.compile(r"\\b(?:notably|nodule|nothing|knot|cannon)\\b")\n'
              'B = ("yes", "no")\nC = re.compile(r"\\bnode\\s+of\\b")\n')
    assert negation_cues(source) == []
