"""A live connection's sign-in: how a socket or a stream signed in, and when it asks again whether it holds.

A request is signed in on every call; a socket or a stream signs in once and then stays open. It asks
again (`holds`: one query, as a request made with the sign-in now would) only when its sign-in may
have ended:

- the player's sign-ins changed: the `account.sign_ins` event on their account's group, sent on a
  sign-out, a new password, a revoked token, a closed or deactivated account (accounts.services);
- the bus came back after a failure, which may have lost that event;
- its token's expiry came (an app's token ends then);
- and at least every SIGN_IN_CHECK_S whatever else, for what sends no event (a session that expired,
  an event lost to a publish that failed). The first of these comes at a random point of the
  period's second half, so that sockets opened together do not all ask together.

The process's beats (games.sockets.heartbeats) say when the connection's check is due (`due`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import math
import random

from django.conf import settings
from django.db import DatabaseError
from django.utils import timezone

from accounts.authentication import still_signed_in
from games.sockets.database import db

logger = logging.getLogger(__name__)

#: How soon a check the database could not answer is made again.
RETRY_S = 10.0

#: How long after its token's expiry a connection asks: the database's clock decides, and may be behind.
EXPIRY_SLACK_S = 1.0


class SignIn:
    """How a socket or stream signed in (`how` "session" or "token", `key` the session key or the
    token's key as sent, `user_id`), when its token expires, and when it next asks if it holds."""

    __slots__ = ("how", "key", "user_id", "ends", "next_check")  # one per open connection: kept small

    def __init__(self, how: str, key: str, user_id: int, expires_at: dt.datetime | None = None):
        self.how, self.key, self.user_id = how, key, user_id
        now = asyncio.get_running_loop().time()
        # The expiry on the loop's clock, which is what the beats keep.
        self.ends = None if expires_at is None else now + (expires_at - timezone.now()).total_seconds() + EXPIRY_SLACK_S
        self.next_check = self._after(now, random.uniform(0.5, 1.0))

    def _after(self, now: float, share: float = 1.0) -> float:
        when = now + settings.SIGN_IN_CHECK_S * share
        return min(when, self.ends) if self.ends is not None and self.ends > now else when

    def due(self, now: float) -> bool:
        """Whether a check is due at `now`; if so, none is due again until it has answered (`holds`)."""
        if now < self.next_check:
            return False
        self.next_check = math.inf
        return True

    async def holds(self) -> bool:
        """Whether the sign-in still holds; yes while the database cannot say (asked again in RETRY_S)."""
        try:
            held = await db(still_signed_in)(self.how, self.key, self.user_id)
        except DatabaseError as exc:
            logger.warning("a sign-in check failed: %s", exc)
            self.next_check = asyncio.get_running_loop().time() + RETRY_S
            return True
        self.next_check = self._after(asyncio.get_running_loop().time())
        return held
