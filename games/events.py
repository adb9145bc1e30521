"""Best-effort pushes on the channel layer: group names and the events consumers handle.

The bus may drop a message (or Redis may be down): every event carries a `version`, clients that see a
gap resync from the database, so a failed publish is logged and never fails the action that caused it.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading

from channels.layers import InMemoryChannelLayer, get_channel_layer

from freecell_site import server_loop

logger = logging.getLogger(__name__)

PUBLISH_TIMEOUT = 0.5


def game_group(game_id: int) -> str:
    return f"game.{game_id}"


def race_group(code: str) -> str:
    return f"race.{code}"


async def apublish(group: str, event: dict) -> bool:
    layer = get_channel_layer()
    if layer is None:
        return False
    try:
        await asyncio.wait_for(layer.group_send(group, event), PUBLISH_TIMEOUT)
    except Exception as exc:  # the bus is best effort; see the module docstring
        logger.warning("publish to %s failed: %s: %s", group, type(exc).__name__, exc)
        return False
    return True


class _Publisher:
    """One thread per process that sends queued events in order, on its own event loop.

    Sending to Redis takes a network round trip or two; done here, it is off the path of the answer
    to the player whose action caused it (the action is committed first either way). Order is kept:
    one queue, one sender. Events still queued when a process dies are lost, like any bus message.
    """

    def __init__(self) -> None:
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def put(self, group: str, event: dict) -> None:
        if self.thread is None or not self.thread.is_alive():
            with self.lock:
                if self.thread is None or not self.thread.is_alive():
                    self.thread = threading.Thread(target=self.run, name="freecell-publisher", daemon=True)
                    self.thread.start()
        self.queue.put((group, event))

    def run(self) -> None:
        loop = asyncio.new_event_loop()
        while True:
            group, event = self.queue.get()
            try:
                loop.run_until_complete(apublish(group, event))
            except Exception as exc:  # keep the sender alive whatever one event does
                logger.warning("publish to %s failed: %s: %s", group, type(exc).__name__, exc)


_publisher = _Publisher()


def publish(group: str, event: dict) -> bool:
    """Sends an event to a group. With a shared layer (Redis) it is queued for the publisher thread
    and this returns at once; the in-memory layer lives on the server's own event loop, so it is
    sent there directly."""
    layer = get_channel_layer()
    if layer is not None and not isinstance(layer, InMemoryChannelLayer):
        _publisher.put(group, event)
        return True
    try:
        return server_loop.call(apublish, group, event)
    except Exception as exc:
        logger.warning("publish to %s failed: %s: %s", group, type(exc).__name__, exc)
        return False


def publish_game(payload: dict) -> bool:
    """Pushes a game's new state to everyone watching it."""
    return publish(game_group(payload["id"]), {"type": "game.state", "game": payload})


def publish_race(payload: dict) -> bool:
    """Pushes a race's new state (racers' progress) to everyone in it."""
    return publish(race_group(payload["code"]), {"type": "race.state", "race": payload})


def publish_race_progress(progress: dict) -> bool:
    """Pushes one racer's new progress ({code, racer}) to everyone in the race."""
    return publish(race_group(progress["code"]), {"type": "race.progress", "progress": progress})
