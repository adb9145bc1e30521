"""Best-effort pushes on the channel layer: group names and the events consumers handle.

The bus may drop a message (or Redis may be down): every event carries a `version`, clients that see a
gap resync from the database, so a failed publish is logged and never fails the action that caused it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref

from channels.layers import InMemoryChannelLayer, get_channel_layer

from freecell_site import metrics, server_loop

logger = logging.getLogger(__name__)

PUBLISH_TIMEOUT = 0.5


def game_group(game_id: int) -> str:
    return f"game.{game_id}"


def access_group(game_id: int) -> str:
    """Sockets waiting for a game they may not see yet: told, with nothing about the game, to ask again."""
    return f"access.{game_id}"


def race_group(code: str) -> str:
    return f"race.{code}"


def account_group(user_id: int) -> str:
    """Every socket a player is signed in on."""
    return f"account.{user_id}"


def player_events_group(user_id: int) -> str:
    """A player's event streams (`GET /api/stream/events/`): invitations, races starting, friends."""
    return f"player-events.{user_id}"


async def apublish(group: str, event: dict) -> bool:
    layer = get_channel_layer()
    if layer is None:
        return False
    try:
        await asyncio.wait_for(layer.group_send(group, event), PUBLISH_TIMEOUT)
    except Exception as exc:  # the bus is best effort; see the module docstring
        _publish_failed(group, exc)
        return False
    return True


def _publish_failed(groups: str, exc: BaseException) -> None:
    note_bus_failure(f"publish to {groups}", exc)


# Failures of the channel layer in this process: a socket that sees the count move resyncs its client
# once the layer answers again (messages published meanwhile are lost, and a Redis restart also forgets
# group memberships, which the sockets' periodic check re-adds).
_bus_failures = 0


def note_bus_failure(what: str, exc: BaseException | None = None) -> None:
    """A failure of the layer itself (a publish, a receive, a lost connection): every socket of the
    process may have missed something."""
    global _bus_failures
    _bus_failures += 1
    report_bus_failure(what, exc)


def report_bus_failure(what: str, exc: BaseException | None = None) -> None:
    """Counts and logs a failed call to the layer without moving the process's count (a call that
    concerns one socket: its caller puts that socket behind, games.sockets.bus.missed)."""
    metrics.bus_failed(what)
    if exc is not None:
        logger.warning("%s failed: %s: %s", what, type(exc).__name__, exc)


def bus_failures() -> int:
    """How many failures of the channel layer this process has seen."""
    return _bus_failures


_probe_channels: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, str] = weakref.WeakKeyDictionary()


async def round_trip(layer, timeout: float) -> None:
    """Sends a message to a channel of this process and waits for it to come back; raises if it does not.

    A publish that goes through is not enough to know the bus works: after Redis restarts, the pub/sub
    layer publishes again at once but takes seconds more to subscribe again, and pushes sent meanwhile
    are lost. One channel per event loop, reused while it works: the pub/sub layer keeps a channel
    subscribed until a receive on it is cancelled, and then forgets it, so a failed try starts the next
    one on a new channel (subscribed before anything is sent to it).
    """
    loop = asyncio.get_running_loop()

    async def probe() -> None:
        channel = _probe_channels.get(loop)
        if channel is None:
            channel = _probe_channels[loop] = await layer.new_channel("freecell.probe.")
        await layer.send(channel, {"type": "bus.probe"})
        await layer.receive(channel)

    try:
        await asyncio.wait_for(probe(), timeout)
    except BaseException:
        _probe_channels.pop(loop, None)
        raise


class _Publisher:
    """One thread per process, with an event loop of its own, that sends queued events.

    Sending to Redis takes a network round trip or two; done here, it is off the path of the answer
    to the player whose action caused it (the action is committed first either way). Events still
    queued when a process dies are lost, like any bus message. Each group's events go out in order,
    one at a time, through the layer's public `group_send`, and different groups' events side by
    side, so a slow group (the list-based layer's full channels) holds up no other.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.last: dict[str, asyncio.Task] = {}  # each group's latest send (used on the loop only)
        self.sending: set[asyncio.Task] = set()  # strong references: the loop keeps only weak ones

    def put(self, group: str, event: dict) -> None:
        self._started().call_soon_threadsafe(self._schedule, group, event)

    def _started(self) -> asyncio.AbstractEventLoop:
        """The publisher's loop, running in its thread (started on first use, again if it died).

        The loop is made before its thread starts and published last, so that a thread that sees it
        can use it at once: callbacks given to it before it runs wait for it. (A loop made by the
        thread would let a second caller in the first instant find the thread alive and no loop.)"""
        loop = self.loop
        if loop is not None and self.thread.is_alive():
            return loop
        with self.lock:
            if self.loop is None or not self.thread.is_alive():
                self.last, self.sending = {}, set()
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="freecell-publisher", daemon=True)
                thread.start()
                self.thread, self.loop = thread, loop
            return self.loop

    def _schedule(self, group: str, event: dict) -> None:
        task = self.loop.create_task(self._send(self.last.get(group), group, event))
        self.last[group] = task
        self.sending.add(task)
        task.add_done_callback(lambda done: self._sent(group, done))

    def _sent(self, group: str, task: asyncio.Task) -> None:
        self.sending.discard(task)
        if self.last.get(group) is task:
            del self.last[group]

    @staticmethod
    async def _send(previous: asyncio.Task | None, group: str, event: dict) -> None:
        if previous is not None:
            await asyncio.wait([previous])  # the group's order: after its previous event
        await apublish(group, event)  # logs and swallows its own failures


_publisher = _Publisher()


def publish(group: str, event: dict) -> bool:
    """Sends an event to a group. With a shared layer (Redis) it is queued for the publisher thread
    and this returns at once; the in-memory layer lives on the server's own event loop, so it is
    sent there directly."""
    layer = get_channel_layer()
    try:
        if layer is not None and not isinstance(layer, InMemoryChannelLayer):
            _publisher.put(group, event)
            return True
        return server_loop.call(apublish, group, event)
    except Exception as exc:  # the action that caused the event is committed: never fail it
        _publish_failed(group, exc)
        return False


def publish_game(payload: dict) -> bool:
    """Pushes a game's new state to everyone watching it."""
    return publish(game_group(payload["id"]), {"type": "game.state", "game": payload})


def publish_clock(game_id: int) -> bool:
    """Tells the sockets on a game that a page of its player closed and paused its clock: the player's
    other open pages keep it going (games.play.services.keep_clock)."""
    return publish(game_group(game_id), {"type": "game.clock", "game": game_id})


def publish_race(payload: dict) -> bool:
    """Pushes a race's new state (racers' progress) to everyone in it. A finished race's boards are
    public from now on (games.play.policies), so the sockets on them ask again who may see them."""
    sent = publish(race_group(payload["code"]), {"type": "race.state", "race": payload})
    if payload.get("status") == "finished":
        for racer in payload.get("racers", ()):
            if racer.get("game"):
                publish_access(racer["game"])
    return sent


def publish_access(game_id: int) -> bool:
    """Tells every socket on a game (watching it, or waiting for it) that who may see it may have
    changed; the event carries nothing about the game, and each socket asks games.play.policies again."""
    event = {"type": "game.access", "game": game_id}
    watchers = publish(game_group(game_id), event)
    return publish(access_group(game_id), event) and watchers


def publish_race_progress(progress: dict) -> bool:
    """Pushes one racer's new progress ({code, racer}) to everyone in the race."""
    return publish(race_group(progress["code"]), {"type": "race.progress", "progress": progress})


def publish_sign_ins_changed(sender, *, user_id: int, **kwargs) -> bool:
    """Tells a player's sockets to check that their sign-in still holds (accounts.signals)."""
    return publish(account_group(user_id), {"type": "account.sign_ins"})


def publish_player_event(user_id: int, event: dict) -> bool:
    """Sends one of a player's events (docs/streams.md: `race_invitation`, `race_starting`, ...) to
    their event streams."""
    return publish(player_events_group(user_id), {"type": "player.event", "event": event})
