"""FreeCell solver: solve any position, prove deals unsolvable, find short lines (par) and hints.

Public API (see docs/solver.md)::

    solve(board, autoplay="none", par=False, budget=None, max_states=None) -> Solution
    hint(board, autoplay="none", budget=3.0) -> Move | None

The search itself runs on a compact representation (solver_core.py); this module converts the
engine's Board to it and the result back to engine Moves, and replays every line on a copy of the
board before returning it: a line that the engine does not accept as a win is never returned.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import time
from dataclasses import dataclass, field

from . import solver_core as core
from .board import Board
from .notation import Move

logger = logging.getLogger(__name__)

AUTOPLAY_MODES = ("none", "safe")
#: Seconds par mode spends when no budget is given.
DEFAULT_PAR_BUDGET = 5.0


@dataclass
class Solution:
    """What the solver found.

    ``result``: ``"solved"`` (``moves`` wins), ``"unsolvable"`` (every position reachable was searched:
    a proof) or ``"gave_up"`` (the budget ran out first). ``moves`` replays to a win with
    ``Board.play(move, autoplay=autoplay)``; under ``"none"`` it includes every foundation move, under
    ``"safe"`` it leaves out what safe autoplay does itself. ``count`` is the spec's move count of the
    line (a run is one move, autoplay is free): ``len(moves)``. ``states``: positions searched;
    ``seconds`` wall time, ``cpu_seconds`` the process's CPU time (the same on an idle machine).
    """

    result: str
    moves: list[Move] = field(default_factory=list)
    seconds: float = 0.0
    states: int = 0
    autoplay: str = "none"
    cpu_seconds: float = 0.0

    @property
    def count(self) -> int:
        return len(self.moves)

    @property
    def first_move(self) -> Move | None:
        """The first move of the winning line (a hint), or None when there is none."""
        return self.moves[0] if self.result == "solved" and self.moves else None

    @property
    def solved(self) -> bool:
        return self.result == "solved"

    def line(self) -> str:
        return " ".join(str(m) for m in self.moves)

    def as_dict(self) -> dict:
        return {
            "result": self.result,
            "moves": [str(m) for m in self.moves],
            "count": self.count,
            "seconds": round(self.seconds, 4),
            "states": self.states,
            "autoplay": self.autoplay,
        }


# --------------------------------------------------------------------------------------------
# Conversion between the engine and the core


def to_core(board: Board):
    """The core position of a board, and its free cells in order a-d (core cards, -1 empty)."""
    state = board.state()
    cols = tuple(tuple(core.parse_card(c) for c in col) for col in state["columns"])
    real_cells = [core.parse_card(c) if c else -1 for c in state["cells"]]
    cells = tuple(sorted(c for c in real_cells if c >= 0))
    found = tuple(state["foundations"][s] for s in core.SUITS)
    return (cols, cells, found), real_cells


def to_moves(path, real_cells, autoplay: str) -> list[Move]:
    """Engine moves for a core path; cells get letters as the line goes (first empty cell first)."""
    cells = list(real_cells)
    out: list[Move] = []

    def source(src, card):
        if src == core.CELL:
            i = cells.index(card)
            cells[i] = -1
            return "abcd"[i]
        return str(src + 1)

    for move, auto, _state in path:
        src, dst, n, card = move
        s = source(src, card)
        if dst == core.FOUND:
            d = "h"
        elif dst == core.CELL:
            i = cells.index(-1)
            cells[i] = card
            d = "abcd"[i]
        else:
            d = str(dst + 1)
        out.append(Move(s, d, n if n > 1 else None))
        for a_src, _a_dst, _n, a_card in auto:
            s = source(a_src, a_card)
            if autoplay == "none":
                out.append(Move(s, "h"))
    return out


def replays_to_win(board: Board, moves: list[Move], autoplay: str) -> bool:
    """Does the line win from ``board`` under ``autoplay``? (played on a copy)"""
    copy = board.copy(history=False)
    try:
        for move in moves:
            copy.play(move, autoplay=autoplay)
    except Exception:  # noqa: BLE001 - any refusal means the line is bad
        logger.exception("solver line refused by the engine")
        return False
    return copy.is_won()


# --------------------------------------------------------------------------------------------
# The searches

#: Heuristic weights of the fast search (weighted best-first) and of par mode's beam search.
FAST_PARAMS = {"runs": 1.0, "bad": 0.2, "empty": 0.5, "cell": 0.6, "home": 0.3}
FAST_WEIGHT = 1.3
#: The plain solve runs these searches (weight, heuristic) in turns with doubling state limits:
#: each solves some deals that the other finds hard. Past ALTERNATE_UNTIL states each, only the
#: first goes on (to a win or to the end of the search space, a proof).
PORTFOLIO = (
    (FAST_WEIGHT, FAST_PARAMS),
    (2.0, {"runs": 1.0, "bad": 0.5, "empty": 1.0, "cell": 0.5, "home": 1.0}),
)
ALTERNATE_UNTIL = 16000
#: States searched at most when neither ``budget`` nor ``max_states`` is given (bounds memory).
DEFAULT_MAX_STATES = 1_000_000
#: Heuristics of par mode's beam searches, in the order they run. The first was learned: weights
#: of a logistic regression that ranks the position of a good line at each depth above the other
#: positions of that depth (see docs/solver.md); the second was fitted by hand.
BEAM_PARAMS = (
    {
        "bad": 0.287,
        "runs": 0.643,
        "breaks": 1.091,
        "lowdepth": -0.154,
        "lowdw": 0.583,
        "empty": 2.207,
        "runsw": 1.432,
        "cell": 2.061,
        "cellfar": 0.81,
        "home": -0.206,
        "lowruns": -0.288,
    },
    {"runs": 0.643, "cell": 0.511, "breaks": 0.264, "cellfar": 0.216, "lowdepth": -0.48, "lowdw": 0.816},
)
#: Width of par mode's first beam search, which measures the speed of the machine.
CALIBRATION_WIDTH = 32
#: Share of the time left that the next beam search is sized to take.
BEAM_SHARE = 0.85
#: A beam is at most this many times as wide as the one before it: a wide beam is slower per
#: position than a narrow one (larger levels to sort), so a beam sized from the first small
#: beam's speed alone overran long budgets; each beam is sized from the speed of the last.
WIDTH_GROWTH = 16
#: The widest beam (bounds the memory of a par search with a long budget: about 100 MB).
MAX_BEAM_WIDTH = 10_000
#: In par mode, the search for shorter lines gets at least this share of the budget, however long
#: the first line took.
PAR_MIN_SHARE = 0.5
#: In par mode, the first line may take this long even when the budget is shorter.
FIRST_LINE_SECONDS = 30.0


def _cost_found(autoplay: str) -> int:
    # Under "none" every line holds the same 52 foundation moves: only the others cost.
    return 0 if autoplay == "none" else 1


def _line_cost(path, autoplay: str) -> int:
    if autoplay == "none":
        return sum(1 for m, _a, _s in path if m[1] != core.FOUND)
    return len(path)


@contextlib.contextmanager
def _cyclic_gc_paused():
    """Pauses Python's cyclic garbage collector for a search. A search allocates millions of tuples
    that live on (the positions seen), so the collector ran again and again over a growing heap and
    took about a sixth of a plain solve's time (ms:1-1000, docs/solver.md); the search makes no reference
    cycles, and its garbage is freed by reference counting as before. Process-wide, so the collector
    is switched back on only by the call that switched it off (another thread may be solving too)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def solve(
    board: Board,
    autoplay: str = "none",
    par: bool = False,
    budget: float | None = None,
    max_states: int | None = None,
    cpu_clock: bool = False,
) -> Solution:
    """Solve ``board`` (any position). ``budget``: seconds; without ``par`` the search gives up when
    they run out, with ``par`` the solver keeps looking for shorter lines until they run out and
    returns the shortest (5 s when not given). ``max_states``: give up after searching that many
    positions (None: no limit). ``cpu_clock``: count the budget in CPU time of this process rather
    than wall time (for benchmarks on a shared machine)."""
    if autoplay not in AUTOPLAY_MODES:
        raise ValueError(f"autoplay must be one of {AUTOPLAY_MODES}, not {autoplay!r}")
    clock = time.process_time if cpu_clock else time.perf_counter
    wall_started = time.perf_counter()
    cpu_started = time.process_time()
    started = clock()
    if par and budget is None:
        budget = DEFAULT_PAR_BUDGET
    deadline = started + budget if budget is not None else None
    first_deadline = started + max(budget, FIRST_LINE_SECONDS) if par else deadline
    root, real_cells = to_core(board)

    def done(result, path=None, states=0):
        moves = []
        if path is not None:
            moves = to_moves(path, real_cells, autoplay)
            if not replays_to_win(board, moves, autoplay):
                logger.error("solver: a line did not replay to a win: %s", " ".join(map(str, moves)))
                result, moves = "gave_up", []
        return Solution(
            result,
            moves,
            time.perf_counter() - wall_started,
            states,
            autoplay,
            time.process_time() - cpu_started,
        )

    if core.is_won(root):
        return done("solved", [])
    cf = _cost_found(autoplay)
    if max_states is None and budget is None:
        max_states = DEFAULT_MAX_STATES
    with _cyclic_gc_paused():
        path, states, exhausted = first_line(root, cf, max_states, first_deadline, clock)
        if path is not None and par:
            # a slow first line leaves the search for shorter ones at least part of the budget
            deadline = max(deadline, clock() + budget * PAR_MIN_SHARE)
            path, more = improve(root, path, autoplay, deadline, max_states, clock)
            states += more
    if path is None:
        return done("unsolvable" if exhausted else "gave_up", None, states)
    return done("solved", path, states)


def first_line(root, cost_found, max_states=None, deadline=None, clock=time.perf_counter):
    """The plain solve: (path or None, states searched, exhausted)."""
    searches = [core.Search(root, cost_found, w, p) for w, p in PORTFOLIO]
    dropped = 0  # states of the searches no longer run
    limit = 250
    while True:
        for search in searches:
            cap = limit
            if max_states:
                cap = min(cap, search.states + max_states - dropped - sum(s.states for s in searches))
            path = search.run(max_states=cap, deadline=deadline, clock=clock)
            total = dropped + sum(s.states for s in searches)
            if path is not None:
                return path, total, False
            if search.exhausted:
                return None, total, True
            if (deadline and clock() > deadline) or (max_states and total >= max_states):
                return None, total, False
            if search.too_big:
                return None, total, False
        limit *= 2
        if limit > ALTERNATE_UNTIL and len(searches) > 1:
            dropped += sum(s.states for s in searches[1:])
            searches = searches[:1]
            limit = 1 << 62


def improve(root, path, autoplay, deadline, max_states=None, clock=time.perf_counter):
    """Par mode: look for shorter lines until ``deadline``; returns (best path, states searched).

    A small beam search measures the speed of the machine; then beam searches as wide as the time
    left allows at the last beam's speed, each at most WIDTH_GROWTH times as wide as the last
    (``next_width``), in turns with the heuristics of BEAM_PARAMS. Every position of every line
    found is remembered with its cost to the win (``core.Known``): a later beam that reaches one of
    them splices the two lines, and a beam stops at the level where it can no longer beat the best
    line. Last, a local pass replaces stretches of the best line by shorter ones (a breadth-first
    search of two moves from each of its positions for a later position of it or any remembered
    position).
    """
    cf = _cost_found(autoplay)
    beam = core.beam_fast if cf else core.beam_known
    known = core.Known(cf)
    best, best_cost = path, _line_cost(path, autoplay)
    known.add(root, best)
    states = 0
    width = CALIBRATION_WIDTH
    rounds = 0
    ran = set()
    while clock() < deadline:
        which = rounds % len(BEAM_PARAMS)
        if (width, which) in ran:  # the same beam again would find the same line
            break
        ran.add((width, which))
        params = BEAM_PARAMS[which]
        started = clock()
        search = core.Search(root, cf, 1.0, params)
        found, cost = beam(search, width, known, best_cost, deadline=deadline, clock=clock)
        states += search.states
        took = max(clock() - started, 1e-3)
        if found is not None and cost < best_cost:
            best, best_cost = found, cost
            known.add(root, best)
        if max_states and states > max_states:
            break
        if len(ran) > 1:  # the first (calibration) beam does not take a heuristic's turn
            rounds += 1
        width = next_width(width, search.states / took, deadline - clock(), best_cost)
        if width < 16:
            break
    if clock() < deadline:
        best = core.shorten_known(root, best, known, 1, deadline, clock)
    return best, states


def next_width(width: int, rate: float, remaining: float, best_cost: int) -> int:
    """Width of par mode's next beam: as wide as BEAM_SHARE of the ``remaining`` seconds allow at
    the last beam's ``rate`` (positions per second; a beam of width w over a line of n moves
    expands about w x n positions), but at most WIDTH_GROWTH times the last ``width`` and
    MAX_BEAM_WIDTH."""
    fits = int(rate * remaining * BEAM_SHARE / (best_cost + 4))
    return max(0, min(MAX_BEAM_WIDTH, width * WIDTH_GROWTH, fits))


def hint(board: Board, autoplay: str = "none", budget: float | None = 3.0) -> Move | None:
    """The first move of a winning line from ``board`` (None when none was found in ``budget``)."""
    return solve(board, autoplay=autoplay, budget=budget).first_move


def first_move(board_text: str, autoplay: str, budget: float) -> tuple[str, str | None]:
    """(result, first move or None) of a solve from a position given as board text: what a hint
    needs, in plain values, so that it can run in a worker process (the service's hint pool)."""
    solution = solve(Board.from_text(board_text), autoplay=autoplay, budget=budget)
    move = solution.first_move
    return solution.result, str(move) if move else None


def par_line(board_text: str, budget: float, fallback_budget: float) -> tuple[str, list[str]]:
    """(result, line) of a par search of `budget` seconds under safe autoplay from a position given as
    board text, then, if it settled nothing, a plain solve of `fallback_budget` seconds: what the
    daily's maker needs, in plain values, so that it can run in a worker process."""
    found = solve(Board.from_text(board_text), autoplay="safe", par=True, budget=budget)
    if found.result not in ("solved", "unsolvable"):
        found = solve(Board.from_text(board_text), autoplay="safe", budget=fallback_budget)
    return found.result, [str(move) for move in found.moves]


def deal_facts(board_text: str, budget: float) -> tuple[str, list[str]]:
    """(result, line) of a deal's facts under safe autoplay, in plain values for a worker process: a
    plain solve of `budget` seconds settles whether it can be won; a won one then gets a par search of
    `budget` seconds more (its first line is the search that just succeeded, so it is found again at once)."""
    board = Board.from_text(board_text)
    found = solve(board, autoplay="safe", budget=budget)
    if found.result == "solved":
        shorter = solve(board, autoplay="safe", par=True, budget=budget)
        if shorter.solved and shorter.count <= found.count:
            found = shorter
    return found.result, [str(move) for move in found.moves]
