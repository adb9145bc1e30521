"""What the metrics cost a player: websocket ack p50/p99 with METRICS_ENABLED on and off, in the same run.

    python bench/metrics.py                              # 3 pairs, 30 racers at one move a second, 20 s each
    python bench/metrics.py --pairs 5 --players 30 --seconds 20

Each round starts two stacks side by side, each of two fresh Daphne processes (bench/ws.py's stack:
PostgreSQL, Redis, races of 4 at one move a second, measured after a warm-up): one with metrics recorded
and scraped as Prometheus would (`GET /metrics` every `--scrape-every` seconds from each process), one
with METRICS_ENABLED=0, each with half the players, played at the same time by one load generator. A
machine shared with other work (this one's load swings from 2 to 14) then slows both alike, which
running them one after the other did not (`--one-after-the-other`: pairs alternating which runs first).
The issue's budget: ack p50 within 0.3 ms (docs/operations.md, "What the metrics cost"). On a busy
machine the pairs' noise is larger than that, so the run first times what recording costs per action in
this process (what a socket's move records: the action's count and time and the ack's time), beside the
same calls with METRICS_ENABLED off.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import threading
import urllib.error
import urllib.request
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


def scraper(stack, every: float, stop: threading.Event, sizes: list[int]) -> threading.Thread:
    """Scrapes every process's /metrics every `every` seconds until `stop`, as Prometheus does."""

    def scrape_forever():
        while not stop.wait(every):
            for server in stack:
                try:
                    with urllib.request.urlopen(server.origin + "/metrics", timeout=5) as answer:
                        sizes.append(len(answer.read()))
                except urllib.error.HTTPError as refused:
                    sizes.append(-refused.code)

    thread = threading.Thread(target=scrape_forever, daemon=True)
    thread.start()
    return thread


def half(env: dict, enabled: bool, args, prefix: str) -> dict:
    """One measurement on fresh servers: ack p50/p99 (ms), server CPU per move (ms), scrape sizes."""
    env = {**env, "METRICS_ENABLED": "1" if enabled else "0"}
    with servers(env) as stack:
        players = make_players(args.players, prefix)
        clients, stats = racers_for(stack, players, make_races(players, args.race_size))
        stop, sizes = threading.Event(), []
        thread = scraper(stack, args.scrape_every, stop, sizes)
        try:
            rate = asyncio.run(run_load(clients, args.seconds, 1.0, stats, args.warmup))
        finally:
            stop.set()
            thread.join()
    return {
        "p50": pct(stats.ack, 0.5) * 1000,
        "p99": pct(stats.ack, 0.99) * 1000,
        "cpu": stats.cpu_ms,
        "rate": rate,
        "acks": len(stats.ack),
        "errors": stats.errors,
        "scrapes": sizes,
    }


def recording_cost(rounds: int = 200_000) -> tuple[float, float]:
    """Microseconds per action of what a socket's move records, with metrics on and off (timeit, best of 5)."""
    import timeit

    from django.conf import settings

    from freecell_site import metrics

    result = {"repeated": False}
    act = metrics.counted(lambda **kwargs: result, via="api", transport="ws", kind="move")

    def one_action():
        act(game_id=1)
        metrics.ack_sent(0.004)

    found = []
    for enabled in (True, False):
        settings.METRICS_ENABLED = enabled
        found.append(min(timeit.repeat(one_action, number=rounds, repeat=5)) / rounds * 1e6)
    settings.METRICS_ENABLED = True
    return found[0], found[1]


def side_by_side(env: dict, args, prefix: str, first: bool) -> dict:
    """Both stacks at once, half the players on each: {True: metrics on, False: off}, as `half` gives.
    `first`: the stack started, set up and driven first (the rounds alternate it)."""
    order = (first, not first)
    with servers({**env, "METRICS_ENABLED": "1" if order[0] else "0"}) as stack_a, servers({**env, "METRICS_ENABLED": "1" if order[1] else "0"}) as stack_b:
        runs = {}
        for enabled, stack in zip(order, (stack_a, stack_b), strict=True):
            players = make_players(args.players // 2, f"{prefix}{'on' if enabled else 'off'}x")
            runs[enabled] = (stack, *racers_for(stack, players, make_races(players, args.race_size)))
        stop, sizes = threading.Event(), {True: [], False: []}
        threads = [scraper(runs[enabled][0], args.scrape_every, stop, sizes[enabled]) for enabled in order]

        async def both():
            return await asyncio.gather(*(run_load(runs[e][1], args.seconds, 1.0, runs[e][2], args.warmup) for e in order))

        try:
            rates = dict(zip(order, asyncio.run(both()), strict=True))
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        found = {}
        for enabled, (_, _, stats) in runs.items():
            found[enabled] = {
                "p50": pct(stats.ack, 0.5) * 1000, "p99": pct(stats.ack, 0.99) * 1000, "cpu": stats.cpu_ms, "rate": rates[enabled],
                "acks": len(stats.ack), "errors": stats.errors, "scrapes": sizes[enabled],
            }
    return found


def scrape_cost(env: dict, scrapes: int = 40) -> float:
    """Milliseconds of a server process's CPU per `GET /metrics` (its database figures included), on an
    idle process: a fixed cost per scrape, whatever the load."""
    with servers({**env, "METRICS_ENABLED": "1"}, count=1) as (server,):
        urllib.request.urlopen(server.origin + "/metrics", timeout=10).read()  # the first opens a connection
        before = server.cpu()
        for _ in range(scrapes):
            urllib.request.urlopen(server.origin + "/metrics", timeout=10).read()
        return (server.cpu() - before) * 1000 / scrapes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--players", type=int, default=30)
    parser.add_argument("--race-size", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20, help="measured seconds of each half")
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--scrape-every", type=float, default=15.0, help="seconds between scrapes of each process (metrics on; deploy/prometheus: 15)")
    parser.add_argument("--one-after-the-other", action="store_true", help="each pair's halves in turn instead of side by side")
    args = parser.parse_args()
    database_base = os.environ.get("DATABASE_URL", "").strip() or DEFAULT_DB
    redis = os.environ.get("REDIS_URL", "").strip() or DEFAULT_REDIS

    rows = []
    with fresh_database(database_base) as database:
        setup_django(database, redis)
        env = server_env(database, redis)
        on_us, off_us = recording_cost()
        print(f"recording per action, in process: {on_us:.2f} µs with metrics, {off_us:.2f} µs without ({on_us - off_us:.2f} µs more)", flush=True)
        print(f"a scrape: {scrape_cost(env):.1f} ms of the process's CPU (every {args.scrape_every:g} s per process in the runs below)", flush=True)
        print(
            f"stack: 2 daphne processes each, PostgreSQL, Redis; {args.players} racers at 1 move/s"
            f" ({'each half in turn' if args.one_after_the_other else 'half on each stack, at the same time'}), {args.seconds:g} s measured"
            f" after {args.warmup:g} s; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        for pair in range(args.pairs):
            order = (True, False) if pair % 2 == 0 else (False, True)
            if args.one_after_the_other:
                found = {enabled: half(env, enabled, args, f"m{pair}{'on' if enabled else 'off'}x") for enabled in order}
            else:
                found = side_by_side(env, args, f"m{pair}", first=order[0])
            for enabled in order:
                run = found[enabled]
                scraped = [size for size in run["scrapes"] if size > 0]
                print(
                    f"pair {pair + 1}, metrics {'on ' if enabled else 'off'}: ack p50 {run['p50']:.2f} ms, p99 {run['p99']:.2f} ms,"
                    f" {run['rate']:.0f} moves/s, CPU {run['cpu']:.2f} ms/move, errors {run['errors']},"
                    f" scrapes {len(scraped)} ok ({max(scraped, default=0)} bytes) / {len(run['scrapes']) - len(scraped)} refused",
                    flush=True,
                )
            rows.append(found)

    def column(enabled: bool, key: str) -> list[float]:
        return [row[enabled][key] for row in rows]

    print()
    print(f"{'figure':<28} {'metrics on':>22} {'metrics off':>22} {'pairwise median':>16}")
    for key, name in (("p50", "ack p50 (ms)"), ("p99", "ack p99 (ms)"), ("cpu", "server CPU per move (ms)")):
        on, off = column(True, key), column(False, key)
        differences = [a - b for a, b in zip(on, off, strict=True)]
        print(
            f"{name:<28} {', '.join(f'{v:.2f}' for v in on):>22} {', '.join(f'{v:.2f}' for v in off):>22}"
            f" {statistics.median(differences):>+16.2f}"
        )
    print("budget: ack p50 with metrics within 0.3 ms of without (the pairwise median)")


if __name__ == "__main__":
    main()
