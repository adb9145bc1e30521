"""Idle sockets: what thousands of open, signed-in game sockets cost a server, and another player.

    python bench/idle.py                          # 10,000 idle sockets on one Daphne, 20 s of play beside them
    python bench/idle.py --idle 2000 --servers 2 --seconds 10
    python bench/idle.py --kind streams --idle 1000   # held ndjson game streams instead of sockets

It starts its own stack (bench/ws.py's: a fresh PostgreSQL database beside DATABASE_URL, Redis at
REDIS_URL, `--servers` Daphne processes), then measures, in the same run:

1. another player's ack round trip (two racers at one move a second each) with no idle socket open;
2. the same while `--idle` game sockets stay open, each signed in with a token (an account per 10
   sockets) on a casual game of its own, saying nothing but answering heartbeats (`--kind streams`:
   held `GET /api/stream/games/<id>/` streams, signed in the same way, reading their keepalives);
3. the servers' memory growth per idle socket, their threads, and their CPU per second while the
   sockets sit idle.

The idle sockets are held by a process of their own on the same box, which takes its share of the
CPU; the other player's client runs in this one. Held in the same process (before 2026-12-06), the
10,000 sockets' heartbeats and its garbage collections held the measuring client's interpreter too, and
what was timed as the server's ack was partly the client's own wait (`--same-process` measures that way).

What holds a server's loop is logged to /tmp/bench-daphne-<port>.log with BENCH_LOG_GC=1 (each
collection over 50 ms), BENCH_LOG_GC=totals (each generation's collections every 10 s, on the CPU
clock), BENCH_LOG_GC=types (what fills the oldest generation) and BENCH_LOG_LAG=1 (how late the loop
wakes a 10 ms sleep, every 10 s): bench/echo.py. The servers' own settings come from the environment
(`GC_FREEZE_AFTER_MS=20 GC_FULL_AFTER_MIDDLE=10` runs the collector as before 2026-12-06).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ws import (  # noqa: E402
    DEFAULT_DB,
    DEFAULT_REDIS,
    fresh_database,
    make_players,
    make_races,
    pct,
    racers_for,
    run_load,
    server_env,
    servers,
    setup_django,
)

SOCKETS_PER_ACCOUNT = 10


def make_idle_games(players: list[tuple[str, str]]) -> list[int]:
    """A casual game for each idle account (through the one path that deals games)."""
    from django.contrib.auth.models import User

    from games.play import services

    users = User.objects.filter(username__in=[name for name, _ in players]).order_by("id")
    return [services.create_game(player=user, deal="ms:1").pk for user in users]


class Endpoint:
    """A server as the idle connections' process knows it: its port (bench.ws.Server has the same
    `ws`, `origin` and `port`, but holds the process, which stays with this one)."""

    def __init__(self, port: int):
        self.port = port
        self.origin = f"http://127.0.0.1:{port}"

    def ws(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"


class Idle:
    """One signed-in game socket that answers heartbeats with a ping and says nothing else."""

    def __init__(self, server, game: int, token: str):
        self.server, self.game, self.token = server, game, token
        self.opened = asyncio.Event()

    async def connect(self):
        from websockets.asyncio.client import connect

        self.ws = await connect(self.server.ws(f"/ws/games/{self.game}/"), origin=self.server.origin, open_timeout=120, max_queue=None)
        await self.ws.send(json.dumps({"type": "auth", "token": self.token}))
        self.reader = asyncio.create_task(self.read())

    async def read(self):
        try:
            async for text in self.ws:
                if json.loads(text).get("type") == "heartbeat":
                    await self.ws.send('{"type":"ping"}')
        except Exception:
            pass

    async def close(self):
        await self.ws.close()
        self.reader.cancel()


class IdleStream:
    """One held `GET /api/stream/games/<id>/`, signed in with a token, reading its lines."""

    def __init__(self, server, game: int, token: str):
        self.server, self.game, self.token = server, game, token
        self.open = False

    async def connect(self):
        reader, self.writer = await asyncio.open_connection("127.0.0.1", self.server.port)
        self.writer.write(
            f"GET /api/stream/games/{self.game}/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Token {self.token}\r\n\r\n".encode()
        )
        status = await asyncio.wait_for(reader.readline(), 120)
        if b" 200 " not in status:
            raise RuntimeError(f"stream refused: {status!r}")
        while (await reader.readline()).strip():
            pass  # the headers
        self.open = True
        self.reader = asyncio.create_task(self.read(reader))

    async def read(self, reader):
        try:
            while await reader.read(65536):
                pass
        except Exception:
            pass
        self.open = False

    async def close(self):
        self.writer.close()
        self.reader.cancel()


async def open_idle(stack, games: list[int], tokens: list[str], batch: int, kind: str) -> tuple[list, float]:
    holder = IdleStream if kind == "streams" else Idle
    sockets = [holder(stack[i % len(stack)], game, tokens[i // SOCKETS_PER_ACCOUNT]) for i, game in enumerate(games)]
    began = time.perf_counter()
    for start in range(0, len(sockets), batch):
        await asyncio.gather(*(s.connect() for s in sockets[start : start + batch]))
    return sockets, time.perf_counter() - began


def is_open(connection, kind: str) -> bool:
    return connection.open if kind == "streams" else connection.ws.state.name == "OPEN"


def hold(ports: list[int], games: list[int], tokens: list[str], batch: int, kind: str, pipe) -> None:
    """In a process of its own: opens the idle connections, sends how long that took, then answers
    "count" with how many are open, until told "close"."""

    async def held() -> None:
        connections, took = await open_idle([Endpoint(port) for port in ports], games, tokens, batch, kind)
        pipe.send(took)
        while await asyncio.to_thread(pipe.recv) == "count":
            pipe.send(sum(1 for c in connections if is_open(c, kind)))
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)

    asyncio.run(held())


class Holder:
    """The idle connections, held by a process of their own (`hold`) for as long as the `with` lasts."""

    def __init__(self, ports: list[int], games: list[int], tokens: list[str], batch: int, kind: str):
        context = multiprocessing.get_context("spawn")
        self.pipe, self.theirs = context.Pipe()
        self.process = context.Process(target=hold, args=(ports, games, tokens, batch, kind, self.theirs), daemon=True)

    def __enter__(self) -> Holder:
        self.process.start()
        self.theirs.close()  # the child has its own: a child that dies ends this end's reads (EOFError)
        return self

    def opened(self) -> float:
        """Waits until they are open; the seconds opening them took."""
        return self.pipe.recv()

    def count(self) -> int:
        self.pipe.send("count")
        return self.pipe.recv()

    def __exit__(self, *exc) -> None:
        if self.process.is_alive():
            self.pipe.send("close")
        self.process.join(120)
        if self.process.is_alive():
            self.process.kill()


def play_figures(stack, players, codes, seconds: float) -> tuple[float, float, float, dict]:
    clients, stats = racers_for(stack, players, codes)
    asyncio.run(run_load(clients, seconds, 1.0, stats, warmup=2.0))
    return pct(stats.ack, 0.5) * 1000, pct(stats.ack, 0.99) * 1000, stats.cpu_ms, stats.errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--idle", type=int, default=10_000)
    parser.add_argument("--servers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=20, help="length of each measure of another player's acks")
    parser.add_argument("--batch", type=int, default=100, help="sockets opened at once")
    parser.add_argument("--kind", choices=["sockets", "streams"], default="sockets", help="what to hold open")
    parser.add_argument(
        "--same-process", action="store_true", help="hold the idle connections in the measuring process, as before 2026-12-06"
    )
    args = parser.parse_args()
    database_base = os.environ.get("DATABASE_URL", DEFAULT_DB)
    redis = os.environ.get("REDIS_URL", DEFAULT_REDIS)
    with fresh_database(database_base) as database:
        setup_django(database, redis)
        accounts = -(-args.idle // SOCKETS_PER_ACCOUNT)
        idle_players = make_players(accounts, "idle")
        games = [game for game in make_idle_games(idle_players) for _ in range(SOCKETS_PER_ACCOUNT)][: args.idle]
        first, second = make_players(2, "quiet"), make_players(2, "beside")
        first_codes, second_codes = make_races(first, 2), make_races(second, 2)
        env = server_env(database, redis)
        with servers(env, args.servers) as stack:
            quiet = play_figures(stack, first, first_codes, args.seconds)
            rss_before, threads_before = sum(s.rss() for s in stack), sum(s.threads() for s in stack)

            tokens = [token for _, token in idle_players]

            def idle_figures(count_open) -> tuple:
                time.sleep(5)
                cpu_before, began = sum(s.cpu() for s in stack), time.perf_counter()
                time.sleep(20)
                idle_cpu = (sum(s.cpu() for s in stack) - cpu_before) / (time.perf_counter() - began)
                rss_after, threads_after = sum(s.rss() for s in stack), sum(s.threads() for s in stack)
                open_now = count_open()
                loaded = play_figures(stack, second, second_codes, args.seconds)
                return idle_cpu, rss_after, threads_after, open_now, loaded

            if args.same_process:

                async def with_idle():
                    connections, took = await open_idle(stack, games, tokens, args.batch, args.kind)
                    figures = await asyncio.to_thread(idle_figures, lambda: sum(1 for c in connections if is_open(c, args.kind)))
                    await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)
                    return (took, *figures)

                took, idle_cpu, rss_after, threads_after, open_now, loaded = asyncio.run(with_idle())
            else:
                with Holder([s.port for s in stack], games, tokens, args.batch, args.kind) as holder:
                    took = holder.opened()
                    idle_cpu, rss_after, threads_after, open_now, loaded = idle_figures(holder.count)
    print(f"stack: {args.servers} daphne, PostgreSQL, Redis; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    what = "idle sockets" if args.kind == "sockets" else "held streams"
    print(f"{what}: {open_now:,} of {args.idle:,} open after {took:.0f} s of opening ({args.idle / took:.0f}/s)")
    print(f"memory per one: {(rss_after - rss_before) / max(1, open_now) / 1024:.1f} KiB")
    print(f"server threads: {threads_before} before, {threads_after} with them")
    print(f"server CPU while they sit idle: {idle_cpu * 100:.1f}% of a core")
    print(f"{'another player':<40}{'no idle socket':>18}{'with them':>18}")
    print(f"{'ack p50':<40}{quiet[0]:>15.1f} ms{loaded[0]:>15.1f} ms")
    print(f"{'ack p99':<40}{quiet[1]:>15.1f} ms{loaded[1]:>15.1f} ms")
    print(f"{'server CPU per move':<40}{quiet[2]:>15.1f} ms{loaded[2]:>15.1f} ms")
    print(f"errors: {quiet[3]} / {loaded[3]}")
    print("targets: another player's ack p99 <= 50 ms with 10,000 idle sockets; <= 50 KiB a socket")


if __name__ == "__main__":
    main()
