"""The exact search behind bench/optimal.py: its lines win, its bound never overestimates, and its
optimum agrees with a plain breadth-first search and with our par (which can never beat it)."""

from __future__ import annotations

import shutil

import pytest

from bench import optimal
from games.engine import Board
from games.engine import solver_core as core
from games.engine.solver import solve

pytestmark = pytest.mark.skipif(not shutil.which("gcc"), reason="bench/optimal.py builds its search with gcc")


def par_line(deal: str, budget: float = 1.0):
    """A ranked game's start of the deal, and our par line from it."""
    board = optimal.start_of(deal)
    solution = solve(board, autoplay="safe", par=True, budget=budget, cpu_clock=True)
    assert solution.solved
    return board, solution.moves


def positions_along(board: Board, moves) -> list[tuple[Board, int]]:
    """Each position of a line with the number of actions the line still takes from it."""
    out = []
    board = board.copy(history=False)
    for i, move in enumerate(moves):
        out.append((board.copy(history=False), len(moves) - i))
        board.play(move, autoplay="safe")
    assert board.is_won()
    return out


def fewest_actions(board: Board, limit: int) -> int | None:
    """Breadth-first search over every move (safe autoplay after each): the fewest actions that win,
    or None if it takes more than ``limit``. Independent of the C search."""
    state, _cells = optimal.to_core(board)
    level = {core.key_of(state[0], state[1]): state}
    seen = set(level)
    for depth in range(limit + 1):
        if any(core.is_won(s) for s in level.values()):
            return depth
        nxt = {}
        for s in level.values():
            for _move, child, _auto in core.children(s, True):
                key = core.key_of(child[0], child[1])
                if key not in seen:
                    seen.add(key)
                    nxt[key] = child
        level = nxt
    return None


def test_the_optimum_replays_to_a_win_and_nothing_shorter_exists():
    board = optimal.start_of("ms:2")
    found = optimal.optimum(board)
    assert found["result"] == "optimal"
    copy = board.copy(history=False)
    for move in found["moves"]:
        copy.play(move, autoplay="safe")
    assert copy.is_won() and len(found["moves"]) == found["value"]
    # told to look only below the optimum, it proves there is nothing there
    below = optimal.optimum(board, upper=found["value"])
    assert (below["result"], below["value"], below["moves"]) == ("bound", found["value"], [])


@pytest.mark.parametrize("deal", ["ms:2", "ms:18", "seed:7"])
def test_our_par_is_never_shorter_than_the_optimum(deal):
    board, moves = par_line(deal)
    found = optimal.optimum(board, max_nodes=3_000_000)
    assert found["value"] <= len(moves)
    if found["result"] == "optimal":
        assert len(found["moves"]) == found["value"]


def test_a_search_cut_short_reports_a_bound_no_longer_than_a_winning_line():
    board, moves = par_line("ms:1")
    found = optimal.optimum(board, max_nodes=20_000)
    assert found["result"] == "bound"
    assert 0 < found["value"] <= len(moves)
    assert found["nodes"] <= 20_000


@pytest.mark.parametrize("deal", ["ms:1", "ms:5", "ms:617", "seed:42"])
def test_the_bound_never_exceeds_the_actions_left_on_a_winning_line(deal):
    board, moves = par_line(deal, budget=0.5)
    along = positions_along(board, moves)
    hs = optimal.bounds([b for b, _left in along])
    assert len(hs) == len(along)
    assert all(h <= left for h, (_b, left) in zip(hs, along, strict=True)), list(
        zip(hs, [left for _b, left in along], strict=True)
    )
    assert hs[0] >= 15  # and it is no trivial bound (25-31 on a fresh deal of ms:1-20)


@pytest.mark.parametrize("deal", ["ms:3", "ms:28", "seed:9"])
def test_near_the_end_the_optimum_is_what_breadth_first_search_finds(deal):
    board, moves = par_line(deal, budget=0.5)
    along = positions_along(board, moves)
    for position, left in along[-4:] + [along[-6]]:
        if left > 4:
            expected = fewest_actions(position, 4)  # None: more than 4
        else:
            expected = fewest_actions(position, left)
        found = optimal.optimum(position)
        assert found["result"] == "optimal"
        if expected is None:
            assert found["value"] > 4
        else:
            assert found["value"] == expected
