"""Best-effort pushes on the channel layer: group names and the events consumers handle.

The bus may drop a message (or Redis may be down): every event carries a `version`, clients that see a
gap resync from the database, so a failed publish is logged and never fails the action that caused it.
"""

from __future__ import annotations

import asyncio
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

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


def publish(group: str, event: dict) -> bool:
    try:
        return async_to_sync(apublish)(group, event)
    except Exception as exc:
        logger.warning("publish to %s failed: %s: %s", group, type(exc).__name__, exc)
        return False


def publish_game(payload: dict) -> bool:
    """Pushes a game's new state to everyone watching it."""
    return publish(game_group(payload["id"]), {"type": "game.state", "game": payload})


def publish_race(payload: dict) -> bool:
    """Pushes a race's new state (racers' progress) to everyone in it."""
    return publish(race_group(payload["code"]), {"type": "race.state", "race": payload})
