"""Flood benchmark: one account floods the sockets while another player moves; that player's ack times.

    python bench/flood.py                    # the limits as configured (the defaults)
    python bench/flood.py --no-limits        # the same with the socket limits off, as before them

It starts two Daphne processes on a fresh PostgreSQL database and Redis (bench/_server.py). A player
signed in from 127.0.0.1 plays a move and its undo, one action every `--interval` seconds, on a game
socket of the first process, and measures each action's ack round trip. In the same run, from
127.0.0.2 (another address on the loopback), an attacker's account:

- sync: opens `--sockets` (300) sockets on its own game, spread over both processes, signs each in with
  its token and sends `--syncs` (10) `sync` frames on each;
- open: opens `--opens` (500) sockets at once and holds them.

It prints the player's ack p50/p99/max with no flood, during each flood, and what the attacker's
sockets got (opened and answered, refused with close code 4429, frames refused `rate_limited`). The
load generator runs on the same machine and takes its share of the CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import secrets
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._server import daphne, fresh_database, percentile, server_env  # noqa: E402

PASSWORD = "correct horse battery 9"
ATTACKER_ADDRESS = "127.0.0.2"


def call(port: int, path: str, body: dict, token: str | None = None) -> dict:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method="POST", data=json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def account(port: int, name: str) -> tuple[str, int]:
    """A new account's token and a fresh game of ms:1 (no autoplay) of it."""
    token = call(port, "/api/auth/register/", {"username": name, "password": PASSWORD})["token"]
    game = call(port, "/api/games/", {"deal": "ms:1", "autoplay": "none"}, token)
    return token, game["id"]


async def connect(port: int, path: str, local: str | None = None):
    from websockets.asyncio.client import connect as ws_connect

    extra = {"local_addr": (local, 0)} if local else {}
    origin = f"http://127.0.0.1:{port}"
    return await ws_connect(f"ws://127.0.0.1:{port}{path}", origin=origin, open_timeout=60, max_queue=None, **extra)


class Player:
    """The other player: a move and its undo, in turn, each ack timed."""

    def __init__(self, port: int, token: str, game_id: int):
        self.port, self.token, self.game_id = port, token, game_id
        self.acks: list[float] = []
        self.errors: Counter[str] = Counter()
        self.ply = 0  # a game's ply counts its moves and undos
        self.moved = False  # whether the last action was the move (the next is its undo)

    async def start(self):
        self.ws = await connect(self.port, f"/ws/games/{self.game_id}/")
        await self.ws.send(json.dumps({"type": "auth", "token": self.token}))
        while True:
            frame = json.loads(await self.ws.recv())
            if frame["type"] == "state":
                self.ply = frame["game"]["ply"]
                return

    async def play(self, seconds: float, interval: float) -> list[float]:
        """Plays for `seconds`; the ack times of that stretch, in seconds."""
        acks: list[float] = []
        until = time.perf_counter() + seconds
        n = 0
        while time.perf_counter() < until:
            n += 1
            frame = {"type": "undo", "ply": self.ply} if self.moved else {"type": "move", "move": "5a", "ply": self.ply}
            frame["id"] = n
            start = time.perf_counter()
            await self.ws.send(json.dumps(frame))
            while True:
                answer = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
                if answer.get("id") == n:
                    break
            acks.append(time.perf_counter() - start)
            if answer["type"] == "ack":
                self.ply, self.moved = answer["ply"], frame["type"] == "move"
            else:
                self.errors[answer.get("code", answer["type"])] += 1
                self.ply = answer.get("game", {}).get("ply", self.ply)
            await asyncio.sleep(max(0.0, interval - (time.perf_counter() - start)))
        return acks


class Attacker:
    """Sockets of one account from another address; counts what became of them."""

    def __init__(self, ports: list[int], token: str, game_id: int):
        self.ports, self.token, self.game_id = ports, token, game_id
        self.outcome: Counter[str] = Counter()
        self.sockets = []

    async def one(self, index: int, syncs: int, hold: asyncio.Event) -> None:
        port = self.ports[index % len(self.ports)]
        try:
            ws = await connect(port, f"/ws/games/{self.game_id}/", ATTACKER_ADDRESS)
        except Exception as exc:
            self.outcome[f"handshake failed ({type(exc).__name__})"] += 1
            return
        self.sockets.append(ws)
        try:
            if syncs:
                await ws.send(json.dumps({"type": "auth", "token": self.token}))
                for n in range(syncs):
                    await ws.send(json.dumps({"type": "sync", "id": n}))
            answered = 0
            while answered < syncs + 1:  # the state on connect (or auth_ok), then each sync's answer
                frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if frame["type"] == "error":
                    if "id" not in frame:  # the refusal of the socket itself, before its close
                        self.outcome[f"refused: {frame['message'].split(' (')[0].split(':')[0]}"] += 1
                        await asyncio.wait_for(ws.recv(), 10)  # raises once the close comes
                    else:
                        self.outcome[f"frame refused: {frame['code']}"] += 1
                elif frame["type"] == "state":
                    self.outcome["state sent"] += 1
                answered += frame["type"] in ("state", "error")
            self.outcome["held open"] += 1
            await hold.wait()
        except Exception:
            code = ws.close_code
            self.outcome[f"closed {code}" if code else "dropped"] += 1
        finally:
            await ws.close()

    async def flood(self, count: int, syncs: int, hold: asyncio.Event) -> None:
        await asyncio.gather(*(self.one(i, syncs, hold) for i in range(count)))


def attack(ports: list[int], token: str, game_id: int, count: int, syncs: int, seconds: float, results) -> None:
    """In a process of its own (the player's client must not wait behind the attacker's): floods, holds
    what it opened for `seconds`, then reports what became of its sockets. At the lowest priority: an
    attacker's client runs on machines of its own, and its CPU here is not the servers' to share."""
    os.nice(19)

    async def flood():
        attacker = Attacker(ports, token, game_id)
        hold = asyncio.Event()
        asyncio.get_running_loop().call_later(seconds, hold.set)
        await attacker.flood(count, syncs, hold)
        return attacker.outcome

    results.put(dict(asyncio.run(flood())))


async def phase(player: Player, attack_with: tuple | None, count: int, syncs: int, seconds: float, interval: float):
    """The player's ack times while the attacker (if any) floods; and what the attacker's sockets got."""
    if attack_with is None:
        return await player.play(seconds, interval), {}
    results = multiprocessing.Queue()
    attacker = multiprocessing.Process(target=attack, args=(*attack_with, count, syncs, seconds, results))
    attacker.start()
    await asyncio.sleep(0.2)  # the flood is under way when the player's measured moves begin
    acks = await player.play(seconds, interval)
    outcome = await asyncio.to_thread(results.get, True, 120)
    attacker.join(30)
    return acks, outcome


def cpu_seconds(pids: list[int]) -> float:
    """CPU seconds (user + system) the server processes have used so far."""
    total = 0.0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def row(name: str, acks: list[float], cpu: float, extra: str = "") -> str:
    ms = [a * 1000 for a in acks]
    p50, p99, worst = percentile(ms, 50), percentile(ms, 99), max(ms, default=float("nan"))
    return f"{name:<26} {len(ms):>5} {p50:>7.1f} {p99:>7.1f} {worst:>7.1f} {cpu * 1000:>9.0f}  {extra}"


async def run(args, ports: list[int], pids: list[int]) -> None:
    suffix = secrets.token_hex(3)
    token, game_id = account(ports[0], f"player_{suffix}")
    bad_token, bad_game = account(ports[0], f"flooder_{suffix}")
    player = Player(ports[0], token, game_id)
    await player.start()
    attacker = (ports, bad_token, bad_game)
    await player.play(2.0, args.interval)  # warm up: first connections and threads of the servers
    print("the other player's ack round trip (ms), and the CPU both servers used in the phase")
    print(f"{'phase':<26} {'acks':>5} {'p50':>7} {'p99':>7} {'max':>7} {'cpu ms':>9}  attacker's sockets")
    phases = [
        ("no flood", None, 0, 0),
        (f"{args.sockets} sockets x {args.syncs} syncs", attacker, args.sockets, args.syncs),
        ("no flood (again)", None, 0, 0),
        (f"{args.opens} sockets opened", attacker, args.opens, 0),
        ("no flood (after)", None, 0, 0),
    ]
    for name, attack_with, count, syncs in phases:
        used = cpu_seconds(pids)
        acks, outcome = await phase(player, attack_with, count, syncs, args.seconds, args.interval)
        print(row(name, acks, cpu_seconds(pids) - used, ", ".join(f"{k}: {v}" for k, v in sorted(outcome.items()))))
        await asyncio.sleep(2)  # the flood's sockets are closed before the next phase
    if player.errors:
        print("the player's refusals:", dict(player.errors))
    await player.ws.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sockets", type=int, default=300, help="sockets of the sync flood")
    parser.add_argument("--syncs", type=int, default=10, help="sync frames on each socket of the sync flood")
    parser.add_argument("--opens", type=int, default=500, help="sockets of the opening flood")
    parser.add_argument("--seconds", type=float, default=6.0, help="how long the player plays in each phase")
    parser.add_argument("--interval", type=float, default=0.15, help="seconds between the player's actions")
    parser.add_argument("--no-limits", action="store_true", help="turn the limits of games/sockets/limits.py off")
    args = parser.parse_args()
    extra = {"WS_MOVE_BURST": "1000", "WS_MOVE_RATE": "1000"}
    if args.no_limits:
        extra.update(
            WS_SOCKETS_PER_ADDRESS="0", WS_SOCKETS_PER_ACCOUNT="0", WS_ADDRESS_OPEN_BURST="0", WS_ADDRESS_FRAME_BURST="0", WS_ACCOUNT_FRAME_BURST="0",
            WS_DB_CALLS_PER_ADDRESS="0",
        )
    name = f"freecell_flood_{secrets.token_hex(3)}"
    url = fresh_database(name)
    print(f"limits: {'off' if args.no_limits else 'on (the defaults)'}; 2 Daphne processes, PostgreSQL, Redis")
    try:
        with daphne(server_env(url, **extra), count=2) as (ports, procs):
            asyncio.run(run(args, ports, [proc.pid for proc in procs]))
    finally:
        subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", "--force", name], check=False)


if __name__ == "__main__":
    main()
