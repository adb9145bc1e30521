"""Request body parsers: DRF's, with JSON nested too deeply for Python, or spelling half a character,
a 400 like any other bad JSON."""

from __future__ import annotations

import json

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
