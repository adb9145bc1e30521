"""Token authentication with one hand-written query per request, for REST and websockets alike; and
whether a socket's sign-in (session or token) still holds.

DRF's TokenAuthentication reads the token with the user through the ORM, whose cost of building that
join's SQL was most of the CPU of a trivial authenticated request (docs/performance.md). This is the
same check (the key names an active user) with the SQL written once.
"""

from __future__ import annotations

import functools
from importlib import import_module

from django.conf import settings
from django.contrib.auth import (
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
    load_backend,
)
from django.utils.crypto import constant_time_compare
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token


@functools.cache
def _user_of_token_sql() -> str:
    user = get_user_model()._meta
    token = Token._meta
    # Named columns, not u.*: a prepared statement (settings: DB_PREPARED_STATEMENTS) whose result
    # changes shape after a migration would fail instead of being planned again.
    columns = ", ".join(f'u."{field.column}"' for field in user.concrete_fields)
    return (
        f'SELECT {columns} FROM {user.db_table} u JOIN {token.db_table} t ON t."{token.get_field("user").column}" = u."{user.pk.column}"'
        f' WHERE t."{token.pk.column}" = %s'
    )


def user_of_token(key: str):
    """The active user whose API token is `key`, or None."""
    if not isinstance(key, str) or not key or len(key) > Token._meta.pk.max_length or "\x00" in key:
        return None
    user = next(iter(get_user_model().objects.raw(_user_of_token_sql(), [key])), None)
    if user is None or not user.is_active:
        return None
    return user


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
        return user is not None and user.pk == user_id
    session = import_module(settings.SESSION_ENGINE).SessionStore(key)
    if not key or str(session.get(SESSION_KEY)) != str(user_id) or BACKEND_SESSION_KEY not in session:
        return False
    # As django.contrib.auth.get_user: the session holds the hash of the password it signed in with.
    user = load_backend(session[BACKEND_SESSION_KEY]).get_user(user_id)
    if user is None or not user.is_active:
        return False
    return constant_time_compare(session.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash())
