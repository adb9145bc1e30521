"""Stored data of play: deals, games and their action history, daily challenges, races."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Deal(models.Model):
    """A deal the service has dealt, by its canonical id (`ms:1`, `seed:42`).

    Dailies are stored as the `seed:` deal they resolve to, so the id never reveals a daily by itself.
    """

    id = models.CharField(primary_key=True, max_length=40)
    columns = models.JSONField(help_text="8 lists of cards, bottom card first")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.id


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


class Game(models.Model):
    """One player's game of one deal; `state` is a snapshot cache of replaying its actions."""

    class Status(models.TextChoices):
        PLAYING = "playing"
        WON = "won"
        RESIGNED = "resigned"

    class Autoplay(models.TextChoices):
        NONE = "none"
        SAFE = "safe"

    class Review(models.TextChoices):
        NONE = "", "not flagged"
        FLAGGED = "flagged", "flagged for review"
        CLEARED = "cleared", "cleared"
        REJECTED = "rejected", "rejected"

    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="games")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="games")
    autoplay = models.CharField(max_length=4, choices=Autoplay.choices, default=Autoplay.SAFE)
    daily = models.ForeignKey(DailyChallenge, null=True, blank=True, on_delete=models.PROTECT, related_name="games")
    # A casual game asked for as `daily:DATE` (a past daily): shown under that id, not its `seed:` one.
    past_daily = models.ForeignKey(DailyChallenge, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PLAYING)
    # Player actions so far (moves + undos): the spec's `ply`, and also the score `moves`.
    ply = models.PositiveIntegerField(default=0)
    undos = models.PositiveIntegerField(default=0)
    cards_home = models.PositiveSmallIntegerField(default=0)
    # Bumped on every change (including resign), so websocket clients can spot a missed update.
    version = models.PositiveIntegerField(default=0)
    state = models.JSONField(help_text="snapshot {columns, cells, foundations}")
    # The effective line as [[move, [autoplay moves]], ...]; undone plays removed. Derivable from the
    # actions; kept so an undo needs no history scan.
    line = models.JSONField(default=list)
    stuck = models.BooleanField(default=False, help_text="no legal move left (advisory; undo still works)")
    # When the board was first shown: the clock's start. A race sets it to the race's start instant.
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    elapsed_ms = models.PositiveBigIntegerField(null=True, blank=True)
    review = models.CharField(max_length=8, choices=Review.choices, default=Review.NONE, blank=True)

    class Meta:
        constraints = [
            # One ranked game per player per daily (the spec's fairness rule), enforced by the database.
            models.UniqueConstraint(fields=["daily", "player"], condition=Q(daily__isnull=False), name="one_ranked_game_per_daily"),
        ]
        # No index holds a column that an action changes (ply, status, the position...): then PostgreSQL
        # updates the row in place on its page (a HOT update, with room kept by the table's fillfactor,
        # migration 0005) instead of adding an entry to every index on every move. The daily
        # leaderboard ranks DailyResult rows, not games.
        indexes = [
            # A player's games, newest first (profile, export, statistics).
            models.Index(fields=["player", "-created_at"], name="game_player_recent"),
            # Admin review queue.
            models.Index(fields=["review"], condition=~Q(review=""), name="game_review_queue"),
        ]

    def __str__(self) -> str:
        return f"game {self.pk} ({self.deal_id}, {self.player_id})"

    @property
    def moves(self) -> int:
        return self.ply

    @property
    def ranked(self) -> bool:
        return self.daily_id is not None


class Action(models.Model):
    """One player action of a game: a move or an undo, with the autoplay it caused and its server time.

    The action log is the truth of a game; `Game.state` is only a cache of replaying it.
    """

    class Kind(models.TextChoices):
        MOVE = "move"
        UNDO = "undo"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="actions")
    index = models.PositiveIntegerField(help_text="0-based: the ply before this action")
    kind = models.CharField(max_length=4, choices=Kind.choices)
    notation = models.CharField(max_length=8, blank=True, help_text="the move as played (normalized); the undone move for an undo")
    autoplay = models.JSONField(default=list, help_text="foundation moves autoplay made after the move (or that the undo took back)")
    client_id = models.CharField(max_length=64, blank=True)
    # Set by the action's service, which also dates a winning move's finish with it.
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "index"]
        constraints = [
            # Two writers can never store the same ply twice, even if a lock were bypassed.
            models.UniqueConstraint(fields=["game", "index"], name="one_action_per_ply"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.index} {self.kind} {self.notation}"


class Race(models.Model):
    """A live race of friends on one deal: open -> countdown -> running -> finished."""

    class Status(models.TextChoices):
        OPEN = "open"
        COUNTDOWN = "countdown"
        RUNNING = "running"
        FINISHED = "finished"

    code = models.CharField(max_length=12, unique=True)
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="races")
    # A race on a past daily (`daily:DATE`): shown, and its games made, under that id.
    past_daily = models.ForeignKey(DailyChallenge, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="owned_races")
    autoplay = models.CharField(max_length=4, choices=Game.Autoplay.choices, default=Game.Autoplay.SAFE)
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.OPEN)
    time_limit_s = models.PositiveIntegerField(default=1800)
    starts_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    rematch_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematches")
    ghost_of = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="ghost_races")
    # How many of the ghost's recorded actions have been replayed so far (ghost races only).
    ghost_step = models.PositiveIntegerField(default=0)
    version = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # Sweeping races whose countdown or time limit has passed.
        indexes = [models.Index(fields=["status", "starts_at"], name="race_status_start")]

    def __str__(self) -> str:
        return self.code


class RaceEntry(models.Model):
    """One racer in a race, with their game once the race has started."""

    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="race_entries")
    # RESTRICT: a racer's game is not deleted alone (the racer was left "waiting" in a race that went on
    # without them). Deleting the player deletes both; deleting the race, its entries, and the games stay.
    game = models.OneToOneField(Game, null=True, blank=True, on_delete=models.RESTRICT, related_name="race_entry")
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["joined_at", "id"]
        constraints = [models.UniqueConstraint(fields=["race", "player"], name="one_entry_per_racer")]

    def __str__(self) -> str:
        return f"{self.race.code}: {self.player_id}"


class RaceInvite(models.Model):
    """An invitation from a racer to a friend."""

    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="invites")
    invited = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="race_invites")
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["race", "invited"], name="one_invite_per_friend")]

    def __str__(self) -> str:
        return f"{self.race_id}: {self.invited_id}"


class DailyResult(models.Model):
    """A ranked result on a daily's leaderboard: a won ranked game that is not held for review.

    Written in the winning move's transaction (games.daily.on_game_changed); a narrow table with its
    own ranking index, so leaderboards never read the wide Game rows.
    """

    game = models.OneToOneField(Game, primary_key=True, on_delete=models.CASCADE, related_name="daily_result")
    daily = models.ForeignKey(DailyChallenge, on_delete=models.CASCADE, related_name="results")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="daily_results")
    moves = models.PositiveIntegerField(help_text="the score: player actions, undos included")
    undos = models.PositiveIntegerField(default=0)
    elapsed_ms = models.PositiveBigIntegerField()
    finished_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["daily", "player"], name="one_result_per_daily")]
        indexes = [
            # The spec's ranking order: fewest moves, then shortest time, then earliest finish; undos
            # and player after the order, so a page of the board is read from the index alone.
            models.Index(
                fields=["daily", "moves", "elapsed_ms", "finished_at", "game", "undos", "player"], name="daily_result_board"
            ),
        ]

    def __str__(self) -> str:
        return f"daily:{self.daily_id} game {self.game_id}: {self.moves} moves"


class DailyMovesTally(models.Model):
    """How many ranked results a daily has with each move count: a rank is the sum of the counts of
    fewer moves plus the position within its own move count, instead of a count over all better rows."""

    daily = models.ForeignKey(DailyChallenge, on_delete=models.CASCADE, related_name="+")
    moves = models.PositiveIntegerField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["daily", "moves"], name="one_tally_per_move_count")]
        # Sums of counts read from the index alone.
        indexes = [models.Index(fields=["daily", "moves", "count"], name="daily_moves_tally_sum")]

    def __str__(self) -> str:
        return f"daily:{self.daily_id} {self.moves} moves: {self.count}"


class DailySpanTally(models.Model):
    """The same counts split by span of elapsed time (`span` = elapsed_ms // DAILY_SPAN_MS) within a move
    count, so that a rank inside a crowded move count only counts the rows of its own span."""

    daily = models.ForeignKey(DailyChallenge, on_delete=models.CASCADE, related_name="+")
    moves = models.PositiveIntegerField()
    span = models.PositiveIntegerField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["daily", "moves", "span"], name="one_tally_per_span")]
        indexes = [models.Index(fields=["daily", "moves", "span", "count"], name="daily_span_tally_sum")]

    def __str__(self) -> str:
        return f"daily:{self.daily_id} {self.moves} moves, span {self.span}: {self.count}"
