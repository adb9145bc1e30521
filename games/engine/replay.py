"""Replaying and verifying a line of moves on a deal or a position."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .board import AUTOPLAY_MODES, Board
from .deals import DealId
from .errors import EngineError
from .notation import Move


@dataclass(slots=True)
class Verification:
    """The result of ``verify``: ``moves`` is the number of moves replayed, ``error`` None or
    ``{"index", "move", "code", "message"}`` for the first bad move (0-based index)."""

    valid: bool
    won: bool
    moves: int
    error: dict[str, Any] | None = None
    #: The position after the last good move (not part of equality).
    board: Board | None = field(default=None, compare=False, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """``{valid, won, moves}`` plus ``error`` when not valid (the REST shape)."""
        result: dict[str, Any] = {"valid": self.valid, "won": self.won, "moves": self.moves}
        if self.error is not None:
            result["error"] = self.error
        return result


def verify(
    deal_or_board: str | DealId | Board,
    moves: str | Iterable[str | Move],
    autoplay: str = "none",
) -> Verification:
    """Replay ``moves`` (a white-space separated line or an iterable) from a deal or a copy of a board.

    A deal id that does not parse raises ``InvalidDeal``; a bad move stops the replay and is reported.

    >>> verify("ms:1", "5a 5b 5x").as_dict()["error"]["index"]
    2
    """
    if autoplay not in AUTOPLAY_MODES:
        raise ValueError(f"autoplay must be one of {AUTOPLAY_MODES}, not {autoplay!r}")
    if isinstance(deal_or_board, Board):
        board = deal_or_board.copy(history=False)
    else:
        board = Board.from_deal(deal_or_board)
    if autoplay == "safe":
        board.safe_autoplay()
    items = moves.split() if isinstance(moves, str) else moves
    play = board.play
    count = 0
    for index, move in enumerate(items):
        try:
            play(move, autoplay)
        except EngineError as error:
            return Verification(
                valid=False,
                won=False,
                moves=count,
                error={"index": index, "move": str(move), "code": error.code, "message": str(error)},
                board=board,
            )
        count += 1
    return Verification(valid=True, won=board.is_won(), moves=count, board=board)


def replay(
    deal_or_board: str | DealId | Board,
    moves: str | Iterable[str | Move],
    autoplay: str = "none",
) -> Board:
    """Like ``verify`` but returns the final board and raises the first error instead of reporting it."""
    if isinstance(deal_or_board, Board):
        board = deal_or_board.copy(history=False)
    else:
        board = Board.from_deal(deal_or_board)
    if autoplay == "safe":
        board.safe_autoplay()
    for move in moves.split() if isinstance(moves, str) else moves:
        board.play(move, autoplay)
    return board
