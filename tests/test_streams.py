"""The ndjson streams (docs/streams.md) on the ASGI application in this process: SQLite and the
in-memory channel layer. tests/test_streams_processes.py runs them across server processes."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer

from games.play import services
from tests.support.players import client_for, make_player, token_of
from tests.support.races import act, open_race, read, running_race
from tests.support.streams import Stream
from tests.support.tokens import key_with

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(60)]


@pytest.fixture(autouse=True)
def _readers_take_no_table_locks(settings):
    """The test database is SQLite in memory with a shared cache: a stream reads in its request's
    thread while the test writes in its own, and a reader's table lock made the writer fail at once
    ("database table is locked", never waited for). Readers here read without table locks."""
    from django.db.backends.signals import connection_created

    def no_read_locks(sender, connection, **kwargs):
        if connection.vendor == "sqlite":
            connection.cursor().execute("PRAGMA read_uncommitted = 1")

    connection_created.connect(no_read_locks, dispatch_uid="tests.streams.no_read_locks")
    yield
    connection_created.disconnect(dispatch_uid="tests.streams.no_read_locks")


@pytest.fixture(autouse=True)
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.RACE_COUNTDOWN_S = 0


def run(scenario):
    return async_to_sync(scenario)()


def rest_game(game_id: int, user=None) -> dict:
    response = client_for(user).get(f"/api/games/{game_id}/")
    assert response.status_code == 200, response.json()
    return response.json()


def test_a_game_stream_opens_with_the_game_as_rest_shows_it_then_a_line_per_change(alice):
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    shown = rest_game(game.pk)

    async def scenario():
        stream = await Stream(f"/api/stream/games/{game.pk}/").open()
        assert stream.status == 200
        assert stream.headers["content-type"] == "application/x-ndjson"
        first = await stream.line()
        await sync_to_async(services.play_move)(game_id=game.pk, user=alice, move="5a", ply=0)
        moved = await stream.line()
        await sync_to_async(services.undo)(game_id=game.pk, user=alice, ply=1)
        undone = await stream.line()
        await stream.leave()
        return first, moved, undone

    first, moved, undone = run(scenario)
    assert first == shown
    assert (moved["ply"], moved["version"]) == (1, shown["version"] + 1)
    assert (moved["id"], moved["moves"], moved["undos"]) == (game.pk, 1, 0)
    assert moved["board"] != first["board"] and set(moved) == set(first)
    assert (undone["ply"], undone["undos"], undone["version"]) == (2, 1, shown["version"] + 2)
    assert undone["state"] == first["state"]


def test_an_empty_line_keeps_the_stream_alive(alice, settings):
    from games.play import services

    settings.STREAM_KEEPALIVE_S = 0.1
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")

    async def scenario():
        stream = await Stream(f"/api/stream/games/{game.pk}/").open()
        first = await stream.raw_line()
        kept = [await stream.raw_line(timeout=5) for _ in range(3)]
        await stream.leave()
        return first, kept

    first, kept = run(scenario)
    assert first.startswith("{") and kept == ["", "", ""]


def test_a_racers_game_is_not_found_by_others_while_the_race_runs(alice, bob, charlie):
    race = running_race(alice, bob)
    game_id = next(r["game"] for r in race["racers"] if r["username"] == "alice")
    tokens = {user.username: token_of(user) for user in (alice, bob, charlie)}

    async def scenario():
        stranger = await Stream(f"/api/stream/games/{game_id}/", tokens["charlie"]).open()
        anonymous = await Stream(f"/api/stream/games/{game_id}/").open()
        rival = await Stream(f"/api/stream/games/{game_id}/", tokens["bob"]).open()
        own = await Stream(f"/api/stream/games/{game_id}/", tokens["alice"]).open()
        refused = [(s.status, (await s.body())["error"]["code"]) for s in (stranger, anonymous, rival)]
        mine = await own.line()
        await own.leave()
        return refused, own.status, mine

    refused, status, mine = run(scenario)
    assert refused == [(404, "not_found")] * 3
    assert status == 200 and mine["id"] == game_id and mine["player"] == "alice"

    # Once the race is over the boards are public: the same request streams it.
    assert act(alice, race["code"], "resign").status_code == 200
    assert act(bob, race["code"], "resign").status_code == 200

    async def after():
        stream = await Stream(f"/api/stream/games/{game_id}/", tokens["charlie"]).open()
        line = await stream.line()
        await stream.leave()
        return stream.status, line

    status, line = run(after)
    assert status == 200 and line["id"] == game_id and line["status"] == "resigned"


def test_the_events_stream_needs_a_sign_in(db):
    async def scenario():
        anonymous = await Stream("/api/stream/events/").open()
        wrong = await Stream("/api/stream/events/", "0" * 40).open()
        return [(s.status, (await s.body())["error"]["code"]) for s in (anonymous, wrong)]

    assert run(scenario) == [(401, "not_authenticated"), (401, "authentication_failed")]


def test_a_token_without_the_read_scope_streams_what_a_visitor_sees(alice):
    """A token limited to other scopes (accounts.scopes) reads as an anonymous visitor (docs/tokens.md):
    a public game's and a race's streams open; the events stream, which serves no visitor, is 403
    missing_scope."""
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    race = open_race(alice)
    token = key_with(alice, "play")

    async def scenario():
        events = await Stream("/api/stream/events/", token).open()
        refused = (events.status, (await events.body())["error"]["code"])
        opened = []
        for path in (f"/api/stream/games/{game.pk}/", f"/api/stream/races/{race['code']}/"):
            stream = await Stream(path, token).open()
            opened.append((stream.status, await stream.line()))
            await stream.leave()
        return refused, opened

    refused, ((game_status, game_line), (race_status, race_line)) = run(scenario)
    assert refused == (403, "missing_scope")
    assert (game_status, game_line["id"]) == (200, game.pk)
    assert (race_status, race_line["code"]) == (200, race["code"])


def test_unknown_games_and_races_are_not_found(db):
    async def scenario():
        game = await Stream("/api/stream/games/999999/").open()
        race = await Stream("/api/stream/races/ZZZZZZ/").open()
        return [(s.status, (await s.body())["error"]["code"]) for s in (game, race)]

    assert run(scenario) == [(404, "not_found"), (404, "not_found")]


def test_the_events_stream_tells_of_friend_requests_invitations_and_starts(alice):
    from accounts import services as accounts

    dave, erin = make_player("dave"), make_player("erin")
    race = open_race(alice, deal="ms:7")
    accounts.request_friend(user=dave, username="alice")  # waiting for alice before her stream opens
    tokens = {user.username: token_of(user) for user in (alice, dave)}

    async def scenario():
        alices = await Stream("/api/stream/events/", tokens["alice"]).open()
        pending = await alices.line()
        daves = await Stream("/api/stream/events/", tokens["dave"]).open()
        await sync_to_async(accounts.request_friend)(user=erin, username="dave")
        requested = await daves.line()  # dave had nothing pending: his first line is erin's request
        await sync_to_async(accounts.answer_request)(user=alice, username="dave", accept=True)
        accepted = await daves.line()
        invited = await sync_to_async(act)(alice, race["code"], "invite", username="dave")
        assert invited.status_code == 200, invited.json()
        invitation = await daves.line()
        assert (await sync_to_async(act)(dave, race["code"], "join")).status_code == 200
        assert (await sync_to_async(act)(alice, race["code"], "start")).status_code == 200
        started = await daves.line()
        alice_started = await alices.until(lambda event: event["type"] == "race_started")
        await daves.leave()
        await alices.leave()
        return pending, requested, accepted, invitation, started, alice_started

    pending, requested, accepted, invitation, started, alice_started = run(scenario)
    assert pending == {"type": "friend_request", "from": "dave"}
    assert requested == {"type": "friend_request", "from": "erin"}
    assert accepted == {"type": "friend_accepted", "username": "alice"}
    assert invitation["type"] == "race_invitation" and invitation["invited_by"] == "alice"
    assert invitation["race"]["code"] == race["code"] and invitation["race"]["invited"] == ["dave"]
    games = {r["username"]: r["game"] for r in read(race["code"])["racers"]}
    assert started["type"] == "race_started" and started["race"]["status"] == "running"
    assert (started["game"], alice_started["game"]) == (games["dave"], games["alice"])


def test_an_events_stream_opens_with_the_invitations_and_races_pending(alice, bob):
    running = running_race(alice, bob, deal="ms:3")
    invited = open_race(alice, deal="ms:4")
    assert act(alice, invited["code"], "invite", username="bob").status_code == 200
    token = token_of(bob)

    async def scenario():
        stream = await Stream("/api/stream/events/", token).open()
        lines = [await stream.line(), await stream.line()]
        await stream.leave()
        return lines

    invitation, started = run(scenario)
    assert (invitation["type"], invitation["race"]["code"]) == ("race_invitation", invited["code"])
    assert (started["type"], started["race"]["code"]) == ("race_started", running["code"])
    assert started["game"] == next(r["game"] for r in running["racers"] if r["username"] == "bob")


def test_a_race_stream_opens_with_the_race_as_rest_shows_it_then_each_change(alice, bob):
    from games.play import services

    race = open_race(alice, deal="ms:1", autoplay="none")
    shown = read(race["code"])

    async def scenario():
        stream = await Stream(f"/api/stream/races/{race['code']}/").open()
        first = await stream.line()
        assert (await sync_to_async(act)(bob, race["code"], "join")).status_code == 200
        joined = await stream.line()
        assert (await sync_to_async(act)(alice, race["code"], "start")).status_code == 200
        running = await stream.until(lambda r: r["status"] == "running")
        game = next(r["game"] for r in running["racers"] if r["username"] == "bob")
        await sync_to_async(services.play_move)(game_id=game, user=bob, move="5a", ply=0)
        moved = await stream.line()
        await stream.leave()
        return first, joined, running, moved

    first, joined, running, moved = run(scenario)
    assert first == shown
    assert [r["username"] for r in joined["racers"]] == ["alice", "bob"] and joined["version"] == first[
        "version"
    ] + 1
    bob_now = next(r for r in moved["racers"] if r["username"] == "bob")
    assert (bob_now["moves"], moved["version"]) == (1, running["version"])


def test_a_stream_ends_when_its_token_is_revoked(alice):
    client = client_for(alice)
    token = token_of(alice)

    async def scenario():
        stream = await Stream("/api/stream/events/", token).open()
        assert stream.status == 200
        logout = await sync_to_async(client.post)("/api/auth/logout/")
        assert logout.status_code == 204
        last = await stream.line()
        await stream.end()
        return last

    assert run(scenario)["error"]["code"] == "authentication_failed"


def test_a_stream_ends_when_its_token_is_revoked_on_the_tokens_api(alice):
    """DELETE /api/tokens/<id>/ from elsewhere (here the player's session) ends a stream held with that token."""
    from accounts.models import AccessToken

    session = client_for(alice)
    token = key_with(alice, "read", name="stream reader")
    token_id = AccessToken.objects.get(user=alice, name="stream reader").pk

    async def scenario():
        stream = await Stream("/api/stream/events/", token).open()
        assert stream.status == 200
        revoked = await sync_to_async(session.delete)(f"/api/tokens/{token_id}/")
        assert revoked.status_code == 204
        last = await stream.line(timeout=5)
        await stream.end()
        return last

    assert run(scenario)["error"]["code"] == "authentication_failed"


def test_a_stream_ends_at_its_next_sign_in_check_once_its_token_is_gone_without_a_word(alice, settings):
    """A sign-in that ends with no event on the bus (the account switched off by hand, no signal sent)
    is found at the stream's next periodic check (games.sockets.sign_in)."""
    from django.contrib.auth.models import User

    settings.STREAM_KEEPALIVE_S = 0.1
    settings.SIGN_IN_CHECK_S = 0.4
    token = token_of(alice)

    async def scenario():
        stream = await Stream("/api/stream/events/", token).open()
        assert await stream.raw_line(timeout=5) == ""  # open, and past its check at the open
        await sync_to_async(User.objects.filter(pk=alice.pk).update)(is_active=False)
        last = await stream.line(timeout=5)
        await stream.end()
        return last

    assert run(scenario)["error"]["code"] == "authentication_failed"


def test_a_client_that_leaves_ends_the_stream_and_leaves_its_groups(alice):
    from channels.layers import get_channel_layer

    from games import events
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    group = events.game_group(game.pk)
    token = token_of(alice)

    async def scenario():
        layer = get_channel_layer()
        stream = await Stream(f"/api/stream/games/{game.pk}/", token).open()
        await stream.line()
        joined = set(layer.groups.get(group, ()))
        account = set(layer.groups.get(events.account_group(alice.pk), ()))
        await stream.leave()  # fails unless the application finishes
        return (
            joined,
            account,
            set(layer.groups.get(group, ())),
            set(layer.groups.get(events.account_group(alice.pk), ())),
        )

    joined, account, left, account_left = run(scenario)
    assert len(joined) == 1 and len(account) == 1
    assert left == set() and account_left == set()


def test_open_streams_hold_no_thread_while_they_wait(alice, settings):
    """Forty streams held open cost the process no thread each: the checks ran in the HTTP workers (a
    pool of at most HTTP_THREADS, which may grow while the streams open), and the lines are sent from
    the loop (Django's ASGI handler kept a thread per request, a stream's whole life long: 40 more)."""
    from games.play import services

    settings.WS_SOCKETS_PER_ACCOUNT = 50
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    token = token_of(alice)

    async def scenario():
        warm = await Stream(f"/api/stream/games/{game.pk}/", token).open()
        await warm.line()  # the database thread exists from here on
        before = {thread.ident for thread in threading.enumerate()}
        streams = [await Stream(f"/api/stream/games/{game.pk}/", token).open() for _ in range(40)]
        for stream in streams:
            await stream.line()
        during = [thread for thread in threading.enumerate() if thread.ident not in before]
        for stream in [warm, *streams]:
            await stream.leave()
        return during

    new_threads = run(scenario)
    # The HTTP workers, and the loop's default executor (a name lookup as Redis connects): bounded pools.
    outside_the_pools = [thread.name for thread in new_threads if not thread.name.startswith(("http", "asyncio"))]
    assert outside_the_pools == [], outside_the_pools
    assert len(new_threads) <= settings.HTTP_THREADS + 4, [thread.name for thread in new_threads]


def test_under_wsgi_a_stream_sends_its_first_lines_and_ends(alice):
    """Django's WSGI handler (the test client, a WSGI server) would read an endless stream to its end
    before sending it: there a stream is its first lines, with the same checks."""
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    response = client_for().get(f"/api/stream/games/{game.pk}/")
    assert response.status_code == 200 and response["Content-Type"] == "application/x-ndjson"
    assert response.content.decode().splitlines() == [json.dumps(rest_game(game.pk), separators=(",", ":"))]
    assert client_for().get("/api/stream/events/").status_code == 401


def test_after_the_bus_failed_a_stream_sends_what_it_missed(alice, settings, monkeypatch):
    """A push lost while the bus was away is made good: once a message to this process comes back
    through the layer, the stream sends the game as it now is."""
    from games import events
    from games.play import services

    settings.WS_BUS_CHECK_S = 0.1
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")

    async def scenario():
        stream = await Stream(f"/api/stream/games/{game.pk}/").open()
        first = await stream.line()
        with monkeypatch.context() as lost:
            lost.setattr(events, "publish_game", lambda payload: False)  # the push goes nowhere
            await sync_to_async(services.play_move)(game_id=game.pk, user=alice, move="5a", ply=0)
        events.note_bus_failure("a test's lost push")
        resent = await stream.line(timeout=5)
        await stream.leave()
        return first, resent

    first, resent = run(scenario)
    assert (resent["ply"], resent["version"]) == (1, first["version"] + 1)


def test_waiting_streams_make_no_call_to_the_bus_of_their_own(alice, settings, monkeypatch):
    """Each stream checked the bus itself every WS_BUS_CHECK_S, joining its groups again: at 1,000
    streams, hundreds of calls to Redis a second for nothing. Streams share the process's one watch of
    the bus with the sockets: while ten wait through ten checks, none joins a group again."""
    settings.WS_BUS_CHECK_S = 0.05
    settings.WS_SOCKETS_PER_ACCOUNT = 50
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    layer = get_channel_layer()
    joins, group_add = [], layer.group_add

    async def counted_join(group, channel):
        joins.append(group)
        await group_add(group, channel)

    monkeypatch.setattr(layer, "group_add", counted_join)

    async def scenario():
        streams = [await Stream(f"/api/stream/games/{game.pk}/").open() for _ in range(10)]
        for stream in streams:
            await stream.line()
        opened = len(joins)
        await asyncio.sleep(0.5)
        waited = len(joins) - opened
        for stream in streams:
            await stream.leave()
        return opened, waited

    opened, waited = run(scenario)
    assert opened >= 10 and waited == 0, (opened, waited)


def test_a_stream_opened_with_the_session_ends_when_that_session_logs_out(alice):
    from django.conf import settings
    from django.test import Client

    from tests.support.players import PASSWORD

    browser = Client()
    assert browser.login(username="alice", password=PASSWORD)
    cookie = f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}"

    async def scenario():
        stream = await Stream("/api/stream/events/", cookie=cookie).open()
        assert stream.status == 200
        logout = await sync_to_async(browser.post)("/api/auth/logout/")
        assert logout.status_code == 204
        last = await stream.line()
        await stream.end()
        return last

    assert run(scenario)["error"]["code"] == "authentication_failed"


def test_head_is_not_held_open(alice):
    async def scenario():
        stream = await Stream("/api/stream/races/ABCDEF/", method="HEAD").open()
        return stream.status

    assert run(scenario) == 405


def test_streams_count_as_sockets_against_the_accounts_limit(alice, settings):
    settings.WS_SOCKETS_PER_ACCOUNT = 1
    settings.STREAM_KEEPALIVE_S = 0.1
    token = token_of(alice)

    async def scenario():
        first = await Stream("/api/stream/events/", token).open()
        held = await first.raw_line()
        second = await Stream("/api/stream/events/", token).open()
        refused = await second.line()
        await second.end()
        await first.leave()  # gives its place back
        third = await Stream("/api/stream/events/", token).open()
        again = await third.raw_line()
        await third.leave()
        return held, refused, again

    held, refused, again = run(scenario)
    assert (held, again) == ("", "")  # keepalives: both held open
    assert refused["error"]["code"] == "rate_limited"
