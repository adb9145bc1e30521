"""Solver facts of a deal (solvable, par): solved once in a hint worker under a budget, then remembered in the cache."""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache

from freecell_site.errors import ServiceError
from games.engine import Board
from games.play import hints

logger = logging.getLogger(__name__)

#: How long settled facts are remembered (a deal's never change); a solve that gave up, a few minutes.
CACHE_SECONDS = 30 * 24 * 3600
GAVE_UP_SECONDS = hints.GAVE_UP_SECONDS


def cache_key(deal_id: str) -> str:
    return f"deal-facts:{deal_id}"


def _cached(key: str) -> dict | None:
    try:
        return cache.get(key)
    except Exception as exc:  # the cache (Redis) is away: as if nothing were known
        logger.warning("deal facts cache unavailable: %s: %s", type(exc).__name__, exc)
        return None


def known_facts(deal_id: str) -> dict | None:
    """The facts of a deal if they were settled already (the cache only: nothing is solved here)."""
    return _cached(cache_key(deal_id))


def solver_facts(deal_id: str, board: Board, asker: int | str | None = None) -> dict:
    """`{result, solvable, par, par_line, reason}` of a deal under safe autoplay: from the cache, or solved
    now within DEAL_FACTS_BUDGET seconds in a hint worker (at most HINT_CONCURRENCY solves at a time;
    a request that finds them all busy gets 429). `solvable` is None, with the reason, when the budget ran
    out first. Writes only the cache, never the database.

    A solve costs `asker` (a player's id, or a visitor's network) its solver time, the budget hints
    spend (HINT_SECONDS_PER_MINUTE): one visitor asking for new deals 1.5 times a second kept the
    process's solver busy, and other visitors' facts were 429 (issue 41)."""
    key = cache_key(deal_id)
    found = _cached(key)  # the cache away: solve without it
    if found is not None:
        return found
    if asker is not None:
        hints.refuse_if_out_of_solver_time(asker)
    slots = hints.solver_slots()
    if not slots.acquire(timeout=settings.HINT_WAIT_SECONDS):
        raise ServiceError(
            "rate_limited", "the solver is busy: try again in a few seconds", status=429, extra={"retry_after": 2}
        )
    budget = settings.DEAL_FACTS_BUDGET
    started = time.monotonic()
    try:
        from games.engine import solver  # loaded only when facts are asked for

        result, line = hints.in_worker(solver.deal_facts, board.to_text(), budget, budget=2 * budget)
    finally:
        slots.release()
        if asker is not None:
            hints.charge_solver_time(asker, time.monotonic() - started)
    facts = {
        "result": result,
        "solvable": {"solved": True, "unsolvable": False}.get(result),
        "par": len(line) if result == "solved" else None,
        "par_line": " ".join(line) if result == "solved" else None,
        "reason": None
        if result in ("solved", "unsolvable")
        else f"the solver settled nothing in its budget of {budget:g} s: this deal is hard, not known to be lost",
    }
    try:
        cache.set(key, facts, timeout=CACHE_SECONDS if facts["solvable"] is not None else GAVE_UP_SECONDS)
    except Exception as exc:
        logger.warning("deal facts cache unavailable: %s: %s", type(exc).__name__, exc)
    return facts
