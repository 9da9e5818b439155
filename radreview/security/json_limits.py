"""JSON from clients, bounded: a body above MAX_JSON_BODY_BYTES or nested deeper than
MAX_JSON_DEPTH is refused with the reason (400), never a RecursionError (500).

Python's JSON decoder raises RecursionError near a depth of 1,000; workers/jsonl.py's
``load_json``, shared with the readers of uploaded files, catches it and measures the depth of
what did decode without recursion, so the serializers never see a value deep enough to exhaust
the stack either.
"""
from __future__ import annotations

import codecs

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.utils.json import strict_constant

from radreview.errors import ServiceError
from workers import jsonl


class JSONRefused(ServiceError, ValueError):
    """JSON we do not take; the message says why."""


def loads(text: str | bytes, *, max_depth: int | None = None):
    """``json.loads`` that refuses NaN/Infinity and nesting deeper than ``max_depth``."""
    try:
        return jsonl.load_json(text, max_depth=max_depth or settings.MAX_JSON_DEPTH,
                               parse_constant=strict_constant)
    except jsonl.JsonDepthError as exc:
        raise JSONRefused(str(exc)) from None


class BoundedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.MAX_JSON_BODY_BYTES
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise ParseError(f"The JSON body is larger than the limit of {limit // 1024} KB.")
        encoding = get_encoding(parser_context or {})
        try:
            text = codecs.decode(raw, encoding)
            return loads(text)
        except JSONRefused as exc:
            raise ParseError(f"JSON refused: {exc}.") from None
        except ValueError as exc:  # includes UnicodeDecodeError and json.JSONDecodeError
            raise ParseError(f"JSON parse error - {exc}") from None
