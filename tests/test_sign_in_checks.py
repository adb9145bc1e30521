"""When an open socket or stream asks again whether its sign-in holds (games/sockets/sign_in.py): the
same rule for both, on SQLite and the in-memory channel layer. The events that end a sign-in at once
(a logout, a new password, a revoked token) are tested in tests/test_websocket.py and test_streams.py."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.utils import timezone

from accounts import services as accounts
from games.sockets import sign_in
from games.sockets.sign_in import SignIn
from tests.support.sockets import new_game, next_of, open_socket, run, session_cookie
from tests.support.streams import Stream

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(60)]


@pytest.fixture(autouse=True)
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.WS_HEARTBEAT_S = 30
    settings.STREAM_KEEPALIVE_S = 0.05


@pytest.fixture
def checks(monkeypatch) -> list[tuple]:
    """Every sign-in check that reaches the database, as (how, user id)."""
    asked = []
    real = sign_in.still_signed_in

    def counted(how, key, user_id):
        asked.append((how, user_id))
        return real(how, key, user_id)

    monkeypatch.setattr(sign_in, "still_signed_in", counted)
    return asked


def key_expiring_in(user, seconds: float) -> str:
    expires_at = timezone.now() + dt.timedelta(seconds=seconds)
    return accounts.issue_token(user, name="an app's token", scopes=["read", "play"], expires_at=expires_at).key


async def keepalives(stream: Stream, count: int) -> None:
    for _ in range(count):
        assert await stream.raw_line(timeout=5) == ""


def test_a_held_stream_asks_about_its_sign_in_once_and_not_at_each_keepalive(alice, checks, settings):
    """A keepalive asked the database about the stream's sign-in: at 1,000 held streams, 100 queries a
    second for nothing. It asks at the open and then at SIGN_IN_CHECK_S (or an event)."""
    settings.SIGN_IN_CHECK_S = 300
    token = key_expiring_in(alice, 3600)

    async def scenario():
        stream = await Stream("/api/stream/events/", token).open()
        await keepalives(stream, 8)
        await stream.leave()

    run(scenario)
    assert checks == [("token", alice.pk)]


def test_a_stream_and_a_socket_end_when_their_token_expires(alice, settings):
    """An app's token ends at its expiry; a stream or socket signed in with it ends then, though no
    event says so and the next periodic check is minutes away."""
    settings.SIGN_IN_CHECK_S = 300
    game = new_game(alice)

    async def scenario():
        token = await sync_to_async(key_expiring_in)(alice, 1.0)
        loop = asyncio.get_running_loop()
        opened = loop.time()
        stream = await Stream("/api/stream/events/", token).open()
        socket = await open_socket(f"/ws/games/{game.pk}/", token=token)
        await next_of(socket, "auth_ok")
        await keepalives(stream, 2)  # still signed in: the stream's loop runs
        ended = await stream.line(timeout=8)
        error = await next_of(socket, "error", timeout=8)
        closed = await socket.receive_output(timeout=8)
        return ended, error, closed, loop.time() - opened

    ended, error, closed, took = run(scenario)
    assert ended["error"]["code"] == "authentication_failed"
    assert error["code"] == "authentication_failed" and "signed out" in error["message"]
    assert closed == {"type": "websocket.close", "code": 4401}
    assert 1.0 <= took < 8, took


def test_a_socket_signed_out_without_a_word_is_closed_at_its_next_check(alice, settings):
    """An account switched off by hand (no signal, so no event) ends its socket's sign-in at the next
    periodic check, as a stream's."""
    settings.SIGN_IN_CHECK_S = 0.4
    game = new_game(alice)
    cookie = session_cookie(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", cookie=cookie)
        await next_of(socket, "state")
        await sync_to_async(User.objects.filter(pk=alice.pk).update)(is_active=False)
        error = await next_of(socket, "error", timeout=5)
        return error, await socket.receive_output(timeout=5)

    error, closed = run(scenario)
    assert error["code"] == "authentication_failed"
    assert closed == {"type": "websocket.close", "code": 4401}


def test_sign_ins_opened_together_ask_at_spread_times_and_not_again_until_answered(settings):
    settings.SIGN_IN_CHECK_S = 100

    async def scenario():
        now = asyncio.get_running_loop().time()
        spread = sorted(SignIn("session", "k", 1).next_check - now for _ in range(200))
        soon = SignIn("token", "k", 1, timezone.now() + dt.timedelta(seconds=10))
        expired = SignIn("token", "k", 1, timezone.now() - dt.timedelta(seconds=10))
        due_at = soon.next_check
        asked = [soon.due(due_at - 0.01), soon.due(due_at), soon.due(due_at + 1000)]
        return spread, due_at - now, expired.next_check - now, asked

    spread, expiry, past, asked = run(scenario)
    assert 50 <= spread[0] and spread[-1] <= 100.01 and spread[-1] - spread[0] > 25
    assert 10 < expiry < 12  # a moment after the expiry, as the database's clock may lag
    assert 50 <= past <= 100.01  # an expiry gone by already asks on the period's rule, not in a loop
    assert asked == [False, True, False]  # the second waits for the first's answer
