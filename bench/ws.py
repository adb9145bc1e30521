"""Websocket benchmark: racers on 2 Daphne processes with PostgreSQL and Redis, beside an echo baseline.

    python bench/ws.py                       # 200 players in races of 4, 30 s at one move a second each
    python bench/ws.py --players 40 --seconds 10 --ramp-seconds 5     # a quick run

It starts its own stack: a fresh PostgreSQL database beside DATABASE_URL (default
postgres://postgres@127.0.0.1:5432/freecell), Redis at REDIS_URL (default redis://127.0.0.1:6379/2), and
two `daphne` processes serving bench/echo.py, which adds the route /ws/echo/<room>/: a consumer on the same
stack (origin check, auth middleware, channels-redis) that answers each frame at once and relays it to
the room through the layer, with no database and no rules. Every figure is printed beside the same
figure for the echo consumer, measured in the same run:

The one-move-a-second figures are measured after `--warmup` seconds (default 5) of the same play on
the fresh servers, whose first moves open database connections and start threads.

- ack round trip: a move (or echo frame) sent -> its ack received, p50/p99
- opponent delay: a move sent -> a racer of the same race (often on the other process) sees it in a
  race frame (echo: sees the relayed frame), p50/p99
- throughput: every player sends its next move as soon as the last is acked (closed loop), at growing
  numbers of players; the best rate of validated (acked) moves per second
- the floor (bench/echo.py's /ws/floor/): the echo plus an action's three statements in one
  transaction through the database thread, no rules: ack round trip and server CPU per action at one
  a second, and closed-loop actions per second, to read what a move costs above storing it
- memory per idle connection: RSS growth of both server processes / connections held open (signed-in
  race sockets vs echo sockets), each on freshly started servers

Players choose legal moves with the engine (games.engine), client side: foundation moves first, then
builds, then free cells, undo when stuck. The load generator runs on the same box and takes its share
of the CPU. The per-socket move limit is raised for the run (WS_MOVE_RATE/WS_MOVE_BURST), as are the
REST throttles.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._server import free_port  # noqa: E402
from freecell_site.serving import DAPHNE_OPTIONS  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/freecell"
DEFAULT_REDIS = "redis://127.0.0.1:6379/2"


# --- the stack ------------------------------------------------------------------------------------


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


@contextmanager
def fresh_database(base: str):
    import psycopg

    name = f"freecell_bench_{secrets.token_hex(4)}"
    admin = with_database(base, "postgres").replace("postgres://", "postgresql://", 1)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(base, name)
    try:
        env = {**os.environ, "DATABASE_URL": url}
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Server:
    def __init__(self, env: dict):
        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.log = open(f"/tmp/bench-daphne-{self.port}.log", "w")  # noqa: SIM115
        self.process = subprocess.Popen(
            # Served as in production (freecell_site/serving.py), with the echo routes beside the service.
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), *DAPHNE_OPTIONS, "bench.echo:application"],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited, see {self.log.name}")
            try:
                with urllib.request.urlopen(self.origin + "/healthz", timeout=1):
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(0.2)
        raise RuntimeError("daphne did not start")

    def rss(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def threads(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("Threads:"):
                return int(line.split()[1])
        return 0

    def cpu(self) -> float:
        """CPU seconds used so far by the process (user + system)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()

    def ws(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"


@contextmanager
def servers(env: dict, count: int = 2):
    started = [Server(env) for _ in range(count)]
    try:
        for server in started:
            server.wait_ready()
        yield started
    finally:
        for server in started:
            server.stop()


def server_env(database: str, redis: str, layer: str = "pubsub") -> dict:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database,
        REDIS_URL=redis,
        CHANNEL_LAYER=layer,
        DJANGO_SETTINGS_MODULE="freecell_site.settings",
        DEBUG="false",
        SECURE_SSL_REDIRECT="false",
        LOG_LEVEL="WARNING",
        # Each server's sweeper makes today's and tomorrow's dailies at start: a short par search,
        # so that the solver's minutes are not in the figures.
        DAILY_PAR_BUDGET="0.2",
        WS_MOVE_RATE="100000",
        WS_MOVE_BURST="100000",
        # Every simulated player comes from 127.0.0.1, where players would come from addresses of their
        # own: the limits per address (games/sockets/limits.py) are off for the run.
        WS_SOCKETS_PER_ADDRESS="0",
        WS_ADDRESS_OPEN_BURST="0",
        WS_ADDRESS_FRAME_BURST="0",
        WS_DB_CALLS_PER_ADDRESS="0",
        ACTIONS_PER_SECOND="0",
        THROTTLE_USER="10000000/min",
        THROTTLE_MOVES="10000000/min",
        THROTTLE_ANON="10000000/min",
    )
    return env


# --- players and races (set up through the project's own services) -------------------------------


def setup_django(database: str, redis: str) -> None:
    os.environ.update(DATABASE_URL=database, REDIS_URL=redis, DJANGO_SETTINGS_MODULE="freecell_site.settings", RACE_COUNTDOWN_S="0")
    import django

    django.setup()


def make_players(count: int, prefix: str) -> list[tuple[str, str]]:
    from django.contrib.auth.models import User

    from accounts import tokens
    from accounts.models import AccessToken
    from accounts.scopes import SCOPES

    users = User.objects.bulk_create([User(username=f"{prefix}{i}", password="!") for i in range(count)])
    users = list(User.objects.filter(username__startswith=prefix).order_by("id"))
    keys = [tokens.new_key() for _ in users]
    AccessToken.objects.bulk_create(
        [AccessToken(user=u, name="bench", scopes=list(SCOPES), key_digest=tokens.digest(k), prefix=k[: tokens.SHOWN]) for u, k in zip(users, keys, strict=True)]
    )
    return [(u.username, k) for u, k in zip(users, keys, strict=True)]


def make_races(players: list[tuple[str, str]], size: int) -> list[str]:
    """Races of `size`, started at once; returns each player's race code (same order as players)."""
    from django.contrib.auth.models import User

    from games.races import services as races

    users = {u.username: u for u in User.objects.filter(username__in=[p[0] for p in players])}
    codes = []
    for start in range(0, len(players), size):
        group = [users[name] for name, _ in players[start : start + size]]
        race = races.create_race(owner=group[0], deal=f"ms:{random.randint(1, 32000)}", autoplay="safe")
        for user in group[1:]:
            races.join(code=race.code, user=user)
        races.start(code=race.code, user=group[0])
        codes += [race.code] * len(group)
    return codes


# --- measuring ------------------------------------------------------------------------------------


class Stats:
    def __init__(self):
        self.ack: list[float] = []
        self.seen: list[float] = []
        self.acked = 0
        self.cpu_ms = float("nan")
        self.errors: dict[str, int] = {}

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def choose(board, last: str | None) -> str | None:
    moves = [str(m) for m in board.legal_moves()]
    if last and len(last) >= 2:
        reverse = last[1] + last[0]
        moves = [m for m in moves if m[:2] != reverse] or moves
    if not moves:
        return None
    for prefer in (lambda m: m[1] == "h", lambda m: m[0] in "abcd", lambda m: m[1] in "12345678" and board.columns[int(m[1]) - 1]):
        best = [m for m in moves if prefer(m)]
        if best:
            return random.choice(best)
    return random.choice(moves)


class Racer:
    """One player on a race socket: plays a legal move every `interval` s (0: as soon as acked)."""

    def __init__(self, server: Server, code: str, username: str, token: str, stats: Stats, sent_at: dict):
        self.server, self.code, self.username, self.token = server, code, username, token
        self.stats, self.sent_at = stats, sent_at
        self.ws = None
        self.game = None
        self.seen_keys: set = set()
        self.ready = asyncio.Event()
        self.acked = asyncio.Event()
        self.pending: dict[str, float] = {}
        self.last_move = None

    async def connect(self):
        from websockets.asyncio.client import connect

        self.ws = await connect(self.server.ws(f"/ws/races/{self.code}/"), origin=self.server.origin, open_timeout=60, max_queue=None)
        await self.ws.send(json.dumps({"type": "auth", "token": self.token}))
        self.reader = asyncio.create_task(self.read())

    async def read(self):
        try:
            async for text in self.ws:
                now = time.perf_counter()
                frame = json.loads(text)
                kind = frame["type"]
                if kind == "ack":
                    sent = self.pending.pop(frame.get("id"), None)
                    if sent is not None:
                        self.stats.ack.append(now - sent)
                        self.stats.acked += 1
                    self.game = frame["game"]
                    self.acked.set()
                elif kind == "state":
                    if self.game is None or frame["version"] > self.game["version"]:
                        self.game = frame["game"]
                    self.ready.set()
                elif kind in ("race", "progress"):
                    for racer in frame["race"]["racers"] if kind == "race" else [frame["racer"]]:
                        key = (racer["username"], racer["moves"])
                        if racer["username"] != self.username and key not in self.seen_keys:
                            self.seen_keys.add(key)
                            sent = self.sent_at.get(key)
                            if sent is not None:
                                self.stats.seen.append(now - sent)
                elif kind == "error":
                    self.stats.error(frame["code"])
                    self.pending.pop(frame.get("id"), None)
                    if "game" in frame:
                        self.game = frame["game"]
                    self.acked.set()
        except Exception:
            pass

    async def play(self, until: float, interval: float):
        from games.engine import Board

        await asyncio.wait_for(self.ready.wait(), 30)
        if interval:
            await asyncio.sleep(random.random() * interval)
        n = 0
        while time.perf_counter() < until and self.game["status"] == "playing":
            board = Board.from_state(self.game["state"])
            move = choose(board, self.last_move)
            ply = self.game["ply"]
            frame_id = f"{self.username}-{n}"
            n += 1
            frame = {"type": "undo", "ply": ply, "id": frame_id} if move is None else {"type": "move", "move": move, "ply": ply, "id": frame_id}
            self.last_move = move
            self.acked.clear()
            start = time.perf_counter()
            self.pending[frame_id] = start
            self.sent_at[(self.username, ply + 1)] = start
            await self.ws.send(json.dumps(frame))
            try:
                await asyncio.wait_for(self.acked.wait(), 10)
            except TimeoutError:
                self.stats.error("timeout")
            if interval:
                await asyncio.sleep(max(0.0, interval - (time.perf_counter() - start)))

    async def close(self):
        await self.ws.close()
        self.reader.cancel()


class Echoer:
    """The baseline: one socket on /ws/echo/<room>/ doing what a racer does, minus rules and database."""

    def __init__(self, server: Server, room: str, name: str, stats: Stats, sent_at: dict, path: str | None = None):
        self.server, self.room, self.name, self.stats, self.sent_at = server, room, name, stats, sent_at
        self.path = path or f"/ws/echo/{room}/"
        self.acked = asyncio.Event()
        self.pending: dict[str, float] = {}

    async def connect(self):
        from websockets.asyncio.client import connect

        self.ws = await connect(self.server.ws(self.path), origin=self.server.origin, open_timeout=60, max_queue=None)
        self.reader = asyncio.create_task(self.read())

    async def read(self):
        try:
            async for text in self.ws:
                now = time.perf_counter()
                frame = json.loads(text)
                if frame["type"] == "ack":
                    sent = self.pending.pop(frame.get("id"), None)
                    if sent is not None:
                        self.stats.ack.append(now - sent)
                        self.stats.acked += 1
                    self.acked.set()
                elif frame["type"] == "relay":
                    sent = self.sent_at.get(frame["frame"].get("id"))
                    if sent is not None:
                        self.stats.seen.append(now - sent)
        except Exception:
            pass

    async def play(self, until: float, interval: float):
        if interval:
            await asyncio.sleep(random.random() * interval)
        n = 0
        while time.perf_counter() < until:
            frame_id = f"{self.name}-{n}"
            n += 1
            self.acked.clear()
            start = time.perf_counter()
            self.pending[frame_id] = self.sent_at[frame_id] = start
            await self.ws.send(json.dumps({"type": "move", "move": "5a", "ply": n, "id": frame_id}))
            try:
                await asyncio.wait_for(self.acked.wait(), 10)
            except TimeoutError:
                self.stats.error("timeout")
            if interval:
                await asyncio.sleep(max(0.0, interval - (time.perf_counter() - start)))

    async def close(self):
        await self.ws.close()
        self.reader.cancel()


async def connect_all(clients, batch: int = 50):
    for start in range(0, len(clients), batch):
        await asyncio.gather(*(c.connect() for c in clients[start : start + batch]))


async def run_load(clients, seconds: float, interval: float, stats: Stats, warmup: float = 0.0) -> float:
    """Runs every client for `warmup` seconds, forgets those figures, then runs them for `seconds`;
    returns the acked moves per second (and notes the servers' CPU time per acked move in
    `stats.cpu_ms`)."""
    await connect_all(clients)
    stack = {c.server.port: c.server for c in clients}.values()
    if warmup:
        # Freshly started servers open database connections and start threads for the first moves.
        until = time.perf_counter() + warmup
        await asyncio.gather(*(c.play(until, interval) for c in clients), return_exceptions=True)
        stats.ack.clear()
        stats.seen.clear()
    cpu_before = sum(s.cpu() for s in stack)
    until = time.perf_counter() + seconds
    began = time.perf_counter()
    acked_before = stats.acked
    await asyncio.gather(*(c.play(until, interval) for c in clients), return_exceptions=True)
    rate = (stats.acked - acked_before) / (time.perf_counter() - began)
    stats.cpu_ms = (sum(s.cpu() for s in stack) - cpu_before) * 1000 / max(1, stats.acked - acked_before)
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    return rate


def racers_for(stack, players, codes) -> tuple[list[Racer], Stats]:
    stats, sent_at = Stats(), {}
    clients = [Racer(stack[i % len(stack)], codes[i], name, token, stats, sent_at) for i, (name, token) in enumerate(players)]
    return clients, stats


def echoers_for(stack, count: int, size: int) -> tuple[list[Echoer], Stats]:
    stats, sent_at = Stats(), {}
    run = secrets.token_hex(3)
    clients = [Echoer(stack[i % len(stack)], f"r{run}x{i // size}", f"e{i}", stats, sent_at) for i in range(count)]
    return clients, stats


def floor_for(stack, count: int, size: int) -> tuple[list[Echoer], Stats]:
    """Echoers on /ws/floor/ (bench/echo.py): each stores an action of a casual game of its own per frame."""
    from django.contrib.auth.models import User

    from games.play import services

    stats, sent_at = Stats(), {}
    run = secrets.token_hex(3)
    owner = User.objects.create_user(f"floor{run}")
    games = [services.create_game(player=owner, deal="ms:1").pk for _ in range(count)]
    clients = [
        Echoer(stack[i % len(stack)], f"f{run}x{i // size}", f"f{i}", stats, sent_at, f"/ws/floor/f{run}x{i // size}/{games[i]}/")
        for i in range(count)
    ]
    return clients, stats


async def idle_memory(stack, clients) -> float:
    before = sum(s.rss() for s in stack)
    await connect_all(clients)
    await asyncio.sleep(3)
    after = sum(s.rss() for s in stack)
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    return (after - before) / len(clients)


# --- the run --------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--race-size", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30, help="length of the one-move-a-second phase")
    parser.add_argument("--ramp-seconds", type=float, default=10, help="length of each throughput step")
    parser.add_argument(
        "--warmup", type=float, default=5, help="seconds of play on fresh servers before the one-move-a-second phase is measured"
    )
    parser.add_argument("--idle", type=int, default=None, help="idle connections for the memory figure (default: players)")
    parser.add_argument(
        "--layer",
        choices=["pubsub", "lists"],
        default="pubsub",
        help="channel layer of the servers (the CHANNEL_LAYER setting): Redis pub/sub or channels-redis' list-based layer",
    )
    args = parser.parse_args()
    database_base = os.environ.get("DATABASE_URL", "").strip() or DEFAULT_DB
    redis = os.environ.get("REDIS_URL", "").strip() or DEFAULT_REDIS
    idle = args.idle or args.players
    size = args.race_size
    rows: list[tuple[str, str, str]] = []

    with fresh_database(database_base) as database:
        setup_django(database, redis)
        env = server_env(database, redis, args.layer)
        print(
            f"stack: 2 daphne processes, PostgreSQL, Redis ({args.layer} channel layer); {os.cpu_count()} CPUs,"
            f" load average {os.getloadavg()[0]:.1f}; load generator on the same box",
            flush=True,
        )

        # Memory per idle connection, each kind on freshly started servers.
        idle_players = make_players(idle, "idle")
        idle_codes = make_races(idle_players, size)
        with servers(env) as stack:
            echo_mem = asyncio.run(idle_memory(stack, echoers_for(stack, idle, size)[0]))
        with servers(env) as stack:
            game_mem = asyncio.run(idle_memory(stack, racers_for(stack, idle_players, idle_codes)[0]))
        rows.append(("memory per idle connection", f"{game_mem / 1024:.1f} KiB", f"{echo_mem / 1024:.1f} KiB"))
        print(f"memory: {idle} idle connections", flush=True)

        with servers(env) as stack:
            # One move a second per player.
            echo, echo_stats = echoers_for(stack, args.players, size)
            asyncio.run(run_load(echo, args.seconds, 1.0, echo_stats, args.warmup))
            floor, floor_stats = floor_for(stack, args.players, size)
            asyncio.run(run_load(floor, args.seconds, 1.0, floor_stats, args.warmup))
            players = make_players(args.players, "p")
            clients, stats = racers_for(stack, players, make_races(players, size))
            rate = asyncio.run(run_load(clients, args.seconds, 1.0, stats, args.warmup))
            print(f"steady: {args.players} players, {rate:.0f} moves/s, errors {stats.errors}", flush=True)
            rows.append(("ack round trip p50", f"{pct(stats.ack, 0.5) * 1000:.1f} ms", f"{pct(echo_stats.ack, 0.5) * 1000:.1f} ms"))
            rows.append(("ack round trip p99", f"{pct(stats.ack, 0.99) * 1000:.1f} ms", f"{pct(echo_stats.ack, 0.99) * 1000:.1f} ms"))
            rows.append(("opponent sees a move p50", f"{pct(stats.seen, 0.5) * 1000:.1f} ms", f"{pct(echo_stats.seen, 0.5) * 1000:.1f} ms"))
            rows.append(("opponent sees a move p99", f"{pct(stats.seen, 0.99) * 1000:.1f} ms", f"{pct(echo_stats.seen, 0.99) * 1000:.1f} ms"))
            rows.append(("moves acked at 1/s/player", f"{rate:.0f}/s ({len(stats.ack)} acks)", f"{len(echo_stats.ack)} acks"))
            rows.append(("server CPU per move (2 daphne)", f"{stats.cpu_ms:.1f} ms", f"{echo_stats.cpu_ms:.1f} ms"))
            rows.append(("the floor: ack p50 / p99", f"{pct(floor_stats.ack, 0.5) * 1000:.1f} / {pct(floor_stats.ack, 0.99) * 1000:.1f} ms", ""))
            rows.append(("the floor: server CPU per action", f"{floor_stats.cpu_ms:.1f} ms", ""))

            # Throughput: closed loop, more and more players.
            best_game = best_echo = best_floor = 0.0
            for step, count in enumerate(sorted({max(size, args.players // 4), max(size, args.players // 2), args.players})):
                echo, echo_stats = echoers_for(stack, count, size)
                echo_rate = asyncio.run(run_load(echo, args.ramp_seconds, 0, echo_stats))
                floor, floor_stats = floor_for(stack, count, size)
                floor_rate = asyncio.run(run_load(floor, args.ramp_seconds, 0, floor_stats))
                players = make_players(count, f"t{step}x")
                clients, stats = racers_for(stack, players, make_races(players, size))
                rate = asyncio.run(run_load(clients, args.ramp_seconds, 0, stats))
                print(
                    f"ramp: {count} players back to back: {rate:.0f} moves/s (ack p50 {pct(stats.ack, 0.5) * 1000:.1f} ms,"
                    f" p99 {pct(stats.ack, 0.99) * 1000:.1f} ms, daphne CPU {stats.cpu_ms:.1f} ms/move, errors {stats.errors});"
                    f" echo {echo_rate:.0f} frames/s ({echo_stats.cpu_ms:.1f} ms CPU/frame);"
                    f" floor {floor_rate:.0f} actions/s ({floor_stats.cpu_ms:.1f} ms CPU/action, ack p50 {pct(floor_stats.ack, 0.5) * 1000:.1f} ms)",
                    flush=True,
                )
                best_game, best_echo, best_floor = max(best_game, rate), max(best_echo, echo_rate), max(best_floor, floor_rate)
            rows.append(("most validated moves/s (closed-loop ramp)", f"{best_game:.0f}/s", f"{best_echo:.0f} frames/s"))
            rows.append(("the floor: echo + an action's 3 statements", f"{best_floor:.0f} actions/s", ""))

    width = max(len(r[0]) for r in rows)
    print()
    print(f"{'figure':<{width}}  {'game (rules + PostgreSQL)':>26}  {'echo baseline':>16}")
    for name, game, echo in rows:
        print(f"{name:<{width}}  {game:>26}  {echo:>16}")
    print("targets: ack p50 <= 5 ms, p99 <= 25 ms; opponent p99 <= 40 ms; >= 1,500 validated moves/s")


if __name__ == "__main__":
    main()
