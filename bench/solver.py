"""Solver benchmark: our solver beside Freecell Solver (Debian's fc-solve) on the same deals in the same run.

Run: python bench/solver.py [--range ms:1-1000] [--jobs 2] [--par-budget 3] [--quick]

Measures, per deal of the range:
- ours, autoplay none (the plain solve): result, time, line length (foundation moves written out);
- ours, safe autoplay, par mode with --par-budget seconds: the par (the spec's counting);
- fc-solve default (`fc-solve -m -snx`) and `fc-solve -l lg -m -snx`: line length and time;
then ms:11982 (must come back unsolvable, by exhausting the search), and the peak memory of single
solves (tracemalloc, on the slowest deals and on ms:11982). Times are wall times of one solve on one
core; with --jobs 2 two solves run side by side, and other work on the machine adds noise to both
columns. These are figures to read, never assertions in the test suite.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import Board, deal_columns, parse_deal, verify  # noqa: E402
from games.engine.solver import solve  # noqa: E402
from games.engine.solver_cli import parse_deals, solve_range  # noqa: E402

FC_TIMEOUT = 120.0
FC_PRESETS = {"fc-solve": [], "fc-solve -l lg": ["-l", "lg"]}


def fc_solve(n: int, preset: list[str]) -> dict:
    """fc-solve on ms:n: {result, count, seconds} (count: moves of its -snx line, foundation moves included)."""
    layout = subprocess.run(
        ["make-microsoft-freecell-board", "-t", str(n)], capture_output=True, text=True, check=True
    ).stdout
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        out = subprocess.run(
            ["fc-solve", *preset, "-m", "-snx"],
            input=layout,
            capture_output=True,
            text=True,
            env={"FREECELL_SOLVER_QUIET": "1", "PATH": "/usr/bin:/bin"},
            timeout=FC_TIMEOUT,
        ).stdout
    except subprocess.TimeoutExpired:
        return {"result": "gave_up", "count": 0, "seconds": FC_TIMEOUT}
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if "This game is solveable" in out:
        moves = [
            w
            for line in out.splitlines()
            if line and not line.startswith(("-=", "This", "Total"))
            for w in line.split()
        ]
        if not wins_by_our_rules(n, moves):
            # fc-solve's presets may move several cards out of an empty column as one move, which the
            # spec's rules (and our engine) refuse: such a line is no solution here and is not counted.
            return {"result": "refused", "count": 0, "seconds": seconds, "cpu_seconds": cpu}
        return {"result": "solved", "count": len(moves), "seconds": seconds, "cpu_seconds": cpu}
    result = "unsolvable" if "could not solve" in out else "gave_up"
    return {"result": result, "count": 0, "seconds": seconds, "cpu_seconds": cpu}


def wins_by_our_rules(n: int, moves: list[str]) -> bool:
    """Whether a line wins ms:n under the spec's rules, replayed by the engine (autoplay none)."""
    columns = [[str(card) for card in column] for column in deal_columns(parse_deal(f"ms:{n}"))]
    start = Board.from_state({"columns": columns, "cells": [None] * 4, "foundations": {"C": 0, "D": 0, "H": 0, "S": 0}})
    check = verify(start, " ".join(moves), autoplay="none")
    return check.valid and check.won


def _fc_work(args):
    n, preset = args
    return fc_solve(n, preset)


def stats(rows: list[dict]) -> dict:
    times = sorted(r["seconds"] for r in rows)
    counts = [r["count"] for r in rows if r["result"] == "solved"]
    cpu = sorted(r.get("cpu_seconds", r["seconds"]) for r in rows)
    return {
        "median_cpu_ms": round(statistics.median(cpu) * 1000, 1),
        "p95_cpu_ms": round(cpu[min(len(cpu) - 1, int(0.95 * len(cpu)))] * 1000, 1),
        "solved": sum(r["result"] == "solved" for r in rows),
        "refused": sum(r["result"] == "refused" for r in rows),
        "unsolvable": sum(r["result"] == "unsolvable" for r in rows),
        "gave_up": sum(r["result"] == "gave_up" for r in rows),
        "median_ms": round(statistics.median(times) * 1000, 1),
        "p95_ms": round(times[min(len(times) - 1, int(0.95 * len(times)))] * 1000, 1),
        "max_s": round(times[-1], 2),
        "mean_len": round(statistics.mean(counts), 2) if counts else None,
    }


def peak_memory(deal: str, **kwargs) -> tuple[float, str, float]:
    """(peak MB traced by tracemalloc, result, seconds) of one solve."""
    board = Board.from_deal(deal)
    tracemalloc.start()
    solution = solve(board, **kwargs)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20, solution.result, solution.seconds


def progress(iterable, total, label):
    try:
        from tqdm import tqdm

        return tqdm(iterable, total=total, desc=label, unit="deal", file=sys.stderr)
    except ImportError:  # pragma: no cover
        return iterable


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--range", default="ms:1-1000", help="deals (ms:A-B), default ms:1-1000")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--par-budget", type=float, default=3.0, help="seconds of par mode per deal (default 3)"
    )
    parser.add_argument("--no-par", action="store_true", help="skip par mode")
    parser.add_argument(
        "--wall-budget",
        action="store_true",
        help="count the par budget in wall time (default: CPU time of the worker)",
    )
    parser.add_argument("--no-fcsolve", action="store_true", help="skip fc-solve")
    parser.add_argument("--no-11982", action="store_true", help="skip the proof that ms:11982 is unsolvable")
    parser.add_argument("--quick", action="store_true", help="ms:1-50, par budget 1 s")
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    args = parser.parse_args(argv)
    if args.quick:
        args.range, args.par_budget = "ms:1-50", 1.0
    deals = parse_deals(args.range)
    numbers = [int(d.split(":")[1]) for d in deals if d.startswith("ms:")]
    report: dict = {"range": args.range, "jobs": args.jobs}
    columns: dict[str, dict] = {}

    plain = list(progress(solve_range(deals, "none", jobs=args.jobs), len(deals), "ours (none)"))
    columns["ours, autoplay none"] = stats(plain)
    safe = list(progress(solve_range(deals, "safe", jobs=args.jobs), len(deals), "ours (safe)"))
    columns["ours, safe autoplay"] = stats(safe)
    per_deal = {
        r["deal"]: {"none": r["count"], "none_s": r["seconds"], "safe": s["count"]}
        for r, s in zip(plain, safe, strict=True)
    }
    if not args.no_par:
        par = list(
            progress(
                solve_range(
                    deals,
                    "safe",
                    par=True,
                    budget=args.par_budget,
                    jobs=args.jobs,
                    cpu_clock=not args.wall_budget,
                ),
                len(deals),
                f"ours par ({args.par_budget:g} s)",
            )
        )
        columns[f"ours, par ({args.par_budget:g} s, safe)"] = stats(par)
        for r in par:
            per_deal[r["deal"]]["par"] = r["count"]
        counts = [r["count"] for r in par if r["result"] == "solved"]
        report["par"] = {
            "budget_s": args.par_budget,
            "cpu_clock": not args.wall_budget,
            "mean": round(statistics.mean(counts), 3) if counts else None,
            "share_le_32": round(sum(c <= 32 for c in counts) / len(counts), 3) if counts else None,
        }
    have_fc = shutil.which("fc-solve") and shutil.which("make-microsoft-freecell-board")
    if have_fc and not args.no_fcsolve and numbers:
        import multiprocessing

        for name, preset in FC_PRESETS.items():
            with multiprocessing.Pool(args.jobs) as pool:
                rows = list(progress(pool.imap(_fc_work, [(n, preset) for n in numbers]), len(numbers), name))
            columns[name] = stats(rows)
            for n, r in zip(numbers, rows, strict=True):
                per_deal.setdefault(f"ms:{n}", {})[name] = r["count"]

    # ms:11982: proved unsolvable?
    if not args.no_11982:
        proof = solve(Board.from_deal("ms:11982"), autoplay="safe")
        mb, _result, _seconds = peak_memory("ms:11982", autoplay="safe")
        report["ms:11982"] = {
            "result": proof.result,
            "seconds": round(proof.seconds, 2),
            "cpu_seconds": round(proof.cpu_seconds, 2),
            "states": proof.states,
            "traced_peak_mb": round(mb, 1),
        }
        if have_fc:
            r = fc_solve(11982, [])
            report["ms:11982"]["fc-solve"] = {"result": r["result"], "seconds": round(r["seconds"], 3)}
    # memory of the slowest plain solves (traced: tracemalloc slows the solve, so times are not reported)
    slowest = sorted(plain, key=lambda r: r["seconds"], reverse=True)[:3]
    report["memory"] = {r["deal"]: round(peak_memory(r["deal"])[0], 1) for r in slowest}
    report["max_rss_mb"] = max(r.get("rss_mb", 0) for r in plain)
    if not args.no_par:
        # a par search's beams are as wide as its budget allows (traced, so it searches less)
        mb, _result, _seconds = peak_memory(
            slowest[0]["deal"], autoplay="safe", par=True, budget=args.par_budget, cpu_clock=True
        )
        report["par"]["traced_peak_mb"] = round(mb, 1)
    report["columns"] = columns

    # the table
    names = list(columns)
    rows = [
        ("solved", "solved"),
        ("line refused by our rules", "refused"),
        ("unsolvable", "unsolvable"),
        ("gave up", "gave_up"),
        ("median ms", "median_ms"),
        ("median cpu ms", "median_cpu_ms"),
        ("p95 cpu ms", "p95_cpu_ms"),
        ("p95 ms", "p95_ms"),
        ("max s", "max_s"),
        ("mean length", "mean_len"),
    ]
    width = max(len(n) for n in names) + 2
    print(f"\n{args.range}: {len(deals)} deals, {args.jobs} job(s)\n")
    print(" " * 14 + "".join(f"{n:>{width}}" for n in names))
    for label, key in rows:
        print(f"{label:<14}" + "".join(f"{str(columns[n][key]):>{width}}" for n in names))
    fc = columns.get("fc-solve", {}).get("mean_len")
    ours = columns["ours, autoplay none"]["mean_len"]
    if fc and ours:
        print(f"\nour mean length (autoplay none) / fc-solve default's: {ours / fc:.2f}")
    if "par" in report:
        print(f"par: {report['par']}")
    if "ms:11982" in report:
        print(f"ms:11982: {report['ms:11982']}")
    print(
        f"peak memory traced in one solve (slowest deals): {report['memory']} MB; "
        f"max RSS of a worker: {report['max_rss_mb']} MB"
    )
    if args.json:
        report["per_deal"] = per_deal
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
