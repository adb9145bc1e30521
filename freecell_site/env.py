"""Typed readers of settings from the environment that fail loudly, naming the variable."""

from __future__ import annotations

import os
from urllib.parse import urlparse

from django.core.exceptions import ImproperlyConfigured

from freecell_site.forwarded import parse_networks

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false, yes/no, on/off), not {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}")
    return value


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}")
    return value


def env_rate(name: str, default: str) -> str:
    """A throttle rate as DRF reads it: a whole number, a slash, a period (`120/min`, `5/s`, `1000/day`:
    DRF reads only the period's first letter, s m h or d)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    count, _, period = raw.strip().partition("/")
    if not (count.isascii() and count.isdigit() and period[:1] in ("s", "m", "h", "d")):
        raise ImproperlyConfigured(f"{name} must be a rate such as 120/min (a number, then /s, /min, /hour or /day), not {raw!r}")
    return raw.strip()


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of `choices`, in any case."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    chosen = next((choice for choice in choices if choice.lower() == raw.strip().lower()), None)
    if chosen is None:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, not {raw!r}")
    return chosen


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; empty items are dropped."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_url(name: str, *, schemes: tuple[str, ...]) -> str | None:
    """A URL whose scheme is one of `schemes`, or None when the variable is unset or empty."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    parsed = urlparse(raw)
    if parsed.scheme not in schemes or not (parsed.netloc or parsed.path):
        raise ImproperlyConfigured(f"{name} must be a URL starting with one of {', '.join(s + '://' for s in schemes)}; got {raw!r}")
    return raw


def env_origins(name: str) -> list[str]:
    """CSRF trusted origins: each must carry a scheme, as Django requires."""
    origins = env_list(name, [])
    for origin in origins:
        if not origin.startswith(("http://", "https://")):
            raise ImproperlyConfigured(f"{name} entries must start with http:// or https://; got {origin!r}")
    return origins


def env_networks(name: str) -> list[str]:
    """IP addresses and CIDR networks, comma-separated (`10.0.0.0/8, 192.0.2.7`); none when unset.
    A value that is neither fails the start, naming it."""
    return [str(network) for network in parse_networks(env_list(name, []), name)]
