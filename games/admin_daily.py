"""Admin actions on ranked games held for review: clear (rank it) or reject (keep it off the board).

Add them to GameAdmin: `actions = [clear_review_action, reject_review_action]`. The verdict must go
through these (games.daily.clear_review / reject_review), not through editing `review` in the form,
so that the leaderboard's results and tallies follow it in the same transaction.
"""

from __future__ import annotations

from django.contrib import admin, messages

from freecell_site.errors import ServiceError
from games.daily import services as daily
from games.play.models import Game


def _give_verdict(queryset, verdict, review) -> tuple[int, int]:
    """Gives `verdict` (a games.daily service, which refuses the games it does not apply to) to the
    selected games not already at `review`: how many took it, how many were skipped."""
    given = skipped = 0
    for game in queryset.exclude(review=review):
        try:
            verdict(game)
        except ServiceError:
            skipped += 1
        else:
            given += 1
    return given, skipped


@admin.action(description="Clear the review: the result is fair, rank it")
def clear_review_action(modeladmin, request, queryset):
    cleared, skipped = _give_verdict(queryset, daily.clear_review, Game.Review.CLEARED)
    modeladmin.message_user(request, f"{cleared} game(s) cleared and ranked", messages.SUCCESS)
    if skipped:
        modeladmin.message_user(request, f"{skipped} game(s) skipped: not won ranked games", messages.WARNING)


@admin.action(description="Reject the result: keep it off the leaderboard")
def reject_review_action(modeladmin, request, queryset):
    rejected, skipped = _give_verdict(queryset, daily.reject_review, Game.Review.REJECTED)
    modeladmin.message_user(request, f"{rejected} game(s) rejected", messages.WARNING)
    if skipped:
        modeladmin.message_user(request, f"{skipped} game(s) skipped: not ranked games (casual games are on no leaderboard)", messages.WARNING)
