"""Person names as people read them. DICOM stores a name as ``Family^Given^Middle^Prefix^Suffix``
(PS3.5 6.2, value representation PN), with ``=`` before ideographic and phonetic spellings;
shown raw, ``Doe^John`` reads as a code, not a name."""
from __future__ import annotations


def display_name(name: str) -> str:
    """``Doe^John^A^Dr^Jr`` as ``Doe, Dr John A, Jr``; ``Doe^John`` as ``Doe, John``. Only the
    first (alphabetic) spelling is shown; a name without ``^`` (typed on the upload page) is
    shown as it is."""
    alphabetic = (name or "").split("=")[0].strip()
    if "^" not in alphabetic:
        return alphabetic
    family, given, middle, prefix, suffix = ([part.strip() for part in alphabetic.split("^")]
                                             + [""] * 5)[:5]
    rest = " ".join(part for part in (prefix, given, middle) if part)
    shown = ", ".join(part for part in (family, rest) if part)
    return f"{shown}, {suffix}" if suffix and shown else shown or suffix
