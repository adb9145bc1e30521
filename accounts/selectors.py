"""Reads about players: a player by the name someone typed, whether an account is a bot, friends lists
and friendship checks, table settings, personal access tokens."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Q

from accounts.guests import GUEST_PREFIX
from accounts.models import AccessToken, Friendship, Profile
from accounts.tokens import unexpired

#: The table's look and sound of a player who never chose them (and of a choice no longer offered).
DEFAULT_SETTINGS = {"deck": Profile.Deck.CLASSIC.value, "felt": Profile.Felt.GREEN.value, "sound": Profile.Sound.ON.value}


def player_named(username: str) -> User | None:
    """The active player whose username is `username` in any case (`alice` finds `Alice`), or None.

    Names are unique in any case (sign-up's check, and the database's index on LOWER(username), see
    accounts/migrations/0002), so this is at most one player. "In any case" is ASCII's: a name with
    other letters is matched exactly, since PostgreSQL's UPPER folds look-alikes (`alıce` with a
    dotless i is `ALICE`), which let a guesser count failed logins under names of their own making.
    """
    if not username.isascii():
        return User.objects.filter(username=username, is_active=True).first()
    return User.objects.filter(username__iexact=username, is_active=True).first()


#: The shortest prefix a user search takes: one letter would list a good part of the players.
SEARCH_MIN_CHARS = 2


def players_starting_with(prefix: str):
    """Active players whose username starts with `prefix` in any case (ASCII's, as `player_named`), by
    name; closed accounts are inactive and left out. A query: lists page it."""
    if prefix.isascii():
        found = User.objects.filter(username__istartswith=prefix)
    else:
        found = User.objects.filter(username__startswith=prefix)
    # Guests (accounts/guests.py: a name with a space) are nobody to find.
    return found.filter(is_active=True).exclude(username__startswith=GUEST_PREFIX).select_related("profile").order_by("username", "id")


def is_bot(user_id: int) -> bool:
    """Whether the player's account is a bot (docs/fair-play.md): its results rank on the bots' boards. An account
    without a profile is a person's."""
    return Profile.objects.filter(user_id=user_id, bot=True).exists()


def friend_ids(user) -> set[int]:
    """Ids of the user's accepted friends (the relation is mutual)."""
    if not getattr(user, "is_authenticated", False):
        return set()
    rows = Friendship.objects.filter(Q(from_user=user) | Q(to_user=user), status=Friendship.Status.ACCEPTED).values_list(
        "from_user_id", "to_user_id"
    )
    return {b if a == user.pk else a for a, b in rows}


def friendship_between(viewer, other) -> str | None:
    """What `other` is to the signed-in `viewer`: "friends", "request_sent" (the viewer's request
    awaits an answer), "request_received" (other's request awaits the viewer's), "none"; None for
    an anonymous viewer or oneself."""
    if not getattr(viewer, "is_authenticated", False) or viewer.pk == other.pk:
        return None
    row = Friendship.objects.filter(Q(from_user=viewer, to_user=other) | Q(from_user=other, to_user=viewer)).first()
    if row is None:
        return "none"
    if row.status == Friendship.Status.ACCEPTED:
        return "friends"
    return "request_sent" if row.from_user_id == viewer.pk else "request_received"


def friends_overview(user) -> dict:
    rows = Friendship.objects.filter(Q(from_user=user) | Q(to_user=user)).select_related("from_user", "to_user")
    friends, incoming, outgoing = [], [], []
    for row in rows.order_by("created_at"):
        other = row.to_user if row.from_user_id == user.pk else row.from_user
        if row.status == Friendship.Status.ACCEPTED:
            friends.append({"username": other.username, "since": row.accepted_at})
        elif row.to_user_id == user.pk:
            incoming.append({"username": other.username, "since": row.created_at})
        else:
            outgoing.append({"username": other.username, "since": row.created_at})
    by_name = lambda item: item["username"].lower()  # noqa: E731
    return {"friends": sorted(friends, key=by_name), "incoming": incoming, "outgoing": outgoing}


def settings_of(saved: dict | None) -> dict:
    """Stored table settings with the defaults for what was never chosen or is no longer offered."""
    saved = saved if isinstance(saved, dict) else {}
    return {
        "deck": saved["deck"] if saved.get("deck") in Profile.Deck.values else DEFAULT_SETTINGS["deck"],
        "felt": saved["felt"] if saved.get("felt") in Profile.Felt.values else DEFAULT_SETTINGS["felt"],
        "sound": saved["sound"] if saved.get("sound") in Profile.Sound.values else DEFAULT_SETTINGS["sound"],
    }


def table_settings(user) -> dict | None:
    """A signed-in player's table settings for the pages, with `chosen`: whether they ever chose any
    (a browser's earlier choice is then taken up for the account). None for a visitor, whose settings
    stay in their browser."""
    if not getattr(user, "is_authenticated", False):
        return None
    saved = Profile.objects.filter(user=user).values_list("settings", flat=True).first()
    return {**settings_of(saved), "chosen": bool(saved)}


def tokens_of(user):
    """The player's personal access tokens that have not expired, newest first."""
    return AccessToken.objects.filter(unexpired(), user=user).order_by("-created_at", "-pk")
