"""Extra response formats: plain text (`?format=text`) and newline-delimited JSON (`?format=ndjson`)."""

from __future__ import annotations

import json

from rest_framework.renderers import BaseRenderer


class PlainTextRenderer(BaseRenderer):
    media_type = "text/plain"
    format = "text"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, str):
            return data.encode(self.charset)
        # Errors keep their JSON body even when text was asked for.
        return json.dumps(data).encode(self.charset)


class NDJSONRenderer(BaseRenderer):
    media_type = "application/x-ndjson"
    format = "ndjson"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, list):
            return "".join(json.dumps(row) + "\n" for row in data).encode(self.charset)
        return (json.dumps(data) + "\n").encode(self.charset)
