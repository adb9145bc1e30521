"""Per-player statistics: games, dailies, win rate, moves against par, best rank, streaks."""

from __future__ import annotations

import datetime as dt

from django.db.models import Count, Q

from games.daily import today
from games.models import Game


def streaks(won_dates: list[dt.date], *, on: dt.date | None = None) -> tuple[int, int]:
    """(current, best) runs of consecutive UTC days with a won daily. The current streak survives
    until the end of today: a player who won yesterday and has not yet played today keeps it."""
    on = on or today()
    days = sorted(set(won_dates))
    best = run = 0
    previous = None
    for day in days:
        run = run + 1 if previous is not None and day - previous == dt.timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    current = run if previous is not None and (on - previous).days <= 1 else 0
    return current, best


def player_statistics(user) -> dict:
    games = Game.objects.filter(player=user)
    totals = games.aggregate(
        played=Count("id"),
        won=Count("id", filter=Q(status=Game.Status.WON)),
        dailies=Count("id", filter=Q(daily__isnull=False)),
        dailies_won=Count("id", filter=Q(daily__isnull=False, status=Game.Status.WON)),
    )
    won_dailies = list(
        games.filter(daily__isnull=False, status=Game.Status.WON).values_list("daily_id", "ply", "daily__par")
    )
    over_par = [moves - par for _date, moves, par in won_dailies if par is not None]
    current, best = streaks([date for date, _moves, _par in won_dailies])
    finished_dailies = games.filter(daily__isnull=False).exclude(status=Game.Status.PLAYING).count()
    return {
        "games_played": totals["played"],
        "games_won": totals["won"],
        "dailies_played": totals["dailies"],
        "dailies_won": totals["dailies_won"],
        "daily_win_rate": round(totals["dailies_won"] / finished_dailies, 4) if finished_dailies else None,
        "mean_moves_over_par": round(sum(over_par) / len(over_par), 2) if over_par else None,
        "best_rank": None,
        "current_streak": current,
        "best_streak": best,
    }
