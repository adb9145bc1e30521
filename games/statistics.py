"""A player's statistics as they read them (issue 39): win rate over finished games, casual and daily
streaks, best and average moves and times, results by day, and their best on each numbered deal beside
its record. `statistics` of `GET /api/users/<u>/` and the profile page (docs/api.md).

Only finished games count: a game won or lost (resigned, or its time up). A game still being played, left
for another (New game) or abandoned by a restart (games.play.restart) is unfinished: neither a win nor a loss. A win held
for review (fair play) is left out until it is cleared. Here, as on the boards, a casual game is any game
but a ranked daily.
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Avg, Count, Max, Min, Q
from django.db.models.functions import TruncDate

from games.boards.selectors import record_of
from games.daily.models import RANKED, DailyResult
from games.daily.services import today
from games.daily.stats import streaks
from games.play import policies
from games.play.models import Game

#: The days the chart of results covers, today included.
CHART_DAYS = 30
#: The numbered deals listed (the player's most recently played).
DEALS_LISTED = 10


def _runs(results: list[bool]) -> tuple[int, int]:
    """(current, best) runs of wins in a list of results, oldest first: the current is the run at its end."""
    best = run = 0
    for won in results:
        run = run + 1 if won else 0
        best = max(best, run)
    return run, best


def _finished(user):
    """The player's games as each truly is: (won not held, lost) filters over Game."""
    lost = Q(status=Game.Status.RESIGNED) | policies.time_up_games()
    won = Q(status=Game.Status.WON) & ~Q(review__in=Game.HELD_REVIEWS)
    return won, lost


def _daily_streaks(user) -> tuple[int, int]:
    """(current, best) runs of days with a ranked daily won, as the profile's daily streak counts them."""
    won_days = list(DailyResult.objects.filter(player=user).values_list("daily_id", flat=True))
    lost_today = Game.objects.filter(RANKED, player=user, daily_game__daily_id=today(), status=Game.Status.RESIGNED).exists()
    return streaks(won_days, on=today(), lost_today=lost_today)


def results_by_day(user, *, days: int = CHART_DAYS, on: dt.date | None = None) -> list[dict]:
    """`[{date, won, lost}]`: the games finished on each UTC day of the last `days`, oldest first, every day listed."""
    last = on or today()
    first = last - dt.timedelta(days=days - 1)
    won, lost = _finished(user)
    rows = (
        Game.objects.filter(player=user, finished_at__date__gte=first, finished_at__date__lte=last)
        .annotate(day=TruncDate("finished_at", tzinfo=dt.UTC))
        .values("day")
        .annotate(won=Count("id", filter=won), lost=Count("id", filter=lost))
    )
    found = {row["day"]: row for row in rows}
    out = []
    for offset in range(days):
        day = first + dt.timedelta(days=offset)
        row = found.get(day, {})
        out.append({"date": day.isoformat(), "won": row.get("won", 0), "lost": row.get("lost", 0)})
    return out


def deal_history(user, *, limit: int = DEALS_LISTED) -> list[dict]:
    """The numbered (`ms:`) deals the player played most recently, each with their games, wins, best win
    (fewest moves, then time) and the deal's record on the same autoplay (people's board, or bots' for a bot)."""
    won, _lost = _finished(user)
    rows = list(
        Game.objects.filter(player=user, deal__id__startswith="ms:").exclude(RANKED)
        .values("deal_id", "autoplay")
        .annotate(played=Count("id"), won=Count("id", filter=won), last=Max("created_at"))
        .order_by("-last", "deal_id", "autoplay")[:limit]
    )
    bot = bool(getattr(getattr(user, "profile", None), "bot", False))
    out = []
    for row in rows:
        best = (
            Game.objects.filter(won, player=user, deal_id=row["deal_id"], autoplay=row["autoplay"])
            .exclude(RANKED)
            .order_by("ply", "elapsed_ms", "finished_at", "pk")
            .values("pk", "ply", "elapsed_ms")
            .first()
        )
        record = record_of(row["deal_id"], row["autoplay"], bots=bot)
        out.append(
            {
                "deal": row["deal_id"],
                "autoplay": row["autoplay"],
                "played": row["played"],
                "won": row["won"],
                "best_moves": best["ply"] if best else None,
                "best_time_ms": best["elapsed_ms"] if best else None,
                "best_game": best["pk"] if best else None,
                "record": (
                    {"username": record.username, "moves": record.moves, "elapsed_ms": record.elapsed_ms, "game": record.game}
                    if record
                    else None
                ),
                "holds_record": bool(record and best and record.game == best["pk"]),
            }
        )
    return out


def player_statistics(user) -> dict:
    """The `statistics` object of a player's profile (docs/api.md)."""
    won, lost = _finished(user)
    games = Game.objects.filter(player=user)
    totals = games.aggregate(
        won=Count("id", filter=won),
        lost=Count("id", filter=lost),
        unfinished=Count("id", filter=(Q(status=Game.Status.PLAYING) & ~policies.time_up_games()) | Q(status=Game.Status.ABANDONED)),
    )
    wins = games.filter(won).aggregate(
        best_moves=Min("ply"), mean_moves=Avg("ply"), best_time=Min("elapsed_ms"), mean_time=Avg("elapsed_ms")
    )
    finished = totals["won"] + totals["lost"]
    casual = list(
        games.filter(won | lost)
        .exclude(RANKED)
        .order_by("finished_at", "pk")
        .values_list("status", "review")
    )
    casual_current, casual_best = _runs([status == Game.Status.WON and review not in Game.HELD_REVIEWS for status, review in casual])
    daily_current, daily_best = _daily_streaks(user)
    return {
        "games_finished": finished,
        "games_won": totals["won"],
        "games_lost": totals["lost"],
        "games_unfinished": totals["unfinished"],
        "win_rate": round(totals["won"] / finished, 4) if finished else None,
        "casual_streak": {"current": casual_current, "best": casual_best},
        "daily_streak": {"current": daily_current, "best": daily_best},
        "moves": {
            "best": wins["best_moves"],
            "mean": round(wins["mean_moves"], 1) if wins["mean_moves"] is not None else None,
        },
        "time_ms": {
            "best": wins["best_time"],
            "mean": round(wins["mean_time"]) if wins["mean_time"] is not None else None,
        },
        "by_day": results_by_day(user),
        "deals": deal_history(user),
    }
