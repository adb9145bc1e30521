"""FreeCell rules engine: pure Python, no Django; the service and the tests use these names."""

# The solver is a module of its own, `games.engine.solver`, imported where a solve is asked for: its
# search tables cost start-up time that most processes never need.

from .board import AUTOPLAY_MODES, Board, Played
from .cards import CARDS, RANKS, SUITS, Card
from .deals import MS_MAX, SEED_MAX, DealId, deal_columns, parse_day, parse_deal, random_deal
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
    "random_deal",
    "replay",
    "verify",
]
