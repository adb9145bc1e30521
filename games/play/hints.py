"""Hints for casual games: the first move of a solver's line, remembered by position, computed in
a worker process, at most HINT_CONCURRENCY at a time in each server process.

A hint is the one request with which a player can make the server think for seconds (a position
of ms:11982 takes the solver 2-3 s of CPU to prove lost). So:
- an answer the solver settled (solved or unsolvable) is cached by position, for every game that
  reaches it; one it gave up on, for a few minutes (asking again at once would only give up again,
  and one player repeating a hard position kept the solver busy for everyone);
- the solver runs in a worker process: in a server thread, its pure-Python search would hold the
  interpreter lock that the threads validating everybody's moves wait for (measured in
  docs/performance.md);
- a request that finds every worker busy waits HINT_WAIT_SECONDS at most, then gets 429
  `rate_limited`, rather than queueing solver runs behind each other;
- each player may keep the solver busy HINT_SECONDS_PER_MINUTE at most (wall time of their solves in
  a minute that starts with their first solve): the request throttle counts hints, not their cost,
  and 20 hard positions a minute would hold a process's only worker the whole time. Cached answers
  are free.
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from django.conf import settings
from django.core.cache import cache

from freecell_site.errors import ServiceError
from games.engine import Board

logger = logging.getLogger(__name__)

#: How long a settled hint is remembered (a position's answer never changes).
CACHE_SECONDS = 7 * 24 * 3600
GAVE_UP_SECONDS = 300
#: A worker that has not answered this long after its budget is taken for dead.
WORKER_GRACE_SECONDS = 30.0

_slots: threading.BoundedSemaphore | None = None
_pool: ProcessPoolExecutor | None = None
_made = threading.Lock()


def solver_slots() -> threading.BoundedSemaphore:
    """This process's solver slots (HINT_CONCURRENCY, read once)."""
    global _slots
    with _made:
        if _slots is None:
            _slots = threading.BoundedSemaphore(settings.HINT_CONCURRENCY)
        return _slots


def _worker_pool() -> ProcessPoolExecutor:
    global _pool
    with _made:
        if _pool is None:
            # "spawn": forking a server process that runs threads and an event loop is unsafe.
            _pool = ProcessPoolExecutor(
                max_workers=settings.HINT_CONCURRENCY,
                mp_context=multiprocessing.get_context("spawn"),
            )
        return _pool


def _drop_pool(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _made:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


def _solve(board: Board, autoplay: str, budget: float) -> tuple[str, str | None]:
    from games.engine import solver  # loaded only when a hint is asked for

    return in_worker(solver.first_move, board.to_text(), autoplay, budget, budget=budget)


def in_worker(function, *args, budget: float):
    """`function(*args)` (a solver entry point taking plain values) in a worker process, given `budget`
    seconds and a grace after them; in the request's thread when HINT_IN_WORKER is off (tests that stand
    in for the solver). A worker that dies or hangs is replaced and the call answers 503."""
    if not settings.HINT_IN_WORKER:
        return function(*args)
    pool = _worker_pool()
    try:
        return pool.submit(function, *args).result(timeout=budget + WORKER_GRACE_SECONDS)
    except (BrokenProcessPool, TimeoutError) as exc:
        # a worker died (out of memory, killed) or hung: the next solve starts a fresh one
        logger.error("solver worker failed: %s: %s", type(exc).__name__, exc)
        _drop_pool(pool)
        raise ServiceError(
            "hint_unavailable", "the solver failed on this request: try again", status=503, extra={"retry_after": 2}
        ) from None


def cache_key(board: Board, autoplay: str) -> str:
    return "hint:" + hashlib.sha256(f"{autoplay}\n{board.to_text()}".encode()).hexdigest()


def _cached(key: str) -> dict | None:
    try:
        return cache.get(key)
    except Exception as exc:  # the cache (Redis) is away: solve without it
        logger.warning("hint cache unavailable: %s: %s", type(exc).__name__, exc)
        return None


def _remember(key: str, answer: dict) -> None:
    # Giving up depends on the budget and the load: a later try may settle it.
    timeout = GAVE_UP_SECONDS if answer["result"] == "gave_up" else CACHE_SECONDS
    try:
        cache.set(key, answer, timeout=timeout)
    except Exception as exc:
        logger.warning("hint cache unavailable: %s: %s", type(exc).__name__, exc)


def _solver_time_keys(player_id: int | str) -> tuple[str, str]:
    return f"hint-ms:{player_id}", f"hint-ms-since:{player_id}"


def refuse_if_out_of_solver_time(player_id: int | str) -> None:
    """429 when `player_id` (a player's id, or a network's key for a visitor: games/play/facts.py) kept
    the solver busy HINT_SECONDS_PER_MINUTE this minute."""
    spent_key, since_key = _solver_time_keys(player_id)
    try:
        found = cache.get_many([spent_key, since_key])  # one round trip to Redis
    except Exception as exc:  # the cache (Redis) is away: the slots still bound the solver
        logger.warning("hint solver time unavailable: %s: %s", type(exc).__name__, exc)
        return
    spent_ms, since = found.get(spent_key, 0), found.get(since_key)
    limit = settings.HINT_SECONDS_PER_MINUTE
    if spent_ms < limit * 1000 or since is None:
        return
    raise ServiceError(
        "rate_limited",
        f"your requests have kept the solver busy for {limit:g} s this minute: try again later",
        status=429,
        extra={"retry_after": max(1, round(since + 60 - time.time()))},
    )


def charge_solver_time(player_id: int | str, seconds: float) -> None:
    spent_key, since_key = _solver_time_keys(player_id)
    try:
        if cache.add(since_key, time.time(), timeout=60):
            cache.set(spent_key, 0, timeout=60)  # a new minute: what an earlier one spent is gone
        try:
            cache.incr(spent_key, max(1, round(seconds * 1000)))
        except ValueError:  # expired between the two calls
            cache.add(spent_key, max(1, round(seconds * 1000)), timeout=60)
    except Exception as exc:
        logger.warning("hint solver time unavailable: %s: %s", type(exc).__name__, exc)


def hint(board: Board, autoplay: str, player_id: int) -> dict:
    """`{"move": first move or None, "result": "solved" | "unsolvable" | "gave_up"}` for `board`,
    asked by the player `player_id` (whose solver time it costs when not cached)."""
    key = cache_key(board, autoplay)
    answer = _cached(key)
    if answer is not None:
        return answer
    refuse_if_out_of_solver_time(player_id)
    slots = solver_slots()
    if not slots.acquire(timeout=settings.HINT_WAIT_SECONDS):
        raise ServiceError(
            "rate_limited",
            "the solver is busy with other players' hints: try again in a few seconds",
            status=429,
            extra={"retry_after": 2},
        )
    started = time.monotonic()
    try:
        result, move = _solve(board, autoplay, settings.HINT_BUDGET)
    finally:
        slots.release()
        charge_solver_time(player_id, time.monotonic() - started)
    answer = {"move": move, "result": result}
    _remember(key, answer)
    return answer
