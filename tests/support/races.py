"""Races over the API for tests: open, join, start, read, and a recorded win of ms:1 for a ghost."""

from __future__ import annotations

import datetime as dt

from tests.support.players import client_for

# A winning line of ms:1 under autoplay "none" (127 moves, found by fc-solve and checked by verify).
MS1_WIN = (
    "5a 5b 5c 5d 5h b2 8b a8 7a b7 58 6b 65 6h 5h 6h 76 b5 81 5b a5 85 8a 8h a2 7a 7h 3h 8h ch 8h 4h 3c b3 "
    "4b 48 d4 b7 28 2d 2b a2 b4 31 3a 3b c3 b6 d6 7c 7b 73 34 53 2d 27 25 d7 2d 2h 1h 7h a2 62 32 36 1a 1h "
    "13 71 18 17 1h 8h 8h 2h 2h 4h 6h 4h 1h 7h ah c1 8a 8c 8h c4 a4 6c 6h 6a 67 6h a1 2a 2h c2 a2 4c 4h 2a "
    "2h 8h 1h 46 4h 48 4h bh 4b 4h 3h 4h 7h ch ah 6h 2h 8h 1h 5h dh 1c 1h bh ch"
).split()


def open_race(user, **body) -> dict:
    response = client_for(user).post("/api/races/", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def act(user, code: str, what: str, **body):
    return client_for(user).post(f"/api/races/{code}/{what}/", body, format="json")


def read(code: str) -> dict:
    response = client_for().get(f"/api/races/{code}/")
    assert response.status_code == 200, response.json()
    return response.json()


def racer(race: dict, username: str, *, ghost: bool = False) -> dict:
    return next(r for r in race["racers"] if r["username"] == username and r["ghost"] == ghost)


def win(user, game_id: int, line=MS1_WIN) -> None:
    from games.play import services

    for ply, move in enumerate(line):
        services.play_move(game_id=game_id, user=user, move=move, ply=ply)


def running_race(owner, *others, deal="ms:1", autoplay="none") -> dict:
    race = open_race(owner, deal=deal, autoplay=autoplay)
    for other in others:
        assert act(other, race["code"], "join").status_code == 200
    started = act(owner, race["code"], "start")
    assert started.status_code == 200
    return started.json()


def recorded_win(user, *, step_ms: int = 1, slow_after: int | None = None):
    """A won game of ms:1 whose actions are stored `step_ms` apart (and an hour apart after `slow_after`)."""
    from games.models import Action, Game
    from games.play import services

    game = services.create_game(player=user, deal="ms:1", autoplay="none")
    win(user, game.pk)
    start = game.created_at
    for action in Action.objects.filter(game=game):
        offset = action.index * step_ms
        if slow_after is not None and action.index >= slow_after:
            offset += 3_600_000
        Action.objects.filter(pk=action.pk).update(created_at=start + dt.timedelta(milliseconds=offset), clock_ms=offset)
    finished = start + dt.timedelta(milliseconds=(len(MS1_WIN) - 1) * step_ms + (3_600_000 if slow_after is not None else 0))
    Game.objects.filter(pk=game.pk).update(finished_at=finished, elapsed_ms=int((finished - start).total_seconds() * 1000))
    return Game.objects.get(pk=game.pk)


def move_race_start(code: str, starts_at) -> None:
    """Moves a race's start instant back in time, as if it began then: the race's `starts_at` and the
    deadline its racers' games were dealt with (the race's time limit from its start) move together."""
    import datetime as dt

    from games.models import Game, Race, RaceEntry

    race = Race.objects.get(code=code)
    Race.objects.filter(pk=race.pk).update(starts_at=starts_at)
    games = RaceEntry.objects.filter(race=race, game__isnull=False).values("game_id")
    Game.objects.filter(pk__in=games).update(deadline=starts_at + dt.timedelta(seconds=race.time_limit_s))
