"""The daily tests' deal won in a chosen number of actions, their UTC clock, dailies made without the solver
(by hand, or as the sweeper makes them)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games import sweeper
from games.daily import services as daily
from games.models import DailyChallenge, Deal, Game
from games.play import services

# Four suits in four columns, king at the bottom; only the clubs have their two above their ace. Safe
# autoplay takes the red and spade aces and twos (and 3S) at once; `1a` frees the clubs, after which
# every card goes home: a win in one move. `2a` (3D to a cell), `a5`, `5a` ... are moves that do not
# win, to pad a game to any number of actions.
SUIT_COLUMN = "K Q J T 9 8 7 6 5 4 3 2 A".split()
TRIVIAL_COLUMNS = [
    [f"{r}C" for r in "K Q J T 9 8 7 6 5 4 3".split()] + ["AC", "2C"],
    [f"{r}D" for r in SUIT_COLUMN],
    [f"{r}H" for r in SUIT_COLUMN],
    [f"{r}S" for r in SUIT_COLUMN],
    [], [], [], [],
]
WIN = "1b"
# The real ones, for the tests that use the solver (solver_stand_in replaces them).
REAL_DEAL_FOR = daily.deal_for
REAL_PROVE = daily.prove
TRIVIAL_PAR = 1


def trivial_deal() -> Deal:
    deal, _ = Deal.objects.get_or_create(pk="test:trivial", defaults={"columns": TRIVIAL_COLUMNS})
    return deal


def make_test_daily(date: dt.date, *, par: int = TRIVIAL_PAR) -> DailyChallenge:
    return DailyChallenge.objects.create(date=date, deal=trivial_deal(), seed_index=0, par=par, par_line=WIN)


def ranked_game(player, challenge: DailyChallenge, **options) -> Game:
    """`player`'s ranked game of `challenge`, dealt as the daily deals it (games.daily.services.start_ranked_game)
    on any day: on the server's clock, with the daily's row saying it is ranked (and the database refusing a
    second one)."""
    return services.create_game(
        player=player, deal=challenge.deal, server_clock=True, record=daily.played_as(challenge.date, ranked=True), **options
    )


def padding(n: int) -> list[str]:
    """n moves that do not win: 3D to a cell, then back and forth between cell a and column 5."""
    moves = []
    for i in range(n):
        moves.append("2a" if i == 0 else ("a5" if i % 2 else "5a"))
    return moves


def play(game: Game, actions: list[str], *, seconds: float = 600.0) -> Game:
    """Plays `actions` (moves, or "undo") in `game` through services, its clock started `seconds`
    before now (so that the win is humanly plausible); returns the game as stored."""
    Game.objects.filter(pk=game.pk).update(created_at=timezone.now() - dt.timedelta(seconds=seconds))
    for action in actions:
        current = Game.objects.get(pk=game.pk)
        if action == "undo":
            services.undo(game_id=game.pk, user=current.player, ply=current.ply)
        else:
            services.play_move(game_id=game.pk, user=current.player, move=action, ply=current.ply)
    return Game.objects.get(pk=game.pk)


def actions_for(moves: int, undos: int = 0) -> list[str]:
    """A line that wins the trivial deal in exactly `moves` actions, `undos` of them undos."""
    assert moves >= 1 + 2 * undos, "each undo needs a move to take back"
    return ["2a", "undo"] * undos + padding(moves - 1 - 2 * undos) + ["1b"]


def win_daily(user, *, moves: int = 1, undos: int = 0, seconds: float = 600.0) -> Game:
    """The user's ranked game of today, won in `moves` actions of which `undos` are undos."""
    game, _ = daily.start_ranked_game(user)
    return play(game, actions_for(moves, undos), seconds=seconds)


class Clock:
    """games.daily's clock, set to a UTC day (noon) or left on the real time."""

    def __init__(self):
        self.at: dt.datetime | None = None

    def __call__(self) -> dt.datetime:
        return self.at or timezone.now()

    def set(self, day: dt.date, hour: int = 12) -> None:
        self.at = dt.datetime.combine(day, dt.time(hour), tzinfo=dt.UTC)

    def advance(self, days: int = 1) -> None:
        self.set(daily.today() + dt.timedelta(days=days))


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(daily, "now", c)
    return c


@pytest.fixture
def today_daily(db):
    return make_test_daily(daily.today())


@pytest.fixture
def solver_stand_in(monkeypatch, settings):
    """Dailies are made with the trivial deal unless a test asks for the solver: the modules of the daily
    tests use this fixture for every test (`pytestmark`)."""
    settings.DAILY_PAR_BUDGET = 1.0
    settings.DAILY_SOLVE_BUDGET = 1.0
    settings.DAILY_WAIT_SECONDS = 2.0
    monkeypatch.setattr(daily, "deal_for", lambda date, index: trivial_deal())
    monkeypatch.setattr(daily, "prove", lambda deal, budget: daily.Proof(True, [WIN]))


@pytest.fixture
def swept_dailies(db, solver_stand_in):
    """Today's and tomorrow's dailies made as the background sweeper makes them (games.sweeper.make_dailies,
    from the trivial deal): what a running server has within seconds of its start. Reads never make one."""
    sweeper.make_dailies()
    return DailyChallenge.objects.get(date=daily.today())
