"""The boards' tests: a casual deal won in a chosen number of actions (safe or no autoplay), and a
board's lines as (username, moves) pairs."""

from __future__ import annotations

from games.models import Deal, Game
from games.play import services
from tests.support.daily import TRIVIAL_COLUMNS, actions_for, play

#: A seed: deal with the daily tests' trivial layout (stored first, so that it is dealt as it is).
CASUAL_DEAL = "seed:101"


def casual_deal(deal: str = CASUAL_DEAL) -> Deal:
    return Deal.objects.get_or_create(pk=deal, defaults={"columns": TRIVIAL_COLUMNS})[0]


def unaided_actions(moves: int) -> list[str]:
    """A line that wins the trivial deal without autoplay in exactly `moves` actions (at least 53):
    2C to a cell, back and forth between the cell and column 5, then every card home, suit by suit."""
    extra = moves - 53
    assert extra >= 0, "the trivial deal takes 53 moves without autoplay"
    shuttle = ["a5" if i % 2 == 0 else "5a" for i in range(extra)]
    back = "5h" if extra % 2 else "ah"
    return ["1a", *shuttle, "1h", back] + ["1h"] * 11 + ["2h"] * 13 + ["3h"] * 13 + ["4h"] * 13


def win_casual(user, *, moves: int = 1, undos: int = 0, autoplay: str = "safe", deal: str = CASUAL_DEAL, seconds: float = 600.0) -> Game:
    """A casual game of `deal` won by `user` in `moves` actions (`undos` of them undos, with safe autoplay)."""
    casual_deal(deal)
    game = services.create_game(player=user, deal=deal, autoplay=autoplay, server_clock=True)  # timed from `seconds` ago
    line = actions_for(moves, undos) if autoplay == "safe" else unaided_actions(moves)
    return play(game, line, seconds=seconds)


def names_and_moves(entries: list[dict]) -> list[tuple[str, int]]:
    return [(entry["username"], entry["moves"]) for entry in entries]
