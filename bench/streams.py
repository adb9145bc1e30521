"""How long a change made on one server process takes to reach an ndjson stream held on another,
beside a game websocket on that same process as the baseline (docs/streams.md).

    python bench/streams.py [--actions 200] [--database freecell_bench_streams]

Two Daphne processes on a fresh PostgreSQL database and Redis (BENCH_PG, BENCH_REDIS). A player's
casual game is watched on process two by `GET /api/stream/games/<id>/` and by `/ws/games/<id>/`;
the player plays on process one over REST, a move and its undo in turn, one at a time. For each
action: the time from sending it to its line on the stream, and to its frame on the socket.
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


def call(port: int, method: str, path: str, body: dict | None = None, token: str | None = None) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", **({"Authorization": f"Token {token}"} if token else {})}
    conn.request(method, path, json.dumps(body or {}), headers)
    answer = json.loads(conn.getresponse().read() or b"{}")
    conn.close()
    return answer


def watch_stream(port: int, game_id: int, seen: dict, ready: threading.Event) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", f"/api/stream/games/{game_id}/")
    response = conn.getresponse()
    while True:
        try:
            text = response.readline()
        except (OSError, http.client.HTTPException):  # the servers stop at the end of the run
            return
        if not text:
            return
        if text.strip():
            seen.setdefault(json.loads(text)["version"], time.perf_counter())
            ready.set()


def watch_socket(port: int, game_id: int, seen: dict, ready: threading.Event) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with connect(f"ws://127.0.0.1:{port}/ws/games/{game_id}/", origin=f"http://127.0.0.1:{port}") as ws:
        while True:
            try:
                frame = json.loads(ws.recv())
            except ConnectionClosed:  # the servers stop at the end of the run
                return
            if frame.get("type") == "state":
                seen.setdefault(frame["version"], time.perf_counter())
                ready.set()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--database", default="freecell_bench_streams")
    args = parser.parse_args()
    url = fresh_database(args.database)
    env = server_env(url, ACTIONS_PER_SECOND="0", SWEEP_IN_SERVER="0")
    with daphne(env, count=2) as (ports, _):
        one, two = ports
        token = call(
            one, "POST", "/api/auth/register/", {"username": "bench", "password": "correct horse battery 9"}
        )["token"]
        game = call(one, "POST", "/api/games/", {"deal": "ms:1", "autoplay": "none"}, token)
        streamed: dict[int, float] = {}
        socketed: dict[int, float] = {}
        watchers = []
        for target, seen in ((watch_stream, streamed), (watch_socket, socketed)):
            ready = threading.Event()
            threading.Thread(target=target, args=(two, game["id"], seen, ready), daemon=True).start()
            assert ready.wait(10), "a watcher did not start"
            watchers.append(seen)
        sent: dict[int, float] = {}
        for ply in range(args.actions):
            start = time.perf_counter()
            if ply % 2 == 0:
                answer = call(
                    one, "POST", f"/api/games/{game['id']}/moves/", {"move": "5a", "ply": ply}, token
                )
            else:
                answer = call(one, "POST", f"/api/games/{game['id']}/undo/", {"ply": ply}, token)
            sent[answer["version"]] = start
            deadline = time.perf_counter() + 5
            while answer["version"] not in streamed or answer["version"] not in socketed:
                if time.perf_counter() > deadline:
                    break
                time.sleep(0.0005)
        for name, seen in (
            ("stream (GET /api/stream/games/<id>/)", streamed),
            ("socket (/ws/games/<id>/), baseline", socketed),
        ):
            delays = [(seen[v] - t) * 1000 for v, t in sent.items() if v in seen]
            print(
                f"{name}: {len(delays)}/{len(sent)} arrived; from sending the action on process one to its "
                f"arrival on process two: p50 {percentile(delays, 50):.1f} ms, p99 {percentile(delays, 99):.1f} ms, "
                f"max {max(delays):.1f} ms"
            )


if __name__ == "__main__":
    main()
