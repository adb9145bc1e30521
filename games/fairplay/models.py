"""Fair play's stored data: a result's review case (its signals, reports and verdict) and players' reports."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.play.models import Game


class ReviewCase(models.Model):
    """A result in the moderators' queue: the reports against it and the verdict (the signals it crossed
    are the game's `review_reasons`).

    One per game. The game's own `review` is the state the boards read (`flagged` keeps it off the
    people's boards); a case opened by reports alone leaves the game on its boards until a moderator
    rejects it, so that a report cannot be used to take an honest result down."""

    game = models.OneToOneField(Game, primary_key=True, on_delete=models.CASCADE, related_name="review_case")
    opened_at = models.DateTimeField()
    # Open while decided_at is null: the queue. A report on a decided case opens it again.
    decided_at = models.DateTimeField(null=True, blank=True)
    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    note = models.CharField(max_length=500, blank=True)
    # Rejected because its player's account was marked (an unmark gives such results back).
    by_mark = models.BooleanField(default=False)

    class Meta:
        indexes = [models.Index(fields=["opened_at"], condition=Q(decided_at__isnull=True), name="review_case_queue")]

    def __str__(self) -> str:
        return f"review of game {self.game_id}"

    @property
    def open(self) -> bool:
        return self.decided_at is None


class Report(models.Model):
    """A signed-in player's report of a result that ranks on a board: one per reporter and game."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made")
    reason = models.CharField(max_length=500)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "reporter"], name="one_report_per_reporter")]

    def __str__(self) -> str:
        return f"report of game {self.game_id} by {self.reporter_id}"
