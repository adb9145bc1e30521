"""DRF throttles that fail open when their cache (Redis) is unreachable.

A throttle protects the service; it must not take it down. While Redis is away, requests are let
through (and logged) rather than answered with a 500, so moves are still validated and stored.
"""

from __future__ import annotations

import logging

from rest_framework import throttling

logger = logging.getLogger(__name__)


class FailOpen:
    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except Exception as exc:  # the cache backend's own errors (redis ConnectionError, timeouts)
            logger.warning("throttle %s skipped, cache unavailable: %s: %s", type(self).__name__, type(exc).__name__, exc)
            return True


class AnonRateThrottle(FailOpen, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(FailOpen, throttling.UserRateThrottle):
    pass


class ScopedRateThrottle(FailOpen, throttling.ScopedRateThrottle):
    pass
