"""The sockets' view of the channel layer's health: failures counted per process, probes, the way back.

The bus is best effort. A socket that sees the process's failure count move (games.events) resyncs its
client from the database once the layer answers again.
"""

from __future__ import annotations

import asyncio
import logging

from games import events


class _LostRedis(logging.Handler):
    """channels-redis' pub/sub layer reports a lost Redis connection only in its log: its receive task
    retries and raises nothing to the sockets. This handler counts those reports as failures."""

    def emit(self, record: logging.LogRecord) -> None:
        events.note_bus_failure("channels-redis pub/sub")


logging.getLogger("channels_redis.pubsub").addHandler(_LostRedis(level=logging.WARNING))

_last_probe = [0.0]


async def works(layer, what: str, check) -> bool:
    """Whether `check()` (an awaitable test of the bus) succeeds; a failure is counted."""
    if layer is None:
        return True
    try:
        await check()
    except Exception as exc:
        events.note_bus_failure(f"channel layer {what}", exc)
        return False
    return True


def answers(layer):
    """One publish to an empty group: whether the bus takes messages right now."""
    return works(layer, "probe", lambda: asyncio.wait_for(layer.group_send("freecell.bus-probe", {"type": "bus.probe"}), 1.0))


def is_back(layer):
    """After a failure: whether a message to this process comes back (events.round_trip), so that a
    resync is not followed by pushes lost to subscriptions that are not back yet."""
    return works(layer, "round trip", lambda: events.round_trip(layer, 1.0))


async def probe(layer, every: float) -> None:
    """At most once per `every` seconds per process: some layers (the pub/sub one) hide their own
    connection errors, and a failed publish is how this process learns of an outage with no traffic."""
    loop = asyncio.get_running_loop()
    if loop.time() - _last_probe[0] >= every:
        _last_probe[0] = loop.time()
        await answers(layer)


def failed(what: str, exc: BaseException) -> None:
    events.note_bus_failure(f"channel layer {what}", exc)
