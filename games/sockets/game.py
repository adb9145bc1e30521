"""`/ws/games/<id>/`: watch one game; its player also plays it here."""

from __future__ import annotations

import asyncio

from django.conf import settings

from freecell_site.errors import ServiceError
from games import events, selectors
from games.sockets.base import Socket, db, resign


class GameConsumer(Socket):
    """`/ws/games/<id>/`: watch one game; its player also plays it here."""

    frame_types = ("auth", "ping", "sync", "move", "undo", "resign")
    watching = False

    async def open(self):
        self.game_id = self.scope["url_route"]["kwargs"]["game_id"]
        self.watching = False
        if await self._watch():
            return
        if self.user.is_authenticated:
            await self.close_with(None, "not_found", f"no game {self.game_id}", 4404)
            return
        # Maybe a private game whose player authenticates with a token frame: wait a little for it.
        self.tasks.append(asyncio.create_task(self._await_auth()))

    async def _watch(self) -> bool:
        """Joins the game's group and sends its state, if this socket may see it."""
        group = events.game_group(self.game_id)
        await self.join_group(group)  # before reading, so no change between read and join is missed
        game = await db(selectors.visible_game_state)(self.game_id, self.user)
        if game is None:
            self.bus_groups.discard(group)
            if self.channel_layer is not None:
                try:
                    await self.channel_layer.group_discard(group, self.channel_name)
                except Exception:
                    pass
            return False
        self.watching = True
        await self.send_game(game)
        return True

    async def _await_auth(self):
        try:
            await asyncio.sleep(settings.WS_AUTH_TIMEOUT_S)
            if not self.watching and not self.closed:
                await self.close_with(None, "not_found", f"no game {self.game_id}", 4404)
        except asyncio.CancelledError:
            pass

    async def authenticated(self):
        if not self.watching and not await self._watch():
            await self.close_with(None, "not_found", f"no game {self.game_id}", 4404)

    def check_allowed(self, kind: str) -> None:
        if not self.watching and kind not in ("auth", "ping"):
            raise ServiceError("not_found", f"no game {self.game_id}", status=404)

    async def frame_sync(self, frame, frame_id):
        game = await db(selectors.visible_game_state)(self.game_id, self.user)
        if game is None:
            raise ServiceError("not_found", f"no game {self.game_id}", status=404)
        await self.send_game(game, frame_id)

    async def played_game(self) -> int:
        return self.game_id

    async def frame_resign(self, frame, frame_id):
        async def answer():
            result = await db(resign)(game_id=self.game_id, user=self.user)
            await self.send_ack(frame_id, "", result)

        self.in_turn(frame_id, answer)

    async def resync(self):
        if self.watching:
            game = await db(selectors.game_state)(self.game_id)
            if game is not None and game["version"] > self.game_version:
                await self.send_game(game)
