"""FreeCell rules engine: pure Python, no Django; the service, the solver and the tests use only these names."""

from .board import AUTOPLAY_MODES, Board, Played
from .cards import CARDS, RANKS, SUITS, Card
from .deals import MS_MAX, SEED_MAX, DealId, deal_columns, parse_day, parse_deal
from .errors import BadBoardText, BadNotation, EngineError, IllegalMove, InvalidDeal
from .notation import Move, format_moves, parse_moves
from .replay import Verification, replay, verify

__all__ = [
    "AUTOPLAY_MODES",
    "BadBoardText",
    "BadNotation",
    "Board",
    "CARDS",
    "Card",
    "DealId",
    "EngineError",
    "IllegalMove",
    "InvalidDeal",
    "MS_MAX",
    "Move",
    "Played",
    "RANKS",
    "SEED_MAX",
    "SUITS",
    "Verification",
    "deal_columns",
    "format_moves",
    "parse_day",
    "parse_deal",
    "parse_moves",
    "replay",
    "verify",
]

# The solver (solver.py) is another module's work and imports this package: load it on first use so
# `from games.engine import solve` works without an import cycle.
_SOLVER_NAMES = ("solve", "hint", "Solution")


def __getattr__(name: str) -> object:
    if name in _SOLVER_NAMES:
        from . import solver

        return getattr(solver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
