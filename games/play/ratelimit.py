"""Per-account limit on game actions, shared by every entry point (REST, websocket) and process.

A fixed one-second window counted in the cache (Redis when configured). If the cache is down the limit
fails open: moves are still validated and stored, which matters more than throttling a burst.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache

from freecell_site.errors import ServiceError

logger = logging.getLogger(__name__)


def check_actions(user_id: int) -> None:
    """Counts one action for the account; refuses with `rate_limited` above the per-second limit."""
    limit = settings.ACTIONS_PER_SECOND
    if not limit:
        return
    key = f"actions:{user_id}:{int(time.time())}"
    try:
        try:
            count = cache.incr(key)  # one round trip, except for the first action of a second
        except ValueError:  # no counter yet for this second
            count = 1 if cache.add(key, 1, timeout=5) else cache.incr(key)
    except Exception as exc:  # see the module docstring
        logger.warning("action rate limit unavailable: %s: %s", type(exc).__name__, exc)
        return
    if count > limit:
        # The window is the current second: it ends in under a second (REST: whole seconds; sockets: ms).
        wait_ms = 1000 - int(time.time() * 1000) % 1000
        raise ServiceError(
            "rate_limited",
            f"at most {limit} moves a second per account",
            status=429,
            extra={"retry_after": 1, "retry_after_ms": wait_ms},
        )
