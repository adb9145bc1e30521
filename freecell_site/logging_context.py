"""Who a log line is about: the request id of the HTTP request, or the connection id of the websocket,
whose work wrote it (docs/operations.md, "Logs").

Both live in context variables: a request's id is set by RequestIdMiddleware for the thread that runs
its view, a socket's by the socket when it opens, and asyncio's tasks and asgiref's threads carry the
context on, so every line the view or the socket's frames cause carries it. The id of a request is
nginx's `X-Request-ID` (deploy/nginx/nginx.conf sets it and writes it in its access log), or one made
here when it is absent or not an id; it goes back in the answer's `X-Request-ID` header.
"""

from __future__ import annotations

import contextvars
import logging
import re
import secrets

from django.core.signals import request_finished

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
connection_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("connection_id", default=None)

HEADER = "X-Request-ID"
# What an id may hold: nginx's $request_id is 32 hex digits; a UUID, or a provider's id, also fits. Any
# other value is replaced, so that nothing a client wrote reaches the log but an id.
_ID = re.compile(r"[A-Za-z0-9._-]{8,128}")


def new_id() -> str:
    return secrets.token_hex(16)


class ContextFilter(logging.Filter):
    """Puts `request_id` and `connection_id` on every record (None outside a request or socket), and
    `context`, their words for the plain format (empty outside both)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        record.connection_id = connection_id.get()
        words = []
        if record.request_id:
            words.append(f"request={record.request_id}")
        if record.connection_id:
            words.append(f"socket={record.connection_id}")
        record.context = f" [{' '.join(words)}]" if words else ""
        return True


class RequestIdMiddleware:
    """Sets the request's id for its log lines and answers it in `X-Request-ID`."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        given = request.META.get("HTTP_X_REQUEST_ID", "")
        current = given if _ID.fullmatch(given) else new_id()
        # Not reset when the chain returns: Django logs a 4xx answer ("Not Found: /x") after it. Each
        # request runs in a context of its own (freecell_site/wsgi_bridge.py); request_finished clears
        # it for servers that reuse one (the test client).
        request_id.set(current)
        response = self.get_response(request)
        response[HEADER] = current
        return response


def _forget_request(**kwargs) -> None:
    request_id.set(None)


request_finished.connect(_forget_request, dispatch_uid="freecell_site.logging_context")


def json_formatter():
    """One JSON object a line (python-json-logger), with the time, level, logger and both ids."""
    from pythonjsonlogger.core import RESERVED_ATTRS
    from pythonjsonlogger.json import JsonFormatter

    return JsonFormatter(
        "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s %(connection_id)s",
        rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        reserved_attrs=[*RESERVED_ATTRS, "context"],  # the plain format's words, said by the fields above
    )
