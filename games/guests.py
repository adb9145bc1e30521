"""Guests' games (accounts/guests.py): handed over when a guest's browser signs in, put on the boards
when a guest becomes a player, and deleted with a guest left idle for accounts.guests.GUEST_DAYS."""

from __future__ import annotations

import datetime as dt
import logging

from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.db.models import Exists, OuterRef, ProtectedError, Q
from django.utils import timezone

from accounts.guests import GUEST_DAYS, GUEST_PREFIX
from accounts.signals import guest_became_player, guest_signed_in
from games.boards import services as boards
from games.play.models import Action, Game

logger = logging.getLogger(__name__)

#: The most guests one clean-up deletes (the next takes the rest), so that one pass stays short.
CLEAN_BATCH = 500
#: How often the sweeper's call cleans (`clean_guests_now_and_then`): guests age by days, not seconds.
CLEAN_EVERY_S = 3600


def take_over_games(sender, *, guest: User, player: User, **kwargs) -> int:
    """A guest's browser signed in to `player`: every game of the guest becomes the player's (one
    UPDATE, in the sign-in's transaction); the player's won ones go on the boards."""
    moved = Game.objects.filter(player=guest).update(player=player)
    if moved:
        count_wins(player)
    return moved


def count_wins(player: User) -> None:
    """Puts the player's won games on their deals' boards (each board keeps the player's best; a game
    already counted changes nothing): the boards leave guests out, and a guest's wins became a player's."""
    for game in Game.objects.filter(player=player, status=Game.Status.WON).order_by("pk"):
        boards.record_game(game)


def wins_of_new_player(sender, *, user: User, **kwargs) -> None:
    count_wins(user)


def connect() -> None:
    """Listens to accounts' guest signals (games/apps.py)."""
    guest_signed_in.connect(take_over_games, dispatch_uid="games.guest_signed_in")
    guest_became_player.connect(wins_of_new_player, dispatch_uid="games.guest_became_player")


def idle_guests(days: int = GUEST_DAYS, *, at: dt.datetime | None = None):
    """Guest accounts that joined more than `days` ago and whose games have not moved since (no game
    made, played or finished): a query, oldest first."""
    since = (at or timezone.now()) - dt.timedelta(days=days)
    recent_games = Game.objects.filter(player=OuterRef("pk")).filter(
        Q(created_at__gte=since) | Q(finished_at__gte=since) | Q(clock_until__gte=since)
    )
    recent_actions = Action.objects.filter(game__player=OuterRef("pk"), created_at__gte=since)
    return (
        User.objects.filter(username__startswith=GUEST_PREFIX, password__startswith=UNUSABLE_PASSWORD_PREFIX, date_joined__lt=since)
        .exclude(Exists(recent_games))
        .exclude(Exists(recent_actions))
        .order_by("date_joined", "pk")
    )


def clean_guests(days: int = GUEST_DAYS, *, at: dt.datetime | None = None, batch: int = CLEAN_BATCH) -> int:
    """Deletes up to `batch` idle guests with their games; answers how many went. A guest whose game
    something else keeps (protected) is left, and logged."""
    deleted = 0
    for pk in list(idle_guests(days, at=at).values_list("pk", flat=True)[:batch]):
        try:
            with transaction.atomic():
                User.objects.filter(pk=pk, username__startswith=GUEST_PREFIX, password__startswith=UNUSABLE_PASSWORD_PREFIX).delete()
        except ProtectedError:
            logger.warning("guest %s kept: another row holds one of its games", pk)
            continue
        deleted += 1
    return deleted


def clean_guests_now_and_then() -> int:
    """`clean_guests` at most once per CLEAN_EVERY_S across the processes (a cache key), for the sweeper."""
    try:
        due = cache.add("guests:cleaned", 1, timeout=CLEAN_EVERY_S)
    except Exception as exc:  # noqa: BLE001 (Redis away: the next pass tries again)
        logger.warning("guest clean-up skipped, cache unavailable: %s: %s", type(exc).__name__, exc)
        return 0
    return clean_guests() if due else 0
