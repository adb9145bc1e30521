"""Login throttling: failures a minute are counted per account and address, and past a limit refused
until the minute passes.

Counters are atomic and shared by every server process: Redis INCR when REDIS_URL is set, else an
UPDATE ... SET count = count + 1 on a database row. While Redis is unreachable the database counts, so
logins keep working and stay limited. Windows are fixed calendar minutes.
"""

from __future__ import annotations

import hashlib
import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F

from accounts.models import LoginFailure
from freecell_site import metrics
from freecell_site.errors import ServiceError

logger = logging.getLogger(__name__)

WINDOW_S = 60
#: Failures a minute before a key is refused, by the key's kind: one account tried from one address,
#: one address over every account, one account from everywhere (a guess spread over many machines).
#: An account is refused to everyone only past the last, which one address alone cannot reach (it is
#: stopped at 10), so nobody can lock another player out from one machine.
LIMITS = {"user+addr": 10, "addr": 10, "user": 100}


def _window() -> int:
    return int(time.time() // WINDOW_S)


def keys_for(username: str, address: str | None) -> list[str]:
    name = username.strip().lower()[:150]
    keys = [f"user:{name}"]
    if address:
        keys += [f"user+addr:{address} {name}", f"addr:{address}"]
    return keys


def _limit(key: str) -> int:
    return LIMITS[key.partition(":")[0]]


def seconds_left() -> int:
    return int(WINDOW_S - time.time() % WINDOW_S) + 1


def _cache_key(key: str, window: int) -> str:
    # Hashed: a username may hold any character, and some cache backends refuse spaces and control
    # characters in keys (Django warns of it for every backend).
    return f"login-fail:{window}:{hashlib.sha256(key.encode('utf-8', 'surrogatepass')).hexdigest()}"


def _db_failures(key: str, window: int) -> int:
    return LoginFailure.objects.filter(key=key, window=window).values_list("count", flat=True).first() or 0


def _db_record(key: str, window: int) -> None:
    if LoginFailure.objects.filter(key=key, window=window).update(count=F("count") + 1):
        return
    try:
        with transaction.atomic():
            LoginFailure.objects.create(key=key, window=window, count=1)
    except IntegrityError:  # another request created it first: count on its row
        LoginFailure.objects.filter(key=key, window=window).update(count=F("count") + 1)


def _redis_failed(exc: Exception) -> None:
    logger.warning("login throttle falls back to the database, Redis failed: %s: %s", type(exc).__name__, exc)


def failures(key: str) -> int:
    window = _window()
    if settings.REDIS_URL:
        try:
            # Failures counted in the database while Redis was away still count.
            return int(cache.get(_cache_key(key, window)) or 0) + _db_failures(key, window)
        except Exception as exc:
            _redis_failed(exc)
    return _db_failures(key, window)


def is_limited(keys: list[str]) -> bool:
    return any(failures(key) >= _limit(key) for key in keys)


def refuse_if_limited(keys: list[str], message: str) -> None:
    """429 `rate_limited` with `retry_after` when any of `keys` is over its limit."""
    if is_limited(keys):
        metrics.throttled("sign_ins")
        raise ServiceError("rate_limited", message, status=429, extra={"retry_after": seconds_left()})


def record_failure(keys: list[str]) -> None:
    window = _window()
    for key in keys:
        if settings.REDIS_URL:
            name = _cache_key(key, window)
            try:
                cache.add(name, 0, timeout=WINDOW_S * 2)
                cache.incr(name)
                continue
            except Exception as exc:
                _redis_failed(exc)
        _db_record(key, window)
    # Old rows are swept now and then, so the table stays small.
    if window % 10 == 0:
        LoginFailure.objects.filter(window__lt=window - 1).delete()
