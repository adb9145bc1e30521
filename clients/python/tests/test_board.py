"""The text board (a pure unit test): cells and foundations on top, columns side by side."""

from freecell_client.board import render, status_line

STATE = {
    "columns": [["KS", "QH", "JC"], ["7D"], [], ["2C", "TD"], ["5S"], ["6H"], ["9C", "8H"], ["AS"]],
    "cells": ["3D", None, "KH", None],
    "foundations": {"C": 1, "D": 2, "H": 0, "S": 13},
}


def pile_at(line: str, index: int) -> str:
    return line[4 * index : 4 * index + 4].strip()


def test_cells_and_foundations_are_on_top():
    lines = render(STATE).splitlines()
    assert [pile_at(lines[0], i) for i in range(4)] == ["a", "b", "c", "d"]
    cells, _, foundations = lines[1].partition(" | ")
    assert [pile_at(cells, i) for i in range(4)] == ["3D", "..", "KH", ".."]
    # Each foundation shows its top card: C at 1 is the ace, D at 2 the two, an empty one "..".
    assert [pile_at(foundations, i) for i in range(4)] == ["AC", "2D", "..", "KS"]


def test_columns_side_by_side_from_the_first_dealt_card_down():
    lines = render(STATE).splitlines()
    assert lines[2] == ""
    assert [pile_at(lines[3], i) for i in range(8)] == [str(n) for n in range(1, 9)]
    rows = lines[4:]
    assert len(rows) == 3  # the deepest column
    for column, cards in enumerate(STATE["columns"]):
        shown = [pile_at(row, column) for row in rows]
        assert shown == cards + [""] * (3 - len(cards)), column


def test_red_cards_are_coloured_only_when_asked():
    assert "\x1b[31m" not in render(STATE)
    coloured = render(STATE, color=True)
    assert "\x1b[31m7D\x1b[0m" in coloured and "\x1b[31mKS" not in coloured


def test_status_line():
    game = {"id": 7, "deal": "ms:1", "moves": 12, "undos": 2, "cards_home": 9, "status": "won", "stuck": False}
    assert status_line(game) == "game 7  ms:1  moves 12  undos 2  home 9/52  WON"
    assert "stuck" in status_line({**game, "status": "playing", "stuck": True})
