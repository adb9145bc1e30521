"""Websocket handshakes from this site's own pages only: the `Origin` must name the host and port the
request came to (or a trusted origin), not merely an allowed host name."""

from __future__ import annotations

from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings


def same_origin(scope) -> bool:
    """Whether the handshake's Origin is this site, as Django's CSRF check decides for a POST.

    Channels' AllowedHostsOriginValidator (which runs first) compares host names only: a page served
    from another port of the same host (http://localhost:3000, anyone's dev server) passed, and the
    browser sends it the session cookie, which is not scoped by port."""
    headers = dict(scope.get("headers") or [])
    origin = headers.get(b"origin", b"").decode("latin-1").strip().lower()
    host = headers.get(b"host", b"").decode("latin-1").strip().lower()
    if not origin or not host:
        # No Origin: AllowedHostsOriginValidator refuses it. No Host: not HTTP/1.1 from a browser
        # (an in-process test client); the host names were checked.
        return True
    if origin in {trusted.lower() for trusted in settings.CSRF_TRUSTED_ORIGINS}:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc == host


class SameOriginValidator:
    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not same_origin(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
