"""`/ws/games/<id>/`: watch one game; its player also plays it here.

A socket is told nothing about a game before games.play.policies says its viewer may see it: it asks
first, and only then joins the game's group (so no push reaches it) and sends the state. It asks
again whenever the answer can change: on `auth`, when a race over the game ends (`game.access`), on a
`sync`, and when it resyncs after the bus was away. A socket that may no longer see the game is closed.
"""

from __future__ import annotations

import asyncio
import logging

from django.conf import settings

from freecell_site.errors import ServiceError
from games import events
from games.play import selectors, services
from games.play.models import Game
from games.sockets import heartbeats
from games.sockets.base import Socket, resign

logger = logging.getLogger(__name__)


def may_see(game_id: int, viewer) -> bool:
    """Whether the viewer may see the game now (games.play.policies, through the selector every read uses)."""
    return selectors.visible_game(game_id, viewer) is not None


class GameConsumer(Socket):
    """`/ws/games/<id>/`: watch one game; its player also plays it here."""

    frame_types = ("auth", "ping", "sync", "move", "undo", "resign")
    watching = False
    waiting = False
    # A socket of the game's own player is a page that has the game open: it keeps a casual game's
    # clock counting while it is open (games.play.services.keep_clock) and pauses it when it closes.
    keeps_clock = False

    async def open(self):
        # The game asked for; `game_id` (what pushes and moves go to) is set only once it may be seen.
        self.wanted = self.scope["url_route"]["kwargs"]["game_id"]
        self.game_id = None
        self.watching = False
        if await self._watch():
            return
        if self.user.is_authenticated:
            await self._refuse()
            return
        # Maybe a private game whose player authenticates with a token frame, or a race that ends
        # meanwhile: wait a little, in a group that says only "ask again" (events.publish_access).
        self.waiting = True
        await self.bus_channel.join(events.access_group(self.wanted))
        self.tasks.append(asyncio.create_task(self._await_auth()))

    async def _watch(self) -> bool:
        """Starts watching the game, if this socket may see it: asks, joins the game's group, then reads
        the state it sends (read after the join, so no change between the two is missed)."""
        if await self.db(selectors.visible_game_state)(self.wanted, self.user) is None:
            return False
        group = events.game_group(self.wanted)
        await self.bus_channel.join(group)
        # Before the state is read, so that it shows the clock this page keeps going.
        if self.user.is_authenticated and await self.db(services.keep_clock)(game_id=self.wanted, user=self.user) is not None:
            self._keep_clock()
        game = await self.db(selectors.game_state)(self.wanted)
        if game is None:  # deleted between the two reads
            await self.bus_channel.leave(group)
            return False
        self.game_id, self.watching = self.wanted, True
        if self.waiting:
            self.waiting = False
            await self.bus_channel.leave(events.access_group(self.wanted))
        await self.send_game(game)
        return True

    def _keep_clock(self) -> None:
        self.keeps_clock = True

    # While this page stays open, its player's casual game's clock goes on counting: a lease renewed
    # every CLOCK_BEAT_S from the game's first action (before it there is nothing to renew), beaten with
    # the socket's heartbeats (games.sockets.heartbeats); the beats end with the game.
    next_clock_beat: float | None = None

    def next_due(self) -> float:
        due = super().next_due()
        return due if self.next_clock_beat is None else min(due, self.next_clock_beat)

    async def beat(self) -> float | None:
        if await super().beat() is None:
            return None
        now = asyncio.get_running_loop().time()
        if self.next_clock_beat is not None and now >= self.next_clock_beat:
            self.next_clock_beat = now + services.CLOCK_BEAT_S
            self.in_background(self._renew_clock())
        return self.next_due()

    def _clock_begun(self, game: dict) -> None:
        """The game this page keeps the clock of has begun: its beats start."""
        if self.keeps_clock and self.next_clock_beat is None and game.get("ply", 0) > 0 and game.get("status") == Game.Status.PLAYING:
            self.next_clock_beat = asyncio.get_running_loop().time() + services.CLOCK_BEAT_S
            heartbeats.soon(self)

    async def _renew_clock(self):
        try:
            if self.closed or not self.watching:
                return
            if await self.db(services.keep_clock)(game_id=self.wanted, user=self.user) is None:
                self.next_clock_beat = None  # over: there is no clock left to keep
        except Exception:
            logger.exception("the clock's beat failed")

    async def send_game(self, game: dict, frame_id=None) -> None:
        self._clock_begun(game)
        await super().send_game(game, frame_id)

    async def send_ack(self, frame_id, client_id: str, result: dict) -> None:
        self._clock_begun(result["game"])
        await super().send_ack(frame_id, client_id, result)

    async def game_clock(self, event):
        """Another page of the player closed and paused the clock: this one, still open, keeps it going."""
        if event.get("game") == self.wanted and self.keeps_clock and self.watching and not self.closed:
            await self.db(services.keep_clock)(game_id=self.wanted, user=self.user)

    async def disconnect(self, code):
        await super().disconnect(code)
        if self.keeps_clock and self.game_id is not None:
            self.keeps_clock = False
            try:
                await self.db(services.pause_clock)(game_id=self.game_id, user=self.user)
            except Exception:  # the lease stops the count anyway (services.CLOCK_LEASE_S)
                logger.exception("pausing the clock failed")

    async def _refuse(self) -> None:
        """Stops every frame about the game at once, then says not_found and closes (4404)."""
        self.game_id, self.watching = None, False
        await self.bus_channel.leave_all()
        await self.close_with(None, "not_found", f"no game {self.wanted}", 4404)

    async def _await_auth(self):
        try:
            await asyncio.sleep(settings.WS_AUTH_TIMEOUT_S)
            if not self.watching and not self.closed:
                await self._refuse()
        except asyncio.CancelledError:
            pass

    async def authenticated(self):
        if not self.watching and not await self._watch():
            await self._refuse()

    async def game_state(self, event):
        """A game changed: pushed as every socket pushes it, unless the change held its result for review
        (fair play): others then see neither its moves nor its time, and the socket ends for them."""
        if event["game"].get("review") in Game.HELD_REVIEWS and event["game"].get("id") == self.game_id:
            if not await self.db(may_see)(self.wanted, self.user):
                await self._refuse()
                return
        await super().game_state(event)

    async def game_access(self, event):
        """Who may see the game may have changed (a race over it ended): ask again."""
        if event.get("game") != self.wanted or self.closed:
            return
        if self.watching:
            if not await self.db(may_see)(self.wanted, self.user):
                await self._refuse()
        elif self.waiting:
            await self._watch()

    def check_allowed(self, kind: str) -> None:
        if not self.watching and kind not in ("auth", "ping"):
            raise ServiceError("not_found", f"no game {self.wanted}", status=404)

    async def frame_sync(self, frame, frame_id):
        game = await self.db(selectors.visible_game_state)(self.wanted, self.user)
        if game is None:
            await self._refuse()
            return
        await self.send_game(game, frame_id)

    async def played_game(self) -> int:
        if self.game_id is None:
            raise ServiceError("not_found", f"no game {self.wanted}", status=404)
        return self.game_id

    async def frame_resign(self, frame, frame_id):
        async def answer():
            result = await self.db(resign)(game_id=await self.played_game(), user=self.user)
            await self.send_ack(frame_id, "", result)

        self.in_turn(frame_id, answer)

    async def resync(self):
        # An access event may have been lost with the bus, too: the question is asked again.
        if self.watching:
            game = await self.db(selectors.visible_game_state)(self.wanted, self.user)
            if game is None:
                await self._refuse()
            elif game["version"] > self.game_version:
                await self.send_game(game)
        elif self.waiting:
            await self._watch()
