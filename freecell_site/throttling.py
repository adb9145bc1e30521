"""DRF throttles that fail open when their cache (Redis) is unreachable, say their state in RateLimit
headers, and give back what a refused request spent.

A throttle protects the service; it must not take it down. While Redis is away, requests are let
through (and logged) rather than answered with a 500, so moves are still validated and stored.

Every answer of a throttled endpoint carries `RateLimit-Limit`, `RateLimit-Remaining` and
`RateLimit-Reset` (seconds until the oldest request counted leaves the window) of the tightest throttle that counted it,
set in the view's response headers (`view.headers`, which DRF writes onto every answer, errors
included); a 429 carries `Retry-After` too (DRF's handler sets it). A request the API refuses for
another reason (a 4xx or 5xx error: not your game, game over, bad input) costs no budget: the error
handler (freecell_site/errors.py) calls `refund`.

An anonymous client is counted by its network: the address itself for IPv4, its /64 for IPv6 (a
subscriber picks any address of its /64, so counting addresses gave it 2^64 allowances). The
sign-up throttle has a scope of its own (`signup`), sized for a school behind one NAT address.
"""

from __future__ import annotations

import ipaddress
import logging
import math

from rest_framework import throttling

from freecell_site import metrics

logger = logging.getLogger(__name__)

HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")


def network_of(address: str) -> str:
    """The network a client is counted as: an IPv4 address (an IPv4-mapped IPv6 one too) as itself,
    an IPv6 address as its /64; anything else (a unix socket's peer) as given."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if parsed.version == 6:
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


class FailOpen:
    def get_ident(self, request):
        return network_of(super().get_ident(request))

    def allow_request(self, request, view):
        try:
            allowed = super().allow_request(request, view)
        except Exception as exc:  # the cache backend's own errors (redis ConnectionError, timeouts)
            logger.warning("throttle %s skipped, cache unavailable: %s: %s", type(self).__name__, type(exc).__name__, exc)
            return True
        if not allowed:
            metrics.throttled(f"rest_{getattr(self, 'scope', None) or 'request'}")
        # A page (frontend/views.py) asks a throttle with no view: it has no headers to write.
        if view is not None and getattr(self, "history", None) is not None:  # this throttle counted the request (it has a rate and a key)
            self.charged = allowed  # a refused request was not added to the history
            counted = getattr(view, "rate_limits", [])
            view.rate_limits = [*counted, self]
            _write_headers(view)
        return allowed

    def remaining(self) -> int:
        return max(0, self.num_requests - len(self.history))

    def reset_s(self) -> int:
        """Seconds until the oldest request counted leaves the window, giving one request back (0 when
        none is counted); with none remaining, the wait that `Retry-After` says too."""
        if not self.history:
            return 0
        return max(1, math.ceil(self.duration - (self.now - self.history[-1])))

    def give_back(self) -> None:
        """Takes this request out of the history it was counted in (the request was refused)."""
        if not getattr(self, "charged", False):
            return
        self.charged = False
        try:
            history = self.cache.get(self.key, [])
            if self.now in history:
                history.remove(self.now)
                self.cache.set(self.key, history, self.duration)
        except Exception as exc:
            logger.warning("throttle %s refund skipped, cache unavailable: %s: %s", type(self).__name__, type(exc).__name__, exc)
        if self.now in self.history:
            self.history.remove(self.now)


def _write_headers(view) -> None:
    tightest = min(view.rate_limits, key=lambda throttle: (throttle.remaining(), -throttle.reset_s()))
    view.headers.update(
        {
            "RateLimit-Limit": str(tightest.num_requests),
            "RateLimit-Remaining": str(tightest.remaining()),
            "RateLimit-Reset": str(tightest.reset_s()),
        }
    )


def refund(view) -> None:
    """Gives back what the throttles counted for a request that was refused, and says so in the headers."""
    counted = getattr(view, "rate_limits", None)
    if not counted:
        return
    for throttle in counted:
        throttle.give_back()
    _write_headers(view)


class AnonRateThrottle(FailOpen, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(FailOpen, throttling.UserRateThrottle):
    """A signed-in account's budget (`THROTTLE_USER`). An anonymous request is counted by the anonymous
    budget alone (AnonRateThrottle, per network): DRF's own user throttle counts it a second time, by
    the same network, which cost every anonymous request two more round trips to the cache."""

    def get_cache_key(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return None  # not counted: the anonymous budget counts it
        return super().get_cache_key(request, view)


class ScopedRateThrottle(FailOpen, throttling.ScopedRateThrottle):
    pass


class SignUpRateThrottle(FailOpen, throttling.SimpleRateThrottle):
    """Sign-ups per network (`THROTTLE_SIGNUP`): a count of its own, not the anonymous budget every
    other anonymous request spends, so a class signing up together behind one address is let in."""

    scope = "signup"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
