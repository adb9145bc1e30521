"""The websocket benchmark's baseline: the service's socket stack with no rules and no database.

`bench/ws.py` serves `bench.echo:application` instead of `freecell_site.asgi:application`: the same
application, plus `/ws/echo/<room>/` behind the same origin check and auth middleware. Each frame is
answered to its sender at once and relayed through the channel layer to the room's other sockets.

`/ws/floor/<room>/<game>/` is the floor of a durable action: the echo, plus, before each ack, the
three statements every action runs (games.play.store: read the game by its key, write it under a
version check, append an action) in one transaction, through the same hop to a database thread as
a game socket's action (games.sockets.database.db). No rules, no serializer, no follow-ups. What a move
costs above it is the rules engine, the game's JSON, the follow-ups and the socket's own checks.

`POST /bench/floor/<game>/` is the same floor over REST (bench/floor.py, for `bench/api.py`), served
through the service's own bridge to its worker threads.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import time
from collections import Counter

from channels.auth import AuthMiddlewareStack
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.routing import URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.conf import settings
from django.urls import path

from freecell_site.asgi import application as service  # first: it sets Django up

# isort: split
from bench.floor import FloorHandler, store_an_action
from freecell_site.forwarded import ForwardedForMiddleware
from freecell_site.origin import SameOriginValidator
from freecell_site.wsgi_bridge import WSGIBridge
from games.sockets.base import Socket
from games.sockets.database import db
from games.sockets.frames import MAX_FRAME, parse_frame


class EchoConsumer(AsyncWebsocketConsumer):
    """`/ws/echo/<room>/`: an ack to the sender, the frame relayed to the room."""

    dispatch = Socket.dispatch  # the same event dispatch as the game sockets (no DB clean-up hop)
    after_acks = ()  # no event waits for an answer here (Socket.queue_action)

    async def connect(self):
        self.room = "echo." + "".join(c for c in self.scope["url_route"]["kwargs"]["room"] if c.isalnum())[:40]
        await self.channel_layer.group_add(self.room, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.room, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        if text_data is None or len(text_data) > MAX_FRAME:
            return
        try:
            frame = parse_frame(text_data)
        except (ValueError, RecursionError):
            return
        await self.send(text_data=json.dumps({"type": "ack", "id": frame.get("id"), "t": time.time()}))
        await self.channel_layer.group_send(self.room, {"type": "echo.relay", "frame": frame, "sender": self.channel_name})

    async def echo_relay(self, event):
        if event["sender"] != self.channel_name:
            await self.send(text_data=json.dumps({"type": "relay", "frame": event["frame"]}))


def log_long_collections(threshold_s: float = 0.05) -> None:
    """Logs each garbage collection that holds the process longer than `threshold_s` (BENCH_LOG_GC=1)."""
    logger, began = logging.getLogger("bench.gc"), {}

    def note(phase, info):
        if phase == "start":
            began["at"] = time.perf_counter()
        elif time.perf_counter() - began.get("at", time.perf_counter()) > threshold_s:
            took = time.perf_counter() - began["at"]
            sizes = [len(gc.get_objects(generation)) for generation in range(3)]
            logger.warning(
                "gc generation %s took %.0f ms, %s collected; generations %s, frozen %s",
                info["generation"], took * 1000, info["collected"], sizes, gc.get_freeze_count(),
            )

    gc.callbacks.append(note)


def log_what_piles_up(top: int = 12) -> None:
    """Logs, as each full collection starts, the commonest types in the oldest generation: what
    outlived the young collections since the last freeze (BENCH_LOG_GC=types)."""
    logger = logging.getLogger("bench.gc")

    def note(phase, info):
        if phase == "start" and info["generation"] == 2:
            kinds = Counter(type(thing).__qualname__ for thing in gc.get_objects(2))
            logger.warning("full collection: %s in the oldest generation: %s", sum(kinds.values()), kinds.most_common(top))

    gc.callbacks.append(note)


def log_collection_totals(every_s: float = 10.0) -> None:
    """Logs, every `every_s`, each generation's collections: how many, and their total and longest
    time on the collecting thread's CPU clock (BENCH_LOG_GC=totals), which a loaded box does not stretch."""
    logger, began, totals = logging.getLogger("bench.gc"), {}, {}
    since = [time.monotonic()]

    def note(phase, info):
        if phase == "start":
            began["at"] = time.thread_time()
            return
        took = (time.thread_time() - began.pop("at", time.thread_time())) * 1000
        count, total, longest = totals.get(info["generation"], (0, 0.0, 0.0))
        totals[info["generation"]] = (count + 1, total + took, max(longest, took))
        if time.monotonic() - since[0] >= every_s:
            logger.warning(
                "gc over %.0f s: %s", time.monotonic() - since[0],
                "; ".join(f"gen {g}: {c} in {t:.0f} ms, longest {m:.1f} ms" for g, (c, t, m) in sorted(totals.items())),
            )
            totals.clear()
            since[0] = time.monotonic()

    gc.callbacks.append(note)


async def watch_loop_lag(every_s: float = 10.0) -> None:
    """Logs, every `every_s`, how late the event loop woke a 10 ms sleep: the longest, and how many were
    over 20 and 50 ms (BENCH_LOG_LAG=1): whatever holds the loop, as another player's ack sees it."""
    logger, lags, since = logging.getLogger("bench.lag"), [], time.monotonic()
    while True:
        began = time.monotonic()
        await asyncio.sleep(0.01)
        lags.append(time.monotonic() - began - 0.01)
        if time.monotonic() - since >= every_s:
            logger.warning(
                "loop lag over %.0f s: longest %.1f ms, %s over 20 ms, %s over 50 ms",
                time.monotonic() - since, max(lags) * 1000, sum(lag > 0.02 for lag in lags), sum(lag > 0.05 for lag in lags),
            )
            lags, since = [], time.monotonic()


_lag_watch: list[asyncio.Task] = []


if os.environ.get("BENCH_LOG_GC") == "totals":
    log_collection_totals()
if os.environ.get("BENCH_LOG_GC") == "types":
    log_what_piles_up()  # before the timer's own start, so that its count is not timed
if os.environ.get("BENCH_LOG_GC") in ("1", "types"):
    log_long_collections()


class FloorConsumer(EchoConsumer):
    """`/ws/floor/<room>/<game>/`: the echo, after storing an action of `game` each frame."""

    async def connect(self):
        self.game_id = self.scope["url_route"]["kwargs"]["game"]
        await super().connect()

    async def receive(self, text_data=None, bytes_data=None):
        if text_data is None or len(text_data) > MAX_FRAME:
            return
        await db(store_an_action)(self.game_id)
        await super().receive(text_data=text_data)


floor_http = ForwardedForMiddleware(WSGIBridge(FloorHandler(), workers=settings.HTTP_THREADS))


echo_router = URLRouter(
    [
        path("ws/echo/<str:room>/", EchoConsumer.as_asgi()),
        path("ws/floor/<str:room>/<int:game>/", FloorConsumer.as_asgi()),
    ]
)
echo = AllowedHostsOriginValidator(SameOriginValidator(AuthMiddlewareStack(echo_router)))


async def application(scope, receive, send):
    """The service, with the echo sockets beside its own."""
    if not _lag_watch and os.environ.get("BENCH_LOG_LAG") == "1":
        _lag_watch.append(asyncio.get_running_loop().create_task(watch_loop_lag()))
    if scope["type"] == "websocket" and scope["path"].startswith(("/ws/echo/", "/ws/floor/")):
        return await echo(scope, receive, send)
    if scope["type"] == "http" and scope["path"].startswith("/bench/floor/"):
        return await floor_http(scope, receive, send)
    return await service(scope, receive, send)
