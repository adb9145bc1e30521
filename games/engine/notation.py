"""Moves in the extended standard notation (``3a``, ``a4``, ``1h``, ``57``, ``24v3``) as fc-solve -snx writes it."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import BadNotation, shown

COLUMNS = "12345678"
CELLS = "abcd"
SOURCES = COLUMNS + CELLS
DESTINATIONS = SOURCES + "h"
#: The largest ``v`` count that can ever be legal: a run holds at most 13 cards (king to ace).
MAX_RUN = 13

_MOVE_RE = re.compile(r"([1-8a-d])([1-8a-dh])(?:v([0-9a-f]+))?")
_HELP = "write the source (1-8 a column, a-d a free cell) then the destination (1-8, a-d, or h for the foundation), e.g. 3a, 1h or 24v3"


@dataclass(frozen=True, slots=True)
class Move:
    """One move: ``source`` and ``dest`` are one character each, ``count`` the written ``v`` count (or None).

    ``Move.parse(text)`` and ``str(move)`` round-trip:

    >>> Move.parse("24v3")
    Move(source='2', dest='4', count=3)
    >>> str(Move.parse("24v3")), str(Move("3", "a")), str(Move.parse("2AV1"))
    ('24v3', '3a', '2av1')
    """

    source: str
    dest: str
    count: int | None = None

    def __post_init__(self) -> None:
        if not (isinstance(self.source, str) and len(self.source) == 1 and self.source in SOURCES):
            raise BadNotation(f"{self.source!r} is not a move source: {_HELP}")
        if not (isinstance(self.dest, str) and len(self.dest) == 1 and self.dest in DESTINATIONS):
            raise BadNotation(f"{self.dest!r} is not a move destination: {_HELP}")
        if self.count is not None and (type(self.count) is not int or self.count < 1):
            raise BadNotation(f"{self.count!r} is not a card count: a v count is a positive hex number")

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse one move; upper case and surrounding white space are accepted. Raises ``BadNotation``."""
        move = _PARSED.get(text)
        if move is not None:
            return move
        return _parse_slow(text)

    def __str__(self) -> str:
        if self.count is None:
            return self.source + self.dest
        return f"{self.source}{self.dest}v{self.count:x}"


def _parse_slow(text: str) -> Move:
    if not isinstance(text, str):
        raise BadNotation(f"{shown(text)} is not a move: {_HELP}")
    clean = text.strip().lower()
    match = _MOVE_RE.fullmatch(clean)
    if match is None:
        if clean[:1] == "h":
            raise BadNotation(
                f"{shown(text)} is not a move: cards never leave the foundations, so h is only a destination"
            )
        raise BadNotation(f"{shown(text)} is not a move: {_HELP}")
    source, dest, hex_count = match.groups()
    if hex_count is None:
        return MOVES[source, dest, None]
    # A count is a hex number of at most 4 digits, leading zeros aside (v0003 is v3): within that any
    # count parses, and one other than the implied count is an illegal move, not a malformed one.
    if len(hex_count.lstrip("0")) > 4:
        raise BadNotation(f"{shown(text)} is not a move: the v count {shown(hex_count)} has more than 4 hex digits")
    count = int(hex_count, 16)
    if count < 1:
        raise BadNotation(f"{shown(text)} is not a move: the v count must be at least 1")
    move = MOVES.get((source, dest, count))
    if move is None:
        move = Move(source, dest, count)
    if len(_PARSED) < 20_000:
        _PARSED[text] = move
    return move


def parse_moves(text: str | Iterable[str | Move]) -> list[Move]:
    """Parse a line of moves separated by white space (or an iterable of moves).

    Raises ``BadNotation`` whose ``index`` is the 0-based index of the first bad move.
    """
    items = text.split() if isinstance(text, str) else text
    moves = []
    for index, item in enumerate(items):
        if isinstance(item, Move):
            moves.append(item)
            continue
        try:
            moves.append(Move.parse(item))
        except BadNotation as error:
            raise BadNotation(f"move {index + 1}: {error}", index=index) from None
    return moves


def format_moves(moves: Iterable[Move]) -> str:
    """Moves as one line separated by single spaces."""
    return " ".join(map(str, moves))


#: Every move with a count of None or 1..MAX_RUN, interned: ``MOVES[source, dest, count]``.
MOVES: dict[tuple[str, str, int | None], Move] = {
    (s, d, n): Move(s, d, n) for s in SOURCES for d in DESTINATIONS for n in (None, *range(1, MAX_RUN + 1))
}
#: Parse cache, pre-filled with every move written without a count (in lower and upper case).
_PARSED: dict[str, Move] = {}
for (_s, _d, _n), _move in MOVES.items():
    _PARSED[str(_move)] = _move
    _PARSED[str(_move).upper()] = _move
del _s, _d, _n, _move
