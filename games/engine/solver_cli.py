"""The solver from the command line: one deal, or a range of deals with a progress bar and a summary.

    python -m games.engine.solver_cli ms:1 [--autoplay none|safe] [--par] [--budget S] [--json]
    python -m games.engine.solver_cli ms:1-1000 --jobs 2 [--json]

`python manage.py solve ...` is a thin wrapper around ``main``. Exit codes: 0 solved, 1 unsolvable,
2 gave up (for a range: 2 when any deal gave up, else 1 when any is unsolvable, else 0), 3 a bad
command line (a deal that does not parse, a range too large, an option out of range).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import sys
from collections.abc import Iterable, Iterator

from .board import Board
from .deals import parse_deal
from .errors import EngineError
from .solver import solve

EXIT = {"solved": 0, "unsolvable": 1, "gave_up": 2}
#: Exit code of a bad command line (argparse's own 2 would read as "gave up").
USAGE_ERROR = 3
#: The most deals one run takes (a run of this many is days of CPU already; a typo such as
#: ms:1-99999999 must not build a hundred million deal ids before the first solve).
MAX_DEALS = 1_000_000
_RANGE = re.compile(r"^(ms|seed):(\d+)-(\d+)$")


def parse_deals(text: str) -> list[str]:
    """``ms:1-1000`` (also ``seed:A-B``) -> the deal ids; a single deal id -> [it]; comma lists allowed."""
    parts: list[tuple[str, int, int] | str] = []
    total = 0
    for part in text.split(","):
        part = part.strip()
        match = _RANGE.match(part)
        if match:
            kind, lo, hi = match.group(1), int(match.group(2)), int(match.group(3))
            if hi < lo:
                raise EngineError(f"empty range {part!r}")
            for end in (lo, hi):  # both ends exist, so every deal between them does
                parse_deal(f"{kind}:{end}")
            parts.append((kind, lo, hi))
            total += hi - lo + 1
        else:
            deal = parse_deal(part)
            if deal.kind == "daily":  # its deal is drawn from the service's secret, not from the id
                raise EngineError(f"{part!r}: a daily's deal is not in its id: `manage.py daily --list` shows its seed: deal to solve")
            parts.append(str(deal))
            total += 1
        if total > MAX_DEALS:
            raise EngineError(f"{text!r} is more than {MAX_DEALS:,} deals: split it into several runs")
    deals: list[str] = []
    for part in parts:
        if isinstance(part, tuple):
            kind, lo, hi = part
            deals.extend(f"{kind}:{n}" for n in range(lo, hi + 1))
        else:
            deals.append(part)
    return deals


def solve_deal(
    deal: str,
    autoplay: str = "none",
    par: bool = False,
    budget: float | None = None,
    max_states: int | None = None,
    cpu_clock: bool = False,
) -> dict:
    """Solve one deal; a JSON-ready dict ``{deal, result, moves, count, seconds, cpu_seconds, states, rss_mb}``."""
    solution = solve(
        Board.from_deal(deal),
        autoplay=autoplay,
        par=par,
        budget=budget,
        max_states=max_states,
        cpu_clock=cpu_clock,
    )
    return {
        "deal": deal,
        "result": solution.result,
        "moves": [str(m) for m in solution.moves],
        "count": solution.count,
        "seconds": round(solution.seconds, 4),
        "cpu_seconds": round(solution.cpu_seconds, 4),
        "states": solution.states,
        "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def _work(args: tuple) -> dict:
    return solve_deal(*args)


def solve_range(
    deals: Iterable[str],
    autoplay: str = "none",
    par: bool = False,
    budget: float | None = None,
    jobs: int = 1,
    max_states: int | None = None,
    cpu_clock: bool = False,
) -> Iterator[dict]:
    """Solve each deal (in ``jobs`` worker processes); yields ``solve_deal`` dicts in the deals' order."""
    deals = list(deals)
    tasks = ((deal, autoplay, par, budget, max_states, cpu_clock) for deal in deals)
    if jobs <= 1 or len(deals) <= 1:
        for task in tasks:
            yield _work(task)
        return
    import multiprocessing

    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    with ctx.Pool(jobs, maxtasksperchild=200) as pool:
        yield from pool.imap(_work, tasks, chunksize=1)


def summarize(results: list[dict]) -> dict:
    """Counts by result, median/p95/max time, mean length of the solved lines."""
    times = sorted(r["seconds"] for r in results)
    cpu = sorted(r.get("cpu_seconds", r["seconds"]) for r in results)
    lengths = [r["count"] for r in results if r["result"] == "solved"]

    def pct(p):
        return times[min(len(times) - 1, int(p * len(times)))] if times else 0.0

    return {
        "deals": len(results),
        "solved": sum(r["result"] == "solved" for r in results),
        "unsolvable": sum(r["result"] == "unsolvable" for r in results),
        "gave_up": sum(r["result"] == "gave_up" for r in results),
        "median_seconds": round(statistics.median(times), 4) if times else 0.0,
        "p95_seconds": round(pct(0.95), 4),
        "max_seconds": round(times[-1], 4) if times else 0.0,
        "median_cpu_seconds": round(statistics.median(cpu), 4) if cpu else 0.0,
        "p95_cpu_seconds": round(cpu[min(len(cpu) - 1, int(0.95 * len(cpu)))], 4) if cpu else 0.0,
        "mean_length": round(statistics.mean(lengths), 2) if lengths else 0.0,
        "max_rss_mb": max((r.get("rss_mb", 0) for r in results), default=0),
    }


def format_summary(s: dict) -> str:
    rows = [
        ("deals", s["deals"]),
        ("solved", s["solved"]),
        ("unsolvable", s["unsolvable"]),
        ("gave up", s["gave_up"]),
        ("median time", f"{s['median_seconds'] * 1000:.0f} ms"),
        ("p95 time", f"{s['p95_seconds'] * 1000:.0f} ms"),
        ("max time", f"{s['max_seconds']:.2f} s"),
        ("median CPU", f"{s['median_cpu_seconds'] * 1000:.0f} ms"),
        ("p95 CPU", f"{s['p95_cpu_seconds'] * 1000:.0f} ms"),
        ("mean length", f"{s['mean_length']:.1f}"),
        ("peak RSS", f"{s['max_rss_mb']:.0f} MB"),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def positive_seconds(text: str, most: float = float("inf")) -> float:
    """An argparse type: a budget in seconds, more than 0 and finite (at most ``most``)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (0 < value < float("inf") and value <= most):  # also refuses nan
        limit = "" if most == float("inf") else f" and at most {most:g}"
        raise argparse.ArgumentTypeError(f"{text!r} is not a budget: give seconds, more than 0{limit}")
    return value


def _at_least(minimum: int):
    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is less than {minimum}")
        return value

    return whole


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="solve", description="Solve a FreeCell deal or a range of deals.")
    parser.add_argument("deal", help="a deal (ms:1, seed:42) or a range (ms:1-1000)")
    parser.add_argument(
        "--autoplay",
        choices=("none", "safe"),
        default="none",
        help="autoplay mode of the line (default none: foundation moves written out)",
    )
    parser.add_argument("--par", action="store_true", help="spend the budget looking for a shorter line")
    parser.add_argument(
        "--budget",
        type=positive_seconds,
        default=None,
        help="seconds per deal (give up after it; par mode: search until it runs out, default 5)",
    )
    parser.add_argument(
        "--max-states", type=_at_least(1), default=None, help="give up after searching this many positions"
    )
    parser.add_argument(
        "--cpu-budget",
        action="store_true",
        help="count --budget in CPU time, not wall time (shared machines)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print JSON (one object per deal for a range, then a summary)"
    )
    parser.add_argument("--jobs", type=_at_least(0), default=1, help="worker processes for a range (0: one per core)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar for a range")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        deals = parse_deals(args.deal)
    except EngineError as error:
        print(f"solve: {error}", file=sys.stderr)
        return USAGE_ERROR
    single = len(deals) == 1 and not _RANGE.match(args.deal)
    if single:
        r = solve_deal(deals[0], args.autoplay, args.par, args.budget, args.max_states, args.cpu_budget)
        if args.json:
            print(json.dumps({k: r[k] for k in ("deal", "result", "moves", "count", "seconds")}))
        elif r["result"] == "solved":
            print(" ".join(r["moves"]))
            print(
                f"# {r['deal']}: solved in {r['count']} moves ({args.autoplay} autoplay), {r['seconds']:.2f} s",
                file=sys.stderr,
            )
        else:
            print(
                f"# {r['deal']}: {r['result'].replace('_', ' ')} after {r['seconds']:.2f} s, {r['states']} positions",
                file=sys.stderr,
            )
        return EXIT[r["result"]]

    results: list[dict] = []
    jobs = args.jobs or os.cpu_count() or 1
    iterator = solve_range(deals, args.autoplay, args.par, args.budget, jobs, args.max_states, args.cpu_budget)
    if not args.no_progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, total=len(deals), unit="deal", file=sys.stderr)
    for r in iterator:
        if args.json:
            print(json.dumps({k: r[k] for k in ("deal", "result", "moves", "count", "seconds")}), flush=True)
        del r["moves"]  # the summary needs only the figures; a long run must not keep every line
        results.append(r)
    summary = summarize(results)
    if args.json:
        print(json.dumps({"summary": summary}))
    else:
        print(format_summary(summary))
    if summary["gave_up"]:
        return 2
    return 1 if summary["unsolvable"] else 0


def run(argv: list[str] | None = None) -> int:
    """`main`, quiet when the reader of its output goes away (`solve ms:1-40 --json | head -1`)."""
    try:
        return main(argv)
    except BrokenPipeError:
        # Python would complain again flushing stdout at exit: point it at nothing first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell reports a command ended by SIGPIPE


if __name__ == "__main__":
    sys.exit(run())
