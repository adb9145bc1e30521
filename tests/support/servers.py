"""Real Daphne processes on PostgreSQL and Redis for tests: a fresh database, servers, websocket clients."""

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

from freecell_site.serving import DAPHNE_OPTIONS
from tests.support.players import PASSWORD

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


@contextmanager
def fresh_database(prefix: str = "freecell_live"):
    """A new, migrated PostgreSQL database beside the one in DATABASE_URL; dropped afterwards."""
    import psycopg

    base = os.environ["DATABASE_URL"]
    name = f"{prefix}_{secrets.token_hex(4)}"
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

    def __init__(self, env: dict, port: int | None = None, log_dir: Path | None = None):
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.origin = self.base
        self.log_path = (log_dir or Path("/tmp")) / f"daphne-{self.port}.log"
        self.log = open(self.log_path, "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), *DAPHNE_OPTIONS, "freecell_site.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne on {self.port} exited: {self.log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=1):
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(0.2)
        raise RuntimeError(f"daphne on {self.port} did not start")

    def stop(self) -> None:
        if self.process.poll() is None:  # a test may have killed it already
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
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
        # Each server's sweeper makes today's and tomorrow's dailies at start: a short par search.
        DAILY_PAR_BUDGET="0.2",
        FAIR_PLAY_REVIEW="0",  # test clients play at machine speed
        LOG_LEVEL="WARNING",
        THROTTLE_USER="100000/min",
        THROTTLE_MOVES="100000/min",
        THROTTLE_ANON="100000/min",
        # Every test client comes from 127.0.0.1: the limits per address are raised as the throttles
        # are (tests/test_socket_limits.py sets its own).
        WS_SOCKETS_PER_ADDRESS="0",
        WS_ADDRESS_OPEN_BURST="0",
        WS_ADDRESS_FRAME_BURST="0",
        WS_DB_CALLS_PER_ADDRESS="0",
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


class FrameReader:
    """A websocket (`self.ws`, the `websockets` library) whose frames are kept until a test asks for
    them: `until` finds the first one, already received or still to come, that passes a test."""

    label = "socket"
    ws = None

    def __init__(self):
        self.frames: list[dict] = []

    async def send(self, frame: dict) -> None:
        await self.ws.send(json.dumps(frame))

    async def until(self, test, timeout: float = 10.0) -> dict:
        for frame in self.frames:
            if test(frame):
                self.frames.remove(frame)
                return frame
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"{self.label}: no matching frame within {timeout} s; last frames: {self.frames[-5:]}")
            try:
                frame = json.loads(await asyncio.wait_for(self.ws.recv(), left))
            except TimeoutError:
                continue
            if test(frame):
                return frame
            self.frames.append(frame)


class Client(FrameReader):
    """A real websocket client that keeps every frame it receives."""

    def __init__(self, server: Server, path: str, token: str | None):
        super().__init__()
        self.server, self.path, self.token = server, path, token
        self.label = path

    async def __aenter__(self):
        from websockets.asyncio.client import connect

        self.ws = await connect(self.server.ws(self.path), origin=self.server.origin, open_timeout=10)
        if self.token:
            await self.send({"type": "auth", "token": self.token})
        return self

    async def __aexit__(self, *exc):
        await self.ws.close()


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
    """A fresh PostgreSQL database for a module of multi-process tests (they use names of their own)."""
    with fresh_database() as url:
        yield url
