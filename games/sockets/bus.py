"""The sockets' view of the channel layer's health: failures counted per process, probes, the way back.

The bus is best effort. A socket that sees the process's failure count move (games.events) resyncs its
client from the database once the layer answers again.
"""

from __future__ import annotations

import asyncio
import logging
import weakref

from django.conf import settings

from games import events


class _LostRedis(logging.Handler):
    """channels-redis' pub/sub layer reports a lost Redis connection only in its log: its receive task
    retries and raises nothing to the sockets. This handler counts those reports as failures."""

    def emit(self, record: logging.LogRecord) -> None:
        events.note_bus_failure("channels-redis pub/sub")


logging.getLogger("channels_redis.pubsub").addHandler(_LostRedis(level=logging.WARNING))

_last_probe = [0.0]


async def works(layer, what: str, check, count=events.note_bus_failure) -> bool:
    """Whether `check()` (an awaitable test of the bus) succeeds; a failure is counted by `count` (as a
    failure of the process unless told otherwise)."""
    if layer is None:
        return True
    try:
        await check()
    except Exception as exc:
        count(f"channel layer {what}", exc)
        return False
    return True


def answers(layer):
    """One publish to an empty group: whether the bus takes messages right now."""
    return works(layer, "probe", lambda: asyncio.wait_for(layer.group_send("freecell.bus-probe", {"type": "bus.probe"}), 1.0))


def is_back(layer):
    """After a failure: whether a message to this process comes back (events.round_trip), so that a
    resync is not followed by pushes lost to subscriptions that are not back yet.

    A round trip that does not come back says "not yet" to the sockets already behind; it is not a new
    failure of the process. Counted as one, a round trip slowed past its second by a busy loop (10,000
    sockets opening) sent every socket of the process back together, and that herd kept the loop busy
    enough for the next one to time out too. Failures that lose messages are counted where they happen:
    a publish, a receive, the pub/sub layer's lost connection, the probe."""
    return works(layer, "round trip", lambda: events.round_trip(layer, 1.0), count=events.report_bus_failure)


async def probe(layer, every: float) -> None:
    """At most once per `every` seconds per process: some layers (the pub/sub one) hide their own
    connection errors, and a failed publish is how this process learns of an outage with no traffic."""
    loop = asyncio.get_running_loop()
    if loop.time() - _last_probe[0] >= every:
        _last_probe[0] = loop.time()
        await answers(layer)


def failed(what: str, exc: BaseException) -> None:
    """A call to the layer failed in a way that concerns every socket of the process (a receive)."""
    events.note_bus_failure(f"channel layer {what}", exc)


def missed(socket, what: str, exc: BaseException) -> None:
    """A call made for one socket or stream failed (its channel, joining one of its groups): that one
    is behind, not the process. The watch brings it back alone once the bus answers; a join that timed
    out under load while thousands of sockets opened otherwise sent every socket of the process back."""
    events.report_bus_failure(f"channel layer {what}", exc)
    socket.bus_generation = -1


# --- one watch of the bus per process --------------------------------------------------------------
#
# The sockets of a process share one watch instead of each checking the bus on a timer of its own:
# at 10,000 idle sockets, a check every few seconds per socket (a wake-up and a re-join of each of
# its groups) cost a core's time and held other players' acks up. The watch probes the bus every
# WS_BUS_CHECK_S; once a failure has been seen and the bus is back, it hands each socket that saw the
# failure (or opened without the bus, or missed a join of its own) to `bus_back`, which re-joins its
# groups and resyncs its client.

_watched: weakref.WeakSet = weakref.WeakSet()

#: How many sockets (and streams) take their way back at once. Each joins its groups again and reads
#: its state: thousands at once, after one call to the bus timed out while sockets were opening,
#: overloaded the bus and the loop again (every join timed out, which counted as a new failure), and
#: handshakes waiting behind them were refused.
BACK_AT_ONCE = 50
_watches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Task] = weakref.WeakKeyDictionary()


def watch(socket) -> None:
    """Puts an open socket under its process's watch (started with the first socket on the loop). The
    socket has `channel_layer`, `bus_generation` (the failure count it is in step with) and `bus_back()`."""
    _watched.add(socket)
    loop = asyncio.get_running_loop()
    task = _watches.get(loop)
    if task is None or task.done():
        _watches[loop] = loop.create_task(_watch_forever(socket.channel_layer))


def unwatch(socket) -> None:
    _watched.discard(socket)


async def _watch_forever(layer) -> None:
    """Checks the bus every WS_BUS_CHECK_S until its task is cancelled (its loop's end cancels it once).

    On Python 3.11 a cancellation can be lost inside a check: an `asyncio.wait_for` (a probe, a round
    trip, a join) whose call finishes just as its task is cancelled returns the call's result and drops
    the cancellation (fixed in 3.12). The loop would then go on forever, and `asyncio.run`'s teardown,
    which cancels each task once and waits for all, with it. So the loop also
    stops once its task has been asked to cancel (`cancelling()`), whatever became of the request."""
    task = asyncio.current_task()
    while True:
        if task.cancelling():
            raise asyncio.CancelledError
        try:
            await asyncio.sleep(settings.WS_BUS_CHECK_S)
            await _check(layer, settings.WS_BUS_CHECK_S)
        except asyncio.CancelledError:
            raise
        except Exception:
            logging.getLogger(__name__).exception("watching the bus failed")


async def _check(layer, every: float) -> None:
    generation = events.bus_failures()
    behind = [socket for socket in list(_watched) if socket.bus_generation != generation and not socket.closed]
    if not behind:
        await probe(layer, every * 0.9)
        return
    if not (await is_back(layer) and events.bus_failures() == generation):
        return
    for start in range(0, len(behind), BACK_AT_ONCE):
        if events.bus_failures() != generation:
            return  # failed again meanwhile: the rest wait for the next check
        turn = [socket for socket in behind[start : start + BACK_AT_ONCE] if not socket.closed]
        done = await asyncio.gather(*(socket.bus_back(generation) for socket in turn), return_exceptions=True)
        for failure in done:
            if isinstance(failure, Exception):  # one socket's failure must not keep the others behind
                logging.getLogger(__name__).error("a socket's way back from a bus failure failed", exc_info=failure)
