"""Two real Daphne processes on PostgreSQL and Redis: racers on different processes see each other's
moves, and a client that reconnects (to the other process) resyncs."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery 9"

pytestmark = [pytest.mark.services, pytest.mark.timeout(180)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


@contextmanager
def fresh_database():
    """A new, migrated PostgreSQL database beside the one in DATABASE_URL; dropped afterwards."""
    import psycopg

    base = os.environ["DATABASE_URL"]
    name = f"freecell_live_{secrets.token_hex(4)}"
    admin = with_database(base, "postgres").replace("postgres://", "postgresql://", 1)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(base, name)
    try:
        env = {**os.environ, "DATABASE_URL": url}
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True, timeout=120)
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Server:
    """One Daphne process serving the project."""

    def __init__(self, env: dict, port: int | None = None):
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.origin = self.base
        self.log = open(f"/tmp/daphne-{self.port}.log", "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), "freecell_site.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne on {self.port} exited: {Path(self.log.name).read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=1):
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(0.2)
        raise RuntimeError(f"daphne on {self.port} did not start")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()

    def ws(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"

    def call(self, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(self.base + path, method=method, data=json.dumps(body or {}).encode())
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Token {token}")
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")


def server_env(database_url: str, redis_url: str, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        # LIVE_SETTINGS_MODULE: run the servers on other settings (e.g. another channel layer) by hand.
        DJANGO_SETTINGS_MODULE=os.environ.get("LIVE_SETTINGS_MODULE", "freecell_site.settings"),
        RACE_COUNTDOWN_S="0",
        LOG_LEVEL="WARNING",
        THROTTLE_USER="100000/min",
        THROTTLE_MOVES="100000/min",
        THROTTLE_ANON="100000/min",
    )
    env.update({k: str(v) for k, v in extra.items()})
    return env


@contextmanager
def servers(count: int, env: dict):
    started = [Server(env) for _ in range(count)]
    try:
        for server in started:
            server.wait_ready()
        yield started
    finally:
        for server in started:
            server.stop()


def register(server: Server, username: str) -> str:
    status, body = server.call("POST", "/api/auth/register/", {"username": username, "password": PASSWORD})
    assert status == 201, body
    return body["token"]


class Client:
    """A real websocket client (the `websockets` library) that keeps every frame it receives."""

    def __init__(self, server: Server, path: str, token: str | None):
        self.server, self.path, self.token = server, path, token
        self.frames: list[dict] = []
        self.ws = None

    async def __aenter__(self):
        from websockets.asyncio.client import connect

        self.ws = await connect(self.server.ws(self.path), origin=self.server.origin, open_timeout=10)
        if self.token:
            await self.send({"type": "auth", "token": self.token})
        return self

    async def __aexit__(self, *exc):
        await self.ws.close()

    async def send(self, frame: dict) -> None:
        await self.ws.send(json.dumps(frame))

    async def until(self, test, timeout: float = 10.0) -> dict:
        """The first frame (already received or still to come) that passes `test`."""
        for frame in self.frames:
            if test(frame):
                self.frames.remove(frame)
                return frame
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise AssertionError(f"no matching frame within {timeout} s; last frames: {self.frames[-5:]}")
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), left))
            if test(frame):
                return frame
            self.frames.append(frame)


def racer(race: dict, username: str) -> dict:
    return next(r for r in race["racers"] if r["username"] == username and not r.get("ghost"))


def progress(username: str, moves: int):
    """A frame showing `username` at `moves` moves or more: a `progress` frame (a racer's move) or a
    whole `race` (on connect or a resync)."""

    def test(frame: dict) -> bool:
        if frame["type"] == "progress":
            return frame["racer"]["username"] == username and frame["racer"]["moves"] >= moves
        return frame["type"] == "race" and racer(frame["race"], username)["moves"] >= moves

    return test


def kind(name: str, **fields):
    return lambda f: f["type"] == name and all(f.get(k) == v for k, v in fields.items())


@pytest.fixture(scope="module")
def database():
    with fresh_database() as url:
        yield url


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

                # A spectator of alice's board on the other process sees her moves too.
                async with Client(two, f"/ws/games/{a_game['id']}/", None) as spectator:
                    assert (await spectator.until(kind("state")))["version"] == 1
                    await a.send({"type": "move", "move": "5b", "ply": 1})
                    await a.until(kind("ack"))
                    assert (await spectator.until(kind("state")))["game"]["ply"] == 2

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
