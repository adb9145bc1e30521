"""Per-player statistics: games, dailies, win rate, moves against par, best rank, streaks."""

from __future__ import annotations

import datetime as dt

from django.db.models import Count, Q

from games.daily.leaderboard import ranks_of_player
from games.daily.models import RANKED, DailyResult
from games.daily.services import today
from games.play.models import Game


def streaks(won_dates: list[dt.date], *, on: dt.date | None = None, lost_today: bool = False) -> tuple[int, int]:
    """(current, best) runs of consecutive UTC days with a won daily. The current streak survives
    until the end of today: a player who won yesterday and has not yet won today keeps it, unless
    today's one ranked game is already lost (`lost_today`: resigned)."""
    on = on or today()
    days = sorted(set(won_dates))
    best = run = 0
    previous = None
    for day in days:
        run = run + 1 if previous is not None and day - previous == dt.timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    current = run if previous is not None and (on - previous).days <= 1 else 0
    if lost_today and previous is not None and previous < on:
        current = 0
    return current, best


def player_statistics(user) -> dict:
    """The statistics of a player's profile (the keys of accounts' StatsSerializer).

    A daily counts as won when it is on the leaderboard (a ranked win not held for review). The win
    rate is over decided dailies: today's game still in play and games under review are left out;
    a resigned or abandoned daily is a loss.
    """
    current_day = today()
    totals = Game.objects.filter(player=user).aggregate(
        played=Count("id"),
        # A ranked win held for review or rejected is no win to show (a bot's counted on its profile).
        won=Count("id", filter=Q(status=Game.Status.WON) & ~Q(review__in=[Game.Review.FLAGGED, Game.Review.REJECTED])),
        dailies=Count("id", filter=RANKED),
        lost_today=Count("id", filter=RANKED & Q(daily_game__daily_id=current_day, status=Game.Status.RESIGNED)),
        undecided=Count(
            "id",
            filter=RANKED & (Q(daily_game__daily_id__gte=current_day, status=Game.Status.PLAYING) | Q(review=Game.Review.FLAGGED)),
        ),
    )
    results = list(DailyResult.objects.filter(player=user).values_list("daily_id", "moves", "daily__par"))
    won = len(results)
    decided = totals["dailies"] - totals["undecided"]
    over_par = [moves - par for _date, moves, par in results if par is not None]
    current, best = streaks(
        [date for date, _moves, _par in results], on=current_day, lost_today=bool(totals["lost_today"])
    )
    best_rank = None
    if results:
        best_rank = min(ranks_of_player(user).values(), default=None)
    return {
        "games_played": totals["played"],
        "games_won": totals["won"],
        "dailies_played": totals["dailies"],
        "dailies_won": won,
        "daily_win_rate": round(won / decided, 4) if decided else None,
        "mean_moves_over_par": round(sum(over_par) / len(over_par), 2) if over_par else None,
        "best_rank": best_rank,
        "current_streak": current,
        "best_streak": best,
    }
