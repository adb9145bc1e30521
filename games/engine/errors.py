"""Typed errors of the rules engine, each carrying the spec's error code and a player's message."""

from __future__ import annotations


def shown(text) -> str:
    """Bad input as an error message quotes it: a long string is cut, so no message echoes it whole."""
    return repr(text[:24] + "...") if isinstance(text, str) and len(text) > 24 else repr(text)


class EngineError(ValueError):
    """Base of every engine error; ``code`` is the spec's error code, ``str(e)`` a player's message."""

    code = "engine_error"


class BadNotation(EngineError):
    """A move (or card) string that does not parse.

    ``index`` is the 0-based position of the bad move in a line of moves, when known.
    """

    code = "bad_notation"

    def __init__(self, message: str, *, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


class IllegalMove(EngineError):
    """A parsed move that breaks a rule of the game."""

    code = "illegal_move"


class InvalidDeal(EngineError):
    """A deal id that is not ``ms:N``, ``seed:S`` or ``daily:YYYY-MM-DD`` (or out of range)."""

    code = "invalid_deal"


class BadBoardText(EngineError):
    """Board text (or a state dict) that does not describe a valid position."""

    code = "bad_board"
