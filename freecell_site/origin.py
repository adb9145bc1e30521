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
    schemes = ("https",) if _over_tls(scope, headers) else ("http", "https")
    return parts.scheme in schemes and parts.netloc == host


def _over_tls(scope, headers) -> bool:
    """Whether the handshake is known to have come over TLS: then a plain-HTTP page (one a network
    attacker could write) is another origin, as Django's CSRF check holds for a POST. Daphne gives a
    socket's scope no scheme, so behind the proxy that `SECURE_PROXY_SSL_HEADER` trusts its header
    tells. Unknown (no header) takes either scheme: refusing the site's own https pages there would
    break every socket of a proxy that does not forward the header on its websocket route."""
    if scope.get("scheme") == "wss":
        return True
    trusted = settings.SECURE_PROXY_SSL_HEADER
    if not trusted:
        return False
    name, value = trusted
    header = name.removeprefix("HTTP_").replace("_", "-").lower().encode("latin-1")
    return headers.get(header, b"").decode("latin-1").split(",")[0].strip().lower() == value


class SameOriginValidator:
    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not same_origin(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
