"""Accounts data: profiles, friendships and login-failure counters."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Greatest, Least


class Profile(models.Model):
    """What a player tells about themselves; created with the account."""

    class Deck(models.TextChoices):
        """The card styles the pages draw (frontend/static/frontend/js/deck.js, DECK_STYLES)."""

        CLASSIC = "classic"
        FOUR = "four", "four colours"
        LARGE = "large", "large print"

    class Felt(models.TextChoices):
        """The table colours (frontend/static/frontend/js/settings.js, FELTS)."""

        GREEN = "green"
        BLUE = "blue"
        RED = "red", "burgundy"
        SLATE = "slate"

    class Sound(models.TextChoices):
        """The table's sounds (frontend/static/frontend/js/sound.js), on or off."""

        ON = "on"
        OFF = "off"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    display_name = models.CharField(max_length=40, blank=True)
    bio = models.CharField(max_length=280, blank=True)
    # The table's look and sound the player chose, the same on every device: {"deck": Deck, "felt": Felt,
    # "sound": Sound}. Only
    # accounts.services.change_settings writes it (checked choices); accounts.selectors.table_settings
    # reads it with the defaults for what was never chosen.
    settings = models.JSONField(default=dict, blank=True)
    # (Columns added to a table in use get a database default: processes of the release before, still
    # serving during an upgrade, insert rows without them.)
    # A bot account (docs/fair-play.md): its results rank on the bots' boards, never on the people's. Set once, for
    # good, by accounts.services.become_bot, before the account has any ranked result.
    bot = models.BooleanField(default=False, db_default=False)
    # A moderator's mark (games.fairplay): every result of the account is off every board while it is set.
    marked_at = models.DateTimeField(null=True, blank=True)
    mark_note = models.CharField(max_length=500, blank=True)

    def __str__(self) -> str:
        return self.user.username

    @property
    def marked(self) -> bool:
        return self.marked_at is not None


class Friendship(models.Model):
    """A friend request from one player to another; friends once accepted (the relation is mutual)."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"

    from_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="friend_requests_sent")
    to_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="friend_requests_received")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # One row per pair, whichever asked: two requests crossing each other made two pending
            # requests, then two friendships (accounts.services also locks the pair's rows).
            models.UniqueConstraint(Least("from_user", "to_user"), Greatest("from_user", "to_user"), name="one_friendship_per_pair"),
            models.CheckConstraint(condition=~Q(from_user=models.F("to_user")), name="no_self_friendship"),
        ]
        # Friends of a player are looked up from both sides.
        indexes = [models.Index(fields=["to_user", "status"], name="friendship_to_status")]

    def __str__(self) -> str:
        return f"{self.from_user_id} -> {self.to_user_id} ({self.status})"


class LoginFailure(models.Model):
    """Failed logins per key (account or address) and minute window, when Redis is not configured."""

    key = models.CharField(max_length=200)
    window = models.BigIntegerField(help_text="unix minute")
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key", "window"], name="one_counter_per_window")]

    def __str__(self) -> str:
        return f"{self.key} @ {self.window}: {self.count}"


class AccessToken(models.Model):
    """A player's named personal access token for the API and the sockets, with its scopes
    (accounts.scopes). The key is shown once, when the token is made; only its digest is kept.

    The digest is a plain SHA-256, not a slow password hash: a key is 256 random bits
    (`accounts.tokens.new_key`), so no guessing or dictionary attack can find it from its digest, and
    the digest finds the token in one indexed query on every request, where a salted slow hash would
    need a lookup by prefix and a deliberately costly check per request."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens")
    name = models.CharField(max_length=60)
    # A subset of accounts.scopes.SCOPES, in that order (accounts.tokens.ordered_scopes).
    scopes = models.JSONField(default=list)
    key_digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the key, in hex")
    # The key's first characters, to tell tokens apart in lists: too few to help a guesser.
    prefix = models.CharField(max_length=12, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Written at most once a minute per token (accounts.tokens.note_use), not on every request.
    last_used_at = models.DateTimeField(null=True, blank=True)
    # Null for a token that holds until revoked; an app's token (OAuth, accounts/oauth.py) ends then.
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "created_at"], name="access_token_user_created")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
