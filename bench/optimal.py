"""How far par is from optimal: the proven optimum of each deal beside our par, in the same run.

Run: python bench/optimal.py [--range ms:1-100] [--jobs 2] [--max-nodes 4000000] [--par-budget 2 5]

For each deal, an exact A* search (bench/optimal/optimal.c, compiled here with gcc: a measuring
instrument, not part of the service, whose solver stays pure Python) either proves the optimum
(the fewest actions that win under the spec's counting: a run is one move, safe autoplay is free)
or, when it runs out of positions, a lower bound on it. Every optimal line is replayed by the
engine before it is counted. Beside it, the baseline measured in the same run: our par mode
(games/engine/solver.py) with --par-budget seconds of CPU per deal (several values: one baseline each).

The mean of the per-deal lower bounds (the optimum where it was proved) is a lower bound on the mean
par any solver can reach on the range: no line is shorter than the optimum. docs/solver.md, "The
proven optimum", explains the bound and gives the figures. These are figures to read, never
assertions in the test suite.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engine import Board  # noqa: E402
from games.engine import solver_core as core  # noqa: E402
from games.engine.solver import replays_to_win, to_core, to_moves  # noqa: E402
from games.engine.solver_cli import parse_deals, solve_range  # noqa: E402

SOURCE = ROOT / "bench" / "optimal" / "optimal.c"
BUILD = ROOT / "bench" / "optimal" / "build"
DEFAULT_MAX_NODES = 4_000_000
DEFAULT_SECONDS = 120.0


class InstrumentError(RuntimeError):
    """The exact search said something the engine does not confirm: its figures cannot be used."""


def build() -> Path:
    """Compile optimal.c (once per version of the source) and return the program's path."""
    if not shutil.which("gcc"):
        raise InstrumentError("gcc is needed to build bench/optimal/optimal.c")
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:12]
    program = BUILD / f"optimal-{digest}"
    if not program.exists():
        BUILD.mkdir(parents=True, exist_ok=True)
        partial = program.with_suffix(".tmp")
        subprocess.run(["gcc", "-O2", "-o", str(partial), str(SOURCE)], check=True)
        partial.replace(program)  # atomic: parallel workers never run a half-written program
    return program


def position_text(state) -> str:
    """A core position as the program reads it: 8 column lines, then the free-cell line."""
    cols, cells, _found = state
    return "".join(" ".join(map(str, col)) + "\n" for col in cols) + " ".join(map(str, cells)) + "\n"


def start_of(deal: str) -> Board:
    """The deal as a ranked (safe autoplay) game starts: safe autoplay applied before any move."""
    board = Board.from_deal(deal)
    board.safe_autoplay()
    return board


def optimum(
    board: Board, max_nodes: int = DEFAULT_MAX_NODES, seconds: float = DEFAULT_SECONDS, upper: int = 255
) -> dict:
    """Exact search from ``board`` (safe autoplay): {"result": "optimal"|"bound", "value", "nodes",
    "seconds", "moves"}. "optimal": ``moves`` is a winning line of ``value`` actions and none is
    shorter; "bound": no line is shorter than ``value`` (the search stopped at ``max_nodes``
    positions, ``seconds`` of CPU, or ``upper``)."""
    state, real_cells = to_core(board)
    run = subprocess.run(
        [str(build()), str(max_nodes), str(seconds), str(upper)],
        input=position_text(state),
        capture_output=True,
        text=True,
        check=False,
    )
    lines = run.stdout.split("\n")
    head = lines[0].split()
    if run.returncode not in (0, 2) or not head or head[0] not in ("optimal", "bound"):
        raise InstrumentError(f"optimal exited {run.returncode}: {run.stdout[:200]!r} {run.stderr[:200]!r}")
    found = {
        "result": head[0],
        "value": int(head[1]),
        "nodes": int(head[3]),
        "seconds": float(head[7]),
        "moves": [],
    }
    if head[0] == "optimal":
        path = []
        for line in lines[1 : 1 + found["value"]]:
            move = tuple(int(x) for x in line.split())
            state, auto = core.play(state, move)
            path.append((move, auto, state))
        moves = to_moves(path, real_cells, "safe")
        if len(moves) != found["value"] or not replays_to_win(board, moves, "safe"):
            raise InstrumentError(f"the optimal line does not replay to a win: {' '.join(map(str, moves))}")
        found["moves"] = [str(m) for m in moves]
    return found


def bounds(boards: list[Board]) -> list[int]:
    """The program's bound h (never more than the actions left) for each position."""
    text = "".join(position_text(to_core(b)[0]) for b in boards)
    run = subprocess.run([str(build()), "--h"], input=text, capture_output=True, text=True, check=True)
    return [int(x) for x in run.stdout.split()]


def _work(args) -> dict:
    deal, max_nodes, seconds = args
    found = optimum(start_of(deal), max_nodes=max_nodes, seconds=seconds)
    found["deal"] = deal
    return found


def progress(iterable, total, label):
    try:
        from tqdm import tqdm

        return tqdm(iterable, total=total, desc=label, unit="deal", file=sys.stderr)
    except ImportError:  # pragma: no cover
        return iterable


def summarize(rows: list[dict]) -> dict:
    """The optimum's figures of a run (rows from _work)."""
    proven = [r for r in rows if r["result"] == "optimal"]
    return {
        "deals": len(rows),
        "proven": len(proven),
        "mean_lower_bound": round(statistics.mean(r["value"] for r in rows), 3),
        "mean_optimum_proven": round(statistics.mean(r["value"] for r in proven), 3) if proven else None,
        "share_optimum_le_32_proven": round(sum(r["value"] <= 32 for r in proven) / len(proven), 3)
        if proven
        else None,
        "max_cpu_s": max(r["seconds"] for r in rows),
    }


def compare(rows: list[dict], par: dict[str, int]) -> dict:
    """Our par (by deal) against the optimum: on every deal, and on the deals whose optimum was proved."""
    proven = [r for r in rows if r["result"] == "optimal"]
    out = {"mean_par": round(statistics.mean(par[r["deal"]] for r in rows), 3)}
    if proven:
        gaps = [par[r["deal"]] - r["value"] for r in proven]
        out["mean_par_proven"] = round(statistics.mean(par[r["deal"]] for r in proven), 3)
        out["mean_gap_proven"] = round(statistics.mean(gaps), 3)
        out["par_is_optimal"] = sum(g == 0 for g in gaps)
        out["max_gap"] = max(gaps)
        out["below_optimum"] = sum(g < 0 for g in gaps)  # must stay 0: no line beats the optimum
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--range", default="ms:1-100", help="deals (ms:A-B, seed:A-B or a comma list), default ms:1-100"
    )
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--max-nodes",
        type=int,
        default=DEFAULT_MAX_NODES,
        help="positions one search keeps at most (about 70 bytes each)",
    )
    parser.add_argument(
        "--seconds", type=float, default=DEFAULT_SECONDS, help="CPU seconds one search takes at most"
    )
    parser.add_argument(
        "--par-budget",
        type=float,
        nargs="*",
        default=[2.0],
        help="CPU seconds of our par mode per deal, one baseline per value (none: no baseline)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    args = parser.parse_args(argv)
    deals = parse_deals(args.range)
    build()  # once, before the workers start
    with multiprocessing.Pool(args.jobs) as pool:
        work = [(d, args.max_nodes, args.seconds) for d in deals]
        rows = list(progress(pool.imap(_work, work), len(deals), "optimum"))
    report = {"range": args.range, "max_nodes": args.max_nodes, "optimum": summarize(rows), "par": {}}
    for budget in args.par_budget:
        runs = solve_range(deals, "safe", par=True, budget=budget, jobs=args.jobs, cpu_clock=True)
        par = {r["deal"]: r["count"] for r in progress(runs, len(deals), f"par ({budget:g} s)")}
        report["par"][f"{budget:g}"] = compare(rows, par)
        for r in rows:
            r[f"par_{budget:g}"] = par[r["deal"]]
    figures = report["optimum"]
    print(f"\n{args.range}: {len(deals)} deals; exact search of at most {args.max_nodes:,} positions each\n")
    print(f"optimum proved            {figures['proven']} of {figures['deals']} deals")
    print(f"mean optimum (proved)     {figures['mean_optimum_proven']}")
    print(
        f"mean lower bound (all)    {figures['mean_lower_bound']}   (no solver's mean par on the range is lower)"
    )
    wrong = 0
    for budget, c in report["par"].items():
        print(f"our mean par ({budget} s CPU)  {c['mean_par']}")
        if "mean_par_proven" in c:
            print(
                f"  on the proved deals     {c['mean_par_proven']}: {c['mean_gap_proven']} above the optimum "
                f"on average, equal on {c['par_is_optimal']}, at most {c['max_gap']} above"
            )
            wrong += c["below_optimum"]
    if wrong:
        print(f"!! par below the optimum {wrong} times: the instrument is wrong")
    if args.json:
        report["per_deal"] = rows
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
