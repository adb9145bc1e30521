"""Redis goes away mid-race: moves over REST and websockets are still validated and stored, pushes
resume when Redis is back, clients are resynced, and no move is lost."""

from __future__ import annotations

import asyncio
import subprocess
import time
from contextlib import contextmanager

import pytest

from tests.support.servers import (
    Client,
    free_port,
    kind,
    progress,
    register,
    server_env,
    servers,
)

pytestmark = [pytest.mark.services, pytest.mark.timeout(180)]


class PrivateRedis:
    """A redis-server of the test's own on a free port, without persistence, stopped and started at will."""

    def __init__(self):
        self.port = free_port()
        self.process = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            ping = subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True)
            if ping.stdout.strip() == "PONG":
                return
            time.sleep(0.1)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


@contextmanager
def private_redis():
    redis = PrivateRedis()
    redis.start()
    try:
        yield redis
    finally:
        redis.stop()


def test_moves_survive_a_redis_outage_and_pushes_resume_with_a_resync(database):
    with private_redis() as redis:
        env = server_env(database, redis.url, WS_BUS_CHECK_S=0.5)
        with servers(2, env) as (one, two):
            alice, bob = register(one, "out_alice"), register(two, "out_bob")
            status, race = one.call("POST", "/api/races/", {"deal": "ms:1", "autoplay": "none"}, alice)
            code = race["code"]
            assert two.call("POST", f"/api/races/{code}/join/", token=bob)[0] == 200

            async def scenario():
                async with Client(one, f"/ws/races/{code}/", alice) as a, Client(two, f"/ws/races/{code}/", bob) as b:
                    await a.until(kind("auth_ok"))
                    await b.until(kind("auth_ok"))
                    await a.send({"type": "start"})
                    a_game = (await a.until(kind("state")))["game"]["id"]
                    b_game = (await b.until(kind("state")))["game"]["id"]
                    await a.send({"type": "move", "move": "5a", "ply": 0})
                    await a.until(kind("ack"))
                    await b.until(progress("out_alice", 1))

                    redis.stop()
                    # Validated and stored without the bus: over the socket and over REST, on both processes.
                    await a.send({"type": "move", "move": "5b", "ply": 1, "id": "during-1"})
                    assert (await a.until(kind("ack", id="during-1"), timeout=15))["ply"] == 2
                    await a.send({"type": "move", "move": "1h", "ply": 2, "id": "bad"})
                    assert (await a.until(kind("error", id="bad"), timeout=15))["code"] == "illegal_move"
                    status, body = await asyncio.to_thread(two.call, "POST", f"/api/games/{a_game}/moves/", {"move": "5c", "ply": 2}, alice)
                    assert status == 200 and body["ply"] == 3, body
                    await b.send({"type": "move", "move": "5a", "ply": 0, "id": "during-b"})
                    assert (await b.until(kind("ack", id="during-b"), timeout=15))["ply"] == 1

                    redis.start()
                    # Each socket notices the bus is back, re-joins its groups and resyncs its client.
                    await b.until(progress("out_alice", 3), timeout=20)
                    await a.until(progress("out_bob", 1), timeout=20)
                    # And live pushes work again.
                    await a.send({"type": "move", "move": "5d", "ply": 3})
                    await a.until(kind("ack"))
                    await b.until(progress("out_alice", 4), timeout=10)

                # The race still runs: each racer's history is read by its player (the race hides it from others).
                for game, player, expected in ((a_game, alice, ["5a", "5b", "5c", "5d"]), (b_game, bob, ["5a"])):
                    status, history = one.call("GET", f"/api/games/{game}/history/", token=player)
                    assert status == 200 and [a["move"] for a in history["actions"]] == expected

            asyncio.run(scenario())



def test_moves_over_rest_are_stored_while_redis_is_down(database):
    with private_redis() as redis:
        with servers(1, server_env(database, redis.url)) as (one,):
            alice = register(one, "rest_alice")
            status, game = one.call("POST", "/api/games/", {"deal": "ms:1", "autoplay": "none"}, alice)
            assert status == 201
            redis.stop()
            status, body = one.call("POST", f"/api/games/{game['id']}/moves/", {"move": "5a", "ply": 0}, alice)
            assert status == 200 and body["ply"] == 1, body
            status, body = one.call("POST", f"/api/games/{game['id']}/moves/", {"move": "1h", "ply": 1}, alice)
            assert status == 422 and body["error"]["code"] == "illegal_move"
            redis.start()
            status, history = one.call("GET", f"/api/games/{game['id']}/history/")
            assert [a["move"] for a in history["actions"]] == ["5a"]


def test_sockets_open_while_redis_is_down_and_get_pushes_once_it_is_back(database):
    """A client that (re)connects during the outage gets the state and may play (it was an HTTP 500 at
    the handshake); once Redis is back its socket joins the bus and gets pushes again."""
    with private_redis() as redis:
        env = server_env(database, redis.url, WS_BUS_CHECK_S=0.5)
        with servers(2, env) as (one, two):
            alice = register(one, "down_alice")
            status, game = one.call("POST", "/api/games/", {"deal": "ms:1", "autoplay": "none"}, alice)
            assert status == 201
            redis.stop()

            async def scenario():
                async with Client(one, f"/ws/games/{game['id']}/", alice) as player, Client(two, f"/ws/games/{game['id']}/", None) as watcher:
                    assert (await watcher.until(kind("state"), timeout=15))["version"] == 0
                    await player.until(kind("auth_ok"), timeout=15)
                    await player.send({"type": "move", "move": "5a", "ply": 0, "id": "down"})
                    assert (await player.until(kind("ack", id="down"), timeout=15))["ply"] == 1

                    redis.start()
                    # The watcher missed the push: it is resynced once the bus is back...
                    assert (await watcher.until(lambda f: f["type"] == "state" and f["game"]["ply"] >= 1, timeout=20))["game"]["ply"] == 1
                    # ...and gets live pushes from the other process again.
                    await player.send({"type": "move", "move": "5b", "ply": 1})
                    await player.until(kind("ack"))
                    await watcher.until(lambda f: f["type"] == "state" and f["game"]["ply"] == 2, timeout=10)

            asyncio.run(scenario())
