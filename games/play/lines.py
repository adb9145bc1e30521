"""A game's effective line: the moves in play after undos, each with the autoplay it caused.

Stored on Game as `[[move, [autoplay moves]], ...]`. Safe autoplay can move cards home from the deal
itself, before any move: that opening is kept as a first entry whose move is None (the prelude). The
line is a cache of the action history (games.play.integrity proves it equal to a replay); this module is
the one place that reads or writes its shape.
"""

from __future__ import annotations

from games.engine import Board

Line = list[list]


def opening(board: Board, autoplay: str) -> Line:
    """The line of a new game: under safe autoplay, the cards the deal itself sends home (played on `board`)."""
    if autoplay != "safe":
        return []
    first = board.safe_autoplay()
    return [[None, [str(m) for m in first]]] if first else []


def prelude(line: Line) -> list[str]:
    """The autoplay moves made on the deal before the first move."""
    return list(line[0][1]) if line and line[0][0] is None else []


def appended(line: Line, move: str, autoplay: list[str]) -> Line:
    return [*line, [move, autoplay]]


def has_move(line: Line) -> bool:
    """Whether the line holds a move that an undo can take back (the prelude cannot be undone)."""
    return bool(line) and line[-1][0] is not None


def last_move(line: Line) -> tuple[str, list[str]]:
    move, autoplay = line[-1]
    return move, list(autoplay)


def without_last(line: Line) -> Line:
    return line[:-1]


def replay(board: Board, line: Line, *, autoplay: str) -> None:
    """Plays the line on `board` (the deal's), so that the board has its history for undo."""
    for move, _autoplay in line:
        if move is None:
            board.safe_autoplay()
        else:
            board.play(move, autoplay=autoplay)


def text(line: Line) -> str:
    """The line of play as moves for autoplay `none`: autoplay written out, undone moves left out."""
    moves: list[str] = []
    for move, autoplay in line:
        if move is not None:
            moves.append(move)
        moves.extend(autoplay)
    return " ".join(moves)
