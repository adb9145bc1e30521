"""The game socket /ws/games/<id>/: state on connect, moves with acks and errors, auth, origin, abuse."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from tests.support.daily import ranked_game
from tests.support.sockets import (
    new_game,
    next_of,
    nothing_more,
    open_socket,
    run,
    session_cookie,
    tasks_asleep_on_a_timer,
)

pytestmark = pytest.mark.django_db(transaction=True)

@pytest.fixture(autouse=True)
def _in_memory_layer(settings):
    """Unit tests run on the in-memory layer; the services-marked tests use Redis across processes."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.WS_HEARTBEAT_S = 30
    settings.WS_IDLE_TIMEOUT_S = 60


async def plays_the_first_move(socket) -> None:
    """Plays 5a on a fresh game (ms:1) over the socket: it is acked at ply 1."""
    await socket.send_json_to({"type": "move", "move": "5a", "ply": 0})
    assert (await next_of(socket, "ack"))["ply"] == 1


# --- connecting and watching --------------------------------------------------------------------


def test_a_watcher_gets_the_full_state_with_its_version_on_connect(alice):
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/")
        frame = await socket.receive_json_from(timeout=10)
        assert frame["type"] == "state"
        assert frame["version"] == frame["game"]["version"] == 0
        assert frame["game"]["id"] == game.pk and len(frame["game"]["state"]["columns"]) == 8
        await socket.disconnect()

    run(scenario)


def test_the_player_moves_gets_an_ack_and_every_watcher_gets_the_new_state(alice_token, alice):
    game = new_game(alice)

    async def scenario():
        player = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        watcher = await open_socket(f"/ws/games/{game.pk}/")
        await next_of(watcher, "state")
        await next_of(player, "auth_ok")
        await player.send_json_to({"type": "move", "move": "5a", "ply": 0, "client_id": "c1", "id": 7})
        ack = await next_of(player, "ack")
        assert ack["id"] == 7 and ack["client_id"] == "c1" and ack["ply"] == 1 and ack["repeated"] is False
        assert ack["action"]["move"] == "5a" and ack["version"] == ack["game"]["version"] == 1
        pushed = await next_of(watcher, "state")
        assert pushed["version"] == 1 and pushed["game"]["state"]["cells"][0] is not None
        assert await nothing_more(player), "the sender gets the ack, not the same state again"
        await player.disconnect()
        await watcher.disconnect()

    run(scenario)


def test_undo_over_the_socket_is_acked_and_counts_as_an_action(alice_token, alice):
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await next_of(socket, "auth_ok")
        await socket.send_json_to({"type": "move", "move": "5a", "ply": 0})
        await next_of(socket, "ack")
        await socket.send_json_to({"type": "undo", "ply": 1, "id": "u"})
        ack = await next_of(socket, "ack")
        assert ack["id"] == "u" and ack["action"]["kind"] == "undo" and ack["game"]["moves"] == 2
        assert ack["game"]["undos"] == 1 and ack["game"]["state"]["cells"] == [None] * 4
        await socket.disconnect()

    run(scenario)


def test_refused_moves_get_the_rest_codes(alice_token, alice):
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await next_of(socket, "auth_ok")
        await socket.send_json_to({"type": "move", "move": "zz", "ply": 0, "id": 1})
        assert (await next_of(socket, "error"))["code"] == "bad_notation"
        await socket.send_json_to({"type": "move", "move": "", "ply": 0, "id": 1})
        assert (await next_of(socket, "error"))["code"] == "bad_notation"  # as over REST
        await socket.send_json_to({"type": "move", "move": "1h", "ply": 0, "id": 2})
        error = await next_of(socket, "error")
        assert error["code"] == "illegal_move" and error["id"] == 2
        await socket.send_json_to({"type": "move", "move": "5a", "ply": 3, "id": 3})
        conflict = await next_of(socket, "error")
        assert conflict["code"] == "ply_conflict" and conflict["game"]["ply"] == 0
        await socket.send_json_to({"type": "undo", "ply": 0, "id": 4})
        assert (await next_of(socket, "error"))["code"] == "illegal_move"
        await socket.disconnect()

    run(scenario)


def test_a_resend_of_the_last_move_is_acked_again_and_not_applied_twice(alice_token, alice):
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await next_of(socket, "auth_ok")
        frame = {"type": "move", "move": "5a", "ply": 0, "client_id": "same"}
        await socket.send_json_to(frame)
        first = await next_of(socket, "ack")
        await socket.send_json_to(frame)
        again = await next_of(socket, "ack")
        assert again["repeated"] is True and again["ply"] == first["ply"] == 1
        await socket.disconnect()

    run(scenario)
    game.refresh_from_db()
    assert game.ply == 1 and game.actions.count() == 1


def test_moves_after_the_end_get_game_over(alice_token, alice):
    from games.play import services

    game = new_game(alice)
    services.resign(game_id=game.pk, user=alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await next_of(socket, "auth_ok")
        await socket.send_json_to({"type": "move", "move": "5a", "ply": 0})
        assert (await next_of(socket, "error"))["code"] == "game_over"
        await socket.disconnect()

    run(scenario)


def test_resigning_over_the_socket_is_acked_with_the_ended_game(alice_token, alice):
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await next_of(socket, "auth_ok")
        await socket.send_json_to({"type": "resign", "id": "r"})
        ack = await next_of(socket, "ack")
        assert ack["id"] == "r" and ack["game"]["status"] == "resigned" and ack["action"] is None
        await socket.disconnect()

    run(scenario)


# --- who may do what ------------------------------------------------------------------------------


def test_the_session_cookie_signs_the_socket_in(alice):
    game = new_game(alice)
    cookie = session_cookie(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", cookie=cookie)
        await next_of(socket, "state")
        await plays_the_first_move(socket)
        await socket.disconnect()

    run(scenario)


def test_a_wrong_token_is_refused_and_the_socket_stays_anonymous(alice):
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token="not-a-token")
        await next_of(socket, "state")
        assert (await next_of(socket, "error"))["code"] == "authentication_failed"
        for frame in ({"type": "move", "move": "5a", "ply": 0}, {"type": "undo", "ply": 0}, {"type": "resign"}):
            await socket.send_json_to(frame)
            error = await next_of(socket, "error")  # a watcher is told to authenticate, not that it may not
            assert error["code"] == "not_authenticated" and '"auth"' in error["message"], error
        await socket.disconnect()

    run(scenario)


def test_someone_else_cannot_play_your_game(charlie_token, alice, charlie):
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=charlie_token)
        await next_of(socket, "state")
        await socket.send_json_to({"type": "move", "move": "5a", "ply": 0})
        assert (await next_of(socket, "error"))["code"] == "forbidden"
        await socket.disconnect()

    run(scenario)


def _session_client(cookie: str):
    from django.test import Client

    client = Client()
    client.cookies["sessionid"] = cookie
    return client


def _token_client(token: str):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


NEW_PASSWORD = {"old_password": "correct horse battery 9", "new_password": "another horse battery 10"}


def _token_logout(token, cookie, other_cookie):
    return _token_client(token).post("/api/auth/logout/")


def _page_logout(token, cookie, other_cookie):
    return _session_client(cookie).post("/logout/")


def _api_logout(token, cookie, other_cookie):
    return _session_client(cookie).post("/api/auth/logout/")


def _password_change_elsewhere(token, cookie, other_cookie):
    return _session_client(other_cookie).post("/api/auth/password/change/", NEW_PASSWORD, content_type="application/json")


def _password_change_with_the_token(token, cookie, other_cookie):
    return _token_client(token).post("/api/auth/password/change/", NEW_PASSWORD, format="json")


def _deactivated(token, cookie, other_cookie):
    """As the admin's Active box does: the row saved (accounts/receivers.py tells the sockets)."""
    from django.contrib.auth.models import User

    user = User.objects.get(username="alice")
    user.is_active = False
    user.save()


def _admin_sets_password(token, cookie, other_cookie):
    from django.contrib.auth.models import User
    from django.test import Client

    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.com", "a long admin password 1"))
    user = User.objects.get(username="alice")
    password = NEW_PASSWORD["new_password"]
    return client.post(f"/admin/auth/user/{user.pk}/password/", {"password1": password, "password2": password})


@pytest.mark.parametrize(
    ("signed_in_by", "sign_out", "closed"),
    [
        ("token", _token_logout, True),
        ("token", _password_change_elsewhere, True),
        ("token", _password_change_with_the_token, True),
        ("token", _page_logout, False),  # another sign-in of the same player ended
        ("session", _page_logout, True),
        ("session", _api_logout, True),
        ("session", _password_change_elsewhere, True),
        ("session", _deactivated, True),
        ("token", _deactivated, True),
        ("token", _admin_sets_password, True),
        ("session", _admin_sets_password, True),
        ("session", _token_logout, False),
    ],
)
def test_a_socket_whose_sign_in_ends_is_told_and_closed(alice_token, alice, signed_in_by, sign_out, closed):
    """A logout, a new password or a revoked token ends the sockets signed in with it (close code 4401),
    not only the next REST request; the player's other sign-ins stay."""
    game = new_game(alice)
    cookie, other_cookie = session_cookie(alice), session_cookie(alice)

    async def scenario():
        if signed_in_by == "token":
            socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
            await next_of(socket, "auth_ok")  # after the state: the game is public
        else:
            socket = await open_socket(f"/ws/games/{game.pk}/", cookie=cookie)
            await next_of(socket, "state")
        response = await database_sync_to_async(sign_out)(alice_token, cookie, other_cookie)
        assert response is None or response.status_code < 400, response.content
        if closed:
            error = await next_of(socket, "error")
            assert error["code"] == "authentication_failed" and "signed out" in error["message"], error
            assert await socket.receive_output(timeout=10) == {"type": "websocket.close", "code": 4401}
        else:
            await plays_the_first_move(socket)
            await socket.disconnect()

    run(scenario)


def test_the_session_that_changes_the_password_is_signed_in_again_on_reconnect(alice):
    """Django gives the session a new key with the new password's hash: its sockets close, like every
    other sign-in's, and a reconnect with the new cookie (the page reconnects by itself) is signed in."""
    game = new_game(alice)
    cookie = session_cookie(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", cookie=cookie)
        await next_of(socket, "state")
        response = await database_sync_to_async(_password_change_elsewhere)(None, None, cookie)
        assert response.status_code == 204, response.content
        assert (await next_of(socket, "error"))["code"] == "authentication_failed"
        new_cookie = response.cookies["sessionid"].value
        assert new_cookie != cookie
        socket = await open_socket(f"/ws/games/{game.pk}/", cookie=new_cookie)
        await next_of(socket, "state")
        await plays_the_first_move(socket)
        await socket.disconnect()

    run(scenario)


def test_a_database_that_cannot_be_reached_is_unavailable_on_the_socket_too(alice_token, alice, monkeypatch):
    from django.db import OperationalError

    from games.play import services

    game = new_game(alice)

    def unreachable(**kwargs):
        raise OperationalError("couldn't get a connection after 10.00 sec")

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await next_of(socket, "auth_ok")
        monkeypatch.setattr(services, "play_move", unreachable)
        await socket.send_json_to({"type": "move", "move": "5a", "ply": 0, "id": "m"})
        error = await next_of(socket, "error")
        assert (error["code"], error["id"], error["retry_after"]) == ("unavailable", "m", 2), error
        await socket.disconnect()

    run(scenario)


def test_a_foreign_origin_is_refused(alice):
    from freecell_site.asgi import application

    game = new_game(alice)

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=[(b"origin", b"http://evil.example")])
        connected, _ = await socket.connect(timeout=10)
        assert not connected

    run(scenario)


def ranked_game_of_today(user):
    from games.daily.services import today
    from games.models import DailyChallenge
    from games.play import services

    deal = services.get_deal("seed:12345")
    daily, _ = DailyChallenge.objects.get_or_create(date=today(), defaults={"deal": deal})
    return ranked_game(user, daily, autoplay="safe")


def test_a_ranked_game_of_today_is_hidden_from_other_players(charlie_token, alice, charlie):
    game = ranked_game_of_today(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=charlie_token)
        await next_of(socket, "auth_ok")
        error = await next_of(socket, "error")
        assert error["code"] == "not_found" and "state" not in json.dumps(error)
        assert (await socket.receive_output(timeout=10))["type"] == "websocket.close"

    run(scenario)


def test_an_anonymous_socket_sees_a_hidden_game_only_after_its_player_authenticates(alice_token, alice, settings):
    settings.WS_AUTH_TIMEOUT_S = 1.5  # room for the sync and the auth on a loaded box; the stranger waits it out
    game = ranked_game_of_today(alice)

    async def scenario():
        player = await open_socket(f"/ws/games/{game.pk}/")
        assert await nothing_more(player, 0.1), "no state before authentication"
        await player.send_json_to({"type": "sync"})
        assert (await next_of(player, "error"))["code"] == "not_found"
        await player.send_json_to({"type": "auth", "token": alice_token})
        await next_of(player, "auth_ok")
        assert (await next_of(player, "state"))["game"]["ranked"] is True
        stranger = await open_socket(f"/ws/games/{game.pk}/")
        error = await next_of(stranger, "error", timeout=10)
        assert error["code"] == "not_found"
        await player.disconnect()

    run(scenario)


def test_an_unknown_game_is_not_found(alice_token, alice):
    async def scenario():
        socket = await open_socket("/ws/games/999999/", token=alice_token)
        await next_of(socket, "auth_ok")
        assert (await next_of(socket, "error"))["code"] == "not_found"

    run(scenario)


@pytest.mark.parametrize("path", ["/ws/games/abc/", "/ws/races/", "/ws/races/ABCDEF/extra/", "/ws/nothing/", "/ws/games/"])
def test_a_socket_on_a_path_that_is_no_socket_is_not_found_and_closed(path):
    """As for an unknown game or race: a not_found error, then close code 4404 (not an HTTP 500)."""

    async def scenario():
        socket = await open_socket(path)
        error = await next_of(socket, "error")
        assert error["code"] == "not_found" and "/ws/games/<id>/" in error["message"]
        assert await socket.receive_output(timeout=10) == {"type": "websocket.close", "code": 4404}

    run(scenario)


def test_a_path_that_is_no_socket_still_checks_the_origin_first():
    from freecell_site.asgi import application

    async def scenario():
        socket = WebsocketCommunicator(application, "/ws/nothing/", headers=[(b"origin", b"http://evil.example")])
        connected, _ = await socket.connect(timeout=10)
        assert not connected

    run(scenario)


# --- malformed frames, limits, heartbeats -------------------------------------------------------


def test_malformed_frames_get_error_frames_and_the_socket_lives_on(alice_token, alice):
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await next_of(socket, "auth_ok")
        cases = [
            ({"bytes_data": b"\x00\x01"}, "bad_frame"),
            ({"text_data": "{not json"}, "bad_frame"),
            ({"text_data": "[1, 2]"}, "bad_frame"),
            ({"text_data": '"move"'}, "bad_frame"),
            ({"text_data": json.dumps({"type": "fly"})}, "bad_frame"),
            ({"text_data": json.dumps({"no": "type"})}, "bad_frame"),
            ({"text_data": json.dumps({"type": "move", "ply": 0})}, "bad_frame"),
            ({"text_data": json.dumps({"type": "move", "move": "5a"})}, "bad_frame"),
            ({"text_data": json.dumps({"type": "move", "move": "5a", "ply": "0"})}, "bad_frame"),
            ({"text_data": json.dumps({"type": "move", "move": 5, "ply": 0})}, "bad_frame"),
            ({"text_data": json.dumps({"type": "undo", "ply": True})}, "bad_frame"),
            ({"text_data": json.dumps({"type": "move", "move": "5a", "ply": 0, "client_id": {"x": 1}})}, "bad_frame"),
            ({"text_data": json.dumps({"type": "ping", "id": "x" * 65})}, "bad_frame"),
            ({"text_data": json.dumps({"type": "auth"})}, "bad_frame"),
            ({"text_data": "[" * 3000 + "]" * 3000}, "too_large"),
            ({"text_data": "[" * 2000 + "]" * 2000}, "bad_frame"),
            ({"text_data": json.dumps({"type": "move", "move": "5a", "ply": 0, "pad": "x" * 5000})}, "too_large"),
        ]
        for frame, code in cases:
            await socket.send_to(**frame)
            error = await next_of(socket, "error")
            assert error["code"] == code, (frame, error)
        await socket.send_json_to({"type": "ping", "id": 3})
        assert await next_of(socket, "pong") == {"type": "pong", "id": 3}
        await plays_the_first_move(socket)
        await socket.disconnect()

    run(scenario)


def strict_json(text: str):
    """Parses a frame as a browser's JSON.parse would: NaN and Infinity are not JSON."""

    def refuse(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "ping", "id": NaN}',
        '{"type": "ping", "id": Infinity}',
        '{"type": "ping", "id": -Infinity}',
        '{"type": "ping", "id": 1e400}',
        '{"type": "ping", "id": 1, "pad": [NaN]}',
        '{"type": "move", "move": "5a", "ply": 0, "id": "m", "client_id": "c", "x": {"y": -1e999}}',
        # JSON can spell half a UTF-16 pair, which the database refuses: these were a server_error.
        '{"type": "move", "move": "5a", "ply": 0, "client_id": "\\ud800", "id": "sc"}',
        '{"type": "auth", "token": "\\ud800", "id": "at"}',
        '{"type": "ping", "id": "\\udfff"}',
    ],
)
def test_nan_infinity_and_lone_surrogates_are_bad_frames_and_the_server_sends_only_json(text, alice_token, alice):
    from games.models import Game

    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await socket.send_to(text_data=text)
        while True:
            frame = strict_json(await socket.receive_from(timeout=10))
            if frame["type"] in ("error", "pong", "ack"):
                break
        assert frame["type"] == "error" and frame["code"] == "bad_frame", frame
        # A frame that cannot be read (not JSON), or whose id is the fault, is answered without an id;
        # one with a bad string elsewhere is answered with its id, as every refusal is.
        readable = "\\ud800" in text
        assert frame.get("id") == (json.loads(text)["id"] if readable else None), frame
        await socket.send_json_to({"type": "ping", "id": "still"})
        assert (await next_of(socket, "pong"))["id"] == "still"  # the socket lives on
        await socket.disconnect()

    run(scenario)
    assert Game.objects.get(pk=game.pk).ply == 0


def slow_moves(monkeypatch, seconds: float = 0.3) -> None:
    """Each move of a socket takes `seconds` in its database thread, so the frames after it arrive
    while it is still on its way."""
    import time

    from games.play import services

    real_play = services.play_move

    def slow_play(**kwargs):
        time.sleep(seconds)
        return real_play(**kwargs)

    monkeypatch.setattr(services, "play_move", slow_play)


async def answers_to(socket, count: int) -> list[tuple]:
    """(id, type or error code) of the next `count` frames that carry an id, in the order they came."""
    answers = []
    while len(answers) < count:
        frame = await socket.receive_json_from(timeout=10)
        if "id" in frame:
            answers.append((frame["id"], frame["code"] if frame["type"] == "error" else frame["type"]))
    return answers


def test_moves_undos_and_resigns_are_answered_in_the_order_they_came_even_when_refused(alice_token, alice, monkeypatch):
    """A move refused at once (here a malformed one) is answered after the moves before it, as an
    accepted one is, and so is a resign; a ping is answered at once."""
    slow_moves(monkeypatch)
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await next_of(socket, "auth_ok")
        frames = [
            {"type": "move", "move": "5a", "ply": 0, "id": "m0"},
            {"type": "move", "move": "5b", "ply": "x", "id": "bad"},
            {"type": "ping", "id": "p"},
            {"type": "move", "move": "5b", "ply": 1, "id": "m1"},
            {"type": "undo", "ply": 2, "id": "u"},
            {"type": "resign", "id": "r"},
        ]
        for frame in frames:
            await socket.send_json_to(frame)
        answers = await answers_to(socket, len(frames))
        await socket.disconnect()
        return answers

    answers = run(scenario)
    assert answers == [("p", "pong"), ("m0", "ack"), ("bad", "bad_frame"), ("m1", "ack"), ("u", "ack"), ("r", "ack")]


def test_rate_limited_moves_are_answered_after_the_moves_before_them(alice_token, alice, settings, monkeypatch):
    settings.WS_MOVE_BURST = 3
    settings.WS_MOVE_RATE = 0.01
    slow_moves(monkeypatch, 0.1)
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await next_of(socket, "auth_ok")
        for index, move in enumerate(["5a", "5b", "5c", "5d", "6a"]):
            await socket.send_json_to({"type": "move", "move": move, "ply": index, "id": index})
        answers = await answers_to(socket, 5)
        await socket.disconnect()
        return answers

    assert run(scenario) == [(0, "ack"), (1, "ack"), (2, "ack"), (3, "rate_limited"), (4, "rate_limited")]


def test_the_accounts_moves_per_second_limit_says_when_to_try_again(alice_token, alice, settings, monkeypatch):
    """docs/websocket.md: a rate_limited error carries retry_after_ms (the account's limit had none)."""
    from games.play import ratelimit

    settings.ACTIONS_PER_SECOND = 2
    monkeypatch.setattr(ratelimit.time, "time", lambda: 5_000_000.25)
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await next_of(socket, "auth_ok")
        for index, move in enumerate(["5a", "5b", "5c"]):
            await socket.send_json_to({"type": "move", "move": move, "ply": index, "id": index})
        frames = [await next_of(socket, kind) for kind in ("ack", "ack", "error")]
        await socket.disconnect()
        return frames[-1]

    refused = run(scenario)
    assert refused["code"] == "rate_limited" and refused["id"] == 2 and refused["retry_after_ms"] == 750, refused


def test_moves_beyond_the_burst_are_rate_limited(alice_token, alice, settings):
    settings.WS_MOVE_BURST = 3
    settings.WS_MOVE_RATE = 0.01
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await next_of(socket, "auth_ok")
        codes = []
        for _ in range(5):
            await socket.send_json_to({"type": "move", "move": "1h", "ply": 0})
            codes.append((await next_of(socket, "error"))["code"])
        assert codes == ["illegal_move"] * 3 + ["rate_limited"] * 2
        await socket.disconnect()

    run(scenario)


def test_heartbeats_are_sent_and_a_silent_socket_is_closed(alice, settings):
    settings.WS_HEARTBEAT_S = 0.1
    settings.WS_IDLE_TIMEOUT_S = 0.35
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/")
        await next_of(socket, "state")
        assert (await socket.receive_json_from(timeout=5))["type"] == "heartbeat"
        await closed_as_idle(socket, timeout=5)

    run(scenario)


def test_open_sockets_share_the_process_s_one_heartbeat_and_sleep_on_no_timer_of_their_own(alice, settings):
    """Each socket had a task of its own asleep until its next heartbeat: at 10,000 idle sockets, 10,000
    tasks, and a timer and a future each every WS_HEARTBEAT_S that outlived young collections. Twenty
    signed-in sockets now add no task asleep on a timer, and each still gets its heartbeats."""
    settings.WS_HEARTBEAT_S = 0.3
    settings.WS_IDLE_TIMEOUT_S = 60
    settings.WS_SOCKETS_PER_ACCOUNT = 50
    game = new_game(alice)
    cookie = session_cookie(alice)

    async def scenario():
        sockets, asleep_with = [], []
        for _ in range(2):
            for _ in range(10):
                socket = await open_socket(f"/ws/games/{game.pk}/", cookie=cookie)
                await next_of(socket, "state")
                sockets.append(socket)
            asleep_with.append(tasks_asleep_on_a_timer())
        beats = [(await next_of(socket, "heartbeat", timeout=5))["type"] for socket in sockets]
        for socket in sockets:
            await socket.disconnect()
        return asleep_with, beats

    (with_ten, with_twenty), beats = run(scenario)
    # The process's own timers (its bus watch, the socket limits' upkeep), once whatever the sockets:
    # one of them may start between the two counts, never one a socket (10, then 20, if each had one).
    assert with_ten <= 2 and with_twenty <= 2, (with_ten, with_twenty)
    assert beats == ["heartbeat"] * 20


async def closed_as_idle(socket, timeout: float) -> None:
    """The socket is told `idle_timeout`, then closed with 4408, each within `timeout` seconds."""
    assert (await next_of(socket, "error", timeout=timeout))["code"] == "idle_timeout"
    assert await socket.receive_output(timeout=timeout) == {"type": "websocket.close", "code": 4408}


def test_a_silent_socket_is_closed_at_the_idle_timeout_not_at_the_next_check_after_it(alice, settings):
    """The timeout was only looked at when a heartbeat or a bus check was due (every 5 s)."""
    settings.WS_HEARTBEAT_S = 30
    settings.WS_BUS_CHECK_S = 30
    settings.WS_IDLE_TIMEOUT_S = 0.5
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/")
        await next_of(socket, "state")
        await closed_as_idle(socket, timeout=3)  # 30 s before the fix

    run(scenario)


def test_a_socket_that_answers_heartbeats_stays_open(alice, settings):
    settings.WS_HEARTBEAT_S = 0.2
    settings.WS_IDLE_TIMEOUT_S = 1.5
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/")
        await next_of(socket, "state")
        for _ in range(10):
            await next_of(socket, "heartbeat", timeout=5)
            await socket.send_json_to({"type": "ping"})
        await socket.send_json_to({"type": "sync", "id": "s"})
        assert (await next_of(socket, "state"))["id"] == "s"
        await socket.disconnect()

    run(scenario)


# --- versions, gaps, resync ------------------------------------------------------------------------


def test_a_missed_push_is_noticed_and_answered_with_the_current_state(alice, monkeypatch):
    from games import events
    from games.play import services

    game = new_game(alice)

    async def scenario():
        watcher = await open_socket(f"/ws/games/{game.pk}/")
        assert (await next_of(watcher, "state"))["version"] == 0
        real = events.publish_game
        monkeypatch.setattr(events, "publish_game", lambda payload: False)  # the bus drops version 1
        await database_sync_to_async(services.play_move)(game_id=game.pk, user=alice, move="5a", ply=0)
        monkeypatch.setattr(events, "publish_game", real)
        assert await nothing_more(watcher)
        await database_sync_to_async(services.play_move)(game_id=game.pk, user=alice, move="5b", ply=1)
        pushed = await next_of(watcher, "state")
        assert pushed["version"] == 2 and pushed["game"]["ply"] == 2
        await watcher.disconnect()

    run(scenario)


def test_a_reconnect_is_a_resync(alice):
    from games.play import services

    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/")
        await next_of(socket, "state")
        await socket.disconnect()
        await database_sync_to_async(services.play_move)(game_id=game.pk, user=alice, move="5a", ply=0)
        again = await open_socket(f"/ws/games/{game.pk}/")
        frame = await again.receive_json_from(timeout=10)
        assert frame["type"] == "state" and frame["version"] == 1
        await again.disconnect()

    run(scenario)


def test_a_move_over_rest_reaches_socket_watchers(alice):
    from tests.support.players import client_for

    game = new_game(alice)
    api = client_for(alice)

    async def scenario():
        watcher = await open_socket(f"/ws/games/{game.pk}/")
        await next_of(watcher, "state")
        response = await database_sync_to_async(api.post)(f"/api/games/{game.pk}/moves/", {"move": "5a", "ply": 0}, format="json")
        assert response.status_code == 200
        assert (await next_of(watcher, "state"))["game"]["ply"] == 1
        await watcher.disconnect()

    run(scenario)


def test_a_flood_of_sync_frames_is_rate_limited_per_socket(alice, settings):
    settings.WS_READ_BURST, settings.WS_READ_RATE = 3, 0.5
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/")
        await next_of(socket, "state")
        for index in range(5):
            await socket.send_json_to({"type": "sync", "id": index})
        answers = []
        while len(answers) < 5:
            frame = await socket.receive_json_from(timeout=10)
            if frame.get("id") is not None:
                answers.append(frame)
        await socket.disconnect()
        return answers

    answers = run(scenario)
    assert [a["type"] for a in answers[:3]] == ["state"] * 3
    assert all(a["type"] == "error" and a["code"] == "rate_limited" for a in answers[3:])


def test_the_benchmarks_echo_socket_answers_and_relays_to_its_room():
    """bench/ws.py's baseline (bench/echo.py): an ack to the sender, the frame relayed through the
    channel layer to the room's other sockets."""
    from bench.echo import echo_router as app

    async def scenario():
        first = WebsocketCommunicator(app, "/ws/echo/r1/")
        second = WebsocketCommunicator(app, "/ws/echo/r1/")
        assert (await first.connect(timeout=10))[0] and (await second.connect(timeout=10))[0]
        await first.send_json_to({"type": "move", "id": "e-1"})
        ack = await first.receive_json_from(timeout=10)
        relayed = await second.receive_json_from(timeout=10)
        await first.disconnect()
        await second.disconnect()
        return ack, relayed

    ack, relayed = run(scenario)
    assert ack["type"] == "ack" and ack["id"] == "e-1"
    assert relayed == {"type": "relay", "frame": {"type": "move", "id": "e-1"}}


def test_a_backslash_u0000_written_as_text_is_no_nul_and_deep_frames_are_no_server_error(alice_token, alice):
    game = new_game(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        # The six characters \\u0000 as text (JSON "\\\\u0000"): no NUL, so the ping is answered.
        await socket.send_to(text_data='{"type": "ping", "id": "t", "note": "\\\\u0000"}')
        assert (await next_of(socket, "pong"))["id"] == "t"
        await socket.send_to(text_data='{"type": "ping", "id": "n", "note": "\\u0000"}')  # a real NUL
        refused = await next_of(socket, "error")
        assert (refused["code"], refused.get("id")) == ("bad_frame", "n"), refused
        deep = '{"type": "ping", "id": "d", "x": ' + "[" * 900 + "]" * 900 + "}"
        await socket.send_to(text_data=deep)
        while True:
            frame = strict_json(await socket.receive_from(timeout=10))
            if frame["type"] in ("pong", "error"):
                break
        assert frame["type"] == "pong" or frame["code"] == "bad_frame", frame
        await socket.disconnect()

    run(scenario)
