"""Log filters: a client's mistake is one line in the log; tracebacks are for the server's own errors."""

from __future__ import annotations

import logging


class ClientErrorsWithoutTraceback(logging.Filter):
    """Drops the traceback of records about a client's request gone wrong: a 4xx answer (Django logs
    "Forbidden (Permission denied)" with its exception) or a suspicious request (a Host header not
    in ALLOWED_HOSTS, from every scanner on the internet). Its one line still says what and where."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("django.security.") or getattr(record, "status_code", 500) < 500:
            record.exc_info = None
            record.exc_text = None
        return True
