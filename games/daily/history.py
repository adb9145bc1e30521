"""A player's daily results over time, as a viewer may see them: ranked results of days that are over, or all of one's own."""

from __future__ import annotations

import datetime as dt

from django.db.models import QuerySet
from django.utils import timezone

from games.daily import leaderboard
from games.daily import services as daily
from games.daily.models import RANKED, ranked_day
from games.play.models import Game
from games.play.payloads import review_state


def results_of(player, viewer, *, since: dt.date | None = None, until: dt.date | None = None) -> QuerySet[Game]:
    """The player's ranked games the viewer may list, newest day first, of days from `since` to `until`
    (both included): to the player themselves (and staff) every ranked game, played, won, resigned or held
    for review; to anyone else only the results on a leaderboard of a day that is over."""
    games = Game.objects.filter(RANKED, player=player).select_related("daily_game").order_by("-daily_game__daily_id")
    mine = getattr(viewer, "is_authenticated", False) and (viewer.pk == player.pk or viewer.is_staff)
    if not mine:
        games = games.filter(daily_result__isnull=False, daily_game__daily_id__lt=daily.today())
    if since is not None:
        games = games.filter(daily_game__daily_id__gte=since)
    if until is not None:
        games = games.filter(daily_game__daily_id__lte=until)
    return games.only(
        "pk", "daily_game__daily_id", "daily_game__ranked", "status", "ply", "undos", "elapsed_ms", "clock_ms", "clock_from", "clock_until", "created_at",
        "finished_at", "review", "player_id",
    )


def rows(games: list[Game]) -> list[dict]:
    """A page of results with their ranks (one query for the page)."""
    ranks = leaderboard.ranks_of_games([game.pk for game in games])
    now = timezone.now()
    answer = []
    for game in games:
        # a ranked game's one deadline is its day's end (games.daily.services.day_deadline)
        deadline = daily.day_deadline(game) if game.status == Game.Status.PLAYING else None
        up = deadline if deadline is not None and deadline.passed() else None
        date = ranked_day(game)
        answer.append(
            {
                "date": date,
                "deal": f"daily:{date.isoformat()}",
                "game": game.pk,
                "status": Game.Status.RESIGNED if up is not None else game.status,
                "moves": game.ply,
                "undos": game.undos,
                "elapsed_ms": game.clock_at(up.at if up is not None else now),
                "finished_at": up.at if up is not None else game.finished_at,
                "rank": ranks.get(game.pk),
                "review": review_state(game),
            }
        )
    return answer
