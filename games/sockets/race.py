"""`/ws/races/<code>/`: a race's live progress; a racer also plays their own game here."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging

from django.utils import timezone

from accounts.scopes import RACE
from freecell_site.errors import ServiceError
from games import events
from games.play import selectors
from games.races import services as races
from games.races.models import Race
from games.races.selectors import is_code, normalize_code, race_view
from games.sockets.base import Socket, iso_to_dt

logger = logging.getLogger(__name__)


def _start(code: str, user) -> dict:
    races.start(code=code, user=user)
    return race_view(code, user)


def _resign(code: str, user) -> dict:
    races.resign(code=code, user=user)
    return race_view(code, user)


class RaceConsumer(Socket):
    """`/ws/races/<code>/`: a race's live progress; a racer also plays their own game here."""

    frame_types = ("auth", "ping", "sync", "move", "undo", "resign", "start")
    frame_scopes = {**Socket.frame_scopes, "start": RACE, "rematch": RACE, "invite": RACE}
    race_version = -1

    async def open(self):
        self.code = normalize_code(self.scope["url_route"]["kwargs"]["code"])
        self.timer: asyncio.Task | None = None
        if not is_code(self.code):
            await self.close_with(None, "not_found", f"no race {self.code!r}", 4404)
            return
        await self.bus_channel.join(events.race_group(self.code))
        try:
            view = await self.db(race_view)(self.code, self.user)
        except ServiceError as exc:
            await self.close_with(None, exc.code, exc.message, 4404)
            return
        await self.show(view)

    async def show(self, view: dict, frame_id=None, *, force: bool = False) -> None:
        """Sends the race if newer than what the client has; starts following the viewer's game."""
        race = view["race"]
        if force or race["version"] > self.race_version:
            self.race_version = max(self.race_version, race["version"])
            body = {"type": "race", "race": race, "version": race["version"]}
            if frame_id is not None:
                body["id"] = frame_id
            await self.send_json(body)
        if view["my_game"] and self.game_id is None:
            self.game_id = view["my_game"]
            await self.bus_channel.join(events.game_group(self.game_id))
            game = await self.db(selectors.game_state)(self.game_id)
            if game is not None:
                await self.send_game(game)
        self.schedule(iso_to_dt(view["wake_at"]))

    def schedule(self, wake_at: dt.datetime | None) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if wake_at is not None and not self.closed:
            delay = max(0.0, (wake_at - timezone.now()).total_seconds()) + 0.005
            self.timer = asyncio.create_task(self._wake(delay))

    async def _wake(self, delay: float):
        try:
            await asyncio.sleep(delay)
            self.timer = None
            await self.db(races.advance)(self.code)  # the timer's write: what is due now
            view = await self.db(race_view)(self.code, self.user)
            await self.show(view)
        except asyncio.CancelledError:
            pass
        except Exception:
            logger.exception("race timer failed")

    async def disconnect(self, code):
        if getattr(self, "timer", None) is not None:
            self.timer.cancel()
        await super().disconnect(code)

    async def race_state(self, event):
        """A race changed (joined, started, a racer's progress, finish), from any process."""
        race = event["race"]
        if race.get("code") != self.code or race["version"] <= self.race_version:
            return
        gap = self.race_version >= 0 and race["version"] > self.race_version + 1
        needs_db = gap or (self.is_racer(race) and self.game_id is None and race["status"] != Race.Status.OPEN)
        if needs_db or race.get("ghost") or race["status"] == Race.Status.COUNTDOWN:
            await self.show(await self.db(race_view)(self.code, self.user))
            return
        await self.show({"race": race, "my_game": None, "wake_at": _wake_of(race)})

    async def race_progress(self, event):
        """A racer's move or undo, from any process: their progress only, without a race version."""
        progress = event["progress"]
        if progress.get("code") == self.code and self.race_version >= 0:
            await self.send_json({"type": "progress", "racer": progress["racer"]})

    async def frame_sync(self, frame, frame_id):
        await self.show(await self.db(race_view)(self.code, self.user), frame_id, force=True)
        if self.game_id is not None:
            game = await self.db(selectors.game_state)(self.game_id)
            if game is not None:
                await self.send_game(game, frame_id)

    async def frame_start(self, frame, frame_id):
        await self.show(await self.db(_start)(self.code, self.user), frame_id, force=True)

    async def frame_resign(self, frame, frame_id):
        async def resign():
            await self.show(await self.db(_resign)(self.code, self.user), frame_id, force=True)

        self.in_turn(frame_id, resign)

    async def played_game(self) -> int:
        """The sender's game in this race. A socket that knows of none asks the database: the start may
        have come a moment ago, its push still waiting behind the actions on their way."""
        if self.game_id is not None:
            return self.game_id
        view = await self.db(race_view)(self.code, self.user)
        await self.show(view)  # follows the sender's game, if the boards were shown meanwhile
        if self.game_id is not None:
            return self.game_id
        if not self.is_racer(view["race"]):  # as races.resign answers them
            raise ServiceError("forbidden", "you are not racing in this race", status=403)
        raise ServiceError("race_not_started", "you have no game in this race yet", status=409)

    def is_racer(self, race: dict) -> bool:
        """Whether this socket's user races in `race` (a ghost of their own game is not them)."""
        return self.user.is_authenticated and any(r["username"] == self.user.username and not r["ghost"] for r in race["racers"])

    async def authenticated(self):
        self.game_id = None
        await self.show(await self.db(race_view)(self.code, self.user), force=True)

    async def resync(self):
        # Forced: progress frames lost with the bus leave the race's version as it was.
        await self.show(await self.db(race_view)(self.code, self.user), force=True)
        if self.game_id is not None:
            game = await self.db(selectors.game_state)(self.game_id)
            if game is not None and game["version"] > self.game_version:
                await self.send_game(game)


def _wake_of(race: dict) -> str | None:
    """The next due instant readable from the race object alone (races without a ghost)."""
    if race["status"] == Race.Status.COUNTDOWN:
        return race["starts_at"]
    if race["status"] == Race.Status.RUNNING:
        return race["ends_at"]
    return None
