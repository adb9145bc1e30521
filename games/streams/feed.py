"""The loop of every held-open stream: its channel on the bus, keepalives, the sign-in's checks, resyncs.

A stream is a view on the database, as a socket is (games/sockets/base.py): every line is built from
committed rows or from a push that carries a `version`, and the channel layer only says "something
changed". When the layer fails in this process, the stream sends its current state again once the
layer answers (a push lost meanwhile is made good), instead of ending. Streams and sockets share the
process's one watch of the bus (games.sockets.bus.watch): a stream makes no call to the bus of its
own while it waits, and is handed `bus_back` once the bus is back after a failure it saw. They
also share the process's beats (games.sockets.heartbeats: a stream's keepalive and its sign-in's
checks come from there, with no timer of its own) and the rule of when a sign-in is asked about
again (games.sockets.sign_in).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import math
from collections.abc import AsyncIterator

from channels.layers import get_channel_layer
from django.conf import settings
from django.db import DatabaseError

from freecell_site import metrics
from freecell_site.errors import DATABASE_UNAVAILABLE, RETRY_AFTER_S, error_body
from games import events
from games.sockets import bus, heartbeats, limits
from games.sockets.channel import BusChannel
from games.sockets.database import db
from games.sockets.sign_in import SignIn

logger = logging.getLogger(__name__)


def line(body: dict) -> bytes:
    """One ndjson line: a JSON object (standard JSON, which every client reads) and a newline."""
    return (json.dumps(body, separators=(",", ":"), allow_nan=False) + "\n").encode()


KEEPALIVE = b"\n"

#: What `Feed.next` answers once the bus is back after a failure this stream saw: time to resync.
BUS_BACK = {"type": "bus.back"}
#: What `Feed.next` answers when the stream's keepalive is due, and when its sign-in's check is.
KEEPALIVE_DUE = {"type": "keepalive.due"}
SIGN_IN_DUE = {"type": "sign_in.due"}


class Source:
    """What one stream shows: the groups it listens to, its first lines, and its lines for each push."""

    #: Set once the stream must end after its last lines (a game that may no longer be seen).
    ended = False

    def groups(self) -> list[str]:
        raise NotImplementedError

    def snapshot(self) -> list[dict]:
        """The stream's opening lines as the database has them now (in a thread: it queries)."""
        raise NotImplementedError

    async def first(self) -> list[dict]:
        """The stream's opening lines, read after its groups are joined (so no change between is lost)."""
        return await db(self.snapshot)()

    async def pushed(self, message: dict) -> list[dict]:
        """The lines a message from the bus adds (none for one already shown or not this stream's)."""
        raise NotImplementedError

    async def resync(self) -> list[dict]:
        """The current state again, after the bus was away (what was pushed meanwhile is lost)."""
        return await self.first()


class Feed:
    """One stream's own channel on the layer, the groups it joined, and the receive that waits on it;
    what the process's watch of the bus sees of the stream (`channel_layer`, `bus_generation`,
    `closed`, `bus_back`), and what the process's beats see of it (`next_due`, `beat`): its keepalive
    and its sign-in's next check.

    The receive is one task that lives as long as the channel: the pub/sub layer forgets a channel
    whose receive is cancelled, so a wake-up (a keepalive due, the bus back) waits beside it rather
    than cancelling it."""

    def __init__(self, sign_in: SignIn | None = None) -> None:
        self.channel = BusChannel(self, get_channel_layer(), "freecell.stream.")
        self.receiving: asyncio.Task | None = None
        self.closed = False
        self.bus_generation = events.bus_failures()  # the bus failures this stream is in step with (`open`)
        self.sign_in = sign_in
        self.next_keepalive = math.inf  # set when its beats start (`beaten`)
        self.marks: list[dict] = []  # BUS_BACK, KEEPALIVE_DUE, SIGN_IN_DUE: what the next `next` answers first
        self.woken: asyncio.Future = asyncio.get_running_loop().create_future()

    @property
    def channel_layer(self):
        return self.channel.layer

    def wake(self, mark: dict) -> None:
        """Has the stream's wait answer `mark` (once, however often it is set before it is seen)."""
        if mark not in self.marks:
            self.marks.append(mark)
        if not self.woken.done():
            self.woken.set_result(None)

    async def bus_back(self, generation: int) -> None:
        """The bus is back after a failure this stream saw (or it opened without the bus): joins its
        groups again (a restarted Redis forgot them), and its wait answers BUS_BACK."""
        self.bus_generation = generation  # first: a join that fails again puts it behind again
        await self.channel.rejoin()
        self.wake(BUS_BACK)

    def beaten(self) -> None:
        """Its keepalives start, one STREAM_KEEPALIVE_S from now, from the process's beats."""
        self.next_keepalive = asyncio.get_running_loop().time() + settings.STREAM_KEEPALIVE_S
        heartbeats.keep(self)

    def next_due(self) -> float:
        due = self.next_keepalive
        return due if self.sign_in is None else min(due, self.sign_in.next_check)

    async def beat(self) -> float | None:
        """Wakes the stream for what is due (its keepalive, its sign-in's check: the stream's own loop
        does them), and says when it is next due."""
        if self.closed:
            return None
        now = asyncio.get_running_loop().time()
        if now >= self.next_keepalive:
            # On a fixed beat (from the last due time, not from when it went out), so that no gap
            # between empty lines grows past STREAM_KEEPALIVE_S.
            keepalive = settings.STREAM_KEEPALIVE_S
            self.next_keepalive = max(self.next_keepalive + keepalive, now + keepalive / 2)
            self.wake(KEEPALIVE_DUE)
        if self.sign_in is not None and self.sign_in.due(now):
            self.wake(SIGN_IN_DUE)
        return self.next_due()

    async def signed_in(self) -> bool:
        """Whether the stream's sign-in still holds (true for a stream without one)."""
        if self.sign_in is None:
            return True
        if not await self.sign_in.holds():
            return False
        heartbeats.soon(self)  # its next check may be due sooner than the stream's next beat
        return True

    async def open(self, groups: list[str]) -> None:
        """Makes the stream's channel and joins `groups` (with the bus away, it starts behind)."""
        await self.channel.open()
        for group in groups:
            await self.channel.join(group)

    async def next(self) -> dict:
        """The next message on the channel, or a mark (BUS_BACK, KEEPALIVE_DUE, SIGN_IN_DUE) once one
        is set, whichever comes first."""
        if not self.marks:
            if self.woken.done():
                self.woken = asyncio.get_running_loop().create_future()
            if self.channel_layer is None:
                await self.woken
            else:
                if self.receiving is None:
                    self.receiving = asyncio.ensure_future(self.channel.receive())
                await asyncio.wait({self.receiving, self.woken}, return_when=asyncio.FIRST_COMPLETED)
                if self.receiving.done():
                    task, self.receiving = self.receiving, None
                    return task.result()
        return self.marks.pop(0)

    async def close(self) -> None:
        """Leaves every group and gives the channel back: nothing of the stream stays on the bus."""
        if self.receiving is not None:
            task, self.receiving = self.receiving, None
            task.cancel()  # the pub/sub layer unsubscribes the channel
            await asyncio.wait({task})
        await self.channel.leave_all()


async def lines(
    source: Source, signed_in_with: tuple[str, str, int, dt.datetime | None] | None, address: str | None
) -> AsyncIterator[bytes]:
    """The stream's bytes: `source`'s first lines, then its lines for each push, and an empty line
    every STREAM_KEEPALIVE_S (busy or not, so that a proxy or client sees it is alive), until the
    client leaves (Django cancels this iterator, and its group memberships go with it), the source
    ends, or the sign-in (`signed_in_with`: how, key, user id, the token's expiry) ends.

    The sign-in is asked about as a socket's is (games.sockets.sign_in): at once when the player
    signs out somewhere (the sockets' event on their account's group), when the bus is back, at its
    token's expiry, and at least every SIGN_IN_CHECK_S; a keepalive asks nothing.

    A stream counts as a socket against its address's and account's open sockets in every process
    (games/sockets/limits.py): one too many gets a `rate_limited` line and ends."""
    sign_in = SignIn(*signed_in_with) if signed_in_with is not None else None
    feed = Feed(sign_in)
    counted: list[tuple[limits.Gauge, str]] = []
    kind = type(source).__name__.removesuffix("Source").lower()
    metrics.opened(metrics.OPEN_STREAMS, kind)
    try:
        account = str(sign_in.user_id) if sign_in is not None else None
        for gauge, who in ((limits.sockets_per_address, address), (limits.sockets_per_account, account)):
            if who is None:
                continue
            if not await limits.open_socket(gauge, who):
                yield line(_too_many(gauge))
                return
            counted.append((gauge, who))
        groups = source.groups()
        if sign_in is not None:
            groups.append(events.account_group(sign_in.user_id))
        await feed.open(groups)
        bus.watch(feed)
        if not await feed.signed_in():
            # Signed out between the request's check and the join, whose event the stream missed.
            yield line(_signed_out())
            return
        try:
            opening = await source.first()
        except DatabaseError as exc:
            logger.warning("a stream's first read failed: %s", exc)
            yield line(error_body(*DATABASE_UNAVAILABLE, retry_after=RETRY_AFTER_S))
            return
        for body in opening:
            yield line(body)
        if source.ended:
            return
        feed.beaten()
        while True:
            message = await feed.next()
            shown: list[dict] = []
            if message is KEEPALIVE_DUE:
                yield KEEPALIVE
            elif message is SIGN_IN_DUE or message.get("type") == "account.sign_ins":
                if not await feed.signed_in():
                    yield line(_signed_out())
                    return
            elif message is BUS_BACK:
                if not await feed.signed_in():
                    yield line(_signed_out())  # a sign-out may have been lost with the bus, too
                    return
                shown = await _or_nothing(source.resync())
                metrics.resynced("stream", "bus_back")
            else:
                shown = await _or_nothing(source.pushed(message))
            for body in shown:
                yield line(body)
            if source.ended:
                return
    finally:
        metrics.closed(metrics.OPEN_STREAMS, kind)
        feed.closed = True
        bus.unwatch(feed)
        heartbeats.drop(feed)
        await feed.close()
        for gauge, who in counted:
            await limits.close_socket(gauge, who)


def _too_many(gauge: limits.Gauge) -> dict:
    return error_body(
        "rate_limited",
        f"too many streams and sockets open from this {gauge.kind} (at most {gauge.limit}): close some and open it again",
        retry_after=1,
    )


async def _or_nothing(lines_of) -> list[dict]:
    """The lines a push or a resync adds; none when the database failed meanwhile (a version gap on a
    later push, or the next resync, sends what was missed)."""
    try:
        return await lines_of
    except DatabaseError as exc:
        logger.warning("a stream's read failed: %s", exc)
        return []


def _signed_out() -> dict:
    return error_body(
        "authentication_failed",
        "signed out: this stream's session or token has ended; sign in and open it again",
    )
