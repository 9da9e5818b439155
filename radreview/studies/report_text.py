"""Report texts as they may be stored: readable characters only.

Control characters other than line breaks and tabs, and the invisible characters that change
how text reads without being seen (bidirectional overrides, zero-width characters, the byte
order mark), are removed before a text is stored; a text left without a single letter or digit
is refused by the caller.
"""
from __future__ import annotations

import re
import unicodedata

_INVISIBLE = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff",  # zero-width, BOM
              *(chr(c) for c in range(0x202A, 0x202F)), *(chr(c) for c in range(0x2066, 0x206A))}
_KEPT_CONTROLS = {"\n", "\t"}
_LINE_ENDS = re.compile(r"\r\n?|[\u2028\u2029\x85]")


def clean_report_text(text: str) -> str:
    """Line breaks normalised to ``\\n``; unreadable characters removed; ends stripped."""
    text = _LINE_ENDS.sub("\n", text)
    kept = (ch for ch in text if ch in _KEPT_CONTROLS or not (
        ch in _INVISIBLE or unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn")))
    return "".join(kept).strip()


def is_readable(text: str) -> bool:
    """Whether the text has at least one letter or digit."""
    return any(ch.isalnum() for ch in text)
