"""Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): a browser or
client that signed in to an account before is told apart from everyone else, so a guesser's failures
do not lock the account's owner out.

A successful sign-in (the session login, the token endpoint, the sign-in page) answers a `device`
cookie: the account's id and a random device id, signed with SECRET_KEY (Django's signing, with a
salt of its own) and dated. A sign-in that presents a valid one for the account it names is judged by
that device's own failures only (accounts/throttle.py); any other is judged by the account's and the
network's. The cookie is HttpOnly, SameSite=Lax, Secure when DEBUG is off, and lasts
DEVICE_COOKIE_DAYS; it names one account (a sign-in to another replaces it).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core import signing

COOKIE = "device"
SALT = "accounts.devices"


def max_age_s() -> int:
    return int(settings.DEVICE_COOKIE_DAYS * 86400)


def device_of(request, user_pk: int | None) -> str | None:
    """The device id of the request's device cookie when it is valid and was given for `user_pk`."""
    raw = request.COOKIES.get(COOKIE)
    if not raw or user_pk is None:
        return None
    try:
        value = signing.loads(raw, salt=SALT, max_age=max_age_s())
    except signing.BadSignature:  # forged, altered or expired (SignatureExpired is one)
        return None
    if not isinstance(value, dict) or value.get("u") != user_pk or not isinstance(value.get("d"), str):
        return None
    return value["d"]


def remember(response, request, user) -> None:
    """Gives the response a device cookie for `user`, keeping the device id the request presented for
    that account (a device is one device for as long as it keeps its cookie)."""
    device = device_of(request, user.pk) or secrets.token_urlsafe(16)
    response.set_cookie(
        COOKIE,
        signing.dumps({"u": user.pk, "d": device}, salt=SALT),
        max_age=max_age_s(),
        secure=not settings.DEBUG,
        httponly=True,
        samesite="Lax",
    )
