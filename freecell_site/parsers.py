"""Request body parsers: DRF's, with JSON nested too deeply for Python, or spelling half a character,
a 400 like any other bad JSON, and a multipart body that is no multipart a 400 too."""

from __future__ import annotations

import io
import json

from django.utils.http import parse_header_parameters
from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:  # `[[[[...]]]]` a thousand deep: Python's decoder gives up (DRF: a 500)
            raise ParseError("JSON parse error - nested too deeply") from None
        if not is_encodable(data):
            # "\udfff" decodes to half a UTF-16 pair, which no database stores and no error may echo.
            raise ParseError("JSON parse error - a string holds a lone surrogate (half of a UTF-16 pair)")
        return data


def is_encodable(data) -> bool:
    """Whether every string in parsed JSON is text that UTF-8 can carry (JSON can spell a lone
    surrogate, which no database, renderer or socket can). Used for request bodies and socket frames."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class MultiPartParser(parsers.MultiPartParser):
    """DRF's, refusing a body that does not open with its boundary (`[]` sent as multipart): Django's
    parser reads such a body as a form with no field, so the request went on with every default (a race
    made of nothing, 201). An empty body stays an empty form."""

    def parse(self, stream, media_type=None, parser_context=None):
        body = stream.read() if stream is not None else b""
        boundary = parse_header_parameters(media_type or "")[1].get("boundary", "")
        if body and not (boundary and body.lstrip(b"\r\n").startswith(b"--" + boundary.encode("latin-1", "replace"))):
            raise ParseError("Multipart form parse error - the body does not open with its boundary")
        return super().parse(io.BytesIO(body), media_type, parser_context)
