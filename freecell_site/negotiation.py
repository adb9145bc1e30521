"""Content negotiation: an explicit `?format=` wins over the Accept header, and an unknown one is the
spec's 400, not DRF's bare 404."""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.negotiation import DefaultContentNegotiation


class ContentNegotiation(DefaultContentNegotiation):
    """DRF's negotiation; `?format=xml` on an endpoint without that format is a bad request that names
    the formats the endpoint has (DRF raises an empty Http404, which told an API user nothing).

    DRF's browsable API (`?format=api`, or a browser's `Accept: text/html`) is never chosen: it
    answered the API's data as an HTML page with forms, which the spec's API never is (JSON, or the
    text and ndjson an endpoint names); /api/docs/ is the browsable documentation."""

    def select_renderer(self, request, renderers, format_suffix=None):
        renderers = [renderer for renderer in renderers if renderer.format != "api"]
        return self._select(request, renderers, format_suffix)

    def filter_renderers(self, renderers, format):
        kept = [renderer for renderer in renderers if renderer.format == format]
        if not kept:
            known = ", ".join(dict.fromkeys(renderer.format for renderer in renderers))
            raise ValidationError({"format": [f"{format!r} is not a format of this endpoint: use one of {known}"]})
        return kept

    def _select(self, request, renderers, format_suffix=None):
        # A client that asks for ?format=text but always sends `Accept: application/json` (many HTTP
        # libraries do) meant the format it named; DRF would answer 406.
        format = format_suffix or request.query_params.get(self.settings.URL_FORMAT_OVERRIDE)
        if format:
            renderer = self.filter_renderers(renderers, format)[0]
            return renderer, renderer.media_type
        return super().select_renderer(request, renderers, format_suffix)
