"""Verifying and replaying a line of moves: the engine's face for /api/solutions/verify/."""

from __future__ import annotations

import pytest

from games.engine import Board, InvalidDeal, Move, Verification, replay, verify

# fc-solve -m -snx's solution of ms:1, replayed under autoplay none.
MS_1_SOLUTION = """\
5a 5b 5c 5d 5h b2 8b a8 7a b7 58 6b 65 6h 5h 6h 76 b5 81 5b a5 85 8a 8h a2 7a 7h 3h 8h ch
8h 4h 3c b3 4b 48 d4 b7 28 2d 2b a2 b4 31 3a 3b c3 b6 d6 7c 7b 73 34 53 2d 27 25 d7 2d 2h
1h 7h a2 62 32 36 1a 1h 13 71 18 17 1h 8h 8h 2h 2h 4h 6h 4h 1h 7h ah c1 8a 8c 8h c4 a4 6c
6h 6a 67 6h a1 2a 2h c2 a2 4c 4h 2a 2h 8h 1h 46 4h 48 4h bh 4b 4h 3h 4h 7h ch ah 6h 2h 8h
1h 5h dh 1c 1h bh ch"""


def test_a_winning_line_is_valid_and_won():
    result = verify("ms:1", MS_1_SOLUTION)
    assert result == Verification(valid=True, won=True, moves=len(MS_1_SOLUTION.split()))
    assert result.as_dict() == {"valid": True, "won": True, "moves": 127}
    assert result.board is not None and result.board.is_won()


def test_a_valid_line_that_does_not_finish_is_not_won():
    assert verify("ms:1", "5a 5b").as_dict() == {"valid": True, "won": False, "moves": 2}
    assert verify("ms:1", "").as_dict() == {"valid": True, "won": False, "moves": 0}


def test_the_first_bad_move_is_reported_with_its_index_and_kind():
    result = verify("ms:1", "5a 5b 1h 5c")
    assert result.as_dict() == {
        "valid": False,
        "won": False,
        "moves": 2,
        "error": {
            "index": 2,
            "move": "1h",
            "code": "illegal_move",
            "message": "the six of spades cannot go to the foundation before the ace of spades",
        },
    }
    malformed = verify("ms:1", ["5a", "zz"])
    assert malformed.error is not None
    assert (malformed.error["index"], malformed.error["code"]) == (1, "bad_notation")


def test_safe_autoplay_makes_a_shorter_line_win():
    # Under safe autoplay the foundation moves autoplay makes itself are not in the line.
    board = Board.from_deal("ms:1")
    board.safe_autoplay()
    for move in MS_1_SOLUTION.split():
        if board.is_won():
            break
        try:
            board.play(move, autoplay="safe")
        except Exception:
            assert move[1] == "h"  # autoplay already sent that card home
    assert board.is_won()
    player_moves = [str(p.move) for p in board.history]
    assert verify("ms:1", player_moves, autoplay="safe").as_dict() == {
        "valid": True,
        "won": True,
        "moves": len(player_moves),
    }
    # and the full line (autoplay written out) replays under autoplay none
    assert verify("ms:1", board.line()).won


def test_verify_on_a_board_leaves_the_board_alone():
    board = Board.from_deal("ms:1")
    assert verify(board, [Move("5", "a")]).valid
    assert board == Board.from_deal("ms:1") and board.ply == 0


def test_an_invalid_deal_raises_rather_than_being_a_bad_move():
    with pytest.raises(InvalidDeal):
        verify("ms:0", "5a")


def test_replay_returns_the_final_board_and_raises_on_a_bad_move():
    board = replay("ms:1", "5a 5b")
    assert [str(c) if c else None for c in board.cells] == ["6C", "8H", None, None]
    with pytest.raises(Exception) as info:
        replay("ms:1", "5a 5a")
    assert getattr(info.value, "code", None) == "illegal_move"
