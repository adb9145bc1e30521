"""Player statistics and daily streaks, shown on the public profile."""

from __future__ import annotations

import datetime as dt

import pytest

from games.daily import services as daily
from games.daily.stats import player_statistics, streaks
from games.play import services
from tests.support.daily import make_test_daily, win_daily
from tests.support.players import client_for

pytestmark = pytest.mark.usefixtures("solver_stand_in")  # dailies from the trivial deal (tests/support/daily.py)

D1 = dt.date(2026, 3, 1)


def day(n: int) -> dt.date:
    """The n-th day from D1 (0-based)."""
    return D1 + dt.timedelta(days=n)


def test_a_streak_is_a_run_of_consecutive_days_with_a_won_daily():
    won = [day(0), day(1), day(2), day(4), day(5)]
    assert streaks(won, on=day(5)) == (2, 3)
    assert streaks([], on=day(5)) == (0, 0)
    assert streaks([day(3), day(3)], on=day(3)) == (1, 1)


def test_the_current_streak_lasts_until_the_end_of_the_day_after_the_last_win():
    won = [day(0), day(1), day(2)]
    assert streaks(won, on=day(3)) == (3, 3)  # today not played yet: the streak is still alive
    assert streaks(won, on=day(4)) == (0, 3)  # a whole day missed
    assert streaks(won, on=day(3), lost_today=True) == (0, 3)  # today's one ranked game resigned
    assert streaks([*won, day(3)], on=day(3), lost_today=True) == (4, 4)


def test_streaks_across_days_follow_the_clock(db, alice, clock):
    for n in range(6):
        make_test_daily(day(n))
    for n in (0, 1, 2, 4):
        clock.set(day(n))
        win_daily(alice, moves=2)
    clock.set(day(4))  # day 3 missed
    stats = client_for(alice).get("/api/users/alice/").json()["stats"]
    assert (stats["current_streak"], stats["best_streak"]) == (1, 3)
    clock.set(day(5))
    assert player_statistics(alice)["current_streak"] == 1
    win_daily(alice, moves=2)
    assert (player_statistics(alice)["current_streak"], player_statistics(alice)["best_streak"]) == (2, 3)
    clock.set(day(7))
    assert (player_statistics(alice)["current_streak"], player_statistics(alice)["best_streak"]) == (0, 3)


def test_the_profile_shows_daily_statistics(db, alice, bob, clock):
    for n in range(3):
        make_test_daily(day(n), par=2)
    clock.set(day(0))
    win_daily(bob, moves=2)
    win_daily(alice, moves=5, undos=1)  # rank 2, 3 over par
    clock.set(day(1))
    win_daily(alice, moves=3)  # rank 1, 1 over par
    clock.set(day(2))
    game, _ = daily.start_ranked_game(alice)
    services.resign(game_id=game.pk, user=alice)  # a resign counts as a loss
    services.create_game(player=alice, deal="ms:1")  # a casual game
    stats = client_for(bob).get("/api/users/alice/").json()["stats"]
    assert stats == {
        "games_played": 4,
        "games_won": 2,
        "dailies_played": 3,
        "dailies_won": 2,
        "daily_win_rate": round(2 / 3, 4),
        "mean_moves_over_par": 2.0,
        "best_rank": 1,
        "current_streak": 0,
        "best_streak": 2,
    }


def test_todays_daily_in_play_does_not_count_against_the_win_rate(db, alice, clock):
    make_test_daily(day(0))
    make_test_daily(day(1))
    clock.set(day(0))
    win_daily(alice, moves=2)
    clock.set(day(1))
    daily.start_ranked_game(alice)
    stats = player_statistics(alice)
    assert stats["dailies_played"] == 2 and stats["daily_win_rate"] == 1.0
    clock.set(day(2))  # left unfinished: the day is over, it is a loss
    assert player_statistics(alice)["daily_win_rate"] == 0.5


def test_a_ranked_win_held_for_review_is_no_win_on_the_profile(db, alice, clock):
    """A bot's win, held for review, showed as a won game on its profile."""
    from games.models import Game

    make_test_daily(day(0))
    clock.set(day(0))
    game = win_daily(alice, moves=2)
    assert player_statistics(alice)["games_won"] == 1
    for review in (Game.Review.FLAGGED, Game.Review.REJECTED):
        Game.objects.filter(pk=game.pk).update(review=review)
        assert player_statistics(alice)["games_won"] == 0, review
    Game.objects.filter(pk=game.pk).update(review=Game.Review.CLEARED)
    assert player_statistics(alice)["games_won"] == 1


def test_a_new_player_has_empty_statistics(db, charlie):
    stats = player_statistics(charlie)
    assert stats["dailies_played"] == 0 and stats["daily_win_rate"] is None
    assert stats["best_rank"] is None and stats["mean_moves_over_par"] is None
    assert (stats["current_streak"], stats["best_streak"]) == (0, 0)
