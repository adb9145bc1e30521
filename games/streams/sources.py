"""What each stream shows: a game, a race, a player's events; their first lines and their lines per push."""

from __future__ import annotations

import json

from freecell_site.errors import ServiceError, error_body
from games import events
from games.play import selectors
from games.play.models import Game
from games.play.payloads import game_detail
from games.races import challenges
from games.races import selectors as races
from games.races.payloads import race_payload
from games.sockets.database import db
from games.streams import friends
from games.streams.feed import Source


def game_end(game: dict) -> dict:
    """The stream's last line once the game is over (docs/streams.md)."""
    return {"type": "end", "game": game["id"], "status": game["status"]}


def race_end(race: dict) -> dict:
    """The stream's last line once the race is over (docs/streams.md)."""
    return {"type": "end", "race": race["code"], "status": race["status"]}


class GameSource(Source):
    """`/api/stream/games/<id>/`: the game as `GET /api/games/<id>/` shows it, then after every change,
    and once it is over a last line `{"type": "end", ...}`, after which the stream closes.

    Only while the viewer may see it (games.play.policies, the question every read asks): asked when
    the stream opens, again when a rule says the answer may have changed (`game.access`) and after
    the bus was away; a game that became hidden ends the stream with a `not_found` line."""

    def __init__(self, game_id: int, viewer) -> None:
        self.game_id, self.viewer = game_id, viewer
        self.version = -1

    def groups(self) -> list[str]:
        return [events.game_group(self.game_id)]

    def snapshot(self) -> list[dict]:
        game = selectors.visible_game_state(self.game_id, self.viewer)
        if game is None:
            return self._hidden()
        self.version = game["version"]
        return self._lines(game)

    def _lines(self, game: dict) -> list[dict]:
        """The game's line, and the end once it is over (nothing changes a finished game's play)."""
        shown = game_detail(game)
        if shown["status"] == Game.Status.PLAYING:
            return [shown]
        self.ended = True
        return [shown, game_end(shown)]

    def _hidden(self) -> list[dict]:
        self.ended = True
        return [error_body("not_found", f"no game {self.game_id}")]

    async def pushed(self, message: dict) -> list[dict]:
        kind = message.get("type")
        if kind == "game.access" and message.get("game") == self.game_id:
            if await db(selectors.visible_game)(self.game_id, self.viewer) is None:
                return self._hidden()
            return []
        if kind != "game.state":
            return []
        game = message["game"]
        if game.get("id") != self.game_id or game["version"] <= self.version:
            return []
        if game.get("review") in Game.HELD_REVIEWS and await db(selectors.visible_game)(self.game_id, self.viewer) is None:
            return self._hidden()  # a result held by fair play: its moves and time are not shown to others
        if game["version"] > self.version + 1:  # a gap: a push was lost on the bus
            fresh = await db(selectors.game_state)(self.game_id)
            if fresh is not None and fresh["version"] >= game["version"]:
                game = fresh
        self.version = game["version"]
        return self._lines(game)

    async def resync(self) -> list[dict]:
        game = await db(selectors.visible_game_state)(self.game_id, self.viewer)
        if game is None:
            return self._hidden()
        if game["version"] <= self.version:
            return []
        self.version = game["version"]
        return self._lines(game)


def race_now(code: str) -> dict:
    """The race object as `GET /api/races/<code>/` shows it."""
    return race_payload(races.get_race(code))


class RaceSource(Source):
    """`/api/stream/races/<code>/`: the race as `GET /api/races/<code>/` shows it, then after every
    change: each new version, and each racer's move (the race with that racer's progress; a racer's
    move leaves the race's `version` as it was, as on the race socket). Once the race is finished, a
    last line `{"type": "end", ...}`, and the stream closes."""

    def __init__(self, code: str) -> None:
        self.code = races.normalize_code(code)
        self.race: dict | None = None

    def groups(self) -> list[str]:
        return [events.race_group(self.code)]

    def snapshot(self) -> list[dict]:
        try:
            self.race = race_now(self.code)
        except ServiceError as exc:
            self.ended = True
            return [error_body(exc.code, exc.message)]
        return self._lines()

    def _lines(self) -> list[dict]:
        if self.race["status"] != "finished":
            return [self.race]
        self.ended = True
        return [self.race, race_end(self.race)]

    async def pushed(self, message: dict) -> list[dict]:
        kind = message.get("type")
        if kind == "race.state":
            race = message["race"]
            if race.get("code") != self.code or race["version"] <= self.race["version"]:
                return []
            if race["version"] > self.race["version"] + 1:  # a gap: a push was lost on the bus
                return await self.resync()
            self.race = race
            return self._lines()
        if kind == "race.progress" and message["progress"].get("code") == self.code:
            return self._progress(message["progress"]["racer"])
        return []

    def _progress(self, racer: dict) -> list[dict]:
        """The race with one racer's newer progress (ordered by their `moves`, which only grow)."""
        racers = self.race["racers"]
        for index, known in enumerate(racers):
            if known["username"] == racer["username"] and not known["ghost"]:
                if racer["moves"] <= known["moves"]:
                    return []
                self.race = {**self.race, "racers": [*racers[:index], racer, *racers[index + 1 :]]}
                return [self.race]
        return []

    async def resync(self) -> list[dict]:
        # Always sent: progress lost with the bus leaves the race's version as it was.
        return await self.first()


class EventSource(Source):
    """`/api/stream/events/`: a signed-in player's events (docs/streams.md). It opens with what is
    pending now (invitations, challenges, races starting or running, friend requests), so a client that was away
    misses nothing; after the bus was away it sends them again (a client may see one twice)."""

    def __init__(self, user) -> None:
        self.user = user
        # The pending events just sent, as text: the push of one of them, committed while they were
        # being read, is not sent a second time.
        self.just_sent: set[str] = set()

    def groups(self) -> list[str]:
        return [events.player_events_group(self.user.pk)]

    def snapshot(self) -> list[dict]:
        pending = [*races.pending_events(self.user), *challenges.pending_events(self.user), *friends.pending_events(self.user)]
        self.just_sent = {_text(event) for event in pending}
        return pending

    async def pushed(self, message: dict) -> list[dict]:
        if message.get("type") != "player.event":
            return []
        event = message["event"]
        if _text(event) in self.just_sent:
            self.just_sent.discard(_text(event))
            return []
        return [event]


def _text(event: dict) -> str:
    return json.dumps(event, sort_keys=True)
