"""Challenges: one player asks another to race them on a deal; accepted, the two race at once.

open --accept (the challenged)--> accepted (a race of the two, its countdown begun)
     --decline (the challenged)--> declined
     --cancel (the challenger)---> cancelled
     --CHALLENGE_EXPIRY_S pass---> expired

A read never writes: an open challenge past `expires_at` shows `expired` before anything stores it
so; sending a new one to the same player stores it. Each change is told on the other player's events
stream (`challenge`, after commit): the challenged learns of a challenge and of its cancel, the
challenger of the answer. Both players' rows are locked before the challenge's, in the order of
their ids, as closing an account locks the player's row before leaving their challenges.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.selectors import player_named
from accounts.signals import account_closed
from freecell_site.errors import ServiceError
from games import events
from games.play.models import Game
from games.races import payloads
from games.races import services as races
from games.races.models import Challenge

#: How many of a player's challenges, sent and received each, their list shows (the newest).
LISTED = 50
#: Answered, cancelled and expired challenges stay listed this long.
LISTED_FOR = dt.timedelta(days=1)

_RELATED = ("challenger", "challenged", "deal", "past_daily", "race")


def expiry_s() -> float:
    return float(settings.CHALLENGE_EXPIRY_S)


def status_of(challenge: Challenge, now: dt.datetime | None = None) -> str:
    """The challenge's status as it truly is: an open one past its expiry is expired."""
    if challenge.status == Challenge.Status.OPEN and (now or timezone.now()) >= challenge.expires_at:
        return Challenge.Status.EXPIRED
    return challenge.status


def challenge_object(challenge: Challenge) -> dict:
    """The spec's challenge `{id, challenger, challenged, deal, status}`, with the race's `code` and
    `link` once accepted (null before) and its times."""
    code = challenge.race.code if challenge.race_id else None
    return payloads.challenge_json({
        "id": challenge.pk,
        "challenger": challenge.challenger.username,
        "challenged": challenge.challenged.username,
        "deal": payloads.deal_label(challenge),
        "autoplay": challenge.autoplay,
        "status": status_of(challenge),
        "code": code,
        "link": payloads.join_link(code) if code else None,
        "created_at": challenge.created_at,
        "expires_at": challenge.expires_at,
        "answered_at": challenge.answered_at,
    })


def challenge_event(challenge: Challenge) -> dict:
    """The line a player's events stream gets (docs/streams.md)."""
    return {"type": "challenge", "challenge": challenge_object(challenge)}


def _tell(user_id: int, challenge: Challenge) -> None:
    event = challenge_event(challenge)
    transaction.on_commit(lambda: events.publish_player_event(user_id, event))


# --- reading ------------------------------------------------------------------------------------


def _not_found(challenge_id) -> ServiceError:
    return ServiceError("not_found", f"no challenge {challenge_id}", status=404)


def _is_id(challenge_id) -> bool:
    """Whether a number could be a challenge's id (a larger one overflows the database's integer)."""
    return isinstance(challenge_id, int) and 0 < challenge_id < 2**63


def get_challenge(challenge_id: int, user) -> Challenge:
    """A challenge the user sent or received (anyone else: 404, as if there were none)."""
    challenge = Challenge.objects.select_related(*_RELATED).filter(pk=challenge_id).first() if _is_id(challenge_id) else None
    if challenge is None or user.pk not in (challenge.challenger_id, challenge.challenged_id):
        raise _not_found(challenge_id)
    return challenge


def challenges_of(user) -> dict:
    """The player's challenges, received and sent, newest first: the open ones and those settled in
    the last day."""
    recent = Q(status=Challenge.Status.OPEN) | Q(created_at__gte=timezone.now() - LISTED_FOR)
    mine = Challenge.objects.filter(recent).select_related(*_RELATED).order_by("-created_at", "-id")
    return {
        "received": [challenge_object(c) for c in mine.filter(challenged=user)[:LISTED]],
        "sent": [challenge_object(c) for c in mine.filter(challenger=user)[:LISTED]],
    }


def pending_events(user) -> list[dict]:
    """What a player's events stream opens with: the open challenges awaiting their answer, oldest first."""
    waiting = (
        Challenge.objects.filter(challenged=user, status=Challenge.Status.OPEN, expires_at__gt=timezone.now())
        .select_related(*_RELATED)
        .order_by("created_at", "id")[:LISTED]
    )
    return [challenge_event(c) for c in waiting]


# --- sending and answering ------------------------------------------------------------------------


def _lock_players(*users) -> set[int]:
    """Locks the players' rows in the order of their ids (as every path here does) and refuses the act
    when the acting player's account (the first) is closed. Returns the ids of the open accounts."""
    ids = sorted({u.pk for u in users})
    active = set(User.objects.select_for_update().filter(pk__in=ids, is_active=True).order_by("pk").values_list("pk", flat=True))
    if users[0].pk not in active:
        raise ServiceError("authentication_failed", "this account is closed", status=401)
    return active


def challengeable(username: str) -> User | None:
    """The active player named `username` who may be challenged: people and bots (bots race), not a
    guest (a name with a space: sign-up's names have none) nor a closed account."""
    other = player_named(username)
    if other is None or " " in other.username:
        return None
    return other


@transaction.atomic
def send(*, user, username: str, deal: str | None = None, autoplay: str = "safe") -> Challenge:
    """`user` challenges the player named `username` on `deal` (a fresh random seed when none)."""
    if autoplay not in Game.Autoplay.values:
        raise ServiceError("invalid_request", "autoplay must be one of: none, safe")
    other = challengeable(username)
    if other is None:
        raise ServiceError("not_found", f"no player named {username!r}", status=404)
    if other.pk == user.pk:
        raise ServiceError("invalid_request", "you cannot challenge yourself", extra={"fields": {"username": ["you cannot challenge yourself"]}})
    if other.pk not in _lock_players(user, other):  # closed a moment ago
        raise ServiceError("not_found", f"no player named {username!r}", status=404)
    deal_row, past_daily = races.resolve_deal(deal)
    now = timezone.now()
    between = Challenge.objects.filter(challenger=user, challenged=other, status=Challenge.Status.OPEN)
    between.filter(expires_at__lte=now).update(status=Challenge.Status.EXPIRED)
    waiting = between.select_related(*_RELATED).first()
    if waiting is not None:
        raise _pending(waiting)
    try:
        with transaction.atomic():
            challenge = Challenge.objects.create(
                challenger=user,
                challenged=other,
                deal=deal_row,
                past_daily=past_daily,
                autoplay=autoplay,
                expires_at=now + dt.timedelta(seconds=expiry_s()),
            )
    except IntegrityError:  # sent at the same instant by another request of the same player
        raise _pending(between.select_related(*_RELATED).first()) from None
    challenge = Challenge.objects.select_related(*_RELATED).get(pk=challenge.pk)
    _tell(other.pk, challenge)
    return challenge


def _pending(waiting: Challenge | None) -> ServiceError:
    extra = {"challenge": challenge_object(waiting)} if waiting is not None else {}
    return ServiceError(
        "challenge_pending", "you have already challenged this player: wait for their answer, or cancel it", status=409, extra=extra
    )


def _locked(challenge_id: int, user) -> Challenge:
    """The challenge, locked after both players' rows; 404 to anyone but its two players."""
    found = Challenge.objects.filter(pk=challenge_id).values_list("challenger_id", "challenged_id").first() if _is_id(challenge_id) else None
    if found is None or user.pk not in found:
        raise _not_found(challenge_id)
    _lock_players(user, *User.objects.filter(pk__in=found))
    return Challenge.objects.select_for_update(of=("self",)).select_related(*_RELATED).get(pk=challenge_id)


def _check_open(challenge: Challenge) -> None:
    status = status_of(challenge)
    if status != Challenge.Status.OPEN:
        raise ServiceError("challenge_over", f"this challenge is {status}", status=409, extra={"challenge": challenge_object(challenge)})


@transaction.atomic
def accept(*, user, challenge_id: int) -> Challenge:
    """The challenged accepts: a race of the two on the challenge's deal, its countdown begun at once
    (RACE_PUBLIC_COUNTDOWN_S), owned by the challenger."""
    challenge = _locked(challenge_id, user)
    if challenge.challenged_id != user.pk:
        raise ServiceError("forbidden", "only the player challenged can accept", status=403)
    _check_open(challenge)
    if not challenge.challenger.is_active:  # closed meanwhile (its close cancels it: this is the instant between)
        raise ServiceError("challenge_over", "the challenger's account is closed", status=409)
    race = races.race_of_two(
        challenge.challenger, user, deal=challenge.deal, past_daily=challenge.past_daily, autoplay=challenge.autoplay
    )
    challenge.status, challenge.race, challenge.answered_at = Challenge.Status.ACCEPTED, race, timezone.now()
    challenge.save(update_fields=["status", "race", "answered_at"])
    _tell(challenge.challenger_id, challenge)
    return challenge


@transaction.atomic
def decline(*, user, challenge_id: int) -> Challenge:
    challenge = _locked(challenge_id, user)
    if challenge.challenged_id != user.pk:
        raise ServiceError("forbidden", "only the player challenged can decline", status=403)
    return _settle(challenge, Challenge.Status.DECLINED, tell=challenge.challenger_id)


@transaction.atomic
def cancel(*, user, challenge_id: int) -> Challenge:
    challenge = _locked(challenge_id, user)
    if challenge.challenger_id != user.pk:
        raise ServiceError("forbidden", "only the challenger can cancel a challenge", status=403)
    return _settle(challenge, Challenge.Status.CANCELLED, tell=challenge.challenged_id)


def _settle(challenge: Challenge, status: str, *, tell: int) -> Challenge:
    _check_open(challenge)
    challenge.status, challenge.answered_at = status, timezone.now()
    challenge.save(update_fields=["status", "answered_at"])
    _tell(tell, challenge)
    return challenge


def cancel_challenges_of_closed(sender, *, user, **kwargs) -> None:
    """A closed account's open challenges, sent and received, are cancelled (accounts.signals.account_closed)."""
    Challenge.objects.filter(Q(challenger=user) | Q(challenged=user), status=Challenge.Status.OPEN).update(
        status=Challenge.Status.CANCELLED, answered_at=timezone.now()
    )


def connect() -> None:
    account_closed.connect(cancel_challenges_of_closed, dispatch_uid="games.races.challenges.closed")
