"""Request body parsers: DRF's, with JSON nested too deeply for Python a 400 like any other bad JSON."""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:  # `[[[[...]]]]` a thousand deep: Python's decoder gives up (DRF: a 500)
            raise ParseError("JSON parse error - nested too deeply") from None
