"""Play's stored data: deals, games and their action history (the truth of a game)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q, Value
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


class Game(models.Model):
    """One player's game of one deal; `state` is a snapshot cache of replaying its actions.

    A game played as a daily (ranked, or a past daily asked for by its id) has the daily's row beside
    it (the daily's DailyGame), which play reads with it and knows only through its policies."""

    class Status(models.TextChoices):
        PLAYING = "playing"
        WON = "won"
        RESIGNED = "resigned"
        # Left for the same deal dealt again (a casual game's Restart): over, and neither a win nor a loss.
        ABANDONED = "abandoned"

    #: The statuses of a result: a game won or lost (an abandoned game is neither).
    FINISHED = (Status.WON, Status.RESIGNED)

    class Autoplay(models.TextChoices):
        NONE = "none"
        SAFE = "safe"

    class Review(models.TextChoices):
        NONE = "", "not flagged"
        FLAGGED = "flagged", "flagged for review"
        CLEARED = "cleared", "cleared"
        REJECTED = "rejected", "rejected"

    #: The review states that hold a result off the people's boards and out of others' sight (fair play).
    HELD_REVIEWS = (Review.FLAGGED, Review.REJECTED)

    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="games")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="games")
    autoplay = models.CharField(max_length=4, choices=Autoplay.choices, default=Autoplay.SAFE)
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.PLAYING)
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
    # When the game's time ends, set by the domain that dealt it (a race's time limit): an action reads
    # it with the game, so checking it costs no query. Null: no deadline of its own.
    deadline = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    elapsed_ms = models.PositiveBigIntegerField(null=True, blank=True)
    # A casual game's own clock (games.play.services: the first action starts it, and it counts while a
    # page of the player has the game open). `clock_ms` is the play time of the stretches done; null
    # means the game runs on the server's clock instead (ranked dailies, races, games from before it).
    # The current stretch counts from `clock_from` to `clock_until` at most: each sign of an open page
    # (an action, a page's socket beating) moves `clock_until` on, so a page that vanishes without
    # closing (a killed process, a lost network) stops the count within a lease.
    clock_ms = models.PositiveBigIntegerField(null=True, blank=True)
    clock_from = models.DateTimeField(null=True, blank=True)
    clock_until = models.DateTimeField(null=True, blank=True)
    review = models.CharField(max_length=8, choices=Review.choices, default=Review.NONE, blank=True)
    # The fair-play signals the result crossed when it was won (games.fairplay): [{signal, value, threshold}].
    review_reasons = models.JSONField(default=list, db_default=Value([], models.JSONField()), blank=True)
    # Hints given on this game (games.play.hints): one of the fair-play signals of a result.
    hints = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        # No index holds a column that a move or an undo changes (ply, the position...): then PostgreSQL
        # updates the row in place on its page (a HOT update, with room kept by the table's fillfactor,
        # migration 0005) instead of adding an entry to every index on every move. The daily
        # leaderboard ranks DailyResult rows, not games.
        indexes = [
            # A player's games, newest first (profile, export, statistics).
            models.Index(fields=["player", "-created_at"], name="game_player_recent"),
            # Admin review queue.
            models.Index(fields=["review"], condition=~Q(review=""), name="game_review_queue"),
            # Games still playing by their deadline, for the sweeper: only what is due is read. Its columns
            # change once in a game (its deal, its end: `status`), so its moves stay in-place updates.
            models.Index(fields=["deadline"], condition=Q(status="playing", deadline__isnull=False), name="game_deadline_due"),
        ]

    def __str__(self) -> str:
        return f"game {self.pk} ({self.deal_id}, {self.player_id})"

    @property
    def moves(self) -> int:
        return self.ply

    @property
    def held(self) -> bool:
        """Whether a review holds the result (games.fairplay): off the people's boards, hidden from others."""
        return self.review in self.HELD_REVIEWS

    @property
    def on_server_clock(self) -> bool:
        """Whether the game's time is the server's (created_at to the finish), not its own play clock."""
        return self.clock_ms is None

    def clock_at(self, at) -> int:
        """The game's time in ms as of `at`: a finished game's stored time; else, on the server's
        clock, the time since `created_at`, and on a casual game's own clock, the play time counted."""
        if self.elapsed_ms is not None:
            return self.elapsed_ms
        if self.on_server_clock:
            return _ms(at - self.created_at)
        counted = self.clock_ms
        if self.clock_from is not None and self.clock_until is not None:
            counted += _ms(min(at, self.clock_until) - self.clock_from)
        return counted

    def clock_running_at(self, at) -> bool:
        """Whether the game's clock counts at `at` (a page showing it ticks only while it does)."""
        if self.status != self.Status.PLAYING:
            return False
        if self.on_server_clock:
            return True
        return self.clock_from is not None and self.clock_until is not None and at < self.clock_until


def _ms(span) -> int:
    return max(0, int(span.total_seconds() * 1000))


class Action(models.Model):
    """One player action of a game: a move or an undo, with the autoplay it caused and its server time.

    The action log is the truth of a game; `Game.state` is only a cache of replaying it.
    """

    class Kind(models.TextChoices):
        MOVE = "move"
        UNDO = "undo"

    class Via(models.TextChoices):
        """How the action came (docs/fair-play.md): the site's own pages (a session), or the API (a token, an app)."""

        WEB = "web"
        API = "api"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="actions")
    index = models.PositiveIntegerField(help_text="0-based: the ply before this action")
    kind = models.CharField(max_length=4, choices=Kind.choices)
    notation = models.CharField(max_length=8, blank=True, help_text="the move as played (normalized); the undone move for an undo")
    autoplay = models.JSONField(default=list, help_text="foundation moves autoplay made after the move (or that the undo took back)")
    client_id = models.CharField(max_length=64, blank=True)
    # How it came; blank for actions stored before it was recorded.
    via = models.CharField(max_length=3, choices=Via.choices, blank=True, db_default="")
    # Set by the action's service, which also dates a winning move's finish with it.
    created_at = models.DateTimeField(default=timezone.now)
    # The game's clock at this action (Game.clock_at): a casual game's play time is not the time since
    # its creation, so replays and ghosts keep pace with this. Null for actions stored before it was kept.
    clock_ms = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["game", "index"]
        constraints = [
            # Two writers can never store the same ply twice, even if a lock were bypassed.
            models.UniqueConstraint(fields=["game", "index"], name="one_action_per_ply"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.index} {self.kind} {self.notation}"
