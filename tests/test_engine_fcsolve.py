"""Cross-check against a peer: Freecell Solver's deals, board text, moves and positions (fc-solve -snx)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from games.engine import Board, verify

pytestmark = [
    pytest.mark.fcsolve,
    pytest.mark.skipif(
        shutil.which("fc-solve") is None or shutil.which("make-microsoft-freecell-board") is None,
        reason="fc-solve / make-microsoft-freecell-board not on PATH (apt-get install freecell-solver-bin)",
    ),
]

_ENV = {**os.environ, "FREECELL_SOLVER_QUIET": "1"}
_SEPARATOR = "-=-=-=-=-=-=-=-=-=-=-=-"


def run(args: list[str], stdin: str = "") -> str:
    result = subprocess.run(args, input=stdin, capture_output=True, text=True, env=_ENV, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def fc_solve_moves(board_text: str) -> list[str]:
    # the "lg" preset (looking-glass) solves every deal here in milliseconds; the default can take seconds
    out = run(["fc-solve", "-l", "lg", "-m", "-snx"], board_text)
    assert "This game is solveable." in out, out[-500:]
    return out.split(_SEPARATOR, 1)[1].split("This game is solveable.")[0].split()


@pytest.mark.parametrize(
    "number",
    [
        *range(1, 21),
        617,
        11981,
        1_000_000,
        2**31 - 1,
        2**31,
        3_000_000_000,
        2**32 - 1,
        2**32,
        2**32 + 1,
        2**33 - 1,
    ],
)
def test_microsoft_layouts_match_make_microsoft_freecell_board(number):
    theirs = run(["make-microsoft-freecell-board", "-t", str(number)])
    assert Board.from_text(theirs) == Board.from_deal(f"ms:{number}")
    ours = "\n".join(" ".join(map(str, column)) for column in Board.from_deal(f"ms:{number}").columns)
    assert ours + "\n" == theirs


@pytest.mark.parametrize("number", range(1, 101))
def test_fc_solves_solution_replays_to_a_win_under_autoplay_none(number):
    board = Board.from_deal(f"ms:{number}")
    moves = fc_solve_moves(board.to_text())
    result = verify(f"ms:{number}", moves, autoplay="none")
    assert result.error is None
    assert result.valid and result.won and result.moves == len(moves)


@pytest.mark.parametrize("deal", ["ms:4", "ms:7", "seed:1", "seed:42"])
def test_every_position_fc_solve_prints_equals_ours_after_the_same_move(deal):
    # -p -t prints each position in the board text format; we parse it and compare it with our replay,
    # which checks our reader against fc-solve's writer and our rules against its moves (cells by position).
    board = Board.from_deal(deal)
    out = run(["fc-solve", "-p", "-t", "-sam", "-snx"], board.to_text())
    chunks = out.split("====================")
    assert Board.from_text(chunks[0].split(_SEPARATOR)[1]) == board
    steps = 0
    for chunk in chunks[1:]:
        if "Move:" not in chunk:
            continue
        header, _, position = chunk.strip().partition("\n")
        board.play(header.split()[1])
        assert Board.from_text(position) == board, f"after move {steps + 1} ({header})"
        steps += 1
    assert steps > 50 and board.is_won()


def test_fc_solve_reads_our_board_text_with_cells_foundations_and_an_empty_column():
    board = Board.from_deal("ms:4")
    for move in fc_solve_moves(board.to_text())[:40]:
        board.play(move)
    assert board.empty_cells() < 4 and board.cards_home() > 0
    # fc-solve must accept our text of a mid-game position and find a line that we accept and win with
    result = verify(board, fc_solve_moves(board.to_text()))
    assert result.valid and result.won


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 12345, 2**64 - 1])
def test_seed_deals_are_solved_by_fc_solve_and_its_lines_replay(seed):
    board = Board.from_deal(f"seed:{seed}")
    out = run(["fc-solve", "-l", "lg", "-m", "-snx"], board.to_text())
    if "This game is solveable." not in out:
        pytest.skip(f"fc-solve did not solve seed:{seed}")
    moves = out.split(_SEPARATOR, 1)[1].split("This game is solveable.")[0].split()
    assert verify(board, moves).won
