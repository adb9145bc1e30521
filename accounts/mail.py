"""Sends e-mail after the request has been answered, from one background thread.

A password-reset request answers the same whether or not anyone has the address; sending the mail
inside the request made the answer a few hundred milliseconds slower (an SMTP round trip) exactly when
the address belonged to an account, which told anyone timing it who plays here. The messages are
built in the request (cheap) and handed to this thread; a failure to send is logged, not shown to
the requester, who could not act on it anyway.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from django.core.mail import EmailMessage, get_connection

logger = logging.getLogger(__name__)

# One thread: mails go out in order and a burst of requests queues here instead of opening many
# SMTP connections.
_sender = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mail")


def _send(messages: list[EmailMessage]) -> None:
    try:
        get_connection().send_messages(messages)
    except Exception:
        logger.exception("could not send %d mail(s) to %s", len(messages), [m.to for m in messages])


def send_later(messages: list[EmailMessage]) -> None:
    """Queues `messages` for the sender thread and returns at once."""
    if messages:
        _sender.submit(_send, messages)


def wait_until_sent(timeout: float = 10.0) -> None:
    """Returns once every mail queued before the call has been handed to the backend (for tests
    and management commands that exit right after)."""
    _sender.submit(lambda: None).result(timeout=timeout)
