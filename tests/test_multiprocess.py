"""Two real Daphne processes on PostgreSQL and Redis: racers on different processes see each other's
moves, and a client that reconnects (to the other process) resyncs."""

from __future__ import annotations

import asyncio
import os
import time
from urllib.parse import urlsplit

import pytest

from tests.support.servers import (
    Client,
    kind,
    progress,
    racer,
    register,
    server_env,
    servers,
    with_database,
)

pytestmark = [pytest.mark.services, pytest.mark.timeout(180)]


def test_racers_on_two_processes_see_each_others_moves_and_a_reconnect_resyncs(database):
    env = server_env(database, os.environ["REDIS_URL"])
    with servers(2, env) as (one, two):
        alice, bob = register(one, "mp_alice"), register(two, "mp_bob")
        status, race = one.call("POST", "/api/races/", {"deal": "ms:1", "autoplay": "none"}, alice)
        assert status == 201
        code = race["code"]
        assert two.call("POST", f"/api/races/{code}/join/", token=bob)[0] == 200

        async def scenario():
            async with Client(one, f"/ws/races/{code}/", alice) as a, Client(two, f"/ws/races/{code}/", bob) as b:
                await a.until(kind("auth_ok"))
                await b.until(kind("auth_ok"))
                await a.send({"type": "start", "id": "go"})
                await b.until(lambda f: f["type"] == "race" and f["race"]["status"] == "running")
                a_game = (await a.until(kind("state")))["game"]
                b_game = (await b.until(kind("state")))["game"]
                assert (a_game["player"], b_game["player"]) == ("mp_alice", "mp_bob")

                await a.send({"type": "move", "move": "5a", "ply": 0, "client_id": "a-0"})
                assert (await a.until(kind("ack")))["ply"] == 1
                await b.until(progress("mp_alice", 1))
                await b.send({"type": "move", "move": "5a", "ply": 0, "client_id": "b-0"})
                await b.until(kind("ack"))
                await a.until(progress("mp_bob", 1))

                # A spectator of alice's board on the other process is told nothing while the race runs,
                # not even her moves pushed from this process.
                async with Client(two, f"/ws/games/{a_game['id']}/", None) as spectator:
                    await a.send({"type": "move", "move": "5b", "ply": 1})
                    await a.until(kind("ack"))
                    await asyncio.sleep(0.3)
                    await spectator.send({"type": "ping", "id": "p"})
                    await spectator.until(kind("pong"))  # keeps every frame that came before it
                    assert not [f for f in spectator.frames if "game" in f], spectator.frames

            # Bob drops; alice plays on; bob comes back through the other process and is resynced.
            async with Client(one, f"/ws/races/{code}/", alice) as a:
                await a.until(kind("auth_ok"))
                await a.send({"type": "move", "move": "5c", "ply": 2})
                await a.until(kind("ack"))
                await a.send({"type": "move", "move": "5d", "ply": 3})
                await a.until(kind("ack"))
                async with Client(one, f"/ws/races/{code}/", bob) as b:
                    first = await b.until(kind("race"))
                    assert racer(first["race"], "mp_alice")["moves"] == 4, "the first frame is the current race"
                    await b.until(kind("auth_ok"))
                    state = await b.until(kind("state"))
                    assert state["game"]["id"] == b_game["id"] and state["game"]["ply"] == 1
                    await b.send({"type": "move", "move": "5b", "ply": 1})
                    await b.until(kind("ack"))
                    await a.until(progress("mp_bob", 2))

        asyncio.run(scenario())


def test_a_logout_on_one_process_closes_the_players_socket_on_the_other(database):
    """The sign-out check rides on Redis: a token revoked through one process closes the socket signed
    in with it on the other (4401), while a socket of another player stays."""
    env = server_env(database, os.environ["REDIS_URL"])
    with servers(2, env) as (one, two):
        carol, dan = register(one, "mp_carol"), register(one, "mp_dan")
        status, game = one.call("POST", "/api/games/", {"deal": "ms:2", "autoplay": "none"}, carol)
        assert status == 201

        async def scenario():
            from websockets.exceptions import ConnectionClosed

            async with Client(two, f"/ws/games/{game['id']}/", carol) as mine, Client(two, f"/ws/games/{game['id']}/", dan) as other:
                await mine.until(kind("auth_ok"))
                await other.until(kind("auth_ok"))
                assert one.call("POST", "/api/auth/logout/", token=carol)[0] == 204
                error = await mine.until(kind("error", code="authentication_failed"))
                assert "signed out" in error["message"]
                try:
                    await asyncio.wait_for(mine.ws.recv(), 10)
                except ConnectionClosed:
                    pass
                assert mine.ws.close_code == 4401
                await other.send({"type": "ping", "id": "still-here"})
                await other.until(kind("pong", id="still-here"))

        asyncio.run(scenario())


def test_no_request_fails_after_postgresql_ends_the_pools_connections(database):
    """After a restart or failover every pooled connection is dead; the pool's check replaces them
    (freecell_site.dbpool), so requests and socket moves go on without a 500."""
    import psycopg

    env = server_env(database, os.environ["REDIS_URL"], DB_POOL_SIZE=6, HTTP_THREADS=6)
    with servers(1, env) as (one,):
        erin = register(one, "mp_erin")
        status, game = one.call("POST", "/api/games/", {"deal": "ms:3", "autoplay": "none"}, erin)
        assert status == 201
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(6) as pool:  # every pooled connection in use once
            assert set(pool.map(lambda _: one.call("GET", f"/api/games/{game['id']}/")[0], range(30))) == {200}
        name = urlsplit(database).path.lstrip("/")
        admin = with_database(os.environ["DATABASE_URL"], "postgres").replace("postgres://", "postgresql://", 1)
        with psycopg.connect(admin, autocommit=True) as conn:
            ended = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = %s", [name]).fetchone()[0]
        assert ended >= 2
        time.sleep(0.5)

        async def scenario():
            async with Client(one, f"/ws/games/{game['id']}/", erin) as socket:
                await socket.until(kind("auth_ok"))
                await socket.send({"type": "move", "move": "5a", "ply": 0, "id": "after"})
                assert (await socket.until(lambda f: f.get("id") == "after"))["type"] == "ack"

        asyncio.run(scenario())
        with ThreadPoolExecutor(6) as pool:
            statuses = list(pool.map(lambda _: one.call("GET", f"/api/games/{game['id']}/")[0], range(30)))
        assert statuses == [200] * 30, statuses
