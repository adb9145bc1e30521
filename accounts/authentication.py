"""Token authentication for REST and websockets alike (the key names an active user, checked in one
query), and whether a socket's sign-in (session or token) still holds."""

from __future__ import annotations

from importlib import import_module
from types import SimpleNamespace

from django.conf import settings
from django.contrib.auth import get_user
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token


def user_of_token(key: str):
    """The active user whose API token is `key`, or None."""
    if not isinstance(key, str) or not key or len(key) > Token._meta.pk.max_length or not key.isascii() or "\x00" in key:
        return None  # keys are hex: anything else (a NUL, a lone surrogate) the database would refuse
    token = Token.objects.select_related("user").filter(key=key, user__is_active=True).first()
    return token.user if token is not None else None


class TokenAuthentication(authentication.TokenAuthentication):
    """`Authorization: Token <key>`, as DRF's, answering with the same errors."""

    def authenticate_credentials(self, key):
        user = user_of_token(key)
        if user is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        # request.auth: the token (unsaved here; nothing reads more of it than the key and its user).
        return user, Token(key=key, user=user)


def still_signed_in(how: str, key: str, user_id: int) -> bool:
    """Whether a sign-in still holds for the active user `user_id`: an API token (`how` "token", `key`
    the token) or a session (`how` "session", `key` its session key), as a request made with it now
    would find.

    A socket signs in once, when it opens; this is how it learns that its sign-in ended since (a
    logout, a new password, a revoked token, a deactivated account)."""
    if how == "token":
        user = user_of_token(key)
    else:
        # Django's own check of a request's session (its user, backend and password hash).
        user = get_user(SimpleNamespace(session=import_module(settings.SESSION_ENGINE).SessionStore(key)))
    return user is not None and user.is_authenticated and user.is_active and user.pk == user_id
