"""The copies of the rules beside the engine agree with it, on positions of real deals played at random:
the page's rules model (frontend/static/frontend/js/cards.js, run under Node: safe autoplay, which it
animates before the server's answer, which moves are legal and what a legal move leaves), and the
solver's packed-card autoplay (games/engine/solver_core.py, whose speed needs its own encoding)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from games.engine import Board, EngineError
from games.engine import solver_core as core

CARDS_JS = Path(__file__).resolve().parent.parent / "frontend" / "static" / "frontend" / "js" / "cards.js"

RUNNER = """
import { readFileSync } from "node:fs";
import { safeAutoplay, checkMove, applyMove } from "./cards.mjs";
const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = cases.map(({ state, moves }) => {
  const auto = safeAutoplay(state);
  const tried = moves.map((move) => {
    const checked = checkMove(state, move);
    if (checked.error) return { legal: false };
    return { legal: true, move: checked.move, state: applyMove(state, move).state };
  });
  return { autoplay: auto.moves, after: auto.state, tried };
});
process.stdout.write(JSON.stringify(out));
"""

#: Moves tried on each position beside the engine's own legal moves: some legal, most not.
PROBES = ["1h", "2a", "3b", "45", "54", "a1", "b8", "ch", "d2", "12", "87", "36", "16", "61", "3x", "9h", "aa"]


def _positions(count: int, seed: int) -> list[Board]:
    """Positions of Microsoft deals reached by random legal moves (no autoplay, so foundations fill by hand)."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = Board.from_deal(f"ms:{rng.randint(1, 32000)}")
        for _ in range(rng.randint(0, 120)):
            legal = board.legal_moves()
            if not legal:
                break
            home = [move for move in legal if str(move).endswith("h")]
            board.play(rng.choice(home if home and rng.random() < 0.6 else legal))
            if rng.random() < 0.08:
                boards.append(board.copy(history=False))
        boards.append(board.copy(history=False))
    return boards[:count]


def _engine_answers(board: Board, moves: list[str]) -> dict:
    auto = board.copy(history=False)
    autoplay = [str(move) for move in auto.safe_autoplay()]
    tried = []
    for move in moves:
        trial = board.copy(history=False)
        try:
            played = trial.play(move)
        except EngineError:
            tried.append({"legal": False})
            continue
        tried.append({"legal": True, "move": str(played.move), "state": trial.state()})
    return {"autoplay": autoplay, "after": auto.state(), "tried": tried}


@pytest.mark.skipif(shutil.which("node") is None, reason="Node runs the page's JavaScript (Debian's nodejs, installed by .ci/run)")
def test_the_pages_autoplay_and_move_rules_agree_with_the_engines(tmp_path):
    shutil.copy(CARDS_JS, tmp_path / "cards.mjs")
    (tmp_path / "run.mjs").write_text(RUNNER)
    boards = _positions(1500, seed=38)
    cases = []
    for board in boards:
        moves = sorted({str(move) for move in board.legal_moves()} | set(PROBES))
        cases.append({"state": board.state(), "moves": moves})
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    ran = subprocess.run(["node", "run.mjs", "cases.json"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    page = json.loads(ran.stdout)
    autoplayed = 0
    for board, case, seen in zip(boards, cases, page, strict=True):
        expected = _engine_answers(board, case["moves"])
        assert seen["autoplay"] == expected["autoplay"], board.to_text()
        assert seen["after"] == expected["after"], board.to_text()
        for move, theirs, ours in zip(case["moves"], seen["tried"], expected["tried"], strict=True):
            assert theirs == ours, (move, board.to_text())
        autoplayed += bool(expected["autoplay"])
    assert autoplayed > 100, "the positions must exercise autoplay, not only boards with nothing to send home"


def _packed(board: Board) -> tuple:
    """A position in the solver's encoding (a card is rank << 2 | suit)."""
    state = board.state()
    columns = tuple(tuple(core.parse_card(card) for card in column) for column in state["columns"])
    cells = tuple(sorted(core.parse_card(card) for card in state["cells"] if card))
    return columns, cells, tuple(state["foundations"][suit] for suit in core.SUITS)


def test_the_solvers_autoplay_leaves_the_position_the_engines_leaves():
    """Safe autoplay's end does not depend on the order cards go home (a card sent home never makes
    another unsafe), so the solver may send them in its own order: it must end where the engine does."""
    sent_home = 0
    for board in _positions(3000, seed=380):
        columns, cells, foundations = _packed(board)
        columns, cells, foundations, out = [list(c) for c in columns], list(cells), list(foundations), []
        core.autoplay(columns, cells, foundations, out)
        engine = board.copy(history=False)
        moves = engine.safe_autoplay()
        assert (tuple(tuple(c) for c in columns), tuple(sorted(cells)), tuple(foundations)) == _packed(engine), board.to_text()
        assert len(out) == len(moves)
        sent_home += len(moves)
    assert sent_home > 100, "the positions must exercise autoplay"
