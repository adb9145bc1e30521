"""A casual game's clock: it starts at the first action and counts only while a page of its player has the
game open; ranked dailies and races keep the server's clock (from the board's first showing)."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games.daily import services as daily
from games.models import Game
from games.play import services
from games.play.payloads import game_payload
from tests.support.daily import make_test_daily
from tests.support.players import client_for
from tests.support.races import running_race
from tests.support.sockets import next_of, open_socket, run, session_cookie

START = dt.datetime(2026, 5, 4, 12, 0, tzinfo=dt.UTC)


class Now:
    """Django's clock, moved by hand."""

    def __init__(self):
        self.at = START

    def __call__(self) -> dt.datetime:
        return self.at

    def after(self, seconds: float) -> None:
        self.at += dt.timedelta(seconds=seconds)


@pytest.fixture
def now(monkeypatch):
    fake = Now()
    monkeypatch.setattr(timezone, "now", fake)
    return fake


def shown(game_id: int) -> dict:
    return game_payload(Game.objects.select_related("player").get(pk=game_id))


def move(game, move_text: str) -> None:
    current = Game.objects.get(pk=game.pk)
    services.play_move(game_id=game.pk, user=current.player, move=move_text, ply=current.ply)


def test_the_clock_waits_for_the_first_action(db, alice, now):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    now.after(600)  # the board looked at for ten minutes, no page keeping anything
    assert services.keep_clock(game_id=game.pk, user=alice) is False  # an open page starts nothing
    now.after(60)
    body = shown(game.pk)
    assert (body["elapsed_ms"], body["clock_running"]) == (0, False)
    move(game, "5a")
    now.after(5)
    body = shown(game.pk)
    assert (body["elapsed_ms"], body["clock_running"]) == (5000, True)


def test_with_no_page_open_the_clock_stops_counting(db, alice, now):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    move(game, "5a")
    now.after(10)
    assert services.pause_clock(game_id=game.pk, user=alice) is False  # its one page closed
    now.after(3600)
    body = shown(game.pk)
    assert (body["elapsed_ms"], body["clock_running"]) == (10_000, False)


def test_a_page_that_vanishes_stops_the_count_when_its_lease_runs_out(db, alice, now):
    """A page whose server process was killed never says it closed: its last sign counts a lease more."""
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    move(game, "5a")
    now.after(5)
    assert services.keep_clock(game_id=game.pk, user=alice) is True
    now.after(3600)
    lease_ms = int(services.CLOCK_LEASE_S * 1000)
    assert shown(game.pk)["elapsed_ms"] == 5000 + lease_ms
    assert shown(game.pk)["clock_running"] is False


def test_an_open_page_resumes_the_clock_and_its_beats_keep_it_counting(db, alice, now):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    move(game, "5a")
    now.after(20)
    services.pause_clock(game_id=game.pk, user=alice)
    now.after(7200)  # two hours away
    assert services.keep_clock(game_id=game.pk, user=alice) is True  # the page opened again
    for _ in range(30):  # five minutes of beats
        now.after(services.CLOCK_BEAT_S)
        services.keep_clock(game_id=game.pk, user=alice)
    body = shown(game.pk)
    assert body["clock_running"] is True
    assert body["elapsed_ms"] == 20_000 + int(30 * services.CLOCK_BEAT_S * 1000)


def test_the_stored_time_of_a_finished_casual_game_is_its_play_time(db, alice, now):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    now.after(900)  # dealt, then left for a quarter of an hour
    move(game, "5a")
    now.after(12)
    services.pause_clock(game_id=game.pk, user=alice)
    now.after(3600)
    services.keep_clock(game_id=game.pk, user=alice)
    now.after(3)
    services.resign(game_id=game.pk, user=alice)
    now.after(60)
    stored = Game.objects.get(pk=game.pk)
    assert stored.elapsed_ms == 15_000
    body = shown(game.pk)
    assert (body["elapsed_ms"], body["clock_running"]) == (15_000, False)
    # The profile's list and the export read the stored time.
    listed = client_for(alice).get("/api/users/alice/games/").json()
    assert next(g for g in listed["results"] if g["id"] == game.pk)["elapsed_ms"] == 15_000


def test_two_pages_count_once_and_the_clock_counts_while_either_is_open(db, alice, now):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    move(game, "5a")
    services.keep_clock(game_id=game.pk, user=alice)  # a second tab
    now.after(10)
    services.keep_clock(game_id=game.pk, user=alice)
    services.keep_clock(game_id=game.pk, user=alice)
    assert shown(game.pk)["elapsed_ms"] == 10_000  # not twice
    services.pause_clock(game_id=game.pk, user=alice)  # one tab closed...
    services.keep_clock(game_id=game.pk, user=alice)  # ...the other, told, keeps the clock going
    now.after(10)
    assert shown(game.pk)["elapsed_ms"] == 20_000


def test_only_the_player_keeps_or_pauses_the_clock(db, alice, charlie, now):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    move(game, "5a")
    now.after(10)
    assert services.pause_clock(game_id=game.pk, user=charlie) is None
    assert services.keep_clock(game_id=game.pk, user=charlie) is None
    assert shown(game.pk)["clock_running"] is True


def test_a_ranked_daily_keeps_the_servers_clock(db, alice, clock):
    make_test_daily(daily.today())
    game, _ = daily.start_ranked_game(alice)
    Game.objects.filter(pk=game.pk).update(created_at=timezone.now() - dt.timedelta(seconds=600))
    assert shown(game.pk)["clock_running"] is True  # counting before any action
    assert 600_000 <= shown(game.pk)["elapsed_ms"] < 610_000
    assert services.pause_clock(game_id=game.pk, user=alice) is None  # no page stops it
    assert shown(game.pk)["elapsed_ms"] >= 600_000
    assert Game.objects.get(pk=game.pk).clock_ms is None


def test_a_races_games_keep_the_servers_clock(db, alice, bob, settings):
    settings.RACE_COUNTDOWN_S = 0
    race = running_race(alice, bob)
    game_id = next(r["game"] for r in race["racers"] if r["username"] == "alice")
    assert game_id is not None
    game = Game.objects.get(pk=game_id)
    assert game.clock_ms is None
    assert services.pause_clock(game_id=game_id, user=alice) is None
    assert shown(game_id)["clock_running"] is True


def test_each_action_keeps_the_clock_so_replays_and_ghosts_follow_the_play_time(db, alice, now):
    from games.races.clock import ghost_timeline

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    now.after(600)  # dealt, then left
    move(game, "5a")
    now.after(4)
    move(game, "5b")
    services.pause_clock(game_id=game.pk, user=alice)
    now.after(3600)  # away for an hour
    services.keep_clock(game_id=game.pk, user=alice)
    now.after(2)
    move(game, "5c")
    history = client_for(alice).get(f"/api/games/{game.pk}/history/").json()
    assert [action["clock_ms"] for action in history["actions"]] == [0, 4000, 6000]
    timeline = ghost_timeline(Game.objects.select_related("player").get(pk=game.pk))
    assert [step.at_ms for step in timeline.steps] == [0, 4000, 6000]


# --- the game's socket is the page that has the game open -----------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_players_socket_resumes_the_clock_on_opening_and_pauses_it_on_closing(alice, charlie, settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    move(game, "5a")
    services.pause_clock(game_id=game.pk, user=alice)
    read = database_sync_to_async(lambda: Game.objects.get(pk=game.pk))
    alices, charlies = session_cookie(alice), session_cookie(charlie)

    async def scenario():
        watcher = await open_socket(f"/ws/games/{game.pk}/", cookie=charlies)
        assert (await next_of(watcher, "state"))["game"]["clock_running"] is False  # a watcher keeps nothing
        assert (await read()).clock_from is None
        page = await open_socket(f"/ws/games/{game.pk}/", cookie=alices)
        assert (await next_of(page, "state"))["game"]["clock_running"] is True
        other = await open_socket(f"/ws/games/{game.pk}/", cookie=alices)
        await next_of(other, "state")
        before = (await read()).clock_from
        assert before is not None
        await asyncio.sleep(0.02)
        await page.disconnect()
        # The closed page paused the clock; the player's other page, told on the bus, starts it again.
        for _ in range(100):
            stored = await read()
            if stored.clock_from is not None and stored.clock_from > before:
                break
            await asyncio.sleep(0.05)
        assert stored.clock_from > before and stored.clock_running_at(timezone.now())
        await watcher.disconnect()
        assert (await read()).clock_running_at(timezone.now())  # a watcher's leaving pauses nothing
        await other.disconnect()
        stored = await read()
        assert stored.clock_from is None and not stored.clock_running_at(timezone.now())

    run(scenario)


@pytest.mark.django_db(transaction=True)
def test_an_open_page_renews_the_lease_every_beat_once_the_game_has_begun_and_not_before(alice, settings, monkeypatch):
    """A page beats its game's clock with its heartbeats (games.sockets.heartbeats). Before the first
    action there is no lease to renew, so a page of a game not begun asks once, on opening, and not at
    every beat (at 10,000 pages open on new games: a thousand reads a second for nothing)."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    monkeypatch.setattr(services, "CLOCK_BEAT_S", 0.1)
    asked, keep_clock = [], services.keep_clock
    monkeypatch.setattr(services, "keep_clock", lambda **kwargs: asked.append(kwargs["game_id"]) or keep_clock(**kwargs))
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    read = database_sync_to_async(lambda: Game.objects.get(pk=game.pk))
    cookie = session_cookie(alice)

    async def scenario():
        page = await open_socket(f"/ws/games/{game.pk}/", cookie=cookie)
        await next_of(page, "state")
        await asyncio.sleep(0.5)
        before_the_first_action = len(asked)
        await page.send_json_to({"type": "move", "move": "5a", "ply": 0, "id": "m1"})
        await next_of(page, "ack")
        leases = [(await read()).clock_until]
        for _ in range(3):
            await asyncio.sleep(0.25)
            leases.append((await read()).clock_until)
        await page.disconnect()
        return before_the_first_action, len(asked), leases

    before_the_first_action, after, leases = run(scenario)
    assert before_the_first_action == 1
    assert after - before_the_first_action >= 4
    assert all(later > earlier for earlier, later in zip(leases, leases[1:], strict=False)), leases
