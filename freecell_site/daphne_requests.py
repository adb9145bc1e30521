"""Daphne's requests without Twisted's form parsing (every request body reaches Django as sent), and
with a deadline for each request to arrive (`bound_slow_requests`).

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


def bound_slow_requests(seconds: float) -> bool:
    """Gives each request on a connection to Daphne `seconds` to arrive whole (its line, headers and
    body), counted from the connection's start or the end of the request before it; past it the
    connection is dropped. Twisted's own timer (60 s) starts again with every byte, so a client sending
    one byte now and then held a connection for ever (a Daphne reached without the balancer, which
    waits for headers and bodies itself). A request that has arrived is not timed: an answer, a
    held-open stream or a websocket takes as long as it takes. False when Twisted is not there or
    `seconds` is 0."""
    try:
        from twisted.web.http import HTTPChannel
    except ImportError:
        return False
    if not seconds or getattr(HTTPChannel, "_request_deadline_s", None) is not None:
        HTTPChannel._request_deadline_s = seconds or None
        return bool(seconds)
    made, received, done, lost = HTTPChannel.connectionMade, HTTPChannel.allContentReceived, HTTPChannel.requestDone, HTTPChannel.connectionLost

    def arm(channel) -> None:
        disarm(channel)
        if HTTPChannel._request_deadline_s:
            channel._request_deadline = channel.callLater(HTTPChannel._request_deadline_s, lambda: too_slow(channel))

    def disarm(channel) -> None:
        deadline = getattr(channel, "_request_deadline", None)
        if deadline is not None and deadline.active():
            deadline.cancel()
        channel._request_deadline = None

    def too_slow(channel) -> None:
        channel._request_deadline = None
        if channel.transport is not None:
            channel.transport.loseConnection()  # nothing is on its way out: the request never came whole

    def connectionMade(self):
        made(self)
        arm(self)

    def allContentReceived(self):
        disarm(self)
        received(self)

    def requestDone(self, request):
        done(self, request)
        if self.persistent and not self._handlingRequest:  # waiting for the next request on this connection
            arm(self)

    def connectionLost(self, reason):
        disarm(self)
        lost(self, reason)

    HTTPChannel.connectionMade, HTTPChannel.allContentReceived = connectionMade, allContentReceived
    HTTPChannel.requestDone, HTTPChannel.connectionLost = requestDone, connectionLost
    HTTPChannel._request_deadline_s = seconds
    return True
