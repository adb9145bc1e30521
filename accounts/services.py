"""Changes to accounts: sign-up and friendships."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from rest_framework.authtoken.models import Token

from accounts.models import Friendship, Profile
from freecell_site.errors import ServiceError


@transaction.atomic
def register(*, username: str, password: str, email: str = "") -> tuple[User, Token]:
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password, email=email)
    except IntegrityError:
        raise ServiceError("invalid_request", "that username is taken") from None
    Profile.objects.create(user=user)
    return user, Token.objects.create(user=user)


def _other(username: str) -> User:
    user = User.objects.filter(username=username, is_active=True).first()
    if user is None:
        raise ServiceError("not_found", f"no player named {username!r}", status=404)
    return user


def _between(a: User, b: User):
    return Friendship.objects.filter(Q(from_user=a, to_user=b) | Q(from_user=b, to_user=a))


@transaction.atomic
def request_friend(*, user: User, username: str) -> Friendship:
    """Sends a request; if the other player had already asked, this accepts theirs."""
    other = _other(username)
    if other.pk == user.pk:
        raise ServiceError("invalid_request", "you cannot befriend yourself")
    existing = _between(user, other).select_for_update().first()
    if existing is None:
        try:
            with transaction.atomic():
                return Friendship.objects.create(from_user=user, to_user=other)
        except IntegrityError:  # a concurrent request from the same pair
            existing = _between(user, other).first()
    if existing.status == Friendship.Status.PENDING and existing.to_user_id == user.pk:
        existing.status = Friendship.Status.ACCEPTED
        existing.accepted_at = timezone.now()
        existing.save(update_fields=["status", "accepted_at"])
    return existing


@transaction.atomic
def answer_request(*, user: User, username: str, accept: bool) -> None:
    other = _other(username)
    request = Friendship.objects.select_for_update().filter(
        from_user=other, to_user=user, status=Friendship.Status.PENDING
    ).first()
    if request is None:
        raise ServiceError("not_found", f"no friend request from {username}", status=404)
    if accept:
        request.status = Friendship.Status.ACCEPTED
        request.accepted_at = timezone.now()
        request.save(update_fields=["status", "accepted_at"])
    else:
        request.delete()


@transaction.atomic
def remove_friend(*, user: User, username: str) -> None:
    """Ends a friendship, or withdraws one's own pending request."""
    other = _other(username)
    deleted, _ = _between(user, other).delete()
    if not deleted:
        raise ServiceError("not_found", f"{username} is not your friend", status=404)
