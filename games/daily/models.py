"""The daily's stored data: one challenge per UTC date, the games played as a daily, its ranked results
and their tallies, people's and bots' apart."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.play.models import Deal, Game


class DailyChallenge(models.Model):
    """The daily deal of one UTC date, proven solvable, with its par."""

    date = models.DateField(primary_key=True)
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="dailies")
    seed_index = models.PositiveIntegerField(default=0, help_text="which seed of the date's sequence was solvable")
    par = models.PositiveIntegerField(null=True, blank=True)
    par_line = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Ranked games started, kept as a counter beside the creation of each ranked game, so that the
    # archive never counts a day's games (a million rows on a busy day).
    players = models.PositiveIntegerField(default=0, help_text="ranked games started")

    def __str__(self) -> str:
        return f"daily:{self.date.isoformat()}"


class DailyGame(models.Model):
    """A game played as a daily: the ranked game of a player's day (`ranked`), or a casual game asked
    for as `daily:DATE` (a past daily, or a race on it), which is shown under that id, not its `seed:` one.

    The daily's own row beside the game (play's Game knows no daily). Play reads it with the game on
    every read (games.play.policies.add_read_with: the action's one statement joins it), so the daily's
    rules ask no query of it; `daily_game_of` gives it from there.
    """

    game = models.OneToOneField(Game, primary_key=True, on_delete=models.CASCADE, related_name="daily_game")
    daily = models.ForeignKey(DailyChallenge, on_delete=models.PROTECT, related_name="games")
    # The game's player, kept here so the database holds one ranked game per player per daily.
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    ranked = models.BooleanField()

    class Meta:
        constraints = [
            # One ranked game per player per daily (the spec's fairness rule), enforced by the database.
            models.UniqueConstraint(fields=["daily", "player"], condition=Q(ranked=True), name="one_ranked_game_per_daily"),
        ]

    def __str__(self) -> str:
        return f"daily:{self.daily_id} game {self.game_id}{' (ranked)' if self.ranked else ''}"


#: The ranked games of the dailies (over Game).
RANKED = Q(daily_game__ranked=True)


def daily_game_of(game) -> DailyGame | None:
    """The daily a game is played as, or None: read with the game (a query only for a game read without it)."""
    try:
        return game.daily_game
    except DailyGame.DoesNotExist:
        return None


def ranked_day(game) -> dt.date | None:
    """The date of the daily whose ranked game `game` is, or None."""
    row = daily_game_of(game)
    return row.daily_id if row is not None and row.ranked else None


def shown_day(game) -> dt.date | None:
    """The date of the daily a game is shown under (`daily:DATE`), ranked or casual, or None."""
    row = daily_game_of(game)
    return row.daily_id if row is not None else None


class DailyResult(models.Model):
    """A ranked result on a daily's leaderboard: a won ranked game that is not held for review.

    Written in the winning move's transaction (games.daily.services.rank_win); a narrow table with its
    own ranking index, so leaderboards never read the wide Game rows.
    """

    game = models.OneToOneField(Game, primary_key=True, on_delete=models.CASCADE, related_name="daily_result")
    daily = models.ForeignKey(DailyChallenge, on_delete=models.CASCADE, related_name="results")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="daily_results")
    moves = models.PositiveIntegerField(help_text="the score: player actions, undos included")
    undos = models.PositiveIntegerField(default=0)
    elapsed_ms = models.PositiveBigIntegerField()
    finished_at = models.DateTimeField()
    # A bot's result ranks on the day's board of bots, never on the people's (docs/fair-play.md): the player's
    # Profile.bot, which never changes once they have a result.
    bot = models.BooleanField(default=False, db_default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["daily", "player"], name="one_result_per_daily")]
        indexes = [
            # The spec's ranking order: fewest moves, then shortest time, then earliest finish; undos
            # and player after the order, so a page of the board is read from the index alone.
            models.Index(
                fields=["daily", "bot", "moves", "elapsed_ms", "finished_at", "game", "undos", "player"], name="daily_result_board"
            ),
        ]

    def __str__(self) -> str:
        return f"daily:{self.daily_id} game {self.game_id}: {self.moves} moves"


class DailyMovesTally(models.Model):
    """How many ranked results a daily has with each move count: a rank is the sum of the counts of
    fewer moves plus the position within its own move count, instead of a count over all better rows."""

    daily = models.ForeignKey(DailyChallenge, on_delete=models.CASCADE, related_name="+")
    bot = models.BooleanField(default=False, db_default=False)
    moves = models.PositiveIntegerField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["daily", "bot", "moves"], name="one_tally_per_move_count")]
        # Sums of counts read from the index alone.
        indexes = [models.Index(fields=["daily", "bot", "moves", "count"], name="daily_moves_tally_sum")]

    def __str__(self) -> str:
        return f"daily:{self.daily_id} {self.moves} moves: {self.count}"


class DailySpanTally(models.Model):
    """The same counts split by span of elapsed time (`span` = elapsed_ms // DAILY_SPAN_MS) within a move
    count, so that a rank inside a crowded move count only counts the rows of its own span."""

    daily = models.ForeignKey(DailyChallenge, on_delete=models.CASCADE, related_name="+")
    bot = models.BooleanField(default=False, db_default=False)
    moves = models.PositiveIntegerField()
    span = models.PositiveIntegerField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["daily", "bot", "moves", "span"], name="one_tally_per_span")]
        indexes = [models.Index(fields=["daily", "bot", "moves", "span", "count"], name="daily_span_tally_sum")]

    def __str__(self) -> str:
        return f"daily:{self.daily_id} {self.moves} moves, span {self.span}: {self.count}"
