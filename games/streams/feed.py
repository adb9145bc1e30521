"""The loop of every held-open stream: its channel on the bus, keepalives, the sign-in check, resyncs.

A stream is a view on the database, as a socket is (games/sockets/base.py): every line is built from
committed rows or from a push that carries a `version`, and the channel layer only says "something
changed". When the layer fails in this process, the stream sends its current state again once the
layer answers (a push lost meanwhile is made good), instead of ending. Streams and sockets share the
process's one watch of the bus (games.sockets.bus.watch): a stream makes no call to the bus of its
own while it waits, and is handed `bus_back` once the bus is back after a failure it saw.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator

from channels.layers import get_channel_layer
from django.conf import settings
from django.db import DatabaseError

from accounts.authentication import still_signed_in
from freecell_site import metrics
from freecell_site.errors import DATABASE_UNAVAILABLE, RETRY_AFTER_S, error_body
from games import events
from games.sockets import bus, limits
from games.sockets.base import db

logger = logging.getLogger(__name__)

#: How long one call to the layer may take before it counts as a failure of the bus.
LAYER_TIMEOUT = 1.0


def line(body: dict) -> bytes:
    """One ndjson line: a JSON object (standard JSON, which every client reads) and a newline."""
    return (json.dumps(body, separators=(",", ":"), allow_nan=False) + "\n").encode()


KEEPALIVE = b"\n"

#: What `Feed.next` answers once the bus is back after a failure this stream saw: time to resync.
BUS_BACK = {"type": "bus.back"}


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
    `closed`, `bus_back`).

    The receive is one task that lives as long as the channel: the pub/sub layer forgets a channel
    whose receive is cancelled, so a keepalive's timeout waits beside it rather than cancelling it."""

    def __init__(self) -> None:
        self.layer = get_channel_layer()
        self.channel: str | None = None
        self.groups: set[str] = set()
        self.receiving: asyncio.Task | None = None
        self.closed = False
        self.bus_generation = events.bus_failures()  # the bus failures this stream is in step with
        self.back: asyncio.Future = asyncio.get_running_loop().create_future()

    @property
    def channel_layer(self):
        return self.layer

    async def bus_back(self, generation: int) -> None:
        """The bus is back after a failure this stream saw (or it opened without the bus): joins its
        groups again (a restarted Redis forgot them), and its next wait answers BUS_BACK."""
        self.bus_generation = generation  # first: a join that fails again puts it behind again
        await self.rejoin()
        if not self.back.done():
            self.back.set_result(BUS_BACK)

    async def join(self, groups: list[str]) -> None:
        self.groups.update(groups)
        await self.rejoin()

    async def rejoin(self) -> None:
        """Makes the channel if it has none yet (the bus was away) and joins every group again (a
        restarted Redis forgot them)."""
        if self.layer is None:
            return
        try:
            if self.channel is None:
                self.channel = await asyncio.wait_for(
                    self.layer.new_channel("freecell.stream."), LAYER_TIMEOUT
                )
            for group in list(self.groups):
                await asyncio.wait_for(self.layer.group_add(group, self.channel), LAYER_TIMEOUT)
        except Exception as exc:
            bus.missed(self, "stream join", exc)

    async def next(self, timeout: float) -> dict | None:
        """The next message on the channel, BUS_BACK once the bus is back after a failure, or None when
        `timeout` passes first (or the bus failed)."""
        if self.back.done():
            self.back = asyncio.get_running_loop().create_future()
            return BUS_BACK
        if self.layer is None or self.channel is None:
            await asyncio.wait({self.back}, timeout=timeout)
            return None
        if self.receiving is None:
            self.receiving = asyncio.ensure_future(self.layer.receive(self.channel))
        done, _ = await asyncio.wait({self.receiving, self.back}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if self.receiving not in done:
            return None  # the keepalive is due, or the bus is back (the next call says so)
        task, self.receiving = self.receiving, None
        try:
            return task.result()
        except Exception as exc:
            bus.failed("stream receive", exc)
            await asyncio.sleep(
                min(timeout, 1.0)
            )  # a layer that fails at once (Redis down) is not asked in a loop
            return None

    async def close(self) -> None:
        """Leaves every group and gives the channel back: nothing of the stream stays on the bus."""
        if self.receiving is not None:
            task, self.receiving = self.receiving, None
            task.cancel()  # the pub/sub layer unsubscribes the channel
            await asyncio.wait({task})  # without raising its end: cancelled, or the bus failed
            if not task.cancelled():
                task.exception()  # looked at: the failure was the bus's, and the stream ends anyway
        if self.layer is None or self.channel is None:
            return
        for group in list(self.groups):
            try:
                await asyncio.wait_for(self.layer.group_discard(group, self.channel), LAYER_TIMEOUT)
            except Exception as exc:
                bus.failed("stream group_discard", exc)
        self.groups.clear()


async def lines(
    source: Source, sign_in: tuple[str, str, int] | None, address: str | None
) -> AsyncIterator[bytes]:
    """The stream's bytes: `source`'s first lines, then its lines for each push, and an empty line
    every STREAM_KEEPALIVE_S (busy or not: a proxy or client sees it, and the sign-in is checked),
    until the client leaves (Django cancels this iterator, and its group memberships go with it), the
    source ends, or the sign-in (`how, key, user id`) ends.

    The sign-in is asked about at every keepalive, and at once when the player signs out somewhere
    (the sockets' event on their account's group), as a request made with it now would be.

    A stream counts as a socket against its address's and account's open sockets in every process
    (games/sockets/limits.py): one too many gets a `rate_limited` line and ends."""
    keepalive = settings.STREAM_KEEPALIVE_S
    loop = asyncio.get_running_loop()
    feed = Feed()
    counted: list[tuple[limits.Gauge, str]] = []
    kind = type(source).__name__.removesuffix("Source").lower()
    metrics.opened(metrics.OPEN_STREAMS, kind)
    try:
        account = str(sign_in[2]) if sign_in is not None else None
        for gauge, who in ((limits.sockets_per_address, address), (limits.sockets_per_account, account)):
            if who is None:
                continue
            if not await limits.open_socket(gauge, who):
                yield line(_too_many(gauge))
                return
            counted.append((gauge, who))
        groups = source.groups()
        if sign_in is not None:
            groups.append(events.account_group(sign_in[2]))
        await feed.join(groups)
        if feed.layer is not None and feed.channel is None:
            feed.bus_generation = -1  # opened without the bus: resynced once it is back
        bus.watch(feed)
        if sign_in is not None and not await _still_signed_in(sign_in):
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
        next_keepalive = loop.time() + keepalive
        while True:
            message = await feed.next(max(0.0, next_keepalive - loop.time()))
            shown: list[dict] = []
            if message is BUS_BACK:
                if sign_in is not None and not await _still_signed_in(sign_in):
                    yield line(_signed_out())  # a sign-out may have been lost with the bus, too
                    return
                shown = await _or_nothing(source.resync())
                metrics.resynced("stream", "bus_back")
            elif message is not None and message.get("type") == "account.sign_ins":
                if sign_in is not None and not await _still_signed_in(sign_in):
                    yield line(_signed_out())
                    return
            elif message is not None:
                shown = await _or_nothing(source.pushed(message))
            for body in shown:
                yield line(body)
            if source.ended:
                return
            if loop.time() >= next_keepalive:
                # Sent first and on a fixed beat (from the last due time, not from when it went out), so
                # that no gap between empty lines grows past STREAM_KEEPALIVE_S by the check's query.
                yield KEEPALIVE
                next_keepalive = max(next_keepalive + keepalive, loop.time() + keepalive / 2)
                if sign_in is not None and not await _still_signed_in(sign_in):
                    yield line(_signed_out())
                    return
    finally:
        metrics.closed(metrics.OPEN_STREAMS, kind)
        feed.closed = True
        bus.unwatch(feed)
        await feed.close()
        for gauge, who in counted:
            await limits.close_socket(gauge, who)


def _too_many(gauge: limits.Gauge) -> dict:
    return error_body(
        "rate_limited",
        f"too many streams and sockets open from this {gauge.kind} (at most {gauge.limit}): close some and open it again",
        retry_after=1,
    )


async def _still_signed_in(sign_in: tuple[str, str, int]) -> bool:
    """Whether the stream's sign-in still holds; yes while the database cannot say (asked again at
    the next keepalive)."""
    try:
        return await db(still_signed_in)(*sign_in)
    except DatabaseError as exc:
        logger.warning("a stream's sign-in check failed: %s", exc)
        return True


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
