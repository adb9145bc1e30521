"""The FreeCell position: legality, play and undo, safe autoplay, legal moves and fc-solve board text."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .cards import CARD_INDEX, CARD_NAME, CARD_TEXT, CARDS, RANKS, SUITS, Card
from .deals import DealId, deal_indices
from .errors import BadBoardText, BadNotation, IllegalMove
from .notation import _PARSED, MOVES, Move, _parse_slow

# Locations inside the engine: 0-7 columns, 8-11 free cells, 12 "the foundation" as written in a move,
# 12 + suit (12-15) a given suit's foundation in the undo log.
_SOURCE_LOC = {ch: i for i, ch in enumerate("12345678abcd")}
_DEST_LOC = {**_SOURCE_LOC, "h": 12}
_LOC_CHAR = "12345678abcdhhhh"
_FOUNDATION = 12

#: _FITS[a * 52 + b]: card a may rest on card b in a column (one rank lower, other colour).
_RED = tuple((c & 3) in (1, 2) for c in range(52))
_FITS = bytes(
    1 if (a >> 2) + 1 == (b >> 2) and _RED[a] != _RED[b] else 0 for a in range(52) for b in range(52)
)
#: The two foundations of the other colour, by suit index (C D H S).
_OPPOSITE = ((1, 2), (0, 3), (0, 3), (1, 2))

#: _MOVE_BY[src][dst][count]: interned normalized Move (count None for one card).
_MOVE_BY: list[list[list[Move]]] = [
    [[MOVES[_LOC_CHAR[s], _LOC_CHAR[d], None if n <= 1 else n] for n in range(14)] for d in range(13)]
    for s in range(12)
]
_COLUMN_MOVES = [[_MOVE_BY[s][d] for d in range(8)] for s in range(12)]
_CELL_MOVES = [[_MOVE_BY[s][8 + d][1] for d in range(4)] for s in range(12)]
_HOME_MOVES = [_MOVE_BY[s][12][1] for s in range(12)]
#: _CELL_MOVES_BY_MASK[src][mask]: the moves from src to each free cell in `mask` (bit i = cell i empty).
_CELL_MOVES_BY_MASK = [
    [tuple(_MOVE_BY[s][8 + i][1] for i in range(4) if mask >> i & 1 and 8 + i != s) for mask in range(16)]
    for s in range(12)
]
_BIT_COUNT = [bin(mask).count("1") for mask in range(16)]
#: _PARENTS[c]: the cards c may rest on in a column (one rank higher, other colour); none for a king.
_PARENTS = tuple(tuple(b for b in range(52) if _FITS[a * 52 + b]) for a in range(52))

AUTOPLAY_MODES = ("none", "safe")

_RANK_TEXT = ("0",) + tuple(RANKS)  # foundation heights as fc-solve writes them: 0 A 2 ... K
_FOUNDATION_ORDER = (2, 0, 1, 3)  # fc-solve writes H C D S


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _capacity_message(cap: int, cells: int, columns: int) -> str:
    verb = "card can" if cap == 1 else "cards can"
    return f"only {cap} {verb} move with {_plural(cells, 'free cell')} and {_plural(columns, 'empty column')}"


@dataclass(slots=True)
class Played:
    """One play: ``move`` normalized (count filled in when more than one card moves), ``autoplay`` the
    foundation moves safe autoplay made after it, in order."""

    move: Move
    autoplay: list[Move] = field(default_factory=list)


class Board:
    """A FreeCell position with its history of plays.

    >>> board = Board.from_deal("ms:1")
    >>> board.play("5a")
    Played(move=Move(source='5', dest='a', count=None), autoplay=[])
    >>> board.cells[0]
    Card(rank=6, suit='C')
    >>> board.undo().move
    Move(source='5', dest='a', count=None)
    >>> board == Board.from_deal("ms:1")
    True
    """

    __slots__ = ("_cols", "_cells", "_found", "_history", "_prelude", "deal")

    def __init__(
        self,
        columns: list[list[int]],
        cells: list[int] | None = None,
        foundations: list[int] | None = None,
        *,
        deal: DealId | None = None,
    ) -> None:
        """Low level: columns of card indices, cells (-1 empty) and foundation heights by suit index
        (C D H S). Not validated; use ``from_deal``, ``from_text`` or ``from_state``."""
        self._cols: list[list[int]] = columns
        self._cells: list[int] = cells if cells is not None else [-1, -1, -1, -1]
        self._found: list[int] = foundations if foundations is not None else [0, 0, 0, 0]
        # Each entry: (Played, undo log of (src_loc, dst_loc, count) in the order applied).
        self._history: list[tuple[Played, list[tuple[int, int, int]]]] = []
        # Autoplay moves made before the first play (safe_autoplay() on a fresh deal); never undone.
        self._prelude: list[Move] = []
        #: The deal this board was dealt from, when known.
        self.deal: DealId | None = deal

    # ----------------------------------------------------------------- construction

    @classmethod
    def from_deal(cls, deal: str | DealId) -> Board:
        """The starting position of an ``ms:`` or ``seed:`` deal; raises ``InvalidDeal``."""
        from .deals import parse_deal

        deal_id = parse_deal(deal)
        return cls(deal_indices(deal_id), deal=deal_id)

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Board:
        """Inverse of ``state()``; raises ``BadBoardText`` when it is not a valid position."""
        try:
            columns_in = state["columns"]
            cells_in = state.get("cells") or []
            found_in = state.get("foundations") or {}
            if len(columns_in) != 8:
                raise BadBoardText(f"a position has 8 columns, not {len(columns_in)}")
            columns = [[_card(text) for text in column] for column in columns_in]
            cells_list = list(cells_in)
            if len(cells_list) > 4:
                raise BadBoardText(f"a position has 4 free cells, not {len(cells_list)}")
            cells = [-1 if text is None else _card(text) for text in cells_list]
            cells += [-1] * (4 - len(cells))
            foundations = [0, 0, 0, 0]
            for suit, height in dict(found_in).items():
                if suit not in SUITS or type(height) is not int or not 0 <= height <= 13:
                    raise BadBoardText(f"bad foundation {suit!r}: {height!r} (a suit C D H S and 0-13)")
                foundations[SUITS.index(suit)] = height
        except (KeyError, TypeError, AttributeError) as error:
            raise BadBoardText(f"not a position: {error}") from None
        board = cls(columns, cells, foundations)
        board._validate()
        return board

    @classmethod
    def from_text(cls, text: str) -> Board:
        """Parse board text in Freecell Solver's format; raises ``BadBoardText``.

        One line per column from the covered card to the exposed one (a line may start with ``:``;
        an empty line or a lone ``:`` is an empty column); optional ``Foundations: H-0 C-0 D-0 S-0``
        (heights 0 A 2-9 T J Q K, or numbers) and ``Freecells: 6C - 8H -`` lines (``-`` an empty cell).
        """
        if not isinstance(text, str):
            raise BadBoardText("board text must be a string")
        column_lines: list[str] = []
        cells = [-1, -1, -1, -1]
        foundations = [0, 0, 0, 0]
        for raw in text.splitlines():
            line = raw.strip()
            head, colon, rest = line.partition(":")
            key = head.strip().lower()
            if colon and key in ("freecells", "fc"):
                cells = _parse_cells(rest)
            elif colon and key in ("foundations", "founds"):
                foundations = _parse_foundations(rest)
            else:
                column_lines.append(line)
        while len(column_lines) > 8 and not column_lines[-1]:
            column_lines.pop()
        while len(column_lines) > 8 and not column_lines[0]:
            column_lines.pop(0)
        if len(column_lines) != 8:
            raise BadBoardText(f"the board needs 8 column lines, found {len(column_lines)}")
        columns = []
        for number, line in enumerate(column_lines, 1):
            if line.startswith(":"):
                line = line[1:]
            try:
                columns.append([_card(word) for word in line.split()])
            except BadBoardText as error:
                raise BadBoardText(f"column {number}: {error}") from None
        board = cls(columns, cells, foundations)
        board._validate()
        return board

    def _validate(self) -> None:
        seen = bytearray(52)
        for suit, height in enumerate(self._found):
            for rank in range(height):
                seen[rank * 4 + suit] += 1
        for card in self._cells:
            if card >= 0:
                seen[card] += 1
        for column in self._cols:
            for card in column:
                seen[card] += 1
        twice = [CARD_TEXT[c] for c in range(52) if seen[c] > 1]
        if twice:
            raise BadBoardText(f"cards appear more than once: {' '.join(twice)}")
        missing = [CARD_TEXT[c] for c in range(52) if not seen[c]]
        if missing:
            raise BadBoardText(f"cards are missing: {' '.join(missing)}")

    # ----------------------------------------------------------------- output

    def to_text(self) -> str:
        """Board text in Freecell Solver's format (``-`` for an empty free cell, ``:`` before each column)."""
        found = self._found
        lines = [
            "Foundations: " + " ".join(f"{SUITS[s]}-{_RANK_TEXT[found[s]]}" for s in _FOUNDATION_ORDER),
            "Freecells: " + " ".join(CARD_TEXT[c] if c >= 0 else "-" for c in self._cells),
        ]
        for column in self._cols:
            lines.append(": " + " ".join(CARD_TEXT[c] for c in column) if column else ":")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"Board.from_text({self.to_text()!r})"

    def state(self) -> dict[str, Any]:
        """``{"columns": 8 lists of cards (bottom first), "cells": 4 x card or None, "foundations": {C D H S: 0-13}}``."""
        return {
            "columns": [[CARD_TEXT[c] for c in column] for column in self._cols],
            "cells": [CARD_TEXT[c] if c >= 0 else None for c in self._cells],
            "foundations": {
                "C": self._found[0],
                "D": self._found[1],
                "H": self._found[2],
                "S": self._found[3],
            },
        }

    # ----------------------------------------------------------------- read-only views

    @property
    def columns(self) -> tuple[tuple[Card, ...], ...]:
        """The 8 columns, bottom (covered) card first."""
        return tuple(tuple(CARDS[c] for c in column) for column in self._cols)

    @property
    def cells(self) -> tuple[Card | None, ...]:
        """The 4 free cells a-d (None when empty)."""
        return tuple(CARDS[c] if c >= 0 else None for c in self._cells)

    @property
    def foundations(self) -> dict[str, int]:
        """Height of each foundation (0-13) by suit letter; a fresh dict."""
        return {"C": self._found[0], "D": self._found[1], "H": self._found[2], "S": self._found[3]}

    @property
    def history(self) -> list[Played]:
        """Plays not undone, oldest first."""
        return [entry[0] for entry in self._history]

    @property
    def ply(self) -> int:
        """Number of plays on the undo stack."""
        return len(self._history)

    def key(self) -> tuple[tuple[int, ...], ...]:
        """A hashable key of the position (card indices; cells in order a-d, -1 when empty)."""
        return (*map(tuple, self._cols), tuple(self._cells), tuple(self._found))

    def copy(self, history: bool = True) -> Board:
        """An independent copy of the position (and of its history unless ``history=False``)."""
        board = Board([c[:] for c in self._cols], self._cells[:], self._found[:], deal=self.deal)
        if history:
            board._history = [(Played(p.move, p.autoplay[:]), log[:]) for p, log in self._history]
            board._prelude = self._prelude[:]
        return board

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self._cols == other._cols and self._cells == other._cells and self._found == other._found

    __hash__ = None  # type: ignore[assignment]  # mutable

    # ----------------------------------------------------------------- status

    def is_won(self) -> bool:
        return self._found == [13, 13, 13, 13]

    def cards_home(self) -> int:
        return sum(self._found)

    def is_stuck(self) -> bool:
        """No legal move is left and the game is not won (advisory: undo still works)."""
        return not self.is_won() and not self._any_move()

    def empty_cells(self) -> int:
        return self._cells.count(-1)

    def empty_columns(self) -> int:
        return sum(1 for column in self._cols if not column)

    def capacity(self, to_empty_column: bool = False) -> int:
        """Largest run that may move: (empty cells + 1) x 2^(empty columns), the destination not counted."""
        empty_columns = self.empty_columns()
        if to_empty_column:
            empty_columns = max(empty_columns - 1, 0)
        return (self._cells.count(-1) + 1) << empty_columns

    # ----------------------------------------------------------------- moves

    def check(self, move: Move | str) -> Move:
        """The normalized move (count filled in); raises ``BadNotation``/``IllegalMove``; never changes the board."""
        return self._check(move)[0]

    def _check(self, move: Move | str) -> tuple[Move, int, int, int]:
        """Returns (normalized move, source loc, destination loc, number of cards)."""
        if type(move) is str:
            parsed = _PARSED.get(move)
            move = parsed if parsed is not None else _parse_slow(move)
        elif not isinstance(move, Move):
            raise BadNotation(f"{move!r} is not a move")
        src = _SOURCE_LOC[move.source]
        dst = _DEST_LOC[move.dest]
        count = move.count
        cols = self._cols
        if src == dst:
            raise IllegalMove("a card cannot move to the place it is already in")
        if src < 8:
            column = cols[src]
            if not column:
                raise IllegalMove(f"column {move.source} is empty")
            card = column[-1]
        else:
            card = self._cells[src - 8]
            if card < 0:
                raise IllegalMove(f"free cell {move.source} is empty")
            column = None

        if dst >= 8:
            if count is not None and count != 1:
                raise IllegalMove(
                    f"only one card moves to a {'foundation' if dst == 12 else 'free cell'}, not {count}"
                )
            if dst == 12:
                suit = card & 3
                height = self._found[suit]
                if height != card >> 2:
                    if height > card >> 2:  # pragma: no cover - a card cannot be both home and in play
                        raise IllegalMove(f"the {CARD_NAME[card]} is already on its foundation")
                    need = CARD_NAME[(card & 3) + 4 * height]
                    raise IllegalMove(f"the {CARD_NAME[card]} cannot go to the foundation before the {need}")
                return _MOVE_BY[src][12][1], src, 12 + suit, 1
            if self._cells[dst - 8] >= 0:
                raise IllegalMove(f"free cell {move.dest} is not empty")
            return _MOVE_BY[src][dst][1], src, dst, 1

        target = cols[dst]
        if column is None:  # from a free cell to a column
            if count is not None and count != 1:
                raise IllegalMove(f"a free cell holds one card, so {count} cards cannot move from it")
            if target and not _FITS[card * 52 + target[-1]]:
                raise IllegalMove(f"the {CARD_NAME[card]} cannot go on the {CARD_NAME[target[-1]]}")
            return _MOVE_BY[src][dst][1], src, dst, 1

        if target:
            top = target[-1]
            n = (top >> 2) - (card >> 2)  # cards to move so that the run's bottom sits on `top`
            if not (1 <= n <= len(column) and _FITS[column[-n] * 52 + top]) or (
                n > 1 and not all(_FITS[column[i + 1] * 52 + column[i]] for i in range(-n, -1))
            ):
                if len(column) == 1 or not _FITS[card * 52 + column[-2]]:
                    raise IllegalMove(f"the {CARD_NAME[card]} cannot go on the {CARD_NAME[top]}")
                raise IllegalMove(f"no run in column {move.source} fits on the {CARD_NAME[top]}")
            if n > 1:
                free_cells = self._cells.count(-1)
                empty = 0
                for c in cols:
                    if not c:
                        empty += 1
                cap = (free_cells + 1) << empty
                if n > cap:
                    raise IllegalMove(_capacity_message(cap, free_cells, empty))
            if count is not None and count != n:
                raise IllegalMove(
                    f"moving from column {move.source} onto the {CARD_NAME[top]} moves "
                    f"{_plural(n, 'card')}, not {count}"
                )
            return _MOVE_BY[src][dst][n], src, dst, n

        # to an empty column: one card, or `count` cards
        n = 1 if count is None else count
        if n > 1:
            if n > len(column):
                raise IllegalMove(f"column {move.source} has only {_plural(len(column), 'card')}, not {n}")
            for i in range(-n, -1):
                if not _FITS[column[i + 1] * 52 + column[i]]:
                    raise IllegalMove(
                        f"the top {n} cards of column {move.source} are not a run "
                        f"(the {CARD_NAME[column[i + 1]]} does not rest on the {CARD_NAME[column[i]]})"
                    )
            free_cells = self._cells.count(-1)
            empty = -1  # the destination column does not count
            for c in cols:
                if not c:
                    empty += 1
            cap = (free_cells + 1) << empty
            if n > cap:
                raise IllegalMove(_capacity_message(cap, free_cells, empty))
        return _MOVE_BY[src][dst][n if n <= 13 else 13], src, dst, n

    def _apply(self, src: int, dst: int, n: int) -> None:
        """Move `n` cards between two locations (12-15 the foundation of suit loc-12), unchecked."""
        if src < 8:
            column = self._cols[src]
            if n == 1:
                card = column.pop()
            else:
                run = column[-n:]
                del column[-n:]
                self._cols[dst].extend(run)  # runs only ever go column to column
                return
        elif src < 12:
            card = self._cells[src - 8]
            self._cells[src - 8] = -1
        else:  # from a foundation: only when undoing
            suit = src - 12
            self._found[suit] -= 1
            card = self._found[suit] * 4 + suit
        if dst < 8:
            self._cols[dst].append(card)
        elif dst < 12:
            self._cells[dst - 8] = card
        else:
            self._found[dst - 12] += 1

    def play(self, move: Move | str, autoplay: str = "none") -> Played:
        """Check and apply a move, then autoplay (``"none"`` or ``"safe"``); raises and leaves the board
        unchanged when the move is malformed or illegal."""
        normalized, src, dst, n = self._check(move)
        if autoplay != "none" and autoplay != "safe":
            raise ValueError(f"autoplay must be one of {AUTOPLAY_MODES}, not {autoplay!r}")
        self._apply(src, dst, n)
        log = [(src, dst, n)]
        played = Played(normalized, self._autoplay(log) if autoplay == "safe" else [])
        self._history.append((played, log))
        return played

    def undo(self) -> Played:
        """Take back the last play and the autoplay it triggered; ``IllegalMove`` when there is none."""
        if not self._history:
            raise IllegalMove("there is no move to take back")
        played, log = self._history.pop()
        apply = self._apply
        for src, dst, n in reversed(log):
            apply(dst, src, n)
        return played

    def safe_autoplay(self) -> list[Move]:
        """Apply safe autoplay now and return the moves made.

        They join the autoplay of the last play (so undo takes them back with it); before any play they
        are a prelude that stays in ``line()`` and cannot be undone.
        """
        log: list[tuple[int, int, int]] = []
        moves = self._autoplay(log)
        if moves:
            if self._history:
                played, old_log = self._history[-1]
                self._history[-1] = (Played(played.move, played.autoplay + moves), old_log + log)
            else:
                self._prelude.extend(moves)
        return moves

    def _autoplay(self, log: list[tuple[int, int, int]]) -> list[Move]:
        """Safe autoplay: repeatedly send home the first qualifying exposed card, looking at columns 1-8
        then free cells a-d; a card of rank r qualifies when r <= 2 or both foundations of the other
        colour hold r - 1 cards or more."""
        cols = self._cols
        cells = self._cells
        found = self._found
        moves: list[Move] = []
        while True:
            for loc in range(12):
                if loc < 8:
                    column = cols[loc]
                    if not column:
                        continue
                    card = column[-1]
                else:
                    card = cells[loc - 8]
                    if card < 0:
                        continue
                rank0 = card >> 2  # rank - 1
                suit = card & 3
                if found[suit] != rank0:
                    continue
                if rank0 > 1:
                    a, b = _OPPOSITE[suit]
                    if found[a] < rank0 or found[b] < rank0:
                        continue
                if loc < 8:
                    cols[loc].pop()
                else:
                    cells[loc - 8] = -1
                found[suit] += 1
                log.append((loc, 12 + suit, 1))
                moves.append(_HOME_MOVES[loc])
                break
            else:
                return moves

    def line(self) -> list[Move]:
        """The effective line since the start: each play followed by its autoplay, undone plays left out."""
        result = self._prelude[:]
        for played, _ in self._history:
            result.append(played.move)
            result.extend(played.autoplay)
        return result

    def legal_moves(self) -> list[Move]:
        """Every distinct legal move, normalized; each legal run length to each empty column.

        Order: by source (columns 1-8, then cells a-d); for each, the foundation, the free cells a-d,
        the non-empty columns (shorter runs first), then the empty columns (shorter runs first).
        """
        cols = self._cols
        cells = self._cells
        found = self._found
        parents = _PARENTS
        free_mask = 0
        for i in range(4):
            if cells[i] < 0:
                free_mask |= 1 << i
        empty: list[int] = []
        where: dict[int, int] = {}  # exposed card -> its column, to find where a card may go in one look-up
        for i in range(8):
            if cols[i]:
                where[cols[i][-1]] = i
            else:
                empty.append(i)
        free_count = _BIT_COUNT[free_mask]
        cap = (free_count + 1) << len(empty)
        cap_empty = cap >> 1
        moves: list[Move] = []
        add = moves.append
        extend = moves.extend
        for src in range(12):
            column: list[int] | None
            if src < 8:
                column = cols[src]
                if not column:
                    continue
                card = column[-1]
            else:
                card = cells[src - 8]
                if card < 0:
                    continue
                column = None
            if found[card & 3] == card >> 2:
                add(_HOME_MOVES[src])
            if free_mask:
                extend(_CELL_MOVES_BY_MASK[src][free_mask])
            to_column = _COLUMN_MOVES[src]
            if column is None:
                for parent in parents[card]:
                    dst = where.get(parent)
                    if dst is not None:
                        add(to_column[dst][1])
                for dst in empty:
                    add(to_column[dst][1])
                continue
            # the run at the top of this column, as far as it could ever move
            size = len(column)
            run = 1
            while run < size and run < cap and _FITS[column[-run] * 52 + column[-run - 1]]:
                run += 1
            for n in range(1, run + 1):
                for parent in parents[column[-n]]:
                    dst = where.get(parent)
                    if dst is not None:
                        add(to_column[dst][n])
            if empty:
                limit = run if run < cap_empty else cap_empty
                for dst in empty:
                    extend(to_column[dst][1 : limit + 1])
        return moves

    def _any_move(self) -> bool:
        cols = self._cols
        cells = self._cells
        found = self._found
        if -1 in cells:
            return any(cols) or any(c >= 0 for c in cells)
        tops = [column[-1] if column else -1 for column in cols]
        if -1 in tops and (any(tops[i] >= 0 for i in range(8)) or any(c >= 0 for c in cells)):
            return True
        for card in (*tops, *cells):
            if card >= 0:
                if found[card & 3] == card >> 2:
                    return True
                for top in tops:
                    if top >= 0 and _FITS[card * 52 + top]:
                        return True
        return False


def _card(text: object) -> int:
    index = CARD_INDEX.get(text) if isinstance(text, str) else None
    if index is None:
        if isinstance(text, str):
            index = CARD_INDEX.get(text.strip().upper())
        if index is None:
            raise BadBoardText(f"{text!r} is not a card")
    return index


def _parse_cells(rest: str) -> list[int]:
    # fc-solve writes the cells in fixed 4-character fields, an empty cell as blanks:
    # "Freecells:  6C      8H" is 6C in a and 8H in c. Read that layout by position.
    if rest[:1] == " " and "-" not in rest and rest.strip():
        slots = [rest[i : i + 4] for i in range(0, len(rest), 4)]
        if len(slots) <= 4 and all(
            not slot.strip()
            or (len(slot) == 4 and slot[0] == " " and slot[-1] != " " and " " not in slot.strip())
            for slot in slots
        ):
            cells = [_card(slot.strip()) if slot.strip() else -1 for slot in slots]
            return cells + [-1] * (4 - len(cells))
    words = rest.split()
    if len(words) > 4:
        raise BadBoardText(f"there are 4 free cells, the Freecells line lists {len(words)}")
    cells = [-1 if word.strip("-") == "" or word == "[]" else _card(word) for word in words]
    return cells + [-1] * (4 - len(cells))


def _parse_foundations(rest: str) -> list[int]:
    foundations = [0, 0, 0, 0]
    for word in rest.split():
        suit, dash, height = word.partition("-")
        suit = suit.upper()
        if not dash or suit not in SUITS:
            raise BadBoardText(f"{word!r} is not a foundation: write e.g. H-0 C-A D-5 S-K")
        h = height.upper()
        if h in ("0", "-"):
            value = 0
        elif h in RANKS:
            value = RANKS.index(h) + 1
        elif h.isdigit() and 0 <= int(h) <= 13:
            value = int(h)
        else:
            raise BadBoardText(f"{word!r} is not a foundation: the height is 0, A, 2-9, T, J, Q or K")
        foundations[SUITS.index(suit)] = value
    return foundations
