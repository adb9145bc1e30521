"""Guests (docs/api.md, "Guests"): a visitor who deals a game gets an account of their own at once, without a form.

A guest is a real User, made only when the visitor starts a first game (a page view makes nothing), and
signed in to that browser's session, so the games, the sockets and the move path treat it like any
player's. It is told apart by its name and password together, with no query: the name is `guest `
and random letters (a space, which sign-up never takes, so no player can squat it or be taken for one),
and the password is unusable (no one signs in to it; the session is its only key).

- Sign-up from a guest's browser makes the guest account the player's (`become_player`): the name,
  e-mail address and password are set on the same row, so every game stays theirs with no copying.
- Signing in to an existing account from a guest's browser hands the guest's games to that account
  (`guest_signed_in`, which the games app listens to), then deletes the guest.
- Guests play casual deals only: no ranked daily, races, friends, tokens or profile settings
  (`guest_may`, checked with every API request's scopes), and their wins stay off the boards.
- A guest idle for GUEST_DAYS is deleted with its games (`manage.py clean_guests`).
"""

from __future__ import annotations

import hashlib
import logging
import secrets

from django.contrib.auth import password_validation
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction

from accounts.models import Profile
from accounts.scopes import PLAY
from accounts.signals import guest_became_player, guest_signed_in
from freecell_site.errors import ServiceError

logger = logging.getLogger(__name__)

#: Every guest's name starts so; the rest is random. Sign-up's names never hold a space.
GUEST_PREFIX = "guest "
#: A guest whose last game moved this many days ago is deleted with its games (and so is its session's use).
GUEST_DAYS = 30
#: What the pages show for a guest, whatever its name.
GUEST_LABEL = "Guest"
# 12 characters of base 32: 60 bits, so two guests never draw the same name in practice (the
# database's unique name would refuse the second).
_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


def is_guest(user) -> bool:
    """Whether `user` (a request's, or any User) is a guest: its name and its unusable password. No query."""
    return (
        bool(getattr(user, "is_authenticated", False))
        and user.username.startswith(GUEST_PREFIX)
        and not user.has_usable_password()
    )


def is_guest_id(user_id: int) -> bool:
    """Whether the account of id `user_id` is a guest's (one query; `is_guest` when the User is at hand)."""
    return User.objects.filter(pk=user_id, username__startswith=GUEST_PREFIX, password__startswith=UNUSABLE_PASSWORD_PREFIX).exists()


def is_guest_name(username: str) -> bool:
    """Whether a name shown somewhere is a guest's (pages show GUEST_LABEL instead)."""
    return username.startswith(GUEST_PREFIX)


def shown_name(username: str) -> str:
    """A player's name as the pages show it: GUEST_LABEL for a guest."""
    return GUEST_LABEL if is_guest_name(username) else username


#: New guests one address may make in an hour: a guest is a row, and a script posting Deal without
#: keeping its cookie would otherwise make one per request.
GUESTS_PER_ADDRESS_PER_HOUR = 30


def check_new_guest_allowed(address: str) -> None:
    """429 `rate_limited` past GUESTS_PER_ADDRESS_PER_HOUR new guests from `address` (counted in the
    cache; with the cache away, allowed: a guest too many beats a visitor turned away)."""
    key = "guests:made:" + hashlib.sha256(address.encode("utf-8", "surrogatepass")).hexdigest()
    try:
        cache.add(key, 0, timeout=3600)
        made = cache.incr(key)
    except Exception as exc:  # noqa: BLE001 (Redis away)
        logger.warning("guest limit skipped, cache unavailable: %s: %s", type(exc).__name__, exc)
        return
    if made > GUESTS_PER_ADDRESS_PER_HOUR:
        raise ServiceError(
            "rate_limited",
            "Too many new guests from your address this hour: sign up or sign in, or keep this browser's cookies.",
            status=429,
            extra={"retry_after": 3600},
        )


@transaction.atomic
def new_guest() -> User:
    """A new guest account (with its profile), for a visitor starting a first game."""
    name = GUEST_PREFIX + "".join(secrets.choice(_ALPHABET) for _ in range(12))
    user = User.objects.create_user(username=name, password=None)  # None: an unusable password
    Profile.objects.create(user=user)
    return user


@transaction.atomic
def become_player(guest: User, *, username: str, password: str, email: str = "") -> User:
    """Sign-up from a guest's browser: the guest account becomes the player's, under the name, address
    and password given (checked as a sign-up checks them), so its games stay where they are."""
    user = User.objects.select_for_update().get(pk=guest.pk)
    if not is_guest(user):
        raise ServiceError("invalid_request", "this account is no guest's")
    user.username = username
    user.email = email
    try:
        password_validation.validate_password(password, user)
    except DjangoValidationError as exc:
        raise ServiceError("invalid_request", " ".join(exc.messages), extra={"fields": {"password": exc.messages}}) from None
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save(update_fields=["username", "email", "password"])
    except IntegrityError:
        raise ServiceError("invalid_request", "that username is taken") from None
    Profile.objects.get_or_create(user=user)
    guest_became_player.send(sender=User, user=user)
    return user


@transaction.atomic
def sign_in_over_guest(guest: User, player: User) -> None:
    """A guest's browser signed in to `player`'s account: the games app takes the guest's games over to
    the player (`guest_signed_in`, in this transaction), then the guest account goes."""
    if not is_guest(guest) or guest.pk == player.pk or is_guest(player):
        return
    guest_signed_in.send(sender=User, guest=guest, player=player)
    User.objects.filter(pk=guest.pk).delete()


def guest_may(method: str, needed) -> bool:
    """Whether a guest may make an API request of `method` on a view needing scope `needed`
    (accounts.permissions.scope_needed): reads, public calls, and play of casual games. Views that
    play something a guest may not (the ranked daily, reports) say `guests = False`."""
    if method in ("GET", "HEAD", "OPTIONS"):
        return True
    return needed is None or needed == PLAY


def refuse_guest(request, view, needed) -> None:
    """403 `forbidden` for a guest's request that only players may make (called with the scope check)."""
    if not is_guest(request.user):
        return
    if guest_may(request.method, needed) and getattr(view, "guests", True):
        return
    raise ServiceError(
        "forbidden",
        "sign up to do this: a guest plays casual deals only (no daily, races, friends or tokens); your games come with you",
        status=403,
    )
