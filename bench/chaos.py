"""Chaos run: players keep playing through server kills and Redis and PostgreSQL restarts, and no
acknowledged action is lost or applied twice.

    python bench/chaos.py [--players 32] [--seconds 90] [--postgres terminate|private|cluster] [--seed 1]

Starts a private Redis (a `redis-server` child on a free port, so restarting it disturbs nobody), two
Daphne processes on a fresh PostgreSQL database, and N simulated players: websocket players (the
`websockets` library) and REST players (http.client), playing solo games and races of four to a win
with winning lines from the engine's solver, with detours (a stray move, then its undo). Meanwhile the
run SIGKILLs a server process and restarts it, restarts Redis, and faults PostgreSQL: by default it
terminates every server connection to the run's own database (`pg_terminate_backend`, what a restart
does to the servers, without disturbing other users of the machine's cluster); `--postgres private`
runs on a PostgreSQL instance of the run's own (initdb in a temporary folder) and really stops it like
a crash (`pg_ctl stop -m immediate`) and starts it again; `--postgres cluster` restarts the machine's
whole cluster with `pg_ctlcluster` (which every other user of it feels).

Every client keeps the log of the actions the server acknowledged (an `ack` frame, or a 200 over
REST). On any failure it reconnects (to the other server if its own is down), resyncs from the state
frame and resends the same action with the same `ply` and `client_id` until it is answered; the
server's idempotent resend answers an action that was already stored with `repeated: true`. At the
end, each game's stored history (GET /api/games/<id>/history/) is compared with its clients' logs,
each action by its `client_id`, and `manage.py verify_games` replays every stored game.

The run prints players, actions acknowledged, lost (acknowledged but not stored: must be 0), applied
twice (one client action stored more than once: must be 0), stored but never acknowledged, and the
longest time a client could not play (from the first failed attempt of an action to its
acknowledgement), each fault with the longest outage that began during it.

tests/test_chaos.py runs a shorter version of this in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import concurrent.futures
import contextlib
import http.client
import json
import os
import pwd
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import PG, ROOT, free_port, server_env  # noqa: E402

OUT = ROOT / "bench" / "out"
PASSWORD = "chaos password 123"
ACK_TIMEOUT = 8.0  # seconds a client waits for an answer before it reconnects and resends
# Answers that say "send it again": `unavailable` is the 503 of a database that cannot be reached
# (README), which a PostgreSQL fault of the run may give; the client named an older code for it.
TRANSIENT_CODES = {"server_error", "rate_limited", "race_not_started", "daily_pending", "server_busy", "unavailable"}


# --- the stack: a private Redis, PostgreSQL, Daphne processes ------------------------------------


def wait_for(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if check():
                return
        except Exception:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not come up within {timeout:g} s")
        time.sleep(0.1)


class Redis:
    """A private redis-server child process on a fixed port, which the run may stop and start."""

    def __init__(self, port: int | None = None):
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self.ping, 10, f"redis on {self.port}")

    def ping(self) -> bool:
        import socket

        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


class Server:
    """One Daphne process on a fixed port (restarted on the same port after a kill)."""

    def __init__(self, index: int, env: dict, log_dir: Path):
        self.index = index
        self.port = free_port()
        self.env = env
        self.log = log_dir / f"server-{index}.log"
        self.proc: subprocess.Popen | None = None

    def start(self, wait: bool = True) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), "freecell_site.asgi:application"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        if wait:
            self.wait_ready()

    def wait_ready(self, timeout: float = 60) -> None:
        def healthy() -> bool:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/ping/", timeout=2) as response:
                return response.status == 200

        wait_for(healthy, timeout, f"daphne {self.index} on {self.port}")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


class Postgres:
    """The machine's shared PostgreSQL cluster (127.0.0.1:5432): a fault may only terminate this run's
    own connections, or, when asked for explicitly, restart the whole cluster (every user of it sees)."""

    kind = "shared"

    def __init__(self, port: int = 5432):
        self.port = port

    @property
    def base_url(self) -> str:
        return PG if self.port == 5432 else f"postgres://postgres@127.0.0.1:{self.port}"

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def psql(self, sql: str, database: str = "postgres") -> str:
        done = subprocess.run(
            ["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", database, "-tAc", sql],
            capture_output=True, text=True, check=True,
        )
        return done.stdout.strip()

    def create_database(self, name: str, redis_url: str) -> str:
        """Drops and creates database `name`, migrates it, returns its URL."""
        self.drop_database(name)
        subprocess.run(["createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name], check=True)
        url = f"{self.base_url}/{name}"
        env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": redis_url}
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        return url

    def drop_database(self, name: str) -> None:
        subprocess.run(
            ["dropdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "--if-exists", "--force", name],
            check=False, capture_output=True,
        )

    def terminate(self, database: str) -> str:
        killed = self.psql(
            f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '{database}' AND pid <> pg_backend_pid()"
        )
        return f"PostgreSQL: terminated all {killed} server connections to {database} (pg_terminate_backend)"

    def restart(self, database: str) -> str:
        version = sorted(os.listdir("/etc/postgresql"))[-1]
        subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"], check=True, capture_output=True)
        return f"PostgreSQL {version} cluster restarted (pg_ctlcluster restart)"


class PrivatePostgres(Postgres):
    """A PostgreSQL instance of the run's own (initdb in a temporary folder, run as the postgres user, on
    a free port), so a fault can really stop it and start it again without disturbing anyone."""

    kind = "private"

    def __init__(self):
        super().__init__(free_port())
        versions = sorted(os.listdir("/usr/lib/postgresql"), key=lambda v: int(v) if v.isdigit() else 0)
        self.bin = Path("/usr/lib/postgresql") / versions[-1] / "bin"
        self.data = Path(tempfile.mkdtemp(prefix="freecell-chaos-pg-"))
        shutil.chown(self.data, "postgres", "postgres")
        self.as_postgres([str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"])

    @staticmethod
    def available() -> bool:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return False
        return os.geteuid() == 0 and Path("/usr/lib/postgresql").is_dir() and bool(shutil.which("runuser"))

    def as_postgres(self, command: list[str]) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *command], check=True, capture_output=True, cwd="/tmp")

    def pg_ctl(self, *args: str) -> None:
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c max_connections=200"
        self.as_postgres([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.data / "log"), "-o", options, "-w", *args])

    def start(self) -> None:
        self.pg_ctl("start")

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.pg_ctl("stop", "-m", "fast")
        shutil.rmtree(self.data, ignore_errors=True)

    def restart(self, database: str, down_s: float = 1.0) -> str:
        # "immediate" is a crash as far as the data is concerned: no shutdown checkpoint, recovery from
        # the write-ahead log at the next start.
        self.pg_ctl("stop", "-m", "immediate")
        time.sleep(down_s)
        self.pg_ctl("start")
        return f"PostgreSQL (the run's own instance) stopped like a crash, down {down_s:g} s, started (WAL recovery)"


SEED_SCRIPT = """
import json, os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "freecell_site.settings")
import django
django.setup()
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from accounts import tokens
from accounts.models import AccessToken
from accounts.scopes import SCOPES
prefix, count, password = sys.argv[1], int(sys.argv[2]), sys.argv[3]
hashed = make_password(password)
User.objects.bulk_create([User(username=f"{prefix}{i}", password=hashed) for i in range(count)])
users = list(User.objects.filter(username__startswith=prefix).order_by("id"))
keys = [tokens.new_key() for _ in users]
AccessToken.objects.bulk_create([AccessToken(user=u, name="bench", scopes=list(SCOPES), key_digest=tokens.digest(k), prefix=k[:8]) for u, k in zip(users, keys)])
print(json.dumps([[u.username, k] for u, k in zip(users, keys)]))
"""


def seed_players(database_url: str, prefix: str, count: int) -> list[tuple[str, str]]:
    """Accounts with tokens, made directly in the database (one password hash for all: sign-up's
    deliberately slow hashing is not what these runs measure)."""
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": ""}
    done = subprocess.run(
        [sys.executable, "-c", SEED_SCRIPT, prefix, str(count), PASSWORD], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return [tuple(pair) for pair in json.loads(done.stdout.strip().splitlines()[-1])]


# --- what the clients record ---------------------------------------------------------------------


class Transient(Exception):
    """A failure after which the client reconnects and resends the same action."""


@dataclass
class Intent:
    """One player action as the client means it; resent unchanged until answered."""

    game: int
    kind: str
    move: str | None
    ply: int
    client_id: str
    first_sent: float = 0.0
    first_failure: float | None = None
    attempts: int = 0


@dataclass
class Stats:
    started: float = field(default_factory=time.monotonic)
    acked: dict = field(default_factory=lambda: collections.defaultdict(list))  # game -> [(index, kind, move, client_id)]
    acked_count: int = 0
    repeated: int = 0  # acks that answered a resend of an action already stored
    retries: int = 0
    refusals: collections.Counter = field(default_factory=collections.Counter)  # definitive errors (anomalies)
    failures: collections.Counter = field(default_factory=collections.Counter)  # transient failures by kind
    outages: list = field(default_factory=list)  # (began, seconds, what)
    games: dict = field(default_factory=dict)  # game id -> the index of its player
    won: int = 0
    races: int = 0
    ack_ms: list = field(default_factory=list)

    def outage(self, began: float, what: str) -> None:
        self.outages.append((began - self.started, time.monotonic() - began, what))


# --- clients -------------------------------------------------------------------------------------


class Rest:
    """A tiny blocking JSON client (one connection per request, so a killed server leaves nothing stale)."""

    def __init__(self, ports: list[int], home: int, token: str | None = None):
        self.ports, self.home, self.token = ports, home, token

    def call(self, method: str, path: str, body: dict | None = None, port: int | None = None) -> tuple[int, dict]:
        conn = http.client.HTTPConnection("127.0.0.1", port or self.ports[self.home], timeout=ACK_TIMEOUT)
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        try:
            conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
            response = conn.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as exc:
            raise Transient(f"http {type(exc).__name__}") from None
        finally:
            conn.close()
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            data = {"raw": raw[:200].decode("latin1")}
        if response.status >= 500:
            raise Transient(f"http {response.status}")
        return response.status, data

    def send_and_hang_up(self, path: str, body: dict) -> None:
        """Sends a POST and closes the connection without reading the answer (a lost response)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.ports[self.home], timeout=ACK_TIMEOUT)
        headers = {"Content-Type": "application/json", "Authorization": f"Token {self.token}"}
        with contextlib.suppress(OSError, http.client.HTTPException):
            conn.request("POST", path, body=json.dumps(body), headers=headers)
            time.sleep(0.005)
        conn.close()

    def failover(self) -> None:
        self.home = (self.home + 1) % len(self.ports)


class Player:
    """One simulated player with an account, a transport (ws or rest) and a home server."""

    def __init__(self, run: Run, index: int, username: str, token: str, transport: str):
        self.run, self.index, self.username, self.token, self.transport = run, index, username, token, transport
        self.rest = Rest(run.ports, index % len(run.ports), token)
        self.rng = random.Random(run.seed * 1000 + index)
        self.seq = 0

    # -- plumbing --

    async def call(self, method: str, path: str, body: dict | None = None, ok=(200, 201)) -> dict:
        """A REST call retried through failures until it gets a non-5xx answer."""
        began = None
        delay = 0.1
        while True:
            try:
                status, data = await asyncio.to_thread(self.rest.call, method, path, body)
            except Transient as exc:
                self.run.stats.failures[str(exc)] += 1
                began = began or time.monotonic()
                self.rest.failover()
                await asyncio.sleep(delay * (0.5 + self.rng.random()))
                delay = min(1.0, delay * 2)
                continue
            if began is not None:
                self.run.stats.outage(began, f"{self.username} {method} {path}")
            if status not in ok:
                raise RuntimeError(f"{self.username}: {method} {path} answered {status} {data}")
            return data

    def drops(self) -> bool:
        """Whether to lose the answer to this attempt (the client's own fault: a dropped connection)."""
        return self.rng.random() < self.run.drop_rate

    def intent(self, game: dict, kind: str, move: str | None) -> Intent:
        self.seq += 1
        return Intent(game=game["id"], kind=kind, move=move, ply=game["ply"], client_id=f"{self.username}.{self.seq}")

    # -- one game --

    async def play(self, game_id: int, race_code: str | None = None) -> None:
        link = WsLink(self, game_id, race_code) if self.transport == "ws" else RestLink(self, game_id)
        stats = self.run.stats
        stats.games[game_id] = self.index
        planner = Planner(self.rng)
        try:
            game = await self.deliver_open(link)
            while game["status"] == "playing" and not self.run.stopping:
                kind, move = planner.next(game)
                if kind == "resign":
                    await link.resign()
                    return
                intent = self.intent(game, kind, move)
                await asyncio.sleep(self.run.think * (0.5 + self.rng.random()))
                answer = await self.deliver(link, intent)
                if answer["type"] == "ack":
                    action = answer["action"]
                    stats.acked[game_id].append((action["index"], action["kind"], action["move"], intent.client_id))
                    stats.acked_count += 1
                    stats.repeated += bool(answer.get("repeated"))
                    game = answer["game"]
                    planner.acked(kind, game)
                else:
                    stats.refusals[answer.get("code")] += 1
                    planner.forget()
                    game = await self.deliver_open(link)
            if game["status"] == "won":
                stats.won += 1
        finally:
            await link.close()

    async def deliver_open(self, link) -> dict:
        began, delay = None, 0.1
        while True:
            try:
                game = await link.open()
                if began is not None:
                    self.run.stats.outage(began, f"{self.username} reconnect")
                return game
            except Transient as exc:  # the link has already reset itself (and moved to the other server)
                self.run.stats.failures[str(exc)] += 1
                began = began or time.monotonic()
                await asyncio.sleep(delay * (0.5 + self.rng.random()))
                delay = min(1.0, delay * 2)

    async def deliver(self, link, intent: Intent) -> dict:
        """Sends the action until it is answered; transient failures reconnect and resend it unchanged."""
        stats = self.run.stats
        intent.first_sent = time.monotonic()
        delay = 0.1
        while True:
            intent.attempts += 1
            try:
                if not link.connected:
                    await link.open()
                sent = time.monotonic()
                answer = await link.send(intent)
            except Transient as exc:
                stats.failures[str(exc)] += 1
                answer = None
            if answer is not None and answer["type"] == "ack":
                if intent.first_failure is None:
                    stats.ack_ms.append((time.monotonic() - sent) * 1000)
                else:
                    stats.outage(intent.first_failure, f"{self.username} {intent.kind} at ply {intent.ply}")
                return answer
            if answer is not None and answer.get("code") not in TRANSIENT_CODES:
                return answer
            if answer is not None:
                stats.failures[f"error {answer.get('code')}"] += 1
            stats.retries += 1
            intent.first_failure = intent.first_failure or time.monotonic()
            await asyncio.sleep(delay * (0.5 + self.rng.random()))
            delay = min(1.0, delay * 2)


class RestLink:
    connected = True

    def __init__(self, player: Player, game_id: int):
        self.player, self.game_id = player, game_id

    async def open(self) -> dict:
        status, game = await self.request("GET", f"/api/games/{self.game_id}/")
        if status != 200:
            raise RuntimeError(f"GET game {self.game_id}: {status} {game}")
        return game

    async def send(self, intent: Intent) -> dict:
        body = {"ply": intent.ply, "client_id": intent.client_id}
        if intent.kind == "move":
            body["move"] = intent.move
        path = f"/api/games/{intent.game}/{'moves' if intent.kind == 'move' else 'undo'}/"
        if self.player.drops():
            await asyncio.to_thread(self.player.rest.send_and_hang_up, path, body)
            self.player.rest.failover()
            raise Transient("client hung up after sending")
        status, data = await self.request("POST", path, body)
        if status == 200:
            return {"type": "ack", "action": data["action"], "game": data, "repeated": data.get("repeated")}
        return {"type": "error", **data.get("error", {"code": f"http_{status}"})}

    async def resign(self) -> None:
        await self.player.call("POST", f"/api/games/{self.game_id}/resign/", ok=(200, 409))

    async def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        try:
            return await asyncio.to_thread(self.player.rest.call, method, path, body)
        except Transient:
            self.player.rest.failover()  # a load balancer would send the retry elsewhere
            raise

    async def close(self) -> None:
        pass


class WsLink:
    """A game socket (or, for a racer, the race socket), authenticated with the token frame."""

    def __init__(self, player: Player, game_id: int, race_code: str | None):
        self.player, self.game_id, self.race_code = player, game_id, race_code
        self.ws = None
        self.home = player.index % len(player.run.ports)
        self.frames = 0

    @property
    def connected(self) -> bool:
        return self.ws is not None

    async def open(self) -> dict:
        from websockets.asyncio.client import connect

        await self.close()
        port = self.player.run.ports[self.home]
        path = f"/ws/races/{self.race_code}/" if self.race_code else f"/ws/games/{self.game_id}/"
        try:
            self.ws = await connect(
                f"ws://127.0.0.1:{port}{path}", origin=f"http://127.0.0.1:{port}", open_timeout=5, close_timeout=1, max_size=2**22
            )
            await self.ws.send(json.dumps({"type": "auth", "token": self.player.token, "id": "auth"}))
            authed, game = False, None
            while not (authed and game is not None):
                frame = await self.recv()
                if frame["type"] == "auth_ok":
                    authed = True
                elif frame["type"] == "state" and frame["game"]["id"] == self.game_id:
                    game = frame["game"]
                elif frame["type"] == "error" and frame.get("code") not in ("rate_limited",):
                    raise Transient(f"ws open {frame.get('code')}")
            return game
        except Transient:
            await self.reset()
            raise
        except Exception as exc:
            await self.reset()
            raise Transient(f"ws open {type(exc).__name__}") from None

    async def recv(self) -> dict:
        return json.loads(await asyncio.wait_for(self.ws.recv(), ACK_TIMEOUT))

    async def send(self, intent: Intent) -> dict:
        self.frames += 1
        frame = {"type": intent.kind, "ply": intent.ply, "client_id": intent.client_id, "id": self.frames}
        if intent.move is not None:
            frame["move"] = intent.move
        try:
            await self.ws.send(json.dumps(frame))
            if self.player.drops():
                await asyncio.sleep(0.005)
                await self.reset()
                raise Transient("client dropped its socket after sending")
            while True:
                answer = await self.recv()
                if answer.get("id") == self.frames and answer["type"] in ("ack", "error"):
                    return answer
        except Transient:
            raise
        except Exception as exc:
            await self.reset()
            raise Transient(f"ws {type(exc).__name__}") from None

    async def resign(self) -> None:
        if self.race_code:
            await self.player.call("POST", f"/api/races/{self.race_code}/resign/", ok=(200, 403, 409))
        else:
            await self.player.call("POST", f"/api/games/{self.game_id}/resign/", ok=(200, 409))

    async def reset(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        self.ws = None
        self.home = (self.home + 1) % len(self.player.run.ports)  # a load balancer would send us elsewhere

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 2)
        self.ws = None


class Planner:
    """Chooses the next action: the solver's winning line, with detours (a stray move, then its undo)."""

    DETOUR = 0.08

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.plan: list[str] = []
        self.plan_ply: int | None = None
        self.undo_next = False

    def forget(self) -> None:
        self.plan, self.plan_ply, self.undo_next = [], None, False

    def next(self, game: dict) -> tuple[str, str | None]:
        from games.engine import Board
        from games.engine.solver import solve

        if self.undo_next:
            return "undo", None
        board = Board.from_state(game["state"])
        if self.plan_ply != game["ply"] or not self.plan:
            solution = solve(board, autoplay=game["autoplay"], budget=5)
            if solution.result != "solved" or not solution.moves:
                return "resign", None
            self.plan, self.plan_ply = [str(m) for m in solution.moves], game["ply"]
        if self.rng.random() < self.DETOUR:
            stray = [str(m) for m in board.legal_moves() if str(m) != self.plan[0]]
            if stray:
                self.undo_next = True
                return "move", self.rng.choice(stray)
        return "move", self.plan[0]

    def acked(self, kind: str, game: dict) -> None:
        if kind == "undo":
            self.undo_next = False
            self.plan_ply = game["ply"]
        elif not self.undo_next:  # a detour's stray move leaves the plan as it was: its undo comes next
            self.plan.pop(0)
            self.plan_ply = game["ply"]


# --- the run -------------------------------------------------------------------------------------

DEALS = [f"ms:{n}" for n in range(1, 41)]


class Run:
    def __init__(self, *, ports: list[int], accounts: list[tuple[str, str]], seconds: float, think: float, seed: int,
                 race_share: float, rest_share: float, drop_rate: float = 0.02):
        self.ports = ports
        self.drop_rate = drop_rate
        self.seconds = seconds
        self.think = think
        self.seed = seed
        self.stats = Stats()
        self.stopping = False
        rng = random.Random(seed)
        self.players: list[Player] = []
        for index, (username, token) in enumerate(accounts):
            transport = "rest" if rng.random() < rest_share else "ws"
            self.players.append(Player(self, index, username, token, transport))
        racing = int(len(self.players) * race_share) // 4 * 4
        self.groups = [self.players[i : i + 4] for i in range(0, racing, 4)]
        self.solo = self.players[racing:]

    async def solo_player(self, player: Player) -> None:
        while not self.stopping:
            deal = player.rng.choice(DEALS)
            game = await player.call("POST", "/api/games/", {"deal": deal, "autoplay": "safe"})
            await player.play(game["id"])

    async def race_group(self, racers: list[Player]) -> None:
        owner = racers[0]
        while not self.stopping:
            race = await owner.call("POST", "/api/races/", {"deal": owner.rng.choice(DEALS), "autoplay": "safe"})
            code = race["code"]
            for racer in racers[1:]:
                await racer.call("POST", f"/api/races/{code}/join/")
            await owner.call("POST", f"/api/races/{code}/start/")
            games: dict[str, int] = {}
            while len(games) < len(racers):
                await asyncio.sleep(0.5)
                race = await owner.call("GET", f"/api/races/{code}/")
                games = {r["username"]: r["game"] for r in race["racers"] if r["game"]}
            self.stats.races += 1
            await asyncio.gather(*(racer.play(games[racer.username], race_code=code) for racer in racers))

    async def play(self, faults) -> None:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(max_workers=len(self.players) + 8))
        tasks = [asyncio.create_task(self.solo_player(p)) for p in self.solo]
        tasks += [asyncio.create_task(self.race_group(g)) for g in self.groups]
        fault_task = asyncio.create_task(faults(self))
        deadline = self.stats.started + self.seconds
        while time.monotonic() < deadline:
            await asyncio.sleep(min(5.0, deadline - time.monotonic()))
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed:
                raise failed[0].exception()
            print(f"  {time.monotonic() - self.stats.started:5.0f} s: {self.stats.acked_count} actions acknowledged, "
                  f"{self.stats.retries} resends, {sum(self.stats.refusals.values())} refusals", flush=True)
        self.stopping = True
        await fault_task
        await asyncio.wait_for(asyncio.gather(*tasks), 120)


@dataclass
class Fault:
    at: float
    kind: str
    target: int = 0


def fault_schedule(seconds: float, kinds: list[str]) -> list[Fault]:
    """Faults spread over the first 80% of the run, so the end is quiet and everything settles."""
    step = seconds * 0.8 / (len(kinds) + 1)
    faults = []
    for i, kind in enumerate(kinds):
        name, _, target = kind.partition(":")
        faults.append(Fault(at=step * (i + 1), kind=name, target=int(target or 0)))
    return faults


class Faults:
    """Applies the schedule: SIGKILL and restart of a server, Redis restart, PostgreSQL fault."""

    def __init__(self, schedule: list[Fault], servers: list[Server], redis: Redis, postgres: Postgres, database: str,
                 postgres_fault: str, down_s: float = 2.0):
        self.schedule, self.servers, self.redis, self.postgres = schedule, servers, redis, postgres
        self.database, self.postgres_fault, self.down_s = database, postgres_fault, down_s
        self.log: list[tuple[float, float, str]] = []  # (began, ended, what), seconds after the start

    async def __call__(self, run: Run) -> None:
        for fault in self.schedule:
            wait = run.stats.started + fault.at - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if run.stopping:
                return
            began = time.monotonic() - run.stats.started
            what = await asyncio.to_thread(self.apply, fault)
            self.log.append((began, time.monotonic() - run.stats.started, what))
            print(f"  {began:5.0f} s: {what}", flush=True)

    def apply(self, fault: Fault) -> str:
        if fault.kind == "kill":
            server = self.servers[fault.target]
            server.kill()
            time.sleep(self.down_s)
            server.start(wait=False)
            server.wait_ready()
            return f"SIGKILL server {fault.target} (port {server.port}), restarted after {self.down_s:g} s"
        if fault.kind == "redis":
            self.redis.stop()
            time.sleep(self.down_s)
            self.redis.start()
            return f"Redis stopped for {self.down_s:g} s and restarted (empty)"
        if fault.kind == "postgres":
            if self.postgres_fault == "restart":
                return self.postgres.restart(self.database)
            return self.postgres.terminate(self.database)
        raise ValueError(fault.kind)


# --- checking ------------------------------------------------------------------------------------


@dataclass
class Verdict:
    players: int
    acked: int
    lost: int
    twice: int
    unacked: int
    games: int
    stored_total: int
    longest_outage_s: float
    longest_what: str
    verify_games: str
    details: list[str]


def check(run: Run, database_url: str, database: str, postgres: Postgres) -> Verdict:
    stats = run.stats
    lost = twice = unacked = 0
    details: list[str] = []
    for game_id in sorted(stats.games):
        # Read as its own player: a racer's game is hidden from the other racers until the race is over.
        rest = Rest(run.ports, 0, run.players[stats.games[game_id]].token)
        status, history = rest.call("GET", f"/api/games/{game_id}/history/")
        assert status == 200, (game_id, status, history)
        stored = [(a["index"], a["kind"], a["move"]) for a in history["actions"]]
        acked = stats.acked.get(game_id, [])
        # Each acknowledged action by its client_id (unique per intended action): stored exactly once,
        # at the index and with the move the ack named.
        ids = dict(psql_rows(postgres, database, f"SELECT index, client_id FROM games_action WHERE game_id = {int(game_id)}"))
        by_id = collections.Counter(ids.values())
        for index, kind, move, client_id in acked:
            if by_id[client_id] == 0 or (index, kind, move) not in stored or ids.get(index) != client_id:
                lost += 1
                details.append(f"game {game_id}: acknowledged {kind} {move} at {index} ({client_id}) is not stored")
        acked_ids = {a[3] for a in acked}
        for client_id, count in by_id.items():
            if count > 1:
                twice += count - 1
                details.append(f"game {game_id}: {client_id} stored {count} times")
            if client_id not in acked_ids:
                unacked += 1
                details.append(f"game {game_id}: {client_id} stored but never acknowledged")
    stored_total = int(postgres.psql("SELECT count(*) FROM games_action", database))
    done = subprocess.run(
        [sys.executable, "manage.py", "verify_games", "--quiet"],
        cwd=ROOT, env={**os.environ, "DATABASE_URL": database_url, "REDIS_URL": run_redis_url(run)}, capture_output=True, text=True,
    )
    verify = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    worst = max(stats.outages, key=lambda o: o[1], default=(0.0, 0.0, "none"))
    return Verdict(
        players=len(run.players), acked=stats.acked_count, lost=lost, twice=twice, unacked=unacked, games=len(stats.games),
        stored_total=stored_total, longest_outage_s=worst[1], longest_what=f"{worst[2]} at {worst[0]:.0f} s", verify_games=verify, details=details,
    )


def psql_rows(postgres: Postgres, database: str, sql: str) -> list[tuple[int, str]]:
    out = postgres.psql(sql, database)
    rows = []
    for line in out.splitlines():
        index, _, client_id = line.partition("|")
        rows.append((int(index), client_id))
    return rows


def run_redis_url(run: Run) -> str:
    return getattr(run, "redis_url", "")


def report(run: Run, verdict: Verdict, faults: Faults, server_errors: int) -> str:
    stats = run.stats
    transports = collections.Counter(p.transport for p in run.players)
    lines = [
        f"players                 {verdict.players} ({transports['ws']} websocket, {transports['rest']} REST; "
        f"{len(run.groups)} race groups of 4, {len(run.solo)} solo)",
        f"games played            {verdict.games} ({stats.won} won, {stats.races} races)",
        f"actions acknowledged    {verdict.acked} (stored in total: {verdict.stored_total})",
        f"actions lost            {verdict.lost}",
        f"actions applied twice   {verdict.twice}",
        f"stored, never acked     {verdict.unacked}",
        f"resends                 {stats.retries} ({stats.repeated} answered as repeats of a stored action)",
        f"longest time unable to play  {verdict.longest_outage_s:.2f} s ({verdict.longest_what})",
        f"ack p50/p99 (no fault)  {pct(stats.ack_ms, 50):.1f} / {pct(stats.ack_ms, 99):.1f} ms",
        f"refusals (anomalies)    {dict(stats.refusals) or 0}",
        f"transient failures      {dict(stats.failures.most_common(8))}",
        f"server tracebacks logged {server_errors}",
        f"verify_games            {verdict.verify_games}",
        "faults:",
    ]
    for (began, ended, what), outages in zip(faults.log, outages_by_fault(stats.outages, faults.log), strict=True):
        longest = max((o[1] for o in outages), default=0.0)
        lines.append(f"  {began:5.1f}-{ended:5.1f} s  {what}: {len(outages)} outages, longest {longest:.2f} s")
    lines += [f"  ! {d}" for d in verdict.details[:20]]
    return "\n".join(lines)


def outages_by_fault(outages: list, log: list) -> list[list]:
    """Each outage under the last fault that began before it (and ended at most 5 s before it)."""
    grouped: list[list] = [[] for _ in log]
    for outage in outages:
        for i in range(len(log) - 1, -1, -1):
            began, ended, _what = log[i]
            if began <= outage[0]:
                if outage[0] <= ended + 5:
                    grouped[i].append(outage)
                break
    return grouped


def pct(values: list[float], q: float) -> float:
    from bench._server import percentile

    return percentile(values, q) if values else float("nan")


def server_tracebacks(servers: list[Server]) -> int:
    return sum(s.log.read_text(errors="replace").count("Traceback") for s in servers if s.log.exists())


@contextlib.contextmanager
def stack(*, name: str, servers: int = 2, extra_env: dict | None = None, postgres: Postgres | None = None):
    """A private Redis, a fresh database and Daphne processes; yields (database_url, redis, servers)."""
    log_dir = OUT / name
    log_dir.mkdir(parents=True, exist_ok=True)
    for old in log_dir.glob("server-*.log"):
        old.unlink()
    postgres = postgres or Postgres()
    redis = Redis()
    procs: list[Server] = []
    try:
        postgres.start()
        redis.start()
        url = postgres.create_database(name, redis.url)
        # Every client comes from 127.0.0.1: the limits per address (games/sockets/limits.py) are off.
        limits_off = {"WS_SOCKETS_PER_ADDRESS": "0", "WS_ADDRESS_OPEN_BURST": "0", "WS_ADDRESS_FRAME_BURST": "0", "WS_DB_CALLS_PER_ADDRESS": "0"}
        env = server_env(url, REDIS_URL=redis.url, **{**limits_off, **(extra_env or {})})
        procs = [Server(i, env, log_dir) for i in range(servers)]
        for server in procs:
            server.start(wait=False)
        for server in procs:
            server.wait_ready()
        yield url, redis, procs
    finally:
        for server in procs:
            server.stop()
        redis.stop()
        postgres.drop_database(name)
        postgres.stop()


def drop_database(name: str) -> None:
    Postgres().drop_database(name)


def chaos(*, players: int, seconds: float, think: float, seed: int, faults: list[str], name: str,
          postgres: str = "terminate", race_share: float = 0.4, rest_share: float = 0.3) -> tuple[Run, Verdict, str]:
    """Runs the whole thing; returns the run, the verdict and the printed report.

    postgres: "terminate" (end this run's connections on the shared cluster), "private" (a PostgreSQL of
    the run's own, stopped like a crash and started again) or "cluster" (restart the shared cluster)."""
    instance = PrivatePostgres() if postgres == "private" else Postgres()
    with stack(name=name, postgres=instance) as (url, redis, servers):
        accounts = seed_players(url, "p", players)
        run = Run(ports=[s.port for s in servers], accounts=accounts, seconds=seconds, think=think, seed=seed,
                  race_share=race_share, rest_share=rest_share)
        run.redis_url = redis.url
        fault = "terminate" if postgres == "terminate" else "restart"
        schedule = Faults(fault_schedule(seconds, faults), servers, redis, instance, name, fault)
        asyncio.run(run.play(schedule))
        verdict = check(run, url, name, instance)
        text = report(run, verdict, schedule, server_tracebacks(servers))
    return run, verdict, text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=90)
    parser.add_argument("--think", type=float, default=0.3, help="mean seconds between a player's actions")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", choices=["terminate", "private", "cluster"], default="terminate",
                        help="the PostgreSQL fault: terminate this run's connections on the machine's cluster (default); "
                        "private: run on a PostgreSQL of the run's own and crash-stop and start it; cluster: restart the "
                        "machine's whole cluster with pg_ctlcluster (disturbs every other user of it)")
    parser.add_argument("--faults", default="kill:0,redis,postgres,kill:1,redis,postgres",
                        help="comma-separated: kill:<server>, redis, postgres (spread over the run)")
    args = parser.parse_args()
    print(f"chaos: {args.players} players for {args.seconds:g} s on 2 Daphne processes, PostgreSQL and a private Redis")
    print(f"PostgreSQL fault: {args.postgres}")
    _run, verdict, text = chaos(players=args.players, seconds=args.seconds, think=args.think, seed=args.seed,
                                postgres=args.postgres, faults=args.faults.split(","), name="freecell_bench_chaos")
    print(text)
    sys.exit(0 if verdict.lost == 0 and verdict.twice == 0 and verdict.unacked == 0 else 1)


if __name__ == "__main__":
    main()
