"""Personal access token keys: making one, its digest, finding the token a key names, noting its use."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from django.db.models import Q
from django.utils import timezone

from accounts.models import AccessToken
from accounts.scopes import SCOPES

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
    """The tokens that still hold: no end, or an end still to come."""
    return Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now())


def token_of_key(key) -> AccessToken | None:
    """The unexpired token, with its active user, whose key is `key`, or None."""
    if not isinstance(key, str) or not key or len(key) > MAX_KEY or not key.isascii() or "\x00" in key:
        return None  # no key of ours is anything else (and a database refuses a NUL)
    return AccessToken.objects.select_related("user").filter(unexpired(), key_digest=digest(key), user__is_active=True).first()


def note_use(token: AccessToken) -> None:
    """Sets the token's `last_used_at` to now when it is more than LAST_USED_EVERY old: one conditional
    UPDATE, which writes nothing (and takes no lock) while the time shown is recent enough."""
    now = timezone.now()
    if token.last_used_at is not None and now - token.last_used_at < LAST_USED_EVERY:
        return
    stale = Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_EVERY)
    if AccessToken.objects.filter(stale, pk=token.pk).update(last_used_at=now):
        token.last_used_at = now
