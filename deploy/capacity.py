"""What one move costs the shared parts: PostgreSQL transactions, rows and WAL, Redis commands and publishes.

    python deploy/capacity.py [--deals 4]

The figures behind docs/deployment.md's capacity plan (bench/ws.py gives the CPU and memory ones). It
starts a private Redis (a child on a free port, so its counters are this run's alone), one Daphne
process on a fresh PostgreSQL database, and plays winning lines from the engine's solver over
websockets, each move acknowledged before the next: first solo games on the game socket, then races of
two on the race socket (whose moves also push the racer's progress to the race). Around each phase it
reads PostgreSQL's counters for the database (pg_stat_database: commits, read-only ones included, and
rows inserted, updated and deleted, after the backends have flushed them) and Redis's INFO
commandstats, and prints each per move. (Not WAL bytes: the WAL is the whole cluster's, and other
databases of a shared cluster write to it too.) Nothing else may use the database meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._server import PG, daphne, free_port, fresh_database, server_env  # noqa: E402

FLUSH_S = 11  # an idle PostgreSQL backend flushes its statistics within 10 s (PGSTAT_IDLE_INTERVAL)


def pg_counters(admin, name: str) -> dict:
    row = admin.execute(
        "SELECT xact_commit, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = %s", [name]
    ).fetchone()
    return {"commits": row[0], "inserted": row[1], "updated": row[2], "deleted": row[3]}


def redis_counters(port: int) -> dict:
    out = subprocess.run(["redis-cli", "-p", str(port), "INFO", "commandstats"], capture_output=True, text=True, check=True).stdout
    calls = {}
    for line in out.splitlines():
        if line.startswith("cmdstat_"):
            name, _, stats = line.partition(":")
            calls[name.removeprefix("cmdstat_")] = int(stats.split(",")[0].split("=")[1])
    return {"redis_commands": sum(calls.values()), "redis_publish": calls.get("publish", 0)}


def call(port: int, method: str, path: str, body: dict | None = None, token: str | None = None) -> dict:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=json.dumps(body or {}).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    with urllib.request.urlopen(request, timeout=15) as response:
        return json.loads(response.read() or b"{}")


async def play(port: int, path: str, token: str, line: list[str], *, start: dict | None = None) -> int:
    from websockets.asyncio.client import connect

    async with connect(f"ws://127.0.0.1:{port}{path}", origin=f"http://127.0.0.1:{port}") as ws:
        await ws.send(json.dumps({"type": "auth", "token": token}))
        if start:
            await ws.send(json.dumps(start))
        while True:  # the player's own board (a race shows it once running)
            frame = json.loads(await ws.recv())
            if frame["type"] == "state":
                break
        for ply, move in enumerate(line):
            await ws.send(json.dumps({"type": "move", "move": move, "ply": ply}))
            while True:
                frame = json.loads(await ws.recv())
                if frame["type"] in ("ack", "error"):
                    assert frame["type"] == "ack", frame
                    break
    return len(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=4, help="deals played in each phase (about 45 moves each)")
    args = parser.parse_args()

    import psycopg

    from games.engine import Board
    from games.engine.solver import solve

    lines = []
    for number in range(1, args.deals + 1):
        solution = solve(Board.from_deal(f"ms:{number}"), autoplay="safe", budget=30)
        assert solution.result == "solved"
        lines.append((f"ms:{number}", [str(move) for move in solution.moves]))

    redis_port = free_port()
    redis = subprocess.Popen(
        ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    name = "freecell_capacity"
    try:
        time.sleep(0.5)
        os.environ["BENCH_REDIS"] = f"redis://127.0.0.1:{redis_port}/0"
        import bench._server as helpers

        helpers.REDIS = os.environ["BENCH_REDIS"]
        database = fresh_database(name)
        env = server_env(database, WS_MOVE_BURST="100000", WS_MOVE_RATE="100000", RACE_COUNTDOWN_S="0")
        admin = psycopg.connect(f"{PG}/postgres".replace("postgres://", "postgresql://", 1), autocommit=True)
        with daphne(env) as (ports, _):
            port = ports[0]
            tokens = [call(port, "POST", "/api/auth/register/", {"username": f"cap{i}", "password": "correct horse battery 9"})["token"] for i in range(2)]
            results = {}
            for phase in ("solo", "race"):
                games = []
                for deal, line in lines:
                    if phase == "solo":
                        game = call(port, "POST", "/api/games/", {"deal": deal, "autoplay": "safe"}, tokens[0])
                        games.append((f"/ws/games/{game['id']}/", line, None))
                    else:
                        race = call(port, "POST", "/api/races/", {"deal": deal, "autoplay": "safe"}, tokens[0])
                        call(port, "POST", f"/api/races/{race['code']}/join/", token=tokens[1])
                        games.append((f"/ws/races/{race['code']}/", line, race["code"]))
                time.sleep(FLUSH_S)
                before = {**pg_counters(admin, name), **redis_counters(redis_port)}
                started = time.perf_counter()
                moves = 0
                for path, line, code in games:
                    if code is None:
                        moves += asyncio.run(play(port, path, tokens[0], line))
                    else:
                        async def both(path=path, line=line):
                            owner = asyncio.create_task(play(port, path, tokens[0], line, start={"type": "start"}))
                            await asyncio.sleep(0.3)
                            rival = asyncio.create_task(play(port, path, tokens[1], line))
                            return sum(await asyncio.gather(owner, rival))

                        moves += asyncio.run(both())
                elapsed = time.perf_counter() - started
                time.sleep(FLUSH_S)
                after = {**pg_counters(admin, name), **redis_counters(redis_port)}
                results[phase] = {key: (after[key] - before[key]) / moves for key in before} | {"moves": moves, "seconds": elapsed}
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        redis.terminate()
        redis.wait()

    print(f"{'per move':<28}{'solo (game socket)':>22}{'race of 2 (race socket)':>26}")
    for key in ("commits", "inserted", "updated", "deleted", "redis_commands", "redis_publish"):
        print(f"{key:<28}{results['solo'][key]:>22.2f}{results['race'][key]:>26.2f}")
    for phase in ("solo", "race"):
        print(f"{phase}: {results[phase]['moves']} moves in {results[phase]['seconds']:.1f} s, one at a time; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "freecell_site.settings")
    main()
