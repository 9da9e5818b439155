"""What kind of file is this? Decided from its first bytes, never from its name alone.

DICOM is recognised by the "DICM" marker at offset 128 (a DICOM Part 10 file). A *bare*
DICOM data set (no 128-byte preamble, no marker, no file meta, as some older archives and
scripts write them) is accepted only when its first bytes parse as a run of at least three
well-formed little-endian data elements (explicit or implicit VR) with ascending tags, even
value lengths, valid VRs, and a first tag from the file-meta (0002) or identifying (0008)
group that is in the DICOM dictionary. That rules out text and other binary formats, whose
first bytes do not form such a run by accident; :func:`~workers.imaging.dicom.read_dicom`
then parses the whole file and validates it.
"""
from __future__ import annotations

import struct
from typing import Literal

from pydicom.datadict import dictionary_has_tag

Kind = Literal["dicom", "png", "jpeg", "text"]

#: How many leading bytes callers should pass to :func:`detect_kind`.
SNIFF_BYTES = 4096

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_JPEG_MAGIC = b"\xff\xd8\xff"

# Formats we recognise only to name them in the rejection message.
_OTHER_FORMATS: tuple[tuple[int, bytes, str], ...] = (
    (0, b"%PDF", "a PDF document"),
    (0, b"PK\x03\x04", "a ZIP archive (upload the DICOM files it contains instead)"),
    (0, b"\x1f\x8b", "a gzip archive (upload the DICOM files it contains instead)"),
    (0, b"II*\x00", "a TIFF image"),
    (0, b"MM\x00*", "a TIFF image"),
    (0, b"GIF87a", "a GIF image"),
    (0, b"GIF89a", "a GIF image"),
    (8, b"WEBP", "a WebP image"),
    (4, b"ftypheic", "a HEIC photo"),
    (4, b"ftyp", "a video or HEIC file"),
    (0, b"\x00\x00\x00\x0cjP  ", "a JPEG 2000 image (not inside DICOM)"),
    (0, b"\xff\x4f\xff\x51", "a raw JPEG 2000 codestream (not inside DICOM)"),
)

_EXPLICIT_VRS = {
    b"AE", b"AS", b"AT", b"CS", b"DA", b"DS", b"DT", b"FD", b"FL", b"IS", b"LO", b"LT",
    b"OB", b"OD", b"OF", b"OL", b"OV", b"OW", b"PN", b"SH", b"SL", b"SQ", b"SS", b"ST",
    b"SV", b"TM", b"UC", b"UI", b"UL", b"UN", b"UR", b"US", b"UT", b"UV",
}
_LONG_VRS = {b"OB", b"OD", b"OF", b"OL", b"OV", b"OW", b"SQ", b"UC", b"UN", b"UR", b"UT"}
_UNDEFINED = 0xFFFFFFFF


def detect_kind(head: bytes, filename: str = "") -> Kind | None:
    """Classify a file from its first bytes (pass at least :data:`SNIFF_BYTES` of them).

    Returns "dicom", "png", "jpeg", "text" (UTF-8, or a legacy single-byte encoding when the
    name ends in .txt, with no binary control characters), or None for anything else.
    The content decides: a DICOM file named ``image.png`` is "dicom". ``filename`` only
    widens what counts as text (a .txt report in Windows-1252).
    """
    head = bytes(head)
    if head[128:132] == b"DICM":
        return "dicom"
    if head.startswith(_PNG_MAGIC):
        return "png"
    if head.startswith(_JPEG_MAGIC):
        return "jpeg"
    if is_bare_dicom(head):
        return "dicom"
    if describe_unknown(head):  # "%PDF-1.7" is ASCII, but a PDF is no report
        return None
    if _looks_like_text(head, filename):
        return "text"
    return None


def describe_unknown(head: bytes) -> str:
    """A short name for a file that is not one we accept ("a PDF document"), or "" if unknown."""
    head = bytes(head)
    for offset, magic, name in _OTHER_FORMATS:
        if head[offset : offset + len(magic)] == magic:
            return name
    if head[:2] == b"BM" and head[6:10] == b"\0\0\0\0":  # "BM", file size, reserved zeros
        return "a BMP image"
    return ""


def is_bare_dicom(head: bytes) -> bool:
    """True when ``head`` starts with a plausible DICOM data set lacking preamble and marker."""
    return _count_elements(head, explicit=True) >= 3 or _count_elements(head, explicit=False) >= 3


def _count_elements(head: bytes, *, explicit: bool) -> int:
    """How many well-formed, ascending data elements ``head`` starts with (0 if the first is
    implausible). Stops at an undefined-length element, whose end cannot be found cheaply."""
    pos, count, last_tag = 0, 0, -1
    while pos + 8 <= len(head):
        group, element = struct.unpack_from("<HH", head, pos)
        tag = (group << 16) | element
        if count == 0 and (group not in (0x0002, 0x0008) or not dictionary_has_tag(tag)):
            return 0
        if tag <= last_tag:
            break
        if explicit:
            vr = head[pos + 4 : pos + 6]
            if vr not in _EXPLICIT_VRS:
                break
            if vr in _LONG_VRS:
                if pos + 12 > len(head) or head[pos + 6 : pos + 8] != b"\x00\x00":
                    break
                length = struct.unpack_from("<I", head, pos + 8)[0]
                pos += 12
            else:
                length = struct.unpack_from("<H", head, pos + 6)[0]
                pos += 8
        else:
            length = struct.unpack_from("<I", head, pos + 4)[0]
            pos += 8
        if length == _UNDEFINED:
            return count + 1
        if length % 2 or length > 1 << 30:
            break
        count += 1
        last_tag = tag
        pos += length
    return count


def _looks_like_text(head: bytes, filename: str) -> bool:
    if not head or b"\x00" in head:
        return False
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 3:  # a multi-byte character cut off by the sniff window
            text = head[: exc.start].decode("utf-8", errors="strict")
        elif filename.lower().endswith(".txt"):
            text = head.decode("cp1252", errors="replace")
        else:
            return False
    controls = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\n\r\f")
    return controls <= len(text) // 100
