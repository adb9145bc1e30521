"""Test helpers: hand-made positions from only the cards that matter (the rest are filled in)."""

from __future__ import annotations

from .board import Board
from .cards import CARD_TEXT, Card

_SUIT_ORDER = "CDHS"


def position(columns: list[str], cells: str = "", found: str = "", filler: int = 8) -> Board:
    """A board from the cards that matter.

    ``columns``: 8 strings, bottom card first (``"9S 8H 7C"``); ``cells``: up to 4 words, ``-`` empty;
    ``found``: e.g. ``"C-2 H-A"``. Every card not placed and not home goes, in ascending order (so that
    no two of them form a run), under the cards of column ``filler`` (1-based).
    """
    assert len(columns) == 8
    heights = {s: 0 for s in _SUIT_ORDER}
    for word in found.split():
        suit, _, rank = word.partition("-")
        heights[suit] = 0 if rank == "0" else Card.parse(rank + suit).rank
    home = {f"{Card(r, s)}" for s in _SUIT_ORDER for r in range(1, heights[s] + 1)}
    placed = set()
    for text in [*columns, cells]:
        for word in text.split():
            if word != "-":
                card = str(Card.parse(word))
                assert card not in placed, f"{card} placed twice"
                placed.add(card)
    assert not placed & home, "a placed card is also home"
    rest = [c for c in CARD_TEXT if c not in placed and c not in home]
    cols = [c.split() for c in columns]
    if rest:
        target = cols[filler - 1]
        if target:
            below, above = Card.parse(rest[-1]), Card.parse(target[0])
            assert not (above.rank + 1 == below.rank and above.is_red != below.is_red), (
                "the filler would extend a run: choose another filler column"
            )
        cols[filler - 1] = rest + target
    cell_words = (cells.split() + ["-"] * 4)[:4]
    text = "\n".join(
        [
            "Foundations: " + " ".join(f"{s}-{heights[s]}" for s in "HCDS"),
            "Freecells: " + " ".join(cell_words),
            *(": " + " ".join(c) for c in cols),
        ]
    )
    return Board.from_text(text)


def tops(board: Board) -> list[str | None]:
    """The exposed card of each column (None when empty)."""
    return [str(c[-1]) if c else None for c in board.columns]
