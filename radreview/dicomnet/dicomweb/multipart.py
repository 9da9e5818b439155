"""multipart/related bodies, as DICOMweb's WADO-RS sends and receives them (PS3.18 8.6)."""
from __future__ import annotations

import re
import secrets
from collections.abc import Iterable

from radreview.errors import ServiceError

_BOUNDARY = re.compile(r'boundary="?([^";]+)"?', re.IGNORECASE)


def encode(parts: Iterable[tuple[bytes, str]]) -> tuple[bytes, str]:
    """(body, boundary) for parts given as (content, part content type)."""
    boundary = f"radreview-{secrets.token_hex(12)}"
    chunks = []
    for content, content_type in parts:
        chunks += [f"--{boundary}\r\nContent-Type: {content_type}\r\n\r\n".encode("ascii"),
                   content, b"\r\n"]
    chunks.append(f"--{boundary}--\r\n".encode("ascii"))
    return b"".join(chunks), boundary


def content_type(part_type: str, boundary: str, transfer_syntax: str | None = None) -> str:
    syntax = f"; transfer-syntax={transfer_syntax}" if transfer_syntax else ""
    return f'multipart/related; type="{part_type}"; boundary={boundary}{syntax}'


class MultipartError(ServiceError, ValueError):
    pass


def decode(body: bytes, content_type_header: str) -> list[tuple[dict[str, str], bytes]]:
    """The parts of a multipart/related body: (headers with lower-case names, content)."""
    match = _BOUNDARY.search(content_type_header or "")
    if not match:
        raise MultipartError("the answer is not multipart (no boundary)")
    delimiter = b"--" + match.group(1).encode("ascii")
    parts = []
    for chunk in body.split(delimiter)[1:]:
        if chunk.startswith(b"--"):
            break
        head, separator, content = chunk.partition(b"\r\n\r\n")
        if not separator:
            raise MultipartError("a part has no header end")
        headers = {}
        for line in head.decode("latin-1").strip().split("\r\n"):
            name, colon, value = line.partition(":")
            if colon:
                headers[name.strip().lower()] = value.strip()
        parts.append((headers, content[:-2] if content.endswith(b"\r\n") else content))
    return parts
