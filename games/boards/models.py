"""The boards' stored data: deal records, the month's ladder, streaks, and the tallies their ranks sum.

Every board is two: people's and bots' (docs/fair-play.md). Each row carries its player's `bot` (which never
changes while the player has rows), next to the board's own key in the tallies and ranking indexes.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.play.models import Game


class DealRecord(models.Model):
    """A player's best won game of one deal under one autoplay mode: one line of the deal's board.

    Written in the winning move's transaction (games.boards.services); replaced only by a better game
    of the same player, so a player is on a deal's board once and a game is never ranked twice.
    """

    deal = models.CharField(max_length=40, help_text="the deal's canonical id (a daily's is its seed: deal)")
    autoplay = models.CharField(max_length=4, choices=Game.Autoplay.choices)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="deal_records")
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="deal_record")
    moves = models.PositiveIntegerField(help_text="the score: player actions, undos included")
    undos = models.PositiveIntegerField(default=0)
    elapsed_ms = models.PositiveBigIntegerField()
    finished_at = models.DateTimeField()
    bot = models.BooleanField(default=False, db_default=False, help_text="a bot's line: on the deal's board of bots, not of people")

    #: The board's order (as order_by takes it): fewest moves, then time, then finish, then the game.
    ORDER = ("moves", "elapsed_ms", "finished_at", "game_id")

    class Meta:
        constraints = [
            # The player first: a player's own line (`me`) is read by this key, and a plan made once for
            # every deal (a prepared statement's) must prefer it to the ranking index below, which leads
            # with the deal and, on a crowded deal, would be read through (games.boards.selectors._line_of).
            models.UniqueConstraint(fields=["player", "deal", "autoplay"], name="one_record_per_player"),
        ]
        indexes = [
            # The spec's order (moves, time, finish, then the game for one place each), read from the index;
            # people and bots are two boards of the deal, each a range of it.
            models.Index(
                fields=["deal", "autoplay", "bot", "moves", "elapsed_ms", "finished_at", "game", "undos", "player"],
                name="deal_record_board",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.deal} ({self.autoplay}) game {self.game_id}: {self.moves} moves"


class RecordTally(models.Model):
    """How many players' bests a deal's board has with each move count: a rank sums the counts of fewer
    moves and counts only its own move count's better rows."""

    deal = models.CharField(max_length=40)
    autoplay = models.CharField(max_length=4, choices=Game.Autoplay.choices)
    bot = models.BooleanField(default=False, db_default=False)
    moves = models.PositiveIntegerField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["deal", "autoplay", "bot", "moves"], name="one_record_tally")]
        indexes = [models.Index(fields=["deal", "autoplay", "bot", "moves", "count"], name="record_tally_sum")]

    def __str__(self) -> str:
        return f"{self.deal} ({self.autoplay}) {self.moves} moves: {self.count}"


class RecordSpanTally(models.Model):
    """A crowded move count of a deal's board split by time: how many of its lines have their elapsed
    time in each span (`span` = elapsed_ms // SPAN_MS). A rank inside the move count sums the spans
    before its own and counts only its own span's better lines (the daily leaderboard's second level).
    A move count is split once it holds SPLIT_FROM lines, and stays split (games.boards.services); a
    smaller one is counted line by line, at no more cost than its tally rows would be, and most deals'
    boards never have one: a row here for every line would double the tallies."""

    #: Width of a span of elapsed time (changing it needs `manage.py rebuild_boards`).
    SPAN_MS = 10_000
    #: A move count's lines on one board from which they are tallied by span too.
    SPLIT_FROM = 256

    deal = models.CharField(max_length=40)
    autoplay = models.CharField(max_length=4, choices=Game.Autoplay.choices)
    bot = models.BooleanField(default=False, db_default=False)
    moves = models.PositiveIntegerField()
    span = models.PositiveBigIntegerField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["deal", "autoplay", "bot", "moves", "span"], name="one_record_span_tally")]
        indexes = [models.Index(fields=["deal", "autoplay", "bot", "moves", "span", "count"], name="record_span_tally_sum")]

    def __str__(self) -> str:
        return f"{self.deal} ({self.autoplay}) {self.moves} moves, span {self.span}: {self.count}"


class LadderDay(models.Model):
    """A player's ranked daily of one day as the ladder counts it: played (started), won, its points.

    One row per ranked game (one per player and day); the ladder's and streaks' counters change only
    when a row does, which makes every update idempotent."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ladder_days")
    date = models.DateField()
    won = models.BooleanField(default=False)
    points = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "date"], name="one_ladder_day")]

    def __str__(self) -> str:
        return f"{self.player_id} on {self.date}: {'won' if self.won else 'played'}, {self.points} points"


class LadderEntry(models.Model):
    """A player's line on one month's ladder (`month` is the month's first day)."""

    month = models.DateField()
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ladder_entries")
    points = models.PositiveIntegerField(default=0)
    played = models.PositiveIntegerField(default=0, help_text="ranked dailies started in the month")
    won = models.PositiveIntegerField(default=0, help_text="ranked dailies won in the month")
    bot = models.BooleanField(default=False, db_default=False, help_text="a bot's line: on the month's ladder of bots, not of people")

    #: The ladder's order (as order_by takes it): by points, then wins, then who joined first.
    ORDER = ("-points", "-won", "player_id")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["month", "player"], name="one_ladder_entry")]
        indexes = [
            models.Index(fields=["month", "bot", "-points", "-won", "player", "played"], name="ladder_board"),
        ]

    def __str__(self) -> str:
        return f"{self.month:%Y-%m} {self.player_id}: {self.points} points"


class LadderTally(models.Model):
    """How many players of a month's ladder have each number of points."""

    month = models.DateField()
    bot = models.BooleanField(default=False, db_default=False)
    points = models.PositiveIntegerField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["month", "bot", "points"], name="one_ladder_tally")]
        indexes = [models.Index(fields=["month", "bot", "points", "count"], name="ladder_tally_sum")]

    def __str__(self) -> str:
        return f"{self.month:%Y-%m} {self.points} points: {self.count}"


class Streak(models.Model):
    """A player's daily streaks as of `last_day`, the last day with a ranked daily won: `current` counts
    the consecutive days won up to it, `longest` the best run ever. A read shows `current` as 0 once
    `last_day` is before yesterday; nothing is stored for that."""

    player = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE, related_name="streak")
    last_day = models.DateField()
    current = models.PositiveIntegerField()
    longest = models.PositiveIntegerField()
    bot = models.BooleanField(default=False, db_default=False, help_text="a bot's streak: on the bots' board, not the people's")

    #: The living streaks' order (as order_by takes it), ahead of every other streak on the board.
    LIVING_ORDER = ("-current", "-longest", "player_id")

    class Meta:
        indexes = [
            # The living streaks of a day, best first (people's and bots' apart).
            models.Index(fields=["bot", "last_day", "-current", "-longest", "player"], name="streak_alive"),
            # Everyone by longest streak.
            models.Index(fields=["bot", "-longest", "player", "last_day"], name="streak_longest"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id}: {self.current} to {self.last_day}, longest {self.longest}"


class StreakTally(models.Model):
    """How many players have each (last_day, current, longest): the living streaks' ranks sum the counts
    of yesterday's and today's rows."""

    bot = models.BooleanField(default=False, db_default=False)
    last_day = models.DateField()
    current = models.PositiveIntegerField()
    longest = models.PositiveIntegerField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "last_day", "current", "longest"], name="one_streak_tally")]
        indexes = [models.Index(fields=["bot", "last_day", "current", "longest", "count"], name="streak_tally_sum")]

    def __str__(self) -> str:
        return f"{self.last_day} {self.current}/{self.longest}: {self.count}"


class LongestTally(models.Model):
    """How many players have each longest streak (every player with a streak), people and bots apart."""

    bot = models.BooleanField(default=False, db_default=False)
    longest = models.PositiveIntegerField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "longest"], name="one_longest_tally")]

    def __str__(self) -> str:
        return f"longest {self.longest}: {self.count}"
