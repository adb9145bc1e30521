"""Load: the most concurrent websocket players the box serves within the real-time targets.

    python bench/load.py [--steps 25,50,100,200,400,800] [--warmup 5] [--measure 20] [--keep-going] [--solo]

Starts a private Redis, a fresh PostgreSQL database and two Daphne processes (as bench/chaos.py), then
ramps up players in races of four (the last race of a step may be smaller), each racer on the race socket of one of the two servers (racers of
a race on different servers), each making one move a second (a random walk of legal moves with
undos, worked out beforehand with the engine, so the client spends no time thinking); with --solo each
player plays a game of their own on its game socket instead (no race progress to fan out). At each step it
measures, over the measuring window:

- ack: from sending a move frame to receiving its ack (p50 and p99);
- opponent: from sending a move to an opponent's socket showing it in the race (p99);
- the moves per second acknowledged against the moves per second asked for.

A step is within the targets of the real-time issue when ack p50 <= 5 ms, ack p99 <= 25 ms, opponent
p99 <= 40 ms and at least 95% of the asked moves were acknowledged. The ramp stops after the first step
that misses them (unless --keep-going). It prints the curve and saves bench/out/load.png and
bench/out/load.json. The load generator runs on the same machine (one Python process), so its own CPU
use is part of what is measured; the machine's load average is printed beside each step.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import ROOT, percentile  # noqa: E402
from bench.chaos import OUT, drop_database, seed_players, stack  # noqa: E402

TARGETS = {"ack_p50": 5.0, "ack_p99": 25.0, "opponent_p99": 40.0}
SCRIPT_LENGTH = 600
DEALS = [f"ms:{n}" for n in range(1, 21)]

RACES_SCRIPT = """
import json, os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "freecell_site.settings")
import django
django.setup()
from django.conf import settings
from django.contrib.auth.models import User
from games.races import services as races
settings.RACE_COUNTDOWN_S = 0
groups = json.loads(sys.stdin.read())
out = []
for deal, usernames in groups:
    users = [User.objects.get(username=u) for u in usernames]
    if deal.startswith("solo:"):
        from games.play import services
        game = services.create_game(player=users[0], deal=deal[5:], autoplay="safe")
        out.append([None, deal[5:], [[usernames[0], game.pk]]])
        continue
    race = races.create_race(owner=users[0], deal=deal, autoplay="safe", time_limit_s=86400)
    for user in users[1:]:
        races.join(code=race.code, user=user)
    races.start(code=race.code, user=users[0])
    race = races.advance(race.code)
    games = {e.player.username: e.game_id for e in race.entries.select_related("player")}
    out.append([race.code, deal, [[u, games[u]] for u in usernames]])
print(json.dumps(out))
"""


def make_races(database_url: str, groups: list[tuple[str, list[str]]]) -> list:
    """Races of four, started (no countdown), made in the database through games.races."""
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": ""}
    done = subprocess.run(
        [sys.executable, "-c", RACES_SCRIPT], input=json.dumps(groups), cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def walk(deal: str, rng: random.Random, length: int = SCRIPT_LENGTH) -> list[tuple[str, str | None]]:
    """A random walk of legal actions under safe autoplay: moves, and an undo when stuck (or now and then)."""
    from games.engine import Board

    board = Board.from_deal(deal)
    board.safe_autoplay()
    played = 0
    actions: list[tuple[str, str | None]] = []
    while len(actions) < length:
        legal = board.legal_moves()
        if played and (not legal or rng.random() < 0.1):
            board.undo()
            played -= 1
            actions.append(("undo", None))
            continue
        if not legal:
            break
        move = rng.choice(legal)
        trial = board.copy()
        trial.play(move, autoplay="safe")
        if trial.is_won():  # keep the game going for the whole ramp
            continue
        board.play(move, autoplay="safe")
        played += 1
        actions.append(("move", str(move)))
    return actions


@dataclass
class Window:
    ack_ms: list = field(default_factory=list)
    opponent_ms: list = field(default_factory=list)
    ping_ms: list = field(default_factory=list)  # baseline: a ping frame on the same stack, no database
    commit_ms: list = field(default_factory=list)  # baseline: one INSERT and COMMIT on the same PostgreSQL
    asked: int = 0
    acked: int = 0
    errors: dict = field(default_factory=dict)


class Load:
    def __init__(self, ports: list[int]):
        self.ports = ports
        self.window = Window()
        self.measuring = False
        self.sent: dict[tuple[str, int], float] = {}  # (username, ply after the move) -> when it was sent
        self.stopping = False

    def error(self, code: str) -> None:
        if self.measuring:
            self.window.errors[code] = self.window.errors.get(code, 0) + 1


class Racer:
    def __init__(self, load: Load, username: str, token: str, code: str, game_id: int, script: list, port: int, phase: float):
        self.load, self.username, self.token, self.code, self.game_id = load, username, token, code, game_id
        self.script, self.port, self.phase = script, port, phase
        self.ply = 0
        self.pending: asyncio.Future | None = None
        self.frame_id = 0
        self.seen: dict[str, int] = {}
        self.ready = asyncio.Event()

    async def run(self) -> None:
        from websockets.asyncio.client import connect

        path = f"/ws/races/{self.code}/" if self.code else f"/ws/games/{self.game_id}/"
        async with connect(f"ws://127.0.0.1:{self.port}{path}", origin=f"http://127.0.0.1:{self.port}",
                           open_timeout=30, max_size=2**22) as ws:
            self.ws = ws
            await ws.send(json.dumps({"type": "auth", "token": self.token}))
            reader = asyncio.create_task(self.read())
            try:
                await asyncio.wait_for(self.ready.wait(), 30)
                await self.play()
            finally:
                reader.cancel()

    async def read(self) -> None:
        load = self.load
        async for raw in self.ws:
            now = time.perf_counter()
            frame = json.loads(raw)
            kind = frame["type"]
            if kind in ("ack", "error") and self.pending is not None and frame.get("id") == self.frame_id:
                self.pending.set_result((now, frame))
            elif kind == "state" and frame["game"]["id"] == self.game_id:
                self.ply = max(self.ply, frame["game"]["ply"])
                self.ready.set()
            elif kind in ("race", "progress"):
                for racer in frame["race"]["racers"] if kind == "race" else [frame["racer"]]:
                    name, moves = racer["username"], racer["moves"]
                    if name == self.username:
                        continue
                    last = self.seen.get(name, moves)
                    for ply in range(last + 1, moves + 1):
                        sent = load.sent.get((name, ply))
                        if sent is not None and load.measuring:
                            load.window.opponent_ms.append((now - sent) * 1000)
                    self.seen[name] = max(last, moves)

    async def play(self) -> None:
        load = self.load
        next_at = time.perf_counter() + self.phase
        while not load.stopping and self.ply < len(self.script):
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            next_at += 1.0
            kind, move = self.script[self.ply]
            self.frame_id += 1
            frame = {"type": kind, "ply": self.ply, "id": self.frame_id}
            if move:
                frame["move"] = move
            measuring = load.measuring
            self.pending = asyncio.get_running_loop().create_future()
            started = time.perf_counter()
            load.sent[(self.username, self.ply + 1)] = started
            if measuring:
                load.window.asked += 1
            await self.ws.send(json.dumps(frame))
            try:
                at, answer = await asyncio.wait_for(self.pending, 10)
            except TimeoutError:
                load.error("timeout")
                continue
            if answer["type"] == "ack":
                self.ply = answer["ply"]
                if measuring and load.measuring:
                    load.window.acked += 1
                    load.window.ack_ms.append((at - started) * 1000)
            else:
                load.error(answer.get("code", "error"))
                if answer.get("code") == "ply_conflict":
                    self.ply = answer["game"]["ply"]


class Pinger:
    """Baseline probe: an anonymous watcher socket sending a ping frame five times a second."""

    def __init__(self, load: Load, path: str, port: int):
        self.load, self.path, self.port = load, path, port

    async def run(self) -> None:
        from websockets.asyncio.client import connect

        async with connect(f"ws://127.0.0.1:{self.port}{self.path}", origin=f"http://127.0.0.1:{self.port}") as ws:
            while not self.load.stopping:
                await asyncio.sleep(0.2)
                started = time.perf_counter()
                await ws.send('{"type":"ping","id":"p"}')
                while json.loads(await ws.recv()).get("type") != "pong":
                    pass
                if self.load.measuring:
                    self.load.window.ping_ms.append((time.perf_counter() - started) * 1000)


def commit_probe(load: Load, database_url: str) -> None:
    """Baseline probe: one INSERT + COMMIT every 50 ms on the run's database (what a stored move must wait for)."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_commit_probe (id bigserial PRIMARY KEY, at double precision)")
        while not load.stopping:
            time.sleep(0.05)
            started = time.perf_counter()
            conn.execute("INSERT INTO bench_commit_probe (at) VALUES (%s)", (started,))
            if load.measuring:
                load.window.commit_ms.append((time.perf_counter() - started) * 1000)


@dataclass
class Step:
    players: int
    ack_p50: float
    ack_p99: float
    opponent_p50: float
    opponent_p99: float
    ping_p50: float
    ping_p99: float
    commit_p50: float
    commit_p99: float
    asked_per_s: float
    acked_per_s: float
    errors: dict
    load_average: float
    within: bool


def summarize(players: int, window: Window, seconds: float) -> Step:
    p = lambda values, q: round(percentile(values, q), 2) if values else float("nan")  # noqa: E731
    step = Step(
        players=players,
        ack_p50=p(window.ack_ms, 50),
        ack_p99=p(window.ack_ms, 99),
        opponent_p50=p(window.opponent_ms, 50),
        opponent_p99=p(window.opponent_ms, 99),
        ping_p50=p(window.ping_ms, 50),
        ping_p99=p(window.ping_ms, 99),
        commit_p50=p(window.commit_ms, 50),
        commit_p99=p(window.commit_ms, 99),
        asked_per_s=round(window.asked / seconds, 1),
        acked_per_s=round(window.acked / seconds, 1),
        errors=window.errors,
        load_average=round(os.getloadavg()[0], 2),
        within=False,
    )
    step.within = (
        step.ack_p50 <= TARGETS["ack_p50"]
        and step.ack_p99 <= TARGETS["ack_p99"]
        and not step.opponent_p99 > TARGETS["opponent_p99"]  # nan (no opponents, solo games) passes
        and window.acked >= 0.95 * max(1, window.asked)
        and not window.errors.get("not connected")
    )
    return step


async def ramp(load: Load, racers_by_step: list[list[Racer]], steps: list[int], warmup: float, measure: float,
               keep_going: bool, database_url: str) -> list[Step]:
    results: list[Step] = []
    first = racers_by_step[0][0]
    watch = f"/ws/races/{first.code}/" if first.code else f"/ws/games/{first.game_id}/"
    tasks: list[asyncio.Task] = [asyncio.create_task(Pinger(load, watch, port).run()) for port in load.ports]
    tasks.append(asyncio.create_task(asyncio.to_thread(commit_probe, load, database_url)))
    connecting = asyncio.Semaphore(50)

    async def start(racer: Racer) -> bool:
        async with connecting:
            task = asyncio.create_task(racer.run())
            tasks.append(task)
            try:
                await asyncio.wait_for(racer.ready.wait(), 30)
                return True
            except TimeoutError:
                return False

    for players, racers in zip(steps, racers_by_step, strict=True):
        started = await asyncio.gather(*(start(r) for r in racers))
        await asyncio.sleep(warmup)
        dead = [t for t in tasks if t.done() and not t.cancelled() and t.exception()]
        load.window, load.measuring = Window(), True
        if not all(started) or dead:
            load.window.errors["not connected"] = started.count(False) + len(dead)
        await asyncio.sleep(measure)
        load.measuring = False
        step = summarize(players, load.window, measure)
        results.append(step)
        print(
            f"{step.players:8d} {step.ack_p50:9.2f} {step.ack_p99:9.2f} {step.opponent_p50:10.2f} {step.opponent_p99:10.2f} "
            f"{step.ping_p50:6.2f}/{step.ping_p99:<6.2f} {step.commit_p50:6.2f}/{step.commit_p99:<6.2f} "
            f"{step.asked_per_s:8.0f} {step.acked_per_s:8.0f} {step.load_average:6.2f}  {'yes' if step.within else 'NO'}"
            f"{'  errors ' + str(step.errors) if step.errors else ''}",
            flush=True,
        )
        if not step.within and (not keep_going or step.acked_per_s < 0.5 * step.players):
            break  # past saturation (half the asked moves go unanswered) more players only measure the queue
    load.stopping = True
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return results


def plot(results: list[Step], path: Path, title: str, shape: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    players = [s.players for s in results]
    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    ax.plot(players, [s.ack_p50 for s in results], "o-", label="ack p50")
    ax.plot(players, [s.ack_p99 for s in results], "s-", label="ack p99")
    opponents = [s.opponent_p99 for s in results]
    if any(v == v for v in opponents):  # not all nan (solo games have no opponents)
        ax.plot(players, opponents, "^-", label="opponent sees, p99")
    ax.plot(players, [s.ping_p50 for s in results], "x:", color="grey", label="baseline: ping frame p50 (no database)")
    ax.plot(players, [s.commit_p50 for s in results], "+:", color="black", label="baseline: PostgreSQL INSERT+COMMIT p50")
    targets = [(5, "p50 target 5 ms", "C0"), (25, "p99 target 25 ms", "C1")]
    if any(v == v for v in opponents):
        targets.append((40, "opponent target 40 ms", "C2"))
    for value, name, colour in targets:
        ax.axhline(value, linestyle="--", linewidth=0.8, color=colour)
        ax.text(players[-1], value * 1.05, name, fontsize=8, color=colour, ha="right")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(players, [str(p) for p in players])
    ax.set_xlabel(f"concurrent websocket players (one move a second each, {shape})")
    ax.set_ylabel("milliseconds")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", default="25,50,100,200,400,800")
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--measure", type=float, default=20)
    parser.add_argument("--keep-going", action="store_true", help="run every step even after one misses the targets")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--solo", action="store_true", help="each player on a game socket of their own game, no races")
    args = parser.parse_args()
    steps = [int(s) for s in args.steps.split(",")]
    if steps != sorted(set(steps)):
        parser.error("steps are increasing numbers of players")
    rng = random.Random(args.seed)
    scripts = {deal: walk(deal, rng) for deal in DEALS}
    name = "freecell_bench_load"
    # A long idle timeout: a racer whose move waits on a slow step must not be closed as silent.
    with stack(name=name, extra_env={"WS_IDLE_TIMEOUT_S": "600"}) as (url, _redis, servers):
        ports = [s.port for s in servers]
        accounts = seed_players(url, "load", steps[-1])
        tokens = dict(accounts)
        names = [a[0] for a in accounts]
        # Each step's new players in races of four (the last race of a step may be smaller).
        groups, previous = [], 0
        for count in steps:
            size = 1 if args.solo else 4
            for first in range(previous, count, size):
                deal = DEALS[len(groups) % len(DEALS)]
                groups.append((f"solo:{deal}" if args.solo else deal, names[first : min(first + size, count)]))
            previous = count
        races = make_races(url, groups)
        load = Load(ports)
        racers: list[Racer] = []
        for r, (code, deal, entries) in enumerate(races):
            for k, (username, game_id) in enumerate(entries):
                racers.append(Racer(load, username, tokens[username], code, game_id, scripts[deal], ports[(r + k) % 2], rng.random()))
        by_step, previous = [], 0
        for count in steps:
            by_step.append(racers[previous:count])
            previous = count
        shape = "solo games (one game socket each)" if args.solo else "races of 4"
        print(f"load: {shape} on 2 Daphne processes, PostgreSQL and Redis; one move a second per player; "
              f"{os.cpu_count()} cores; steps {steps}; {args.warmup:g} s warm-up, {args.measure:g} s measured")
        print("all times in ms; baselines measured in the same windows: ping = a ping frame on the same sockets' stack "
              "(no database), commit = one INSERT + COMMIT on the same PostgreSQL")
        print(f"{'players':>8} {'ack p50':>9} {'ack p99':>9} {'opp. p50':>10} {'opp. p99':>10} {'ping p50/p99':>13} "
              f"{'commit p50/p99':>13} {'asked/s':>8} {'acked/s':>8} {'load':>6}  within targets")
        results = asyncio.run(ramp(load, by_step, steps, args.warmup, args.measure, args.keep_going, url))
    drop_database(name)
    best = max((s.players for s in results if s.within), default=0)
    print(f"most players within the targets (ack p50 <= 5 ms, p99 <= 25 ms, opponent p99 <= 40 ms): {best or 'none of the steps'}")
    OUT.mkdir(parents=True, exist_ok=True)
    stem = "load-solo" if args.solo else "load"
    (OUT / f"{stem}.json").write_text(json.dumps({"targets": TARGETS, "steps": [asdict(s) for s in results], "best": best}, indent=2))
    plot(results, OUT / f"{stem}.png", f"FreeCell Online: move acks against players ({os.cpu_count()} cores, 2 Daphne, PostgreSQL, Redis)", shape)
    print(f"saved {OUT / f'{stem}.png'} and {OUT / f'{stem}.json'}")


if __name__ == "__main__":
    main()
