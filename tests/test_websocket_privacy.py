"""A running race is private on the game socket too: attackers' sockets (a rival racer's, an anonymous
one, one that authenticates late) get no frame about a racer's game, and the question is asked again
when its answer changes (the race ends; a rule hides a game that was watched)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games import events
from games.play import policies, selectors, services
from tests.support.players import token_of
from tests.support.races import running_race
from tests.support.sockets import new_game, next_of, open_socket, run, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fast(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.RACE_COUNTDOWN_S = 0
    settings.WS_HEARTBEAT_S = 30


def racing_game_of(race: dict, username: str) -> int:
    return next(r["game"] for r in race["racers"] if r["username"] == username and not r["ghost"])


@pytest.fixture
def moves_while_asked(monkeypatch):
    """Makes the racer move while a socket reads the game to decide whether it may see it: the move's
    push is published in the very window in which the socket decides (the old socket had joined the
    game's group before reading, so the push was queued for a socket that was then refused)."""

    def arm(user, game_id: int):
        original = selectors.visible_game_state
        done = []

        def read_and_move(asked_id, viewer):
            answer = original(asked_id, viewer)
            if not done:
                done.append(True)
                game = services.play_move(game_id=game_id, user=user, move="5a", ply=0)
                assert game.game.ply == 1
            return answer

        monkeypatch.setattr(selectors, "visible_game_state", read_and_move)
        return done

    return arm


async def frames_about(socket, game_id: int, wait: float = 0.4) -> list[dict]:
    """Every frame the socket gets within `wait` seconds that carries the game."""
    got = []
    while not await socket.receive_nothing(timeout=wait):
        frame = await socket.receive_json_from(timeout=1)
        if "game" in frame or frame.get("type") in ("state", "ack"):
            got.append(frame)
    return got


def test_an_anonymous_socket_gets_no_push_of_a_racers_move_made_while_it_is_asked_about(alice, bob, moves_while_asked):
    race = running_race(alice, bob)
    game_id = racing_game_of(race, "alice")
    moved = moves_while_asked(alice, game_id)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game_id}/")
        assert await frames_about(socket, game_id) == []
        assert moved, "the racer moved while the socket asked"
        # Not in the game's group at all: a push sent to the group now does not reach it either.
        await get_channel_layer().group_send(events.game_group(game_id), {"type": "game.state", "game": {"id": game_id, "version": 99}})
        assert await frames_about(socket, game_id) == []
        await socket.send_json_to({"type": "sync"})
        assert (await next_of(socket, "error"))["code"] == "not_found"
        await socket.disconnect()

    run(scenario)


def test_a_rival_racers_socket_signed_in_by_cookie_gets_nothing_but_not_found(alice, bob, moves_while_asked):
    race = running_race(alice, bob)
    game_id = racing_game_of(race, "alice")
    moves_while_asked(alice, game_id)
    cookie = session_cookie(bob)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game_id}/", cookie=cookie)
        frame = await socket.receive_json_from(timeout=10)
        assert frame["type"] == "error" and frame["code"] == "not_found" and "game" not in frame
        assert (await socket.receive_output(timeout=10)) == {"type": "websocket.close", "code": 4404}

    run(scenario)


def test_a_rival_who_authenticates_late_gets_no_frame_about_the_game(alice, bob, settings):
    settings.WS_AUTH_TIMEOUT_S = 5
    race = running_race(alice, bob)
    game_id = racing_game_of(race, "alice")
    bob_token = token_of(bob)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game_id}/")
        await database_sync_to_async(services.play_move)(game_id=game_id, user=alice, move="5a", ply=0)
        assert await frames_about(socket, game_id) == []
        await socket.send_json_to({"type": "auth", "token": bob_token})
        assert (await next_of(socket, "auth_ok"))["username"] == "bob"
        error = await next_of(socket, "error")
        assert error["code"] == "not_found" and "game" not in error
        assert (await socket.receive_output(timeout=10)) == {"type": "websocket.close", "code": 4404}

    run(scenario)


def test_the_racer_herself_watches_and_plays_her_game_during_the_race(alice, bob):
    race = running_race(alice, bob)
    game_id = racing_game_of(race, "alice")
    alice_token = token_of(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game_id}/", token=alice_token)
        await next_of(socket, "auth_ok")
        assert (await next_of(socket, "state"))["game"]["id"] == game_id
        await socket.send_json_to({"type": "move", "move": "5a", "ply": 0})
        assert (await next_of(socket, "ack"))["ply"] == 1
        await socket.disconnect()

    run(scenario)


def test_a_rivals_race_socket_gets_progress_but_never_the_board(alice, bob):
    race = running_race(alice, bob)
    game_id = racing_game_of(race, "alice")
    bob_token = token_of(bob)

    async def scenario():
        socket = await open_socket(f"/ws/races/{race['code']}/", token=bob_token)
        await next_of(socket, "auth_ok")
        await database_sync_to_async(services.play_move)(game_id=game_id, user=alice, move="5a", ply=0)
        frame = await next_of(socket, "progress")
        assert frame["racer"]["username"] == "alice" and frame["racer"]["moves"] == 1
        seen = [f for f in await frames_about(socket, game_id) if f.get("game", {}).get("id") == game_id]
        assert seen == []
        await socket.disconnect()

    run(scenario)


def test_a_socket_waiting_on_a_racers_game_sees_it_once_the_race_is_over(alice, bob, settings):
    settings.WS_AUTH_TIMEOUT_S = 5
    race = running_race(alice, bob)
    game_id = racing_game_of(race, "alice")

    async def scenario():
        socket = await open_socket(f"/ws/games/{game_id}/")
        assert await frames_about(socket, game_id, 0.2) == []
        await database_sync_to_async(services.resign)(game_id=game_id, user=alice)
        assert await frames_about(socket, game_id, 0.2) == [], "bob still races: alice's line stays hidden"
        await database_sync_to_async(services.resign)(game_id=racing_game_of(race, "bob"), user=bob)
        state = await next_of(socket, "state", timeout=5)
        assert state["game"]["id"] == game_id and state["game"]["status"] == "resigned"
        await socket.disconnect()

    run(scenario)


def test_a_watched_game_that_becomes_hidden_is_no_longer_sent(alice, monkeypatch):
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/")
        assert (await next_of(socket, "state"))["game"]["id"] == game.pk
        # A rule that now hides the game (as a race's or a daily's does), and the news that it changed.
        from django.db.models import Q

        monkeypatch.setattr(policies, "_hiding_rules", [lambda viewer: Q(pk=game.pk)])
        await database_sync_to_async(events.publish_access)(game.pk)
        error = await next_of(socket, "error")
        assert error["code"] == "not_found"
        assert (await socket.receive_output(timeout=10)) == {"type": "websocket.close", "code": 4404}

    run(scenario)
