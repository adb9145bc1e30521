"""Admin actions on results held for review: clear (rank it) or reject (keep it off every board).

Add them to GameAdmin: `actions = [clear_review_action, reject_review_action]`. The verdict must go
through these (games.fairplay.services.clear / reject), not through editing `review` in the form, so
that the boards' results and tallies follow it in the same transaction. The moderators' own page is
/staff/reviews/ (the queue with each result's replay, timing and reports).
"""

from __future__ import annotations

from django.contrib import admin, messages

from freecell_site.errors import ServiceError
from games.fairplay import services as fairplay
from games.play.models import Game


def _give_verdict(queryset, verdict, review, request_user) -> tuple[int, int]:
    """Gives `verdict` (a games.fairplay service, which refuses the games it does not apply to) to the
    selected games not already at `review`: how many took it, how many were skipped."""
    given = skipped = 0
    for game in queryset.exclude(review=review):
        try:
            verdict(game, moderator=request_user, note="from the admin")
        except ServiceError:
            skipped += 1
        else:
            given += 1
    return given, skipped


@admin.action(description="Clear the review: the result is fair, rank it")
def clear_review_action(modeladmin, request, queryset):
    cleared, skipped = _give_verdict(queryset, fairplay.clear, Game.Review.CLEARED, getattr(request, "user", None))
    modeladmin.message_user(request, f"{cleared} game(s) cleared and ranked", messages.SUCCESS)
    if skipped:
        modeladmin.message_user(request, f"{skipped} game(s) skipped: not won games", messages.WARNING)


@admin.action(description="Reject the result: keep it off every board")
def reject_review_action(modeladmin, request, queryset):
    rejected, skipped = _give_verdict(queryset, fairplay.reject, Game.Review.REJECTED, getattr(request, "user", None))
    modeladmin.message_user(request, f"{rejected} game(s) rejected", messages.WARNING)
    if skipped:
        modeladmin.message_user(request, f"{skipped} game(s) skipped: not ranked games (a casual game is on no board until it is won)", messages.WARNING)
