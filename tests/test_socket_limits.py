"""One client cannot slow everyone: sockets and frames per address and per account, over every socket
of a process and across processes (games/sockets/limits.py). The counting first, with two gauges
standing for two processes over one cache; then an attacker's flood on two real Daphne processes."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time

import pytest

from games.sockets import limits
from tests.support.servers import register, server_env, servers

# --- the counting, as two processes sharing one cache ------------------------------------------------


@pytest.fixture
def clock(monkeypatch):
    """The wall clock the periods are counted by, moved by hand."""
    now = [1_000_000.0]  # the start of a period
    monkeypatch.setattr(limits.time, "time", lambda: now[0])
    return now


@pytest.fixture
def two_processes(settings):
    settings.WS_SOCKETS_PER_ADDRESS = 3
    return limits.Gauge("address", "WS_SOCKETS_PER_ADDRESS"), limits.Gauge("address", "WS_SOCKETS_PER_ADDRESS")


def test_sockets_of_an_address_are_counted_over_every_process(two_processes, clock):
    one, two = two_processes
    assert one.open("192.0.2.7") and one.open("192.0.2.7") and two.open("192.0.2.7")
    assert not two.open("192.0.2.7"), "the fourth socket, on either process, is one too many"
    assert not one.open("192.0.2.7")
    assert two.open("198.51.100.1"), "another address has its own count"
    one.close("192.0.2.7")
    assert two.open("192.0.2.7"), "a socket closed on one process frees a place on the other"


def test_the_count_carries_into_the_next_period_and_a_dead_process_stops_counting(two_processes, clock):
    one, two = two_processes
    assert one.open("192.0.2.7") and one.open("192.0.2.7") and two.open("192.0.2.7")
    clock[0] += limits.PERIOD_S * 0.6  # past halfway: the upkeep books the next period
    one.refresh()
    two.refresh()
    clock[0] += limits.PERIOD_S * 0.5  # the next period
    assert not two.open("192.0.2.7"), "the sockets still open count in the new period"
    # Process one dies (kill -9): it books no further period, so its two sockets stop counting.
    clock[0] += limits.PERIOD_S * 0.6
    two.refresh()
    clock[0] += limits.PERIOD_S * 0.5
    assert two.open("192.0.2.7") and two.open("192.0.2.7")
    assert not two.open("192.0.2.7")


def test_the_limits_fail_open_across_processes_when_the_cache_is_down_and_hold_in_each(two_processes, clock, monkeypatch):
    def down(*args, **kwargs):
        raise ConnectionError("the cache is down")

    monkeypatch.setattr(limits.cache, "incr", down)
    monkeypatch.setattr(limits.cache, "add", down)
    monkeypatch.setattr(limits, "_down_until", [0.0])
    one, two = two_processes
    assert all(one.open("192.0.2.7") for _ in range(3))
    assert not one.open("192.0.2.7"), "each process still holds its own limit"
    assert two.open("192.0.2.7"), "across processes the count fails open"


def test_an_ipv6_client_counts_as_its_64_network_whichever_address_it_picks():
    def of(address):
        return limits.address_of({"client": (address, 5000)})

    assert of("2001:db8:1:2::1") == of("2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64"
    assert of("2001:db8:1:3::1") != of("2001:db8:1:2::1")
    assert of("::ffff:192.0.2.7") == of("192.0.2.7") == "192.0.2.7"
    assert of("192.0.2.8") != of("192.0.2.7")
    assert limits.address_of({"client": None}) is None


def test_frames_of_an_account_are_limited_here_and_over_every_process(settings, clock):
    settings.WS_ACCOUNT_FRAME_BURST = 5
    settings.WS_ACCOUNT_FRAME_RATE = 1
    one = limits.Meter("account", "WS_ACCOUNT_FRAME_BURST", "WS_ACCOUNT_FRAME_RATE")
    two = limits.Meter("account", "WS_ACCOUNT_FRAME_BURST", "WS_ACCOUNT_FRAME_RATE")
    now = time.monotonic()
    for _ in range(5):
        one.spend("7", now)
    with pytest.raises(limits.ServiceError) as refused:
        one.spend("7", now)
    assert refused.value.code == "rate_limited" and refused.value.extra["retry_after_ms"] > 0
    # The other process has a bucket of its own; the window they share (burst + rate x window: 15
    # frames in 10 s) fills up, and each process learns it when it adds its own count.
    for _ in range(5):
        two.spend("7", now)
    one.flush(now)
    two.flush(now)
    for _ in range(5):
        two.spend("7", now + 5)  # its bucket refilled
    two.flush(now + 5)
    two.spend("7", now + 6)
    two.flush(now + 6)  # 16 in the window: one too many
    with pytest.raises(limits.ServiceError) as blocked:
        two.spend("7", now + 7)
    assert "account" in blocked.value.message
    one.spend("7", now + 7)  # the other process has not added to the window since
    one.flush(now + 7)
    with pytest.raises(limits.ServiceError):
        one.spend("7", now + 8)
    assert two.blocked and one.blocked
    # The next window starts empty.
    clock[0] += limits.WINDOW_S
    with pytest.raises(limits.ServiceError):
        two.spend("7", now + 8)
    two.spend("7", now + 20)


# --- in one process ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_socket_that_goes_on_flooding_past_its_accounts_budget_is_closed(alice, settings):
    from tests.support.players import token_of
    from tests.support.sockets import new_game, open_socket, run

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.WS_ACCOUNT_FRAME_BURST = 5
    settings.WS_ACCOUNT_FRAME_RATE = 0.1
    settings.WS_READ_BURST = 1000  # the socket's own budget is not what refuses here
    game, token = new_game(alice), token_of(alice)
    sent = 5 + limits.REFUSALS_BEFORE_CLOSE + 1

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=token)
        for n in range(sent + 10):
            await socket.send_json_to({"type": "sync", "id": n})
        answers = []
        while True:
            message = await socket.receive_output(timeout=10)
            if message["type"] == "websocket.close":
                return answers, message["code"]
            frame = json.loads(message["text"])
            if "id" in frame:
                answers.append(frame.get("code", frame["type"]))

    answers, code = run(scenario)
    assert code == limits.CLOSE_CODE
    assert answers == ["state"] * 5 + ["rate_limited"] * (limits.REFUSALS_BEFORE_CLOSE + 1), answers


# --- an attacker's flood on two real processes ----------------------------------------------------

ATTACKER = "127.0.0.2"
OTHER_ATTACKER_ADDRESS = "127.0.0.3"


async def connect(server, path: str, local: str):
    from websockets.asyncio.client import connect as ws_connect

    return await ws_connect(server.ws(path), origin=server.origin, open_timeout=20, max_queue=None, local_addr=(local, 0))


async def fate(ws, frames: list[dict] = ()) -> str:
    """What becomes of a socket that sends `frames`: "open" (answered, still open) or "closed <code>"
    with the error it was told."""
    from websockets.exceptions import ConnectionClosed

    try:
        for frame in frames:
            await ws.send(json.dumps(frame))
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 3))
            if frame["type"] == "error" and frame["code"] == "rate_limited" and "id" not in frame:
                await asyncio.wait_for(ws.recv(), 5)  # the close follows
    except ConnectionClosed:
        return f"closed {ws.close_code}"
    except TimeoutError:
        return "open"


@pytest.mark.services
@pytest.mark.timeout(240)
def test_an_attackers_flood_is_refused_and_another_player_is_unaffected(database):
    env = server_env(
        database,
        os.environ["REDIS_URL"],
        WS_SOCKETS_PER_ADDRESS=10,
        WS_ADDRESS_OPEN_BURST=200,  # here the count of open sockets is what bites
        WS_SOCKETS_PER_ACCOUNT=3,
        WS_ACCOUNT_FRAME_BURST=20,
        WS_ACCOUNT_FRAME_RATE=5,
    )
    with servers(2, env) as (one, two):
        player, flooder = register(one, "lim_player"), register(one, "lim_flooder")
        _, game = one.call("POST", "/api/games/", {"deal": "ms:1", "autoplay": "none"}, player)
        _, bait = one.call("POST", "/api/games/", {"deal": "ms:1", "autoplay": "none"}, flooder)

        async def scenario():
            # 40 sockets from one address, over both processes: 10 in all are let in.
            sockets = await asyncio.gather(*(connect((one, two)[i % 2], f"/ws/games/{bait['id']}/", ATTACKER) for i in range(40)))
            fates = await asyncio.gather(*(fate(ws) for ws in sockets))
            assert fates.count("open") == 10, fates
            assert fates.count(f"closed {limits.CLOSE_CODE}") == 30, fates

            # Meanwhile another player, from another address, plays as ever.
            ws = await connect(one, f"/ws/games/{game['id']}/", "127.0.0.1")
            await ws.send(json.dumps({"type": "auth", "token": player}))
            acks = []
            for ply in range(10):
                start = time.perf_counter()
                frame = {"type": "move", "move": "5a", "ply": ply} if ply % 2 == 0 else {"type": "undo", "ply": ply}
                await ws.send(json.dumps({**frame, "id": ply}))
                while True:
                    answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if answer.get("id") == ply:
                        break
                assert answer["type"] == "ack", answer
                acks.append(time.perf_counter() - start)
            assert statistics.median(acks) < 0.25, acks

            # The attacker's sockets closed, its address may open sockets again (on either process).
            for attacker_socket in sockets:
                await attacker_socket.close()
            await asyncio.sleep(0.5)
            again = [await connect(two, f"/ws/games/{bait['id']}/", ATTACKER) for _ in range(3)]
            assert [await fate(s) for s in again] == ["open"] * 3
            for s in again:
                await s.close()

            # One account from another address: 3 sockets signed in, over both processes; the rest are
            # closed at their auth frame, and a flood of syncs is refused frame by frame.
            mine = [await connect((one, two)[i % 2], f"/ws/games/{bait['id']}/", OTHER_ATTACKER_ADDRESS) for i in range(6)]
            syncs = [{"type": "auth", "token": flooder}] + [{"type": "sync", "id": n} for n in range(10)]
            fates = await asyncio.gather(*(fate(s, syncs) for s in mine))
            assert fates.count("open") == 3 and fates.count(f"closed {limits.CLOSE_CODE}") == 3, fates
            await ws.send(json.dumps({"type": "sync", "id": "mine"}))
            while True:
                answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if answer.get("id") == "mine":
                    break
            assert answer["type"] == "state", "the other player's account has its own budget"
            for s in mine:
                await s.close()
            await ws.close()

        asyncio.run(scenario())


@pytest.mark.services
@pytest.mark.timeout(240)
def test_a_flood_of_syncs_from_one_account_is_answered_rate_limited(database):
    # The socket's own budget of reads is raised: what refuses here is the account's.
    env = server_env(database, os.environ["REDIS_URL"], WS_ACCOUNT_FRAME_BURST=10, WS_ACCOUNT_FRAME_RATE=1, WS_READ_BURST=100)
    with servers(1, env) as (one,):
        flooder = register(one, "lim_syncer")
        _, bait = one.call("POST", "/api/games/", {"deal": "ms:1", "autoplay": "none"}, flooder)

        async def scenario():
            ws = await connect(one, f"/ws/games/{bait['id']}/", ATTACKER)
            await ws.send(json.dumps({"type": "auth", "token": flooder}))
            for n in range(30):
                await ws.send(json.dumps({"type": "sync", "id": n}))
            answers = {}
            while len(answers) < 30:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if isinstance(frame.get("id"), int):
                    answers[frame["id"]] = frame["type"] if frame["type"] != "error" else frame["code"]
            refused = [n for n, what in answers.items() if what == "rate_limited"]
            assert 18 <= len(refused) <= 20, answers  # 10 syncs at once, and one a second after
            await ws.close()

        asyncio.run(scenario())
