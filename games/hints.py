"""Hints for casual games: the first move of a solver's line, remembered by position, and at most
HINT_CONCURRENCY solver runs at a time in each server process.

A hint is the one request with which a player can make the server think for seconds (a position
like ms:11982's takes the solver 2-3 s of CPU to prove lost). So an answer the solver settled
(solved or unsolvable) is cached by position for every game that reaches it, and a request that
finds every solver slot taken waits HINT_WAIT_SECONDS at most, then gets 429 `rate_limited`,
rather than piling solver runs onto the cores that validate everybody's moves.
"""

from __future__ import annotations

import hashlib
import logging
import threading

from django.conf import settings
from django.core.cache import cache

from freecell_site.errors import ServiceError
from games.engine import Board

logger = logging.getLogger(__name__)

#: How long a settled hint is remembered (a position's answer never changes).
CACHE_SECONDS = 7 * 24 * 3600

_slots: threading.BoundedSemaphore | None = None
_slots_made = threading.Lock()


def setting(name: str, default):
    return getattr(settings, name, default)


def solver_slots() -> threading.BoundedSemaphore:
    """This process's solver slots (HINT_CONCURRENCY, read once)."""
    global _slots
    with _slots_made:
        if _slots is None:
            _slots = threading.BoundedSemaphore(max(1, int(setting("HINT_CONCURRENCY", 1))))
        return _slots


def cache_key(board: Board, autoplay: str) -> str:
    return "hint:" + hashlib.sha256(f"{autoplay}\n{board.to_text()}".encode()).hexdigest()


def _cached(key: str) -> dict | None:
    try:
        return cache.get(key)
    except Exception as exc:  # the cache (Redis) is away: solve without it
        logger.warning("hint cache unavailable: %s: %s", type(exc).__name__, exc)
        return None


def _remember(key: str, answer: dict) -> None:
    try:
        cache.set(key, answer, timeout=CACHE_SECONDS)
    except Exception as exc:
        logger.warning("hint cache unavailable: %s: %s", type(exc).__name__, exc)


def hint(board: Board, autoplay: str) -> dict:
    """`{"move": first move or None, "result": "solved" | "unsolvable" | "gave_up"}` for `board`."""
    key = cache_key(board, autoplay)
    answer = _cached(key)
    if answer is not None:
        return answer
    slots = solver_slots()
    if not slots.acquire(timeout=float(setting("HINT_WAIT_SECONDS", 0.5))):
        raise ServiceError(
            "rate_limited",
            "the solver is busy with other players' hints: try again in a few seconds",
            status=429,
            extra={"retry_after": 2},
        )
    try:
        from games.engine.solver import solve  # the solver loads only when a hint is asked for

        solution = solve(board.copy(history=False), autoplay=autoplay, budget=float(setting("HINT_BUDGET", 3.0)))
    finally:
        slots.release()
    move = str(solution.moves[0]) if solution.result == "solved" and solution.moves else None
    answer = {"move": move, "result": solution.result}
    if solution.result != "gave_up":  # giving up depends on the budget and the load: ask again later
        _remember(key, answer)
    return answer
