"""Limits per account and per address over every socket of every process: sockets open, frames sent.

One client must not slow everyone: a budget per socket does not stop an account (or an address) that
opens hundreds of sockets. So sockets and frames are also counted per account and per address:

- in this process, exactly and without I/O, so a flood is refused at memory speed;
- across processes in the cache (Redis when REDIS_URL is set), with atomic increments that expire.
  Open sockets are counted per period (`PERIOD_S`): each process adds its open sockets to the count
  of the next period before it begins and takes a socket off when it closes, so a process that dies
  stops counting within a period and a half. Frames are counted in windows (`WINDOW_S`) that each
  process adds to a few times a second, not once a frame.

If the cache fails, the limits across processes fail open for a while (`RETRY_S`), as
games.play.ratelimit does: the limits of each process still hold. The address is `scope["client"]`,
which freecell_site/forwarded.py sets from a trusted proxy's header. Refusals close the socket with
`CLOSE_CODE` (docs/websocket.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.core.cache import cache

from freecell_site import metrics
from freecell_site.errors import ServiceError
from freecell_site.throttling import network_of
from games.sockets.budget import Budget

logger = logging.getLogger(__name__)

CLOSE_CODE = 4429
#: Frames in a row refused by the budgets of a socket's address or account before it is closed.
REFUSALS_BEFORE_CLOSE = 50
#: The close code of a socket that sent more than WS_OVERSIZED_FRAMES frames over the size limit
#: (frames.MAX_FRAME): RFC 6455's "message too big".
TOO_LARGE_CLOSE_CODE = 1009
PERIOD_S = 30.0
WINDOW_S = 10.0
FLUSH_S = 0.25
RETRY_S = 5.0

_down_until = [0.0]
# The cache's calls block: they run in a thread of their own, not in the loop's default executor,
# where the sockets' database calls wait (a flood of handshakes queued ahead of another player's move).
_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="socket-limits")


def _in_thread(func, *args):
    return asyncio.get_running_loop().run_in_executor(_executor, func, *args)


def _shared_add(key: str, delta: int, ttl: float) -> int | None:
    """Adds `delta` to a counter in the cache, made with an expiry when it is new; its new value, or
    None when the cache is away (then the caller counts in this process alone)."""
    if time.monotonic() < _down_until[0]:
        return None
    try:
        try:
            return cache.incr(key, delta)
        except ValueError:  # no counter yet (or it expired)
            if delta < 0:
                return None  # a count that expired holds nothing to take off
            if cache.add(key, delta, timeout=int(ttl) + 1):
                return delta
            return cache.incr(key, delta)
    except Exception as exc:  # see the module docstring
        _down_until[0] = time.monotonic() + RETRY_S
        logger.warning("socket limits across processes unavailable: %s: %s", type(exc).__name__, exc)
        return None


class Gauge:
    """Sockets open per key (an address or an account), here and in every process."""

    def __init__(self, kind: str, limit_setting: str):
        self.kind, self.limit_setting = kind, limit_setting
        self.here: Counter[str] = Counter()
        self.booked: dict[str, set[int]] = {}  # the periods whose shared count holds `here[key]`
        self.full_until: dict[str, float] = {}  # keys found full in the shared count, and until when
        self.lock = threading.Lock()  # the counts change in the limits' thread and are read in the loop

    @property
    def limit(self) -> int:
        return getattr(settings, self.limit_setting)

    def full_here(self, who: str) -> bool:
        """Whether a socket of `who` is refused without asking the cache: full in this process, or
        found full in every process less than a second ago."""
        if not self.limit:
            return False
        until = self.full_until.get(who)
        if until is not None:
            if time.monotonic() < until:
                return True
            self.full_until.pop(who, None)
        return self.here[who] >= self.limit

    def _key(self, who: str, period: int) -> str:
        return f"ws:open:{self.kind}:{who}:{period}"

    @staticmethod
    def _periods(now: float) -> list[int]:
        # The next period is counted from halfway through this one, so it starts with every socket.
        period = int(now // PERIOD_S)
        return [period, period + 1] if now - period * PERIOD_S >= PERIOD_S / 2 else [period]

    def _book(self, who: str, now: float) -> list[int]:
        """Adds this process's sockets of `who` to the periods that do not hold them yet."""
        live = self._periods(now)
        booked = self.booked.setdefault(who, set())
        booked.intersection_update(live)
        for period in live:
            if period not in booked:
                if self.here[who]:
                    _shared_add(self._key(who, period), self.here[who], PERIOD_S * 2)
                booked.add(period)
        return live

    def open(self, who: str) -> bool:
        """Counts one more socket of `who`; False (and nothing counted) when that is one too many."""
        limit = self.limit
        with self.lock:
            if not limit:  # no limit: counted here only, for the closes to match
                self.here[who] += 1
                return True
            if self.here[who] >= limit:
                return False
            now = time.time()
            live = self._book(who, now)
            total = _shared_add(self._key(who, live[0]), 1, PERIOD_S * 2)
            if total is not None and total > limit:
                _shared_add(self._key(who, live[0]), -1, PERIOD_S * 2)
                self.full_until[who] = time.monotonic() + 1.0
                return False
            for period in live[1:]:
                _shared_add(self._key(who, period), 1, PERIOD_S * 2)
            self.here[who] += 1
            return True

    def close(self, who: str) -> None:
        with self.lock:
            if self.here[who] <= 0:
                return
            if self.limit:
                for period in self._book(who, time.time()):
                    _shared_add(self._key(who, period), -1, PERIOD_S * 2)
            self.here[who] -= 1
            if not self.here[who]:
                del self.here[who]
                self.booked.pop(who, None)

    def refresh(self) -> None:
        """Books the next period for every key with sockets here (run every few seconds)."""
        if not self.limit:
            return
        now = time.time()
        with self.lock:
            for who in list(self.here):
                self._book(who, now)


class Meter:
    """Frames per key, in this process (a token bucket) and in every process (a count per window)."""

    def __init__(self, kind: str, burst_setting: str, rate_setting: str, what: str = "frames"):
        self.kind, self.burst_setting, self.rate_setting, self.what = kind, burst_setting, rate_setting, what
        self.buckets: dict[str, Budget] = {}
        self.pending: Counter[str] = Counter()  # frames not yet added to the shared count
        self.blocked: dict[str, float] = {}  # key -> the monotonic instant its shared window ends

    def spend(self, who: str, now: float, cost: int = 1) -> None:
        """Counts `cost` frames of `who` (one, or an oversized frame's share); raises `rate_limited`
        when that is too many."""
        burst, rate = getattr(settings, self.burst_setting), getattr(settings, self.rate_setting)
        if not burst:
            return
        until = self.blocked.get(who)
        if until is not None:
            if now < until:
                raise ServiceError(
                    "rate_limited", f"too many {self.what} from this {self.kind}", extra={"retry_after_ms": int((until - now) * 1000) + 1}
                )
            del self.blocked[who]
        bucket = self.buckets.get(who)
        if bucket is None:
            bucket = self.buckets[who] = Budget(self.what, burst, rate, now)
        try:
            bucket.spend(now, cost)
        except ServiceError as exc:
            metrics.throttled(f"{self.what}_per_{self.kind}")
            raise ServiceError("rate_limited", f"too many {self.what} from this {self.kind}", extra=exc.extra) from None
        self.pending[who] += cost

    def flush(self, now: float | None = None) -> None:
        """Adds the frames counted here to the shared windows; blocks a key whose window is full. A
        process learns that a window is full when it adds to it: the excess is at most what each
        process lets through between two flushes."""
        if not self.pending:
            self._forget_idle()
            return
        pending, self.pending = self.pending, Counter()
        burst, rate = getattr(settings, self.burst_setting), getattr(settings, self.rate_setting)
        allowed = burst + rate * WINDOW_S
        wall, mono = time.time(), time.monotonic() if now is None else now
        window = int(wall // WINDOW_S)
        for who, count in pending.items():
            total = _shared_add(f"ws:{self.what}:{self.kind}:{who}:{window}", count, WINDOW_S * 2)
            if total is not None and total > allowed:
                self.blocked[who] = mono + (window + 1) * WINDOW_S - wall
        self._forget_idle()

    def _forget_idle(self) -> None:
        # A bucket refilled to its burst is what a new one would be: dropped, so the dict stays small.
        if len(self.buckets) > 1000:
            now = time.monotonic()
            for who, bucket in list(self.buckets.items()):
                if bucket.tokens + (now - bucket.then) * bucket.rate >= bucket.burst:
                    del self.buckets[who]


sockets_per_address = Gauge("address", "WS_SOCKETS_PER_ADDRESS")
sockets_per_account = Gauge("account", "WS_SOCKETS_PER_ACCOUNT")
frames_per_address = Meter("address", "WS_ADDRESS_FRAME_BURST", "WS_ADDRESS_FRAME_RATE")
frames_per_account = Meter("account", "WS_ACCOUNT_FRAME_BURST", "WS_ACCOUNT_FRAME_RATE")
opens_per_address = Meter("address", "WS_ADDRESS_OPEN_BURST", "WS_ADDRESS_OPEN_RATE", what="sockets opened")
METERS = (frames_per_address, frames_per_account, opens_per_address)

class Turns:
    """Database calls on the way at once per address, over its sockets in this process: a semaphore
    per address that has sockets open here (WS_DB_CALLS_PER_ADDRESS; 0: no limit)."""

    def __init__(self):
        self.semaphores: dict[str, asyncio.Semaphore] = {}
        self.users: Counter[str] = Counter()

    def take(self, address: str | None):
        size = settings.WS_DB_CALLS_PER_ADDRESS
        if not address or not size:
            return contextlib.nullcontext()
        self.users[address] += 1
        if address not in self.semaphores:
            self.semaphores[address] = asyncio.Semaphore(size)
        return self.semaphores[address]

    def give_back(self, address: str | None) -> None:
        if address in self.users:
            self.users[address] -= 1
            if self.users[address] <= 0:
                del self.users[address]
                self.semaphores.pop(address, None)


turns = Turns()

_upkeep: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}


def _keep_up() -> None:
    """Starts, once per event loop, the task that flushes frame counts and books the next period."""
    loop = asyncio.get_running_loop()
    if loop in _upkeep and not _upkeep[loop].done():
        return

    async def upkeep():
        last_book = 0.0
        while True:
            await asyncio.sleep(FLUSH_S)
            try:
                for meter in METERS:
                    await _in_thread(meter.flush)
                if loop.time() - last_book >= PERIOD_S / 8:
                    last_book = loop.time()
                    await _in_thread(sockets_per_address.refresh)
                    await _in_thread(sockets_per_account.refresh)
            except Exception:
                logger.exception("socket limits' upkeep failed")

    _upkeep[loop] = loop.create_task(upkeep())


async def open_socket(gauge: Gauge, who: str) -> bool:
    """Counts a socket of `who` (False: one too many); in a thread, as the cache blocks."""
    _keep_up()
    if not gauge.limit:
        return gauge.open(who)  # no I/O: no thread
    if gauge.full_here(who):
        metrics.throttled(f"sockets_per_{gauge.kind}")
        return False  # refused without I/O
    opened = await _in_thread(gauge.open, who)
    if not opened:
        metrics.throttled(f"sockets_per_{gauge.kind}")
    return opened


async def close_socket(gauge: Gauge, who: str) -> None:
    if not gauge.limit:
        gauge.close(who)
        return
    await _in_thread(gauge.close, who)


def address_of(scope) -> str | None:
    """The address a socket counts against: the client's IPv4 address, or the /64 network of its IPv6
    address (one subscriber's share: an IPv6 client picks addresses in its /64 at will)."""
    client = scope.get("client")
    if not client or not client[0]:
        return None
    return network_of(client[0])  # the throttles' own: a socket and a request count the same network


def refusal(kind: str, message: str | None = None, retry_after_ms: int = 1000) -> dict:
    limit = getattr(settings, "WS_SOCKETS_PER_ADDRESS" if kind == "address" else "WS_SOCKETS_PER_ACCOUNT")
    return {
        "type": "error",
        "code": "rate_limited",
        "message": message or f"too many sockets open from this {kind} (at most {limit}): close some and connect again",
        "retry_after_ms": retry_after_ms,
    }


class AddressGate:
    """ASGI middleware for websockets: refuses a handshake from an address that has too many sockets
    open, before any other work (no session, no database): accepted, told why, closed with CLOSE_CODE
    (a browser can read a close code; a refused handshake shows it nothing)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        address = address_of(scope) if scope["type"] == "websocket" else None
        if not address:
            return await self.app(scope, receive, send)
        try:
            opens_per_address.spend(address, time.monotonic())
        except ServiceError as exc:
            return await self.refuse(receive, send, refusal("address", exc.message, exc.extra["retry_after_ms"]))
        if not await open_socket(sockets_per_address, address):
            return await self.refuse(receive, send, refusal("address"))
        try:
            return await self.app(scope, receive, send)
        finally:
            await close_socket(sockets_per_address, address)

    @staticmethod
    async def refuse(receive, send, error: dict) -> None:
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": json.dumps(error)})
            await send({"type": "websocket.close", "code": CLOSE_CODE})
