"""Login throttling: failures are counted per device, per account and per network, and past a
limit refused until their window passes (OWASP's device-cookie scheme, accounts/devices.py).

- A sign-in that presents a valid device cookie for the account (the browser signed in to it before)
  is judged by that device's own failures only: `device`, LOGIN_DEVICE_FAILURES a minute. A guesser
  cannot lock the owner's browsers out.
- Any other is judged by the account's failures from such sign-ins (`user`, LOGIN_ACCOUNT_FAILURES
  in 15 minutes: the limit that slows a guesser, however many addresses it has) and by its network's
  over every account (`net`, LOGIN_NETWORK_FAILURES a minute: the /32 of an IPv4 address, the /64 of
  an IPv6 one, since a subscriber picks addresses in its /64 at will; sized for a school's NAT).

Counters are atomic and shared by every server process: Redis INCR when REDIS_URL is set, else an
UPDATE ... SET count = count + 1 on a database row. While Redis is unreachable the database counts, so
logins keep working and stay limited. Windows are fixed: the clock's minutes and quarter hours.
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
from freecell_site.throttling import network_of

logger = logging.getLogger(__name__)

#: Each kind of key's window, in seconds.
WINDOWS = {"device": 60, "user": 900, "net": 60}
LIMIT_SETTINGS = {"device": "LOGIN_DEVICE_FAILURES", "user": "LOGIN_ACCOUNT_FAILURES", "net": "LOGIN_NETWORK_FAILURES"}
#: Rows of windows that ended this long ago are swept.
KEEP_S = 2 * max(WINDOWS.values())


def _kind(key: str) -> str:
    return key.partition(":")[0]


def _window(key: str) -> int:
    """The start of the key's current window, in minutes since the epoch (one scale for every kind,
    so old rows of any kind are swept by one comparison)."""
    length = WINDOWS[_kind(key)]
    return int(time.time() // length) * length // 60


def keys_for(username: str, address: str | None, device: str | None = None) -> list[str]:
    """The counters a sign-in to `username` is judged by: its device's alone when it presented a valid
    device cookie (`device`, from accounts.devices.device_of), else the account's and the network's."""
    if device:
        return [f"device:{device}"]
    name = username.strip().lower()[:150]
    keys = [f"user:{name}"]
    if address:
        keys.append(f"net:{network_of(address)}")
    return keys


def _limit(key: str) -> int:
    return getattr(settings, LIMIT_SETTINGS[_kind(key)])


def seconds_left(keys: list[str] | None = None) -> int:
    """Seconds until the longest window among `keys` ends (a minute's when none is given)."""
    length = max((WINDOWS[_kind(key)] for key in keys or ()), default=60)
    return int(length - time.time() % length) + 1


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
    window = _window(key)
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
    over = [key for key in keys if failures(key) >= _limit(key)]
    if over:
        metrics.throttled("sign_ins")
        raise ServiceError("rate_limited", message, status=429, extra={"retry_after": seconds_left(over)})


def record_failure(keys: list[str]) -> None:
    for key in keys:
        window = _window(key)
        if settings.REDIS_URL:
            name = _cache_key(key, window)
            try:
                cache.add(name, 0, timeout=WINDOWS[_kind(key)] * 2)
                cache.incr(name)
                continue
            except Exception as exc:
                _redis_failed(exc)
        _db_record(key, window)
    # Old rows are swept now and then, so the table stays small.
    minute = int(time.time() // 60)
    if minute % 10 == 0:
        LoginFailure.objects.filter(window__lt=minute - KEEP_S // 60).delete()
