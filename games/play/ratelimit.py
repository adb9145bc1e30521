"""Per-account limit on game actions, shared by every entry point (REST, websocket) and process.

A fixed one-second window per account, counted in this process exactly and without I/O, so that an
action costs no round trip to the cache; what this process counted is shared with the others in the
cache (Redis when configured) in batches, every `SHARE_S` from a thread of its own, and the totals the
others counted come back with it. Across processes the limit therefore holds within a batch's delay.
If the cache is down the shared part fails open: moves are still validated and stored, which matters
more than throttling a burst, and each process's own count still holds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter

from django.conf import settings
from django.core.cache import cache

from freecell_site import metrics
from freecell_site.errors import ServiceError

logger = logging.getLogger(__name__)

#: How often a process shares its counts with the others (and reads theirs).
SHARE_S = 0.1

_lock = threading.Lock()
_here: Counter = Counter()  # (account, second) -> actions counted in this process
_elsewhere: dict[tuple[int, int], int] = {}  # (account, second) -> actions other processes counted, as last shared
_unshared: Counter = Counter()  # (account, second) -> actions not yet added to the cache
_sharer: list[threading.Thread] = []


def check_actions(user_id: int) -> None:
    """Counts one action for the account; refuses with `rate_limited` above the per-second limit."""
    limit = settings.ACTIONS_PER_SECOND
    if not limit:
        return
    second = int(time.time())
    key = (user_id, second)
    with _lock:
        _forget_before(second - 1)
        _here[key] += 1
        _unshared[key] += 1
        count = _here[key] + _elsewhere.get(key, 0)
    _start_sharing()
    if count > limit:
        metrics.throttled("actions_per_account")
        # The window is the current second: it ends in under a second (REST: whole seconds; sockets: ms).
        wait_ms = 1000 - int(time.time() * 1000) % 1000
        raise ServiceError(
            "rate_limited",
            f"at most {limit} moves a second per account",
            status=429,
            extra={"retry_after": 1, "retry_after_ms": wait_ms},
        )


def budget(user_id: int) -> tuple[int, int, int] | None:
    """The account's action budget as this process knows it, without counting anything: (limit,
    remaining, seconds until the window ends), for the `RateLimit-*` headers of a move or an undo.
    None when actions are not limited (`ACTIONS_PER_SECOND` 0)."""
    limit = settings.ACTIONS_PER_SECOND
    if not limit:
        return None
    key = (user_id, int(time.time()))
    with _lock:
        count = _here.get(key, 0) + _elsewhere.get(key, 0)
    # The window is the current second: it ends within one second (headers count whole seconds).
    return limit, max(0, limit - count), 1


def _forget_before(second: int) -> None:
    """Drops the windows that are over (the lock is held)."""
    for counts in (_here, _elsewhere):
        for key in [key for key in counts if key[1] < second]:
            del counts[key]


def share() -> None:
    """Adds this process's new counts to the cache's and learns the other processes' (one batch)."""
    with _lock:
        batch = dict(_unshared)
        _unshared.clear()
    for (user_id, second), delta in batch.items():
        name = f"actions:{user_id}:{second}"
        try:
            try:
                total = cache.incr(name, delta)
            except ValueError:  # no counter yet for this second
                total = delta if cache.add(name, delta, timeout=5) else cache.incr(name, delta)
        except Exception as exc:  # see the module docstring
            logger.warning("action rate limit not shared: %s: %s", type(exc).__name__, exc)
            return
        with _lock:
            key = (user_id, second)
            if key in _here:
                shared_here = _here[key] - _unshared.get(key, 0)  # this process's part of `total`
                _elsewhere[key] = max(0, total - shared_here)


def _share_forever() -> None:
    pause = threading.Event()
    while True:
        pause.wait(SHARE_S)
        try:
            share()
        except Exception:  # never let the sharer die: the next batch tries again
            logger.exception("sharing the action counts failed")


def forget() -> None:
    """Drops every count of this process (a test's fresh start, as the cache's is cleared)."""
    with _lock:
        _here.clear()
        _elsewhere.clear()
        _unshared.clear()


def _start_sharing() -> None:
    if _sharer and _sharer[0].is_alive():
        return
    with _lock:
        if _sharer and _sharer[0].is_alive():
            return
        thread = threading.Thread(target=_share_forever, name="action-counts", daemon=True)
        _sharer[:] = [thread]
        thread.start()
