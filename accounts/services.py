"""Changes to accounts: sign-up, personal access tokens, passwords (and the tokens they revoke) and friendships."""

from __future__ import annotations

import hashlib
import logging

from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.core.cache import cache
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from accounts import tokens
from accounts.mail import send_later
from accounts.models import AccessToken, Friendship, Profile
from accounts.scopes import SCOPES
from accounts.selectors import player_named, settings_of
from accounts.signals import credentials_changed, friend_requested, friendship_accepted
from freecell_site.errors import ServiceError

logger = logging.getLogger(__name__)


@transaction.atomic
def register(*, username: str, password: str, email: str = "", with_token: bool = True) -> tuple[User, AccessToken | None]:
    """A new player, with a token of every scope (its key in `.key`, this once) for a sign-up over the
    API; the sign-up page (`with_token` False) makes none, its player signed in by the session."""
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password, email=email)
    except IntegrityError:
        raise ServiceError("invalid_request", "that username is taken") from None
    Profile.objects.create(user=user)
    return user, issue_token(user, name=SIGN_UP_TOKEN, scopes=SCOPES) if with_token else None


# --- personal access tokens ----------------------------------------------------------------------

#: The names of the tokens the service makes itself, which players see in their list of tokens.
SIGN_UP_TOKEN = "sign-up"
PASSWORD_TOKEN = "password sign-in"  # POST /api/auth/token/
NEW_PASSWORD_TOKEN = "after password change"
#: Tokens one player may hold at once (expired ones do not count). Making one more is refused
#: (409 `too_many_tokens`): revoking one to make room could revoke the very token a program runs on.
MAX_TOKENS = 100


def live_tokens(user: User):
    """The player's tokens that have not expired."""
    return AccessToken.objects.filter(tokens.unexpired(), user=user)


def check_room(user: User) -> None:
    """409 `too_many_tokens` when the player already holds MAX_TOKENS tokens."""
    if live_tokens(user).count() >= MAX_TOKENS:
        raise ServiceError(
            "too_many_tokens",
            f"you hold {MAX_TOKENS} tokens, the most one player may: revoke one you no longer use (DELETE /api/tokens/<id>/)",
            status=409,
        )


def check_scopes_within(auth, scopes) -> None:
    """403 `missing_scope` when a token (`auth`, DRF's request.auth; None for a session) asks for a
    token with a scope it does not hold itself: a token makes only tokens that can do no more than it."""
    held = getattr(auth, "scopes", None)
    if auth is None or held is None:
        return
    missing = [scope for scope in tokens.ordered_scopes(scopes) if scope not in held]
    if missing:
        names = ", ".join(f"`{scope}`" for scope in missing)
        raise ServiceError(
            "missing_scope",
            f"this token lacks the scope {names}, so it cannot make a token with it: ask with a token that holds it, or from the account page",
            status=403,
            extra={"scopes": missing},
        )


@transaction.atomic
def issue_token(user: User, *, name: str, scopes, expires_at=None) -> AccessToken:
    """Makes a token for `user`; its key is in `.key` on the answer, and nowhere else ever again.
    Refused with 409 `too_many_tokens` when the player holds MAX_TOKENS already."""
    # The player's row is locked so that two tokens made at once cannot both pass the count.
    User.objects.select_for_update().filter(pk=user.pk).first()
    check_room(user)
    key = tokens.new_key()
    token = AccessToken.objects.create(
        user=user,
        name=name,
        scopes=tokens.ordered_scopes(scopes),
        key_digest=tokens.digest(key),
        prefix=key[: tokens.SHOWN],
        expires_at=expires_at,
    )
    token.key = key
    return token


@transaction.atomic
def revoke_token(user: User, token_id: int) -> None:
    """Revokes one of the player's tokens (404 for any other id); its open sockets close."""
    deleted, _ = AccessToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise ServiceError("not_found", f"no token {token_id}", status=404)
    sign_ins_changed(user)


def revoke_all_tokens(user: User) -> None:
    """Revokes every token of the player (a new password, a closed account); the caller tells the sockets."""
    AccessToken.objects.filter(user=user).delete()


def change_settings(user: User, changes: dict) -> dict:
    """Sets some of the player's table settings (choices checked by the caller's serializer, keys
    limited to the known ones here) and returns them all; the others stay as they were."""
    with transaction.atomic():
        profile, _ = Profile.objects.select_for_update().get_or_create(user=user)
        current = settings_of(profile.settings)
        current.update({key: value for key, value in changes.items() if key in current})
        profile.settings = current
        profile.save(update_fields=["settings"])
    return current


# --- passwords -----------------------------------------------------------------------------------
#
# A token login, a password change and a reset of one player each lock the player's row and check that
# the password they were given is still the one stored: they take turns, and none acts on a password
# another has just replaced. Without the lock, a login with the old password overlapping a change got
# the new token (its holder kept the account), two changes with the same old password both passed,
# and one reset link served several resets at once.


def _unchanged(user: User) -> User | None:
    """`user`'s row, locked to the end of the transaction, or None when its password is no longer the
    one `user` was read with (a change or reset went first)."""
    current = User.objects.select_for_update().get(pk=user.pk)
    return current if current.password == user.password else None


@transaction.atomic
def token_for(user: User) -> AccessToken:
    """The player's password sign-in token, of every scope, with a new key, for a player whose password
    was just checked (`user` as `authenticate` read it).

    A player has one such token: keys are stored hashed, so the key an earlier sign-in answered cannot
    be answered again, and this replaces it (that key stops working) rather than pile up a token per
    call until the player holds MAX_TOKENS and a sign-in is refused."""
    current = _unchanged(user)
    if current is None:  # changed while the login was being checked: the password given is no longer his
        raise ServiceError("authentication_failed", "wrong username or password", status=401)
    replaced, _ = AccessToken.objects.filter(user=current, name=PASSWORD_TOKEN).delete()
    if replaced:
        sign_ins_changed(current)  # sockets signed in with the old key close
    return issue_token(current, name=PASSWORD_TOKEN, scopes=SCOPES)


@transaction.atomic
def change_password(user: User, new_password: str, *, new_token: bool) -> AccessToken | None:
    """Sets the password of a player who has just confirmed the current one (`user` as it was read
    then), revoking every token; with `new_token` (the change came over a token), answers a new one
    of every scope."""
    current = _unchanged(user)
    if current is None:
        message = "wrong password"  # another change went first: the password given was replaced
        raise ServiceError("invalid_request", f"old_password: {message}", extra={"fields": {"old_password": [message]}})
    set_password(current, new_password)
    user.password = current.password  # the session's hash (update_session_auth_hash) is of the new one
    return issue_token(current, name=NEW_PASSWORD_TOKEN, scopes=SCOPES) if new_token else None


@transaction.atomic
def set_password(user: User, password: str) -> None:
    """Validates and sets a new password. Saving it revokes the user's tokens and has their
    sockets look again (accounts/receivers.py), as a password the admin sets does."""
    try:
        password_validation.validate_password(password, user)
    except DjangoValidationError as exc:
        raise ServiceError("invalid_request", " ".join(exc.messages), extra={"fields": {"new_password": exc.messages}}) from None
    user.set_password(password)
    user.save(update_fields=["password"])


def sign_ins_changed(user: User) -> None:
    """Tells the rest of the service, once the transaction commits, that some of the player's sign-ins
    (sessions, the API token) may have ended: their open sockets are checked and closed if so."""
    transaction.on_commit(lambda: credentials_changed.send(sender=User, user_id=user.pk))


def user_of_reset_link(uid: str, token: str) -> User | None:
    """The active player a password-reset link (from the reset e-mail) names, while its token holds.

    The token is Django's: it expires after PASSWORD_RESET_TIMEOUT and once the password or the last
    login changes, so a link works once.
    """
    try:
        user = User.objects.get(pk=int(force_str(urlsafe_base64_decode(uid))), is_active=True)
    except (ValueError, TypeError, OverflowError, User.DoesNotExist):
        return None
    return user if default_token_generator.check_token(user, token) else None


#: Reset mails one address gets in an hour at most: the request needs no account, so without a
#: limit anyone could fill a player's mailbox (the request's own throttle is per client address).
RESET_MAILS_PER_HOUR = 3


def _reset_mail_allowed(email: str) -> bool:
    key = "reset-mail:" + hashlib.sha256(email.strip().lower().encode("utf-8", "surrogatepass")).hexdigest()
    try:
        cache.add(key, 0, timeout=3600)
        return cache.incr(key) <= RESET_MAILS_PER_HOUR
    except Exception as exc:  # the cache (Redis) is away: a mail too many beats none
        logger.warning("reset mail limit skipped, cache unavailable: %s: %s", type(exc).__name__, exc)
        return True


def send_reset_links(email: str, link_for) -> None:
    """E-mails a password-reset link to every active player with this address; `link_for(uid, token)`
    gives the link's absolute URL. The caller answers the same whether or not anyone has the address,
    so the answer reveals no accounts (nor does its timing: the mail is sent after the answer, see
    accounts/mail.py); past RESET_MAILS_PER_HOUR for the address nothing is sent."""
    if not _reset_mail_allowed(email):
        return
    messages = []
    for user in User.objects.filter(email__iexact=email, is_active=True):
        uid = urlsafe_base64_encode(force_bytes(user.pk))
        token = default_token_generator.make_token(user)
        messages.append(
            EmailMessage(
                "FreeCell Online password reset",
                f"Hello {user.username},\n\nTo choose a new password, open {link_for(uid, token)}\n"
                "The link works once, for a few days.\n\n"
                "If you did not ask for this, ignore this mail: your password stays as it is.\n\n"
                f"(For programs using the API: POST uid={uid} token={token} to /api/auth/password/reset/confirm/.)\n",
                to=[user.email],
            )
        )
    send_later(messages)


@transaction.atomic
def reset_password(*, uid: str, token: str, new_password: str) -> User:
    """Sets the password of the player a reset link names (for the API and the reset page alike)."""
    user = user_of_reset_link(uid, token)
    # Locked, and refused if a reset went first (the same link sent twice at once): it changed the
    # password, of which the link's token is made, so the link is spent.
    current = _unchanged(user) if user is not None else None
    if current is None:
        raise ServiceError("invalid_request", "the reset link is invalid or has expired")
    set_password(current, new_password)
    return current


# --- friends -------------------------------------------------------------------------------------


def _other(username: str) -> User:
    user = player_named(username)
    if user is None:
        raise ServiceError("not_found", f"no player named {username!r}", status=404)
    return user


def _between(a: User, b: User):
    return Friendship.objects.filter(Q(from_user=a, to_user=b) | Q(from_user=b, to_user=a))


def _lock_pair(a: User, b: User) -> None:
    """Locks both players' rows, in the order of their ids (no deadlock), to the end of the
    transaction: requests, answers and unfriending of one pair take turns. Two requests crossing each
    other then find each other (the second accepts the first), and a request racing an unfriend never
    finds the row it collided with gone. One row per pair is also a constraint."""
    open_ids = {user.pk for user in User.objects.select_for_update().filter(pk__in=[a.pk, b.pk]).order_by("pk") if user.is_active}
    # Either may have closed their account since the request read them (accounts/closing.py).
    if a.pk not in open_ids:
        raise ServiceError("authentication_failed", "this account is closed", status=401)
    if b.pk not in open_ids:
        raise ServiceError("not_found", f"no player named {b.username!r}", status=404)


@transaction.atomic
def request_friend(*, user: User, username: str) -> tuple[Friendship, bool]:
    """Sends a request; if the other player had already asked, this accepts theirs.

    Answers the friendship and whether a new request was made (False: theirs was accepted, or a
    request or friendship already stood).
    """
    other = _other(username)
    if other.pk == user.pk:
        raise ServiceError("invalid_request", "you cannot befriend yourself")
    _lock_pair(user, other)
    existing = _between(user, other).first()
    if existing is None:
        request = Friendship.objects.create(from_user=user, to_user=other)
        transaction.on_commit(lambda: friend_requested.send(sender=Friendship, from_user=user, to_user=other))
        return request, True
    if existing.status == Friendship.Status.PENDING and existing.to_user_id == user.pk:
        _accept(existing, asker=other, accepter=user)
    return existing, False


def _accept(request: Friendship, *, asker: User, accepter: User) -> None:
    request.status = Friendship.Status.ACCEPTED
    request.accepted_at = timezone.now()
    request.save(update_fields=["status", "accepted_at"])
    transaction.on_commit(lambda: friendship_accepted.send(sender=Friendship, from_user=asker, to_user=accepter))


@transaction.atomic
def answer_request(*, user: User, username: str, accept: bool) -> None:
    other = _other(username)
    _lock_pair(user, other)
    request = Friendship.objects.filter(
        from_user=other, to_user=user, status=Friendship.Status.PENDING
    ).first()
    if request is None:
        raise ServiceError("not_found", f"no friend request from {username}", status=404)
    if accept:
        _accept(request, asker=other, accepter=user)
    else:
        request.delete()


@transaction.atomic
def remove_friend(*, user: User, username: str) -> None:
    """Ends a friendship, or withdraws one's own pending request."""
    other = _other(username)
    _lock_pair(user, other)
    deleted, _ = _between(user, other).delete()
    if not deleted:
        raise ServiceError("not_found", f"{username} is not your friend", status=404)
