"""Races' stored data: a race, its racers (with their games once it starts), invitations and challenges."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.daily.models import DailyChallenge
from games.play.models import Deal, Game


class Race(models.Model):
    """A live race on one deal: open -> countdown -> running -> finished. A public one is listed for
    anyone to join and starts by itself (docs/races.md, "Public races and quick play")."""

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
    # Listed for anyone (GET /api/races/?status=open&public=1), joined by quick play, started by itself.
    public = models.BooleanField(default=False, db_default=False)
    # Opened by quick play: at most one such race is open at a time, so quick calls at once meet in it.
    quick = models.BooleanField(default=False, db_default=False)

    class Meta:
        indexes = [
            # Sweeping races whose countdown or time limit has passed.
            models.Index(fields=["status", "starts_at"], name="race_status_start"),
            # The open public races, oldest first (the list and quick play).
            models.Index(fields=["created_at"], condition=Q(public=True, status__in=["open", "countdown"]), name="race_public_waiting"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["quick"], condition=Q(quick=True, status="open"), name="one_open_quick_race"),
        ]

    def __str__(self) -> str:
        return self.code


class RaceEntry(models.Model):
    """One racer in a race, with their game once the race has started."""

    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="race_entries")
    # RESTRICT: a racer's game is not deleted alone (the racer would be left "waiting" in a race that
    # goes on without them). Deleting the player deletes both; deleting the race, its entries, and the games stay.
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


class Challenge(models.Model):
    """One player asks another to race them on a deal; accepted, it makes a race of the two.

    `status` is stored open until answered, cancelled or expired; an open challenge past `expires_at`
    is expired whether or not that is stored yet (games.races.challenges.status_of)."""

    class Status(models.TextChoices):
        OPEN = "open"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        CANCELLED = "cancelled"
        EXPIRED = "expired"

    challenger = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent")
    challenged = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received")
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="+")
    # A challenge on a past daily (`daily:DATE`): raced, and shown, under that id.
    past_daily = models.ForeignKey(DailyChallenge, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    autoplay = models.CharField(max_length=4, choices=Game.Autoplay.choices, default=Game.Autoplay.SAFE)
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.OPEN)
    race = models.OneToOneField(Race, null=True, blank=True, on_delete=models.SET_NULL, related_name="challenge")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["challenged", "status"], name="challenge_to_status"),
            models.Index(fields=["challenger", "status"], name="challenge_from_status"),
        ]
        constraints = [
            # One open challenge from a player to another at a time (asking again is 409 challenge_pending).
            models.UniqueConstraint(fields=["challenger", "challenged"], condition=Q(status="open"), name="one_open_challenge_per_pair"),
        ]

    def __str__(self) -> str:
        return f"{self.challenger_id} -> {self.challenged_id} ({self.status})"
