"""The board: every rule of FreeCell (legal and illegal: docs/engine-api.md), autoplay, undo, board text and state."""

from __future__ import annotations

import pytest

from games.engine import BadBoardText, BadNotation, Board, IllegalMove, Move, Played
from games.engine.testing import position, tops

# Cards for the columns a test does not care about; none of them fits on another.
_OTHERS = ["4D", "4C", "6H", "6S", "QS", "8C", "TD"]


def cols(*given: str) -> list[str]:
    """The given columns (bottom card first, "" for an empty one), the rest filled from _OTHERS."""
    return [*given, *_OTHERS[: 8 - len(given)]]


def run_board(free_cells: int, empty_columns: int, run: str = "KC 9S 8H 7C 6D 5S") -> Board:
    """Column 1 holds `run` (9S down), column 2 the TH it fits on, then `empty_columns` empty columns."""
    cells = ["KH", "KD", "QC", "QD"][: 4 - free_cells]
    return position(cols(run, "TH", *[""] * empty_columns), cells=" ".join(cells))


def illegal(board: Board, move: str) -> str:
    before = board.copy()
    with pytest.raises(IllegalMove) as info:
        board.play(move)
    assert board == before
    assert info.value.code == "illegal_move"
    return str(info.value)


# ------------------------------------------------------------------ columns and runs


def test_a_card_goes_on_a_card_one_rank_higher_of_the_other_colour():
    board = position(cols("9H", "7C", "8H", "8S"))
    assert board.play("23") == Played(Move("2", "3"), [])
    assert tops(board)[2] == "7C"


def test_it_refuses_a_card_on_the_same_colour_or_a_wrong_rank():
    board = position(cols("9H", "7C", "8S", "TS"))
    assert illegal(board, "21") == "the seven of clubs cannot go on the nine of hearts"
    assert illegal(board, "23") == "the seven of clubs cannot go on the eight of spades"
    assert illegal(board, "34") == "the eight of spades cannot go on the ten of spades"


def test_a_run_moves_onto_the_card_its_bottom_fits_with_the_count_implied():
    board = run_board(free_cells=4, empty_columns=0, run="KC 9S 8H 7C")
    played = board.play("12")
    assert played.move == Move("1", "2", 3)
    assert str(played.move) == "12v3"
    assert [str(c) for c in board.columns[1]] == ["TH", "9S", "8H", "7C"]
    assert [str(c) for c in board.columns[0]] == ["KC"]


def test_only_the_part_of_a_run_that_fits_moves():
    board = position(cols("KC 9S 8H 7C", "9C"))
    assert board.check("12") == Move("1", "2", 2)
    board.play("12")
    assert [str(c) for c in board.columns[1]] == ["9C", "8H", "7C"]


def test_it_refuses_a_run_larger_than_capacity():
    board = run_board(free_cells=1, empty_columns=1)  # run of 5, capacity (1 + 1) * 2 = 4
    assert illegal(board, "12") == "only 4 cards can move with 1 free cell and 1 empty column"


def test_a_run_as_large_as_capacity_moves():
    board = run_board(free_cells=1, empty_columns=1, run="KC 9S 8H 7C 6D")
    assert board.play("12").move == Move("1", "2", 4)


def test_capacity_doubles_with_each_empty_column_and_grows_with_each_free_cell():
    assert run_board(free_cells=0, empty_columns=0).capacity() == 1
    assert run_board(free_cells=2, empty_columns=0).capacity() == 3
    assert run_board(free_cells=1, empty_columns=2).capacity() == 8
    assert run_board(free_cells=4, empty_columns=2).capacity() == 20
    assert run_board(free_cells=4, empty_columns=2).capacity(to_empty_column=True) == 10


def test_without_free_cells_or_empty_columns_only_one_card_moves():
    board = run_board(free_cells=0, empty_columns=0, run="KC 9S 8H")
    assert illegal(board, "12") == "only 1 card can move with 0 free cells and 0 empty columns"


def test_a_move_to_an_empty_column_moves_one_card_unless_a_count_is_written():
    board = run_board(free_cells=4, empty_columns=1)
    assert board.play("13") == Played(Move("1", "3"), [])
    assert [str(c) for c in board.columns[2]] == ["5S"]
    board.undo()
    assert board.play("13v3").move == Move("1", "3", 3)
    assert [str(c) for c in board.columns[2]] == ["7C", "6D", "5S"]


def test_an_empty_destination_column_does_not_count_toward_capacity():
    board = run_board(free_cells=1, empty_columns=1, run="KC 9S 8H 7C 6D")  # capacity 4, but 2 into column 3
    assert illegal(board, "13v3") == "only 2 cards can move with 1 free cell and 0 empty columns"
    assert board.play("13v2").move == Move("1", "3", 2)


def test_with_two_empty_columns_a_run_to_one_of_them_counts_the_other():
    board = run_board(free_cells=1, empty_columns=2, run="KC 9S 8H 7C 6D")
    assert board.play("13v4").move == Move("1", "3", 4)


def test_it_refuses_a_count_larger_than_the_run_to_an_empty_column():
    board = run_board(free_cells=4, empty_columns=1, run="KC 9S 8H")
    assert illegal(board, "13v3") == (
        "the top 3 cards of column 1 are not a run (the nine of spades does not rest on the king of clubs)"
    )
    assert illegal(board, "13v5") == "column 1 has only 3 cards, not 5"


def test_a_written_count_must_equal_the_implied_count():
    board = run_board(free_cells=4, empty_columns=0, run="KC 9S 8H 7C")
    assert illegal(board, "12v2") == "moving from column 1 onto the ten of hearts moves 3 cards, not 2"
    assert illegal(board, "1av2") == "only one card moves to a free cell, not 2"
    assert board.play("1av1").move == Move("1", "a")
    board.undo()
    assert board.play("12v3").move == Move("1", "2", 3)


def test_a_one_card_move_to_a_column_accepts_a_count_of_one():
    board = position(cols("9H", "7C", "8H"))
    assert board.play("23v1").move == Move("2", "3")


def test_no_run_fits_when_the_needed_card_is_not_in_the_run():
    board = position(["KC 9S 8H 7C", "9C", *_OTHERS[:5], "QH"], filler=3)
    assert illegal(board, "18") == "no run in column 1 fits on the queen of hearts"


def test_a_card_cannot_move_to_where_it_is():
    board = position(cols("9H"))
    assert illegal(board, "11") == "a card cannot move to the place it is already in"


# ------------------------------------------------------------------ free cells


def test_any_exposed_card_may_go_into_an_empty_cell():
    board = position(cols("9H"))
    assert board.play("1c").move == Move("1", "c")
    assert [str(c) if c else None for c in board.cells] == [None, None, "9H", None]


def test_a_free_cell_holds_one_card():
    board = position(cols("9H"), cells="- 4S")
    assert illegal(board, "1b") == "free cell b is not empty"


def test_a_card_leaves_a_cell_for_a_fitting_card_an_empty_column_or_another_cell():
    board = position(cols("9S", ""), cells="8H")
    assert board.check("a1") == Move("a", "1")
    assert board.check("a2") == Move("a", "2")
    assert board.check("ab") == Move("a", "b")
    assert illegal(board, "a3") == "the eight of hearts cannot go on the four of diamonds"
    assert illegal(board, "a2v2") == "a free cell holds one card, so 2 cards cannot move from it"


def test_moving_from_an_empty_column_or_an_empty_cell_is_illegal():
    board = position(cols("9S", ""))
    assert illegal(board, "23") == "column 2 is empty"
    assert illegal(board, "b3") == "free cell b is empty"


# ------------------------------------------------------------------ foundations


def test_an_ace_goes_home_and_then_its_two():
    board = position(cols("2D AD"))
    board.play("1h")
    board.play("1h")
    assert board.foundations == {"C": 0, "D": 2, "H": 0, "S": 0}
    assert board.cards_home() == 2


def test_h_is_the_foundation_of_the_moved_cards_suit_and_builds_in_order():
    board = position(cols("3D", "2S"), found="D-A S-A")
    assert illegal(board, "1h") == "the three of diamonds cannot go to the foundation before the two of diamonds"
    board.play("2h")
    assert board.foundations["S"] == 2


def test_only_one_card_goes_to_a_foundation_at_a_time():
    board = position(cols("2D AD"))
    assert illegal(board, "1hv2") == "only one card moves to a foundation, not 2"


def test_cards_never_leave_the_foundations():
    with pytest.raises(BadNotation, match="never leave the foundations"):
        Move.parse("h1")
    board = position(cols("3D", "2S"), found="D-2 S-A")
    assert all(move.source != "h" for move in board.legal_moves())


def test_a_malformed_move_and_an_illegal_move_are_different_errors():
    board = Board.from_deal("ms:1")
    with pytest.raises(BadNotation) as malformed:
        board.play("9z")
    with pytest.raises(IllegalMove) as broken:
        board.play("1h")
    assert (malformed.value.code, broken.value.code) == ("bad_notation", "illegal_move")
    assert not isinstance(malformed.value, IllegalMove) and not isinstance(broken.value, BadNotation)
    assert board == Board.from_deal("ms:1")


# ------------------------------------------------------------------ won and stuck


def test_the_last_card_home_wins():
    board = position(["KS", "", "", "", "", "", "", ""], found="C-K D-K H-K S-Q")
    assert not board.is_won()
    board.play("1h")
    assert board.is_won() and board.cards_home() == 52
    assert not board.is_stuck()
    assert board.legal_moves() == []


def test_a_position_without_any_legal_move_is_stuck_and_undo_still_works():
    board = position(["QH", "QD", "JH", "JD", "TH", "TD", "9H", "8D 9D"], cells="KH KD KC KS")
    assert board.legal_moves() == []
    assert board.is_stuck()
    board = position(["QH", "QD", "JH", "JD", "TH", "TD", "9H", "9D 8D"], cells="KH KD KC -")
    board.play("8d")
    assert board.is_stuck()
    board.undo()
    assert not board.is_stuck()


def test_a_fresh_deal_is_neither_won_nor_stuck():
    board = Board.from_deal("ms:1")
    assert not board.is_won() and not board.is_stuck()


# ------------------------------------------------------------------ autoplay


def test_safe_autoplay_sends_aces_and_twos_home_after_a_move():
    board = position(cols("2H AH 5S", "2C AC 9D"))
    played = board.play("1a", autoplay="safe")
    assert played.autoplay == [Move("1", "h"), Move("1", "h")]
    assert board.foundations == {"C": 0, "D": 0, "H": 2, "S": 0}


def test_autoplay_none_moves_nothing():
    board = position(cols("2H AH 5S"))
    assert board.play("1a").autoplay == []
    assert tops(board)[0] == "AH"


def test_safe_autoplay_sends_a_card_home_only_when_both_foundations_of_the_other_colour_are_one_below():
    board = position(cols("3C", "3H", "4S"), found="C-2 D-A H-2 S-3")
    assert board.safe_autoplay() == [Move("2", "h")]  # 3H: clubs and spades hold 2 or more
    # 3C waits for the two of diamonds; 4S waits for the three of hearts... now home, but diamonds hold 1
    assert tops(board)[:3] == ["3C", None, "4S"]


def test_safe_autoplay_chains_and_picks_columns_before_cells():
    board = position(cols("AD", "2D", "3C"), cells="AC 2C", found="H-2 S-2")
    assert board.safe_autoplay() == [
        Move("1", "h"),  # AD
        Move("2", "h"),  # 2D
        Move("a", "h"),  # AC
        Move("b", "h"),  # 2C
        Move("3", "h"),  # 3C: diamonds and hearts hold 2
    ]


def test_safe_autoplay_before_any_play_is_kept_in_the_line_and_not_undone():
    board = position(cols("2H AH"))
    assert board.safe_autoplay() == [Move("1", "h"), Move("1", "h")]
    assert board.line() == [Move("1", "h"), Move("1", "h")]
    with pytest.raises(IllegalMove, match="no move to take back"):
        board.undo()


def test_safe_autoplay_called_after_a_play_joins_that_play():
    board = position(cols("2H AH 5S"))
    board.play("1a")
    board.safe_autoplay()
    assert board.history[-1].autoplay == [Move("1", "h"), Move("1", "h")]
    board.undo()
    assert tops(board)[0] == "5S"


def test_it_refuses_an_unknown_autoplay_mode():
    board = Board.from_deal("ms:1")
    with pytest.raises(ValueError, match="autoplay"):
        board.play("5a", autoplay="all")
    assert board == Board.from_deal("ms:1")


# ------------------------------------------------------------------ undo and the line


def test_undo_takes_back_the_move_and_the_autoplay_it_triggered():
    board = position(cols("2H AH 5S", "2C AC 9D"))
    before = board.copy()
    played = board.play("1a", autoplay="safe")
    assert board.undo() == played
    assert board == before
    assert board.line() == []


def test_undo_again_takes_back_the_move_before():
    board = Board.from_deal("ms:1")
    start = board.copy()
    board.play("5a")
    after_first = board.copy()
    board.play("5b")
    board.undo()
    assert board == after_first
    board.undo()
    assert board == start


def test_undo_with_nothing_to_take_back_is_illegal():
    with pytest.raises(IllegalMove, match="there is no move to take back"):
        Board.from_deal("ms:1").undo()


def test_the_line_leaves_out_undone_plays_and_writes_out_autoplay():
    board = position(cols("2H AH 5S", "9D"))
    board.play("2a")
    board.undo()
    board.play("1b", autoplay="safe")
    assert [str(m) for m in board.line()] == ["1b", "1h", "1h"]
    assert board.history == [Played(Move("1", "b"), [Move("1", "h"), Move("1", "h")])]
    assert board.ply == 1


def test_check_normalizes_without_changing_the_board():
    board = run_board(free_cells=4, empty_columns=1, run="KC 9S 8H 7C")
    before = board.copy()
    assert board.check("12") == Move("1", "2", 3)
    assert board.check(Move("1", "3", 2)) == Move("1", "3", 2)
    assert board == before and board.ply == 0


def test_play_accepts_move_objects_and_upper_case_text():
    board = Board.from_deal("ms:1")
    board.play(Move("5", "a"))
    board.play("5B")
    assert [str(m) for m in board.line()] == ["5a", "5b"]


# ------------------------------------------------------------------ legal moves


def test_legal_moves_list_each_run_length_to_each_empty_column():
    board = run_board(free_cells=1, empty_columns=2, run="KC 9S 8H 7C 6D")  # 4 to an empty column
    moves = {str(m) for m in board.legal_moves()}
    for dest in "34":
        assert {f"1{dest}", f"1{dest}v2", f"1{dest}v3", f"1{dest}v4"} <= moves
    assert "12v4" in moves
    assert "13v5" not in moves
    assert len(moves) == len(board.legal_moves())


def test_legal_moves_of_the_first_deal():
    moves = [str(m) for m in Board.from_deal("ms:1").legal_moves()]
    assert len(moves) == len(set(moves))
    assert {f"{c}{cell}" for c in "12345678" for cell in "abcd"} <= set(moves)
    assert "81" not in moves


# ------------------------------------------------------------------ board text and state

# As `fc-solve -p -t` prints it, trailing blanks included.
_FCSOLVE_STATE = (
    "Foundations: H-0 C-0 D-0 S-0 \n"
    "Freecells:  6C      8H    \n"
    """\
: JD KD 2S 4C 3S 6D 6S
: 2D KC KS 5C TD 8S 9C
: 9H 9S 9D TS 4S 8D 2H
: JC 5S QD QH TH QS 6H
: 5D AD JS 4H
: 7H QC AS AC 2C 3D
: 7C KH AH 4D JH 8C
: 5H 3H 3C 7S 7D TC
"""
)


def test_it_reads_fc_solves_own_output_with_free_cells_by_position():
    board = Board.from_text(_FCSOLVE_STATE)
    assert [str(c) if c else None for c in board.cells] == ["6C", None, "8H", None]
    assert [str(c) for c in board.columns[4]] == ["5D", "AD", "JS", "4H"]


def test_it_writes_fc_solve_board_text():
    board = Board.from_text(_FCSOLVE_STATE)
    assert board.to_text() == (
        "Foundations: H-0 C-0 D-0 S-0\n"
        "Freecells: 6C - 8H -\n"
        ": JD KD 2S 4C 3S 6D 6S\n"
        ": 2D KC KS 5C TD 8S 9C\n"
        ": 9H 9S 9D TS 4S 8D 2H\n"
        ": JC 5S QD QH TH QS 6H\n"
        ": 5D AD JS 4H\n"
        ": 7H QC AS AC 2C 3D\n"
        ": 7C KH AH 4D JH 8C\n"
        ": 5H 3H 3C 7S 7D TC\n"
    )


def test_board_text_round_trips_with_cells_foundations_and_an_empty_column():
    board = position(cols("KC 9S 8H", ""), cells="- JS - JC", found="D-3 H-A")
    text = board.to_text()
    assert "Foundations: H-A C-0 D-3 S-0" in text
    assert "\n:\n" in text
    assert Board.from_text(text) == board
    assert Board.from_text(text).to_text() == text


def test_it_reads_plain_deal_text_ten_as_10_and_a_blank_line_as_an_empty_column():
    text = Board.from_deal("ms:1").to_text()
    plain = "\n".join(line.lstrip(": ") for line in text.splitlines()[2:]).replace("T", "10")
    assert Board.from_text(plain) == Board.from_deal("ms:1")
    board = position(cols("9H", ""), cells="- - - -")
    lines = board.to_text().splitlines()
    lines[3] = ""  # fc-solve reads an empty line as an empty column too
    assert Board.from_text("\n".join(lines) + "\n\n") == board


def test_it_reads_foundations_as_letters_or_numbers_in_any_order():
    board = position(["9H", "KC", "KD", "KH", "KS", "QC", "QD", "QH"], found="C-A D-T")
    text = board.to_text().replace("Foundations: H-0 C-A D-T S-0", "Foundations: D-10 C-1")
    assert Board.from_text(text) == board


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("JD KD\n" * 8, "cards appear more than once: JD KD"),
        (": AC\n" * 7, "the board needs 8 column lines, found 7"),
        ("Freecells: AC AD AH AS 2C\n", "there are 4 free cells, the Freecells line lists 5"),
        ("Foundations: X-3\n", "'X-3' is not a foundation"),
        ("Foundations: H-Z\n", "'H-Z' is not a foundation"),
        (": ZZ\n" * 8, "column 1: 'ZZ' is not a card"),
    ],
)
def test_it_rejects_bad_board_text(text, message):
    with pytest.raises(BadBoardText) as info:
        Board.from_text(text)
    assert message in str(info.value)
    assert info.value.code == "bad_board"


def test_it_rejects_board_text_with_missing_cards():
    text = Board.from_deal("ms:1").to_text().replace(" TC\n", "\n")
    with pytest.raises(BadBoardText, match="cards are missing: TC"):
        Board.from_text(text)


def test_state_round_trips_and_matches_the_spec_shape():
    board = position(cols("KC 9S 8H", ""), cells="- JS - JC", found="D-3 H-A")
    state = board.state()
    assert state["cells"] == [None, "JS", None, "JC"]
    assert state["foundations"] == {"C": 0, "D": 3, "H": 1, "S": 0}
    assert state["columns"][0][-3:] == ["KC", "9S", "8H"] and state["columns"][1] == []
    assert Board.from_state(state) == board


@pytest.mark.parametrize(
    "state",
    [
        {"columns": [[]] * 7},
        {"columns": [["AC"]] * 8},
        {"columns": [[]] * 8, "foundations": {"C": 14}},
        {"columns": [[]] * 8, "foundations": {"X": 1}},
        {"nothing": 1},
        {"columns": [[]] * 8, "cells": [None] * 5},
    ],
)
def test_it_rejects_a_state_that_is_not_a_position(state):
    with pytest.raises(BadBoardText):
        Board.from_state(state)


def test_read_only_views_do_not_change_the_board():
    board = Board.from_deal("ms:1")
    found = board.foundations
    found["C"] = 5
    assert board.foundations["C"] == 0
    assert isinstance(board.columns, tuple) and isinstance(board.columns[0], tuple)
    assert len(board.cells) == 4


def test_a_copy_is_independent_and_equal():
    board = Board.from_deal("ms:1")
    copy = board.copy()
    copy.play("5a")
    assert copy != board
    copy.undo()
    assert copy == board
    assert board.copy(history=False).ply == 0
