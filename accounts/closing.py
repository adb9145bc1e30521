"""Closing an account at its player's request: their games and races end, what they told about themselves
is erased, and the account can never sign in again."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from rest_framework.authtoken.models import Token

from accounts.models import Friendship, Profile
from freecell_site.errors import ServiceError


def lock_open_account(user) -> None:
    """Locks the acting player's row to the end of the transaction and refuses the act if their
    account is closed (or deactivated). A request authenticated a moment before its player's close
    committed would otherwise leave a game, a race, a race entry or a friend request behind it;
    `close_account` takes the same lock first, so one of the two waits for the other."""
    if not list(User.objects.select_for_update().filter(pk=user.pk, is_active=True).values_list("pk", flat=True)):
        raise ServiceError("authentication_failed", "this account is closed", status=401)


def closed_name(user: User) -> str:
    """The name a closed account shows where its games stay listed (leaderboards, races, replays).

    The space keeps it out of sign-up's reach (names there are letters, digits and @.+-_), so no
    new player can ever take it; the id keeps it unique."""
    return f"closed account {user.pk}"


def is_closed_name(username: str) -> bool:
    """Whether a name is one `closed_name` gives (the account it names is closed)."""
    prefix, _, number = username.partition(" account ")
    # At most 18 digits: a longer number overflows the database's integer (a 500).
    return prefix == "closed" and number.isascii() and number.isdigit() and len(number) <= 18 and User.objects.filter(
        pk=int(number), username=username, is_active=False
    ).exists()


@transaction.atomic
def close_account(user: User) -> None:
    """Closes the player's account. Their open races are left (an owner's is called off), every
    game they were still playing is resigned through games.services (a race running with them goes
    on, or ends if they were its last racer), and the account is kept under `closed_name`: its
    finished games stay in the leaderboards, races and replays of the other players, without
    the player's name. The e-mail address, profile, friendships and race invitations (to them and
    from them) are deleted, the password becomes unusable, the API token is deleted and open
    sockets are closed (accounts/receivers.py, on the deactivation). The old name is free for a new
    sign-up.

    Refused (409 race_not_started) during a race's countdown: the game it is about to deal would be
    left playing until the race's time limit; the countdown lasts seconds."""
    from games import races
    from games import services as games
    from games.models import Game, Race, RaceEntry, RaceInvite

    user = User.objects.select_for_update().get(pk=user.pk)
    if not user.is_active:
        return
    entries = list(RaceEntry.objects.filter(player=user).exclude(race__status=Race.Status.FINISHED).select_related("race"))
    for entry in entries:
        if races.refresh(entry.race).status == Race.Status.COUNTDOWN:
            raise ServiceError(
                "race_not_started",
                "your race starts in a few seconds: close your account once its boards are shown",
                status=409,
            )
    # Renamed first, so that every push the leaving and resigning below sends names the closed account.
    Token.objects.filter(user=user).delete()
    user.username = closed_name(user)
    user.first_name = user.last_name = user.email = ""
    user.set_unusable_password()
    user.is_active = False
    user.save()
    Profile.objects.filter(user=user).update(display_name="", bio="")
    Friendship.objects.filter(Q(from_user=user) | Q(to_user=user)).delete()
    RaceInvite.objects.filter(Q(invited=user) | Q(invited_by=user)).delete()
    for entry in entries:
        if entry.race.status == Race.Status.OPEN:
            races.resign(code=entry.race.code, user=user)  # leaves it; the owner's leaving calls it off
    for game_id in Game.objects.filter(player=user, status=Game.Status.PLAYING).values_list("pk", flat=True):
        games.resign(game_id=game_id, user=user)
