"""The ndjson streams of a game and of a race end (docs/streams.md): once the game or race is
over, a last line `{"type": "end", ...}`, then the server closes the stream."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from tests.support.players import client_for, token_of
from tests.support.races import act, open_race, running_race, win
from tests.support.streams import Stream

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(60)]


@pytest.fixture(autouse=True)
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.RACE_COUNTDOWN_S = 0


@pytest.fixture(autouse=True)
def _readers_take_no_table_locks():
    """As in tests/test_streams.py: the stream reads in its own thread while the test writes."""
    from django.db.backends.signals import connection_created

    def no_read_locks(sender, connection, **kwargs):
        if connection.vendor == "sqlite":
            connection.cursor().execute("PRAGMA read_uncommitted = 1")

    connection_created.connect(no_read_locks, dispatch_uid="tests.streams_end.no_read_locks")
    yield
    connection_created.disconnect(dispatch_uid="tests.streams_end.no_read_locks")


def run(scenario):
    return async_to_sync(scenario)()


def test_a_game_stream_ends_with_an_end_line_when_the_game_is_won(alice):
    from games.play import services
    from tests.support.races import MS1_WIN

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")

    async def scenario():
        stream = await Stream(f"/api/stream/games/{game.pk}/").open()
        await stream.line()
        await sync_to_async(win)(alice, game.pk, MS1_WIN[:-1])
        await sync_to_async(services.play_move)(game_id=game.pk, user=alice, move=MS1_WIN[-1], ply=len(MS1_WIN) - 1)
        won = await stream.until(lambda line: line.get("status") == "won")
        end = await stream.line()
        await stream.end()  # the server closes it
        return won, end, stream.buffer

    won, end, left = run(scenario)
    assert won["id"] == game.pk
    assert end == {"type": "end", "game": game.pk, "status": "won"}
    assert left == b""


def test_a_game_stream_ends_when_the_game_is_resigned(alice):
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")

    async def scenario():
        stream = await Stream(f"/api/stream/games/{game.pk}/").open()
        first = await stream.line()
        await sync_to_async(services.resign)(game_id=game.pk, user=alice)
        resigned = await stream.line()
        end = await stream.line()
        await stream.end()
        return first, resigned, end

    first, resigned, end = run(scenario)
    assert first["status"] == "playing" and resigned["status"] == "resigned"
    assert end == {"type": "end", "game": game.pk, "status": "resigned"}


def test_a_stream_of_a_game_already_over_sends_it_then_the_end(alice):
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    services.resign(game_id=game.pk, user=alice)

    async def scenario():
        stream = await Stream(f"/api/stream/games/{game.pk}/").open()
        await stream.end(timeout=5)
        return stream.buffer

    lines = [json.loads(line) for line in run(scenario).decode().splitlines() if line]
    assert [line.get("type") for line in lines] == [None, "end"]
    assert lines[0]["status"] == "resigned" and lines[1] == {"type": "end", "game": game.pk, "status": "resigned"}


def test_a_race_stream_ends_with_an_end_line_when_the_race_is_over(alice, bob):
    race = running_race(alice, bob)

    async def scenario():
        stream = await Stream(f"/api/stream/races/{race['code']}/").open()
        await stream.line()
        assert (await sync_to_async(act)(alice, race["code"], "resign")).status_code == 200
        assert (await sync_to_async(act)(bob, race["code"], "resign")).status_code == 200
        finished = await stream.until(lambda line: line.get("status") == "finished")
        end = await stream.line()
        await stream.end()
        return finished, end

    finished, end = run(scenario)
    assert finished["code"] == race["code"]
    assert end == {"type": "end", "race": race["code"], "status": "finished"}


def test_a_race_called_off_ends_its_stream(alice):
    race = open_race(alice)

    async def scenario():
        stream = await Stream(f"/api/stream/races/{race['code']}/").open()
        await stream.line()
        assert (await sync_to_async(act)(alice, race["code"], "resign")).status_code == 200
        lines = [await stream.line(), await stream.line()]
        await stream.end()
        return lines

    called_off, end = run(scenario)
    assert called_off["status"] == "finished" and end["type"] == "end"


def test_an_open_game_stream_does_not_end(alice):
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    token = token_of(alice)

    async def scenario():
        stream = await Stream(f"/api/stream/games/{game.pk}/", token).open()
        await stream.line()
        await sync_to_async(services.play_move)(game_id=game.pk, user=alice, move="5a", ply=0)
        moved = await stream.line()
        ended = stream.ended
        await stream.leave()
        return moved, ended

    moved, ended = run(scenario)
    assert moved["ply"] == 1 and not ended


def test_under_wsgi_a_finished_game_s_stream_is_its_last_state_and_the_end(alice):
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    services.resign(game_id=game.pk, user=alice)
    body = client_for(alice).get(f"/api/stream/games/{game.pk}/").content.decode()
    lines = [json.loads(line) for line in body.splitlines() if line]
    assert len(lines) == 2 and lines[-1] == {"type": "end", "game": game.pk, "status": "resigned"}
