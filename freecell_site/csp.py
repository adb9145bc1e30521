"""The Content-Security-Policy of the site's pages: scripts, styles and connections from this site only."""

from __future__ import annotations

# The pages load their scripts and styles from /static/ and build everything else with the DOM (no
# inline script, style attribute or event handler), so nothing inline is allowed: an injected script
# would not run. Sockets go back to this site ('self' covers ws: and wss: of the same host).
POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
# Django's admin, DRF's browsable API and Swagger UI (/api/docs/) have inline scripts of their own.
EXEMPT = ("/api/", "/admin/")


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not request.path.startswith(EXEMPT) and response.get("Content-Type", "").startswith("text/html"):
            response.setdefault("Content-Security-Policy", POLICY)
        return response
