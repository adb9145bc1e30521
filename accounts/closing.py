"""Closing an account at its player's request: their games and races end, what they told about themselves
is erased, and the account can never sign in again."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q

from accounts.models import AccessToken, Friendship, Profile
from accounts.signals import account_closed, account_closing
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
    game they were still playing is resigned (a race running with them goes on, or ends if they were
    its last racer): the games app does both on `account_closed`. The account is kept under
    `closed_name`: its finished games stay in the leaderboards, races and replays of the other
    players, without the player's name. The e-mail address, profile and friendships are deleted, the
    password becomes unusable, the API tokens are deleted and open sockets are closed
    (accounts/receivers.py, on the deactivation). The old name is free for a new sign-up.

    A receiver of `account_closing` may refuse it (409 race_not_started during a race's countdown)."""
    user = User.objects.select_for_update().get(pk=user.pk)
    if not user.is_active:
        return
    account_closing.send(sender=User, user=user)
    # Renamed first, so that every push the games app sends for the closing names the closed account.
    AccessToken.objects.filter(user=user).delete()
    user.username = closed_name(user)
    user.first_name = user.last_name = user.email = ""
    user.set_unusable_password()
    user.is_active = False
    user.save()
    Profile.objects.filter(user=user).update(display_name="", bio="")
    Friendship.objects.filter(Q(from_user=user) | Q(to_user=user)).delete()
    account_closed.send(sender=User, user=user)
