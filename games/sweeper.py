"""The sweeper: applies what time decides (a race's countdown, a ghost's pace, a race's time limit, a
daily's midnight, the dailies of today and tomorrow), so that no read ever has to.

An action past its game's time is refused on the spot (games.play.services) and every read shows the
truth meanwhile (games.play.payloads, games.races.payloads.race_payload); the sweeper stores it. It runs as
`manage.py sweep --loop` (its own service in docker-compose.yml), and inside each server process when
SWEEP_IN_SERVER is on, where a lease in the cache (Redis, shared by the processes) lets one process
at a time sweep. A race's sockets also advance their race at the instant its next change is due.

Beside the sweep, a second job makes the dailies of today and tomorrow when they are missing
(`make_dailies`): at once when the process starts, so that a fresh server has today's within
seconds, then every DAILIES_EVERY_S, so that tomorrow's is made the day before. Making one runs the
solver for seconds (in a process of its own), so it has its own worker thread and never holds up
the sweep; each day's lock (games.daily.services.ensure_daily) lets one process make it.
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
from games.races import selectors as race_selectors
from games.races import services as races

logger = logging.getLogger(__name__)

LEASE_KEY = "sweeper:lease"


def sweep() -> dict[str, int]:
    """One pass: every game past its deadline (a race's time limit) is resigned, which ends its race with
    its last racer; every race with a transition due (a countdown, a ghost) is advanced; every ranked
    game left playing after its day is resigned; guests idle for long are cleaned up (once an hour).
    Each step is idempotent, so two sweepers at once do no harm, only double work."""
    games = services.end_due_games()
    codes = race_selectors.due_races()
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


#: Seconds between two looks for today's and tomorrow's dailies (one query when both are made).
DAILIES_EVERY_S = 30.0


def make_dailies() -> int:
    """The dailies of today and tomorrow, made when missing; how many it made. Seconds for each made
    (the solver), none when both exist. Idempotent and safe with several processes: a day another
    process is making is left to it."""
    return len(daily.make_ahead())


def _make_dailies_in_thread() -> int:
    try:
        return make_dailies()
    finally:
        close_old_connections()


async def make_dailies_forever(every: float = DAILIES_EVERY_S) -> None:
    """`make_dailies` now, then every `every` seconds, in a worker thread of its own (off the loop)."""
    step = sync_to_async(_make_dailies_in_thread, thread_sensitive=False)
    while True:
        try:
            await step()
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("making the dailies failed")
        await asyncio.sleep(every)


async def run_forever(every: float | None = None) -> None:
    """Sweeps every `every` seconds (SWEEP_EVERY_S) on the calling event loop, in a worker thread, and
    makes the dailies of today and tomorrow beside it (`make_dailies_forever`)."""
    every = settings.SWEEP_EVERY_S if every is None else every
    step = sync_to_async(_sweep_if_leased, thread_sensitive=False)
    dailies = asyncio.get_running_loop().create_task(make_dailies_forever())
    try:
        while True:
            started = time.monotonic()
            try:
                await step(every)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("sweep failed")
            await asyncio.sleep(max(0.0, every - (time.monotonic() - started)))
    finally:
        dailies.cancel()


_task: asyncio.Task | None = None


def start_in_server(loop: asyncio.AbstractEventLoop) -> None:
    """Starts the sweeper on the server's loop once per process (freecell_site/asgi.py), if configured."""
    global _task
    if _task is None and settings.SWEEP_IN_SERVER:
        _task = loop.create_task(run_forever())
