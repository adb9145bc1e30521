"""REST move round trip and moves/s on PostgreSQL, beside a trivial DRF endpoint and the floor of an
action in the same run.

    python bench/api.py [--requests 1000] [--clients 4] [--seconds 10]

Starts one Daphne process on a fresh PostgreSQL database (and Redis for the channel layer), serving
the service with bench/echo.py's routes beside it, then: round trips one at a time over a kept-alive
connection, a ping, a move and the floor in turn (p50/p99), and the most of each per second with
several clients each playing their own game. Moves are legal ones chosen with the engine. The floor
(`POST /bench/floor/<game>/`, bench/floor.py) is a signed-in POST through the same stack that stores
an action's three statements in one transaction, with no rules, no validation and no JSON of the
game: what one durable action costs over REST before the move itself.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import daphne, fresh_database, percentile, server_env  # noqa: E402
from games.engine import Board  # noqa: E402


class Client:
    def __init__(self, port: int, token: str | None = None):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Token {token}"

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        self.conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=self.headers)
        response = self.conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")


def timed(client: Client, method: str, path: str, body: dict | None = None) -> tuple[float, dict]:
    """One request answered 200: its round trip in seconds, and its answer."""
    started = time.perf_counter()
    status, answer = client.call(method, path, body)
    elapsed = time.perf_counter() - started
    assert status == 200, (status, answer)
    return elapsed, answer


class Player:
    """Plays one game with legal moves, undoing when stuck and starting a new game when over."""

    def __init__(self, client: Client, deal: str):
        self.client, self.deal = client, deal
        self.start()

    def start(self) -> None:
        status, game = self.client.call("POST", "/api/games/", {"deal": self.deal, "autoplay": "safe"})
        assert status == 201, game
        self.game = game
        self.board = Board.from_state(game["state"])
        self.count = 0

    def step(self) -> float:
        legal = self.board.legal_moves()
        if self.game["status"] != "playing" or not legal or self.count > 150:
            self.start()
            legal = self.board.legal_moves()
        move = str(legal[(self.count * 7919) % len(legal)])
        elapsed, body = timed(self.client, "POST", f"/api/games/{self.game['id']}/moves/", {"move": move, "ply": self.game["ply"]})
        self.game = body
        self.board = Board.from_state(body["state"])
        self.count += 1
        return elapsed


def register(port: int, name: str) -> str:
    status, body = Client(port).call("POST", "/api/auth/register/", {"username": name, "password": "bench password 123"})
    assert status == 201, body
    return body["token"]


def floor_game(client: Client) -> int:
    """A game of the client's own for the floor's actions (their history is never replayed)."""
    status, game = client.call("POST", "/api/games/", {"deal": "ms:9"})
    assert status == 201, game
    return game["id"]


def floor_step(client: Client, game_id: int) -> float:
    return timed(client, "POST", f"/bench/floor/{game_id}/", {"move": "5a", "ply": 0})[0]


def ping_step(client: Client) -> float:
    return timed(client, "GET", "/api/ping/")[0]


def round_trips(port: int, token: str, count: int) -> tuple[list[float], list[float], list[float]]:
    """`count` pings, moves and floor actions, one at a time and in turn, so that all three see the
    same moments of a machine whose speed drifts (a shared VM): the ratios are then like for like."""
    client = Client(port, token)
    player = Player(client, "ms:1")
    floor = floor_game(client)
    for _ in range(20):  # warm-up
        ping_step(client)
        player.step()
        floor_step(client, floor)
    pings, moves, floors = [], [], []
    for _ in range(count):
        pings.append(ping_step(client))
        moves.append(player.step())
        floors.append(floor_step(client, floor))
    return pings, moves, floors


def throughput(port: int, tokens: list[str], seconds: float, work: str) -> float:
    done = [0] * len(tokens)
    stop = time.perf_counter() + seconds

    def run(index: int) -> None:
        client = Client(port, tokens[index])
        if work == "move":
            step = Player(client, f"ms:{index + 2}").step
        elif work == "floor":
            game_id = floor_game(client)
            step = lambda: floor_step(client, game_id)  # noqa: E731
        else:
            step = lambda: ping_step(client)  # noqa: E731
        while time.perf_counter() < stop:
            step()
            done[index] += 1

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(tokens))]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(done) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    url = fresh_database("freecell_bench_api")
    with daphne(server_env(url), app="bench.echo:application") as (ports, _procs):
        port = ports[0]
        tokens = [register(port, f"bench{i}") for i in range(args.clients)]
        pings, moves, floors = round_trips(port, tokens[0], args.requests)
        ping_rate = throughput(port, tokens, args.seconds, "ping")
        move_rate = throughput(port, tokens, args.seconds, "move")
        floor_rate = throughput(port, tokens, args.seconds, "floor")
    ms = lambda v: f"{v * 1000:7.2f} ms"  # noqa: E731
    print(f"REST on PostgreSQL + Redis, one Daphne process, {args.requests} sequential requests each, {args.clients} clients for throughput")
    print(f"{'':28}{'p50':>10}{'p99':>10}{'per second':>14}")
    print(f"{'trivial DRF GET /api/ping/':28}{ms(percentile(pings, 50)):>10}{ms(percentile(pings, 99)):>10}{ping_rate:14.0f}")
    print(f"{'POST /api/games/<id>/moves/':28}{ms(percentile(moves, 50)):>10}{ms(percentile(moves, 99)):>10}{move_rate:14.0f}")
    print(f"{'floor: ping + 3 statements':28}{ms(percentile(floors, 50)):>10}{ms(percentile(floors, 99)):>10}{floor_rate:14.0f}")
    ratio = percentile(moves, 50) / percentile(pings, 50)
    print(f"move p50 / trivial p50 = {ratio:.2f} (targets: p50 <= 5 ms, and at most 1.5x the trivial endpoint)")
    print(f"floor p50 / trivial p50 = {percentile(floors, 50) / percentile(pings, 50):.2f}")


if __name__ == "__main__":
    main()
