"""Daphne's requests without Twisted's form parsing: every request body reaches Django as sent.

Twisted's HTTP request parses a POST body of `multipart/form-data` or form-urlencoded into
`request.args` before the application sees it, and answers a multipart body it cannot parse with a
bare 400 (no JSON, no `error` code) and a closed connection, which breaks the spec's error shape for
an API client that sends a malformed upload. Daphne never reads `request.args` for the body (it
passes the raw body on), so the parse is also a second copy of every form body. Twisted offers the switch
(`parsePOSTFormSubmission`); Daphne builds its requests without passing it, so it is set here.
"""

from __future__ import annotations

import inspect


def stop_form_parsing() -> bool:
    """Makes Daphne's requests skip Twisted's form parsing; False when Daphne is not installed or its
    request class no longer matches (then Twisted's default stays)."""
    try:
        from daphne.http_protocol import WebRequest
        from twisted.web.http import Request
    except ImportError:  # served by another ASGI server
        return False
    if getattr(WebRequest, "_forms_left_to_django", False):
        return True
    # A Twisted without the switch would refuse the argument on every request: leave it alone.
    if "parsePOSTFormSubmission" not in inspect.signature(Request.__init__).parameters:
        return False
    original = WebRequest.__init__

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("parsePOSTFormSubmission", False)
        original(self, *args, **kwargs)

    WebRequest.__init__ = __init__
    WebRequest._forms_left_to_django = True
    return True
