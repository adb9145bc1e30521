"""The race socket /ws/races/<code>/: live progress, the start over the socket, the reveal instant, ghosts."""

from __future__ import annotations

import datetime as dt

import pytest
from channels.db import database_sync_to_async

from tests.support.players import client_for, token_of
from tests.support.races import MS1_WIN, recorded_win
from tests.support.sockets import next_of, nothing_more, open_socket, run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fast(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.RACE_COUNTDOWN_S = 0
    settings.WS_HEARTBEAT_S = 30


def open_race(user, **body) -> dict:
    response = client_for(user).post("/api/races/", {"deal": "ms:1", "autoplay": "none", **body}, format="json")
    assert response.status_code == 201
    return response.json()


def mine(race: dict, username: str, ghost: bool = False) -> dict:
    return next(r for r in race["racers"] if r["username"] == username and r["ghost"] == ghost)


async def progress_of(socket, username: str, moves: int, timeout: float = 10.0) -> dict:
    """The first progress frame (a racer's move) showing `username` at `moves` moves."""
    while True:
        frame = await next_of(socket, "progress", timeout)
        if frame["racer"]["username"] == username and frame["racer"]["moves"] == moves:
            return frame["racer"]


async def race_until(socket, test, timeout: float = 10.0) -> dict:
    """The first race frame whose race passes `test`."""
    while True:
        frame = await next_of(socket, "race", timeout)
        if test(frame["race"]):
            return frame


def test_a_watcher_gets_the_race_with_its_version_on_connect(alice):
    race = open_race(alice)

    async def scenario():
        socket = await open_socket(f"/ws/races/{race['code']}/")
        frame = await socket.receive_json_from(timeout=10)
        assert frame["type"] == "race" and frame["version"] == frame["race"]["version"] == race["version"]
        assert frame["race"]["code"] == race["code"] and frame["race"]["status"] == "open"
        await socket.disconnect()

    run(scenario)


def test_a_watcher_of_a_race_is_told_to_authenticate_before_it_plays(alice):
    race = open_race(alice)

    async def scenario():
        socket = await open_socket(f"/ws/races/{race['code']}/")
        await next_of(socket, "race")
        for frame in ({"type": "start"}, {"type": "move", "move": "5a", "ply": 0}, {"type": "resign"}):
            await socket.send_json_to(frame)
            error = await next_of(socket, "error")
            assert error["code"] == "not_authenticated" and '"auth"' in error["message"], (frame, error)
        await socket.disconnect()

    run(scenario)


def test_an_unknown_race_is_not_found_and_the_socket_closed(alice):
    async def scenario():
        socket = await open_socket("/ws/races/NOPE42/")
        assert (await next_of(socket, "error"))["code"] == "not_found"
        assert (await socket.receive_output(timeout=10)) == {"type": "websocket.close", "code": 4404}

    run(scenario)


def test_racers_see_joins_the_start_and_each_others_progress_live(alice, bob, alice_token, bob_token):
    race = open_race(alice)
    bob_api = client_for(bob)

    async def scenario():
        a = await open_socket(f"/ws/races/{race['code']}/", token=alice_token)
        b = await open_socket(f"/ws/races/{race['code']}/", token=bob_token)
        await next_of(a, "auth_ok")
        await database_sync_to_async(bob_api.post)(f"/api/races/{race['code']}/join/")
        joined = await race_until(a, lambda r: len(r["racers"]) == 2)
        assert [r["username"] for r in joined["race"]["racers"]] == ["alice", "bob"]
        await a.send_json_to({"type": "start", "id": "go"})
        running = await race_until(a, lambda r: r["status"] == "running")
        own = await next_of(a, "state")
        assert own["game"]["id"] == mine(running["race"], "alice")["game"] and own["game"]["player"] == "alice"
        bobs_own = await next_of(b, "state")
        assert bobs_own["game"]["player"] == "bob"
        await a.send_json_to({"type": "move", "move": "5a", "ply": 0, "client_id": "a1", "id": 1})
        ack = await next_of(a, "ack")
        assert ack["id"] == 1 and ack["game"]["id"] == own["game"]["id"]
        seen = await progress_of(b, "alice", 1)
        assert seen["game"] == own["game"]["id"] and seen["status"] == "playing" and seen["cards_home"] == 0
        await b.send_json_to({"type": "move", "move": "5a", "ply": 0})
        await next_of(b, "ack")
        await progress_of(a, "bob", 1)
        # A racer's move leaves the race's version as it was: a new connection gets the progress in the race.
        late = await open_socket(f"/ws/races/{race['code']}/")
        now = await next_of(late, "race")
        assert now["version"] == running["version"]
        assert mine(now["race"], "alice")["moves"] == 1 and mine(now["race"], "bob")["moves"] == 1
        await late.disconnect()
        await a.disconnect()
        await b.disconnect()

    run(scenario)


def test_only_the_owner_starts_over_the_socket(alice, bob, bob_token):
    race = open_race(alice)
    client_for(bob).post(f"/api/races/{race['code']}/join/")

    async def scenario():
        b = await open_socket(f"/ws/races/{race['code']}/", token=bob_token)
        await next_of(b, "auth_ok")
        await b.send_json_to({"type": "start", "id": 5})
        error = await next_of(b, "error")
        assert (error["code"], error["id"]) == ("forbidden", 5)
        await b.disconnect()

    run(scenario)


def test_moves_before_the_start_are_refused(alice, alice_token):
    race = open_race(alice)

    async def scenario():
        a = await open_socket(f"/ws/races/{race['code']}/", token=alice_token)
        await next_of(a, "auth_ok")
        await a.send_json_to({"type": "move", "move": "5a", "ply": 0})
        assert (await next_of(a, "error"))["code"] == "race_not_started"
        await a.disconnect()

    run(scenario)


def test_moves_from_someone_not_racing_are_forbidden(alice, bob, charlie, alice_token, bob_token):
    """As their resign is: the race is running, but it is not theirs to play (whether they never joined
    or left before the start)."""
    race = open_race(alice)
    client_for(bob).post(f"/api/races/{race['code']}/join/")
    client_for(bob).post(f"/api/races/{race['code']}/resign/")
    charlie_token = token_of(charlie)

    async def scenario():
        a = await open_socket(f"/ws/races/{race['code']}/", token=alice_token)
        await next_of(a, "auth_ok")
        await a.send_json_to({"type": "start"})
        await next_of(a, "state")
        for token in (bob_token, charlie_token):
            other = await open_socket(f"/ws/races/{race['code']}/", token=token)
            await next_of(other, "auth_ok")
            for frame in ({"type": "move", "move": "5a", "ply": 0}, {"type": "undo", "ply": 0}, {"type": "resign"}):
                await other.send_json_to({**frame, "id": frame["type"]})
                error = await next_of(other, "error")
                assert (error["code"], error["id"]) == ("forbidden", frame["type"]), error
            await other.disconnect()
        await a.disconnect()

    run(scenario)


def test_a_racer_whose_socket_missed_the_start_can_still_move(alice, alice_token, monkeypatch):
    """A move on a socket that has not heard of the start (its push lost, or waiting behind moves) is
    played on the racer's game, read from the database, not refused with race_not_started."""
    from games.sockets.race import RaceConsumer

    race = open_race(alice)
    alice_api = client_for(alice)

    async def ignore(socket, event):
        pass

    async def scenario():
        a = await open_socket(f"/ws/races/{race['code']}/", token=alice_token)
        await next_of(a, "auth_ok")
        monkeypatch.setattr(RaceConsumer, "race_state", ignore)
        await database_sync_to_async(alice_api.post)(f"/api/races/{race['code']}/start/")
        await a.send_json_to({"type": "move", "move": "5a", "ply": 0, "id": "m"})
        state = await next_of(a, "state")
        ack = await next_of(a, "ack")
        assert ack["id"] == "m" and ack["ply"] == 1 and ack["game"]["id"] == state["game"]["id"]
        await a.disconnect()

    run(scenario)


def test_boards_are_revealed_on_the_socket_at_the_start_instant(alice, alice_token, settings):
    settings.RACE_COUNTDOWN_S = 0.3
    race = open_race(alice)

    async def scenario():
        a = await open_socket(f"/ws/races/{race['code']}/", token=alice_token)
        watcher = await open_socket(f"/ws/races/{race['code']}/")
        await next_of(a, "auth_ok")
        await a.send_json_to({"type": "start"})
        countdown = (await race_until(a, lambda r: r["status"] == "countdown"))["race"]
        assert mine(countdown, "alice")["game"] is None
        starts_at = dt.datetime.fromisoformat(countdown["starts_at"].replace("Z", "+00:00"))
        running = await race_until(watcher, lambda r: r["status"] == "running")
        shown = dt.datetime.now(dt.UTC)
        assert starts_at <= shown <= starts_at + dt.timedelta(seconds=0.5)
        assert mine(running["race"], "alice")["game"] is not None
        state = await next_of(a, "state")
        assert state["game"]["created_at"] == countdown["starts_at"]
        await a.disconnect()
        await watcher.disconnect()

    run(scenario)


def test_a_finish_and_the_end_of_the_race_are_pushed(alice, alice_token, settings):
    settings.WS_MOVE_BURST = 1000
    race = open_race(alice)

    async def scenario():
        a = await open_socket(f"/ws/races/{race['code']}/", token=alice_token)
        await next_of(a, "auth_ok")
        await a.send_json_to({"type": "start"})
        await next_of(a, "state")
        for ply, move in enumerate(MS1_WIN):
            await a.send_json_to({"type": "move", "move": move, "ply": ply})
            await next_of(a, "ack")
        done = await race_until(a, lambda r: r["status"] == "finished")
        assert mine(done["race"], "alice")["rank"] == 1 and mine(done["race"], "alice")["cards_home"] == 52
        await a.disconnect()

    run(scenario)


def test_an_opponents_progress_reaches_a_racer_whose_own_move_is_still_on_its_way(alice, bob, alice_token, monkeypatch):
    """A socket answers its moves in turn without holding up pushes: while a racer's move waits for
    the database, the others' progress still reaches them; the new state of the race waits for the ack."""
    import time

    from games import events
    from games.play import services

    race = open_race(alice)
    client_for(bob).post(f"/api/races/{race['code']}/join/")
    real_play = services.play_move

    def slow_play(**kwargs):
        time.sleep(1.0)
        return real_play(**kwargs)

    monkeypatch.setattr(services, "play_move", slow_play)

    async def scenario():
        a = await open_socket(f"/ws/races/{race['code']}/", token=alice_token)
        await next_of(a, "auth_ok")
        await a.send_json_to({"type": "start"})
        await next_of(a, "state")
        await a.send_json_to({"type": "move", "move": MS1_WIN[0], "ply": 0, "id": "slow"})
        await events.apublish(
            events.race_group(race["code"]), {"type": "race.progress", "progress": {"code": race["code"], "racer": {"username": "bob", "moves": 3}}}
        )
        order = []
        while "ack" not in order:
            frame = await a.receive_json_from(timeout=10)
            order.append(frame["type"])
        await a.disconnect()
        return order

    order = run(scenario)
    assert "progress" in order and order.index("progress") < order.index("ack"), order


def test_resigning_over_the_race_socket(alice, bob, alice_token):
    race = open_race(alice)
    client_for(bob).post(f"/api/races/{race['code']}/join/")

    async def scenario():
        a = await open_socket(f"/ws/races/{race['code']}/", token=alice_token)
        await next_of(a, "auth_ok")
        await a.send_json_to({"type": "start"})
        await next_of(a, "state")
        await a.send_json_to({"type": "resign", "id": "r"})
        answer = await race_until(a, lambda r: mine(r, "alice")["status"] == "resigned")
        assert answer["race"]["status"] == "running"
        await a.disconnect()

    run(scenario)


def test_a_ghost_opponent_moves_live_on_the_race_socket(alice, bob, alice_token):
    ghost = recorded_win(bob, step_ms=3)
    race = client_for(alice).post("/api/races/ghost/", {"game": ghost.pk}, format="json").json()

    async def scenario():
        a = await open_socket(f"/ws/races/{race['code']}/", token=alice_token)
        await next_of(a, "auth_ok")
        await a.send_json_to({"type": "start"})
        seen = []
        while True:
            frame = await next_of(a, "race")
            shadow = mine(frame["race"], "bob", ghost=True)
            seen.append(shadow["moves"])
            if shadow["status"] == "won":
                break
        assert seen == sorted(seen) and seen[-1] == len(MS1_WIN)
        assert len(set(seen)) > 3, "the ghost's progress arrives step by step"
        assert shadow["rank"] == 1
        await a.disconnect()

    run(scenario)


def test_a_gap_in_race_versions_is_answered_from_the_database(alice, bob, monkeypatch):
    from games import events

    race = open_race(alice)
    alice_api, bob_api = client_for(alice), client_for(bob)

    async def scenario():
        watcher = await open_socket(f"/ws/races/{race['code']}/")
        await next_of(watcher, "race")
        real = events.publish_race
        monkeypatch.setattr(events, "publish_race", lambda payload: False)
        await database_sync_to_async(bob_api.post)(f"/api/races/{race['code']}/join/")
        monkeypatch.setattr(events, "publish_race", real)
        assert await nothing_more(watcher)
        await database_sync_to_async(alice_api.post)(f"/api/races/{race['code']}/start/")
        frame = await next_of(watcher, "race")
        assert frame["version"] == race["version"] + 3 and len(frame["race"]["racers"]) == 2
        await watcher.disconnect()

    run(scenario)
