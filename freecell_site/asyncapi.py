"""The AsyncAPI document of the websockets (asyncapi.json beside this module), served at /api/asyncapi.json."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from django.http import HttpResponse
from django.views.decorators.http import require_safe

DOCUMENT = Path(__file__).with_name("asyncapi.json")


@cache
def _document() -> bytes:
    return DOCUMENT.read_bytes()


@require_safe
def asyncapi_document(request):
    return HttpResponse(_document(), content_type="application/json")
