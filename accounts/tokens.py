"""Personal access token keys: making one, its digest, finding the token a key names, noting its use."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from accounts.models import AccessToken
from accounts.scopes import SCOPES
from freecell_site import statements

#: Every key this service makes starts so, which lets secret scanners (and players) recognise one.
KEY_PREFIX = "fco_"
#: The longest key looked up: ours are 47 characters, keys converted from the old tokens 40.
MAX_KEY = 64
#: How stale `last_used_at` may get: a token in use is written at most once in this time, so a
#: client's reads do not each write a row (and a busy token does not contend for its row).
LAST_USED_EVERY = dt.timedelta(minutes=1)
#: The characters shown of a key in lists (its prefix and a few random ones).
SHOWN = 8


def new_key() -> str:
    """A fresh key: 256 random bits, URL-safe."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def digest(key: str) -> str:
    """What is stored of a key (see AccessToken for why a plain SHA-256)."""
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def ordered_scopes(scopes) -> list[str]:
    """Scopes without repeats, in the order of accounts.scopes.SCOPES."""
    return [scope for scope in SCOPES if scope in set(scopes)]


def unexpired() -> Q:
    """The tokens that still hold: no end, or an end still to come (the lookup's statement below
    asks the same, which tests/test_tokens.py checks against this)."""
    return Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now())


@dataclass(frozen=True)
class _Lookup:
    """The statement of `token_of_key` and what its parameters and row need."""

    sql: str
    token: statements.Columns
    user: statements.Columns
    expires_at: Any  # the fields whose conversions write the parameters
    is_active: Any
    token_user: Any  # the token's relation to its user, set from the row


def _lookup_statement() -> _Lookup:
    """A token by its digest, unexpired, with its user, if active."""
    quote = connection.ops.quote_name
    token, user = AccessToken._meta, get_user_model()._meta
    expires_at, is_active = token.get_field("expires_at"), user.get_field("is_active")
    expires = f"t.{quote(expires_at.column)}"
    sql = (
        f"SELECT {', '.join(statements.selected(AccessToken, 't') + statements.selected(user.model, 'u'))} "
        f"FROM {quote(token.db_table)} t INNER JOIN {quote(user.db_table)} u ON u.{quote(user.pk.column)} = t.{quote(token.get_field('user').column)} "
        f"WHERE t.{quote(token.get_field('key_digest').column)} = %s AND u.{quote(is_active.column)} = %s "
        f"AND ({expires} IS NULL OR {expires} > %s)"
    )
    columns = statements.columns(AccessToken, 0)
    return _Lookup(sql, columns, statements.columns(user.model, len(columns.attnames)), expires_at, is_active, token.get_field("user"))


def token_of_key(key) -> AccessToken | None:
    """The unexpired token, with its active user, whose key is `key`, or None.

    Asked on every signed-in request and socket: one statement built once (freecell_site.statements),
    since building it through the ORM each time cost four times what running it does."""
    if not isinstance(key, str) or not key or len(key) > MAX_KEY or not key.isascii() or "\x00" in key:
        return None  # no key of ours is anything else (and a database refuses a NUL)
    lookup = statements.once("token_of_key", _lookup_statement)
    parameters = [digest(key), lookup.is_active.get_db_prep_value(True, connection), lookup.expires_at.get_db_prep_value(timezone.now(), connection)]
    with connection.cursor() as cursor:
        cursor.execute(lookup.sql, parameters)
        row = cursor.fetchone()
    if row is None:
        return None
    token = lookup.token.instance(row)
    lookup.token_user.set_cached_value(token, lookup.user.instance(row))
    return token


def note_use(token: AccessToken) -> None:
    """Sets the token's `last_used_at` to now when it is more than LAST_USED_EVERY old: one conditional
    UPDATE, which writes nothing (and takes no lock) while the time shown is recent enough."""
    now = timezone.now()
    if token.last_used_at is not None and now - token.last_used_at < LAST_USED_EVERY:
        return
    stale = Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_EVERY)
    if AccessToken.objects.filter(stale, pk=token.pk).update(last_used_at=now):
        token.last_used_at = now
