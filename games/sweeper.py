"""The sweeper: applies what time decides (a race's countdown, a ghost's pace, a race's time limit, a
daily's midnight), so that no read ever has to.

An action past its game's time is refused on the spot (games.play.services) and every read shows the
truth meanwhile (games.play.payloads, games.races.services.race_payload); the sweeper stores it. It runs as
`manage.py sweep --loop` (its own service in docker-compose.yml), and inside each server process when
SWEEP_IN_SERVER is on, where a lease in the cache (Redis, shared by the processes) lets one process
at a time sweep. A race's sockets also advance their race at the instant its next change is due.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections

from games import guests
from games.daily import services as daily
from games.play import services
from games.races import services as races

logger = logging.getLogger(__name__)

LEASE_KEY = "sweeper:lease"


def sweep() -> dict[str, int]:
    """One pass: every game past its deadline (a race's time limit) is resigned, which ends its race with
    its last racer; every race with a transition due (a countdown, a ghost) is advanced; every ranked
    game left playing after its day is resigned; guests idle for long are cleaned up (once an hour).
    Each step is idempotent, so two sweepers at once do no harm, only double work."""
    games = services.end_due_games()
    codes = races.due_races()
    for code in codes:
        try:
            races.advance(code)
        except Exception:  # one race's failure must not stop the others'
            logger.exception("sweeping race %s failed", code)
    return {"games": games, "races": len(codes), "daily_games": daily.end_past_days(), "guests": guests.clean_guests_now_and_then()}


def _holder() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def hold_lease(seconds: float) -> bool:
    """Whether this process holds (or has just taken) the sweeper's lease for `seconds` more. The lease
    lives in the cache: with Redis, one server process of the deployment sweeps at a time; with the
    development default (a per-process cache) each process sweeps its own database, which is one."""
    me = _holder()
    timeout = max(1, int(seconds + 0.999))
    try:
        if cache.add(LEASE_KEY, me, timeout=timeout):
            return True
        if cache.get(LEASE_KEY) == me:
            cache.touch(LEASE_KEY, timeout)
            return True
    except Exception as exc:  # the cache (Redis) is down: sweep anyway; every step is idempotent
        logger.warning("sweeper lease unavailable (%s: %s): sweeping without it", type(exc).__name__, exc)
        return True
    return False


def _sweep_if_leased(every: float) -> None:
    try:
        if hold_lease(every * 4):
            sweep()
    finally:
        close_old_connections()


async def run_forever(every: float | None = None) -> None:
    """Sweeps every `every` seconds (SWEEP_EVERY_S) on the calling event loop, in a worker thread."""
    every = settings.SWEEP_EVERY_S if every is None else every
    step = sync_to_async(_sweep_if_leased, thread_sensitive=False)
    while True:
        started = time.monotonic()
        try:
            await step(every)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("sweep failed")
        await asyncio.sleep(max(0.0, every - (time.monotonic() - started)))


_task: asyncio.Task | None = None


def start_in_server(loop: asyncio.AbstractEventLoop) -> None:
    """Starts the sweeper on the server's loop once per process (freecell_site/asgi.py), if configured."""
    global _task
    if _task is None and settings.SWEEP_IN_SERVER:
        _task = loop.create_task(run_forever())
