"""A socket's budget of frames: a token bucket per kind of frame, refilled at a steady rate."""

from __future__ import annotations

from freecell_site.errors import ServiceError


class Budget:
    """`burst` frames at once, refilled at `rate` a second; `spend` refuses with `rate_limited`."""

    def __init__(self, name: str, burst: float, rate: float, now: float):
        self.name, self.burst, self.rate = name, burst, rate
        self.tokens, self.then = burst, now

    def spend(self, now: float, cost: float = 1) -> None:
        """Takes `cost` frames' worth (an oversized frame costs one per 4 KiB it began); a cost above
        the burst is refused however long the bucket rests."""
        tokens = min(self.burst, self.tokens + (now - self.then) * self.rate)
        self.then = now
        if tokens < cost:
            self.tokens = tokens
            wait_ms = int((min(cost, self.burst) - tokens) / self.rate * 1000) + 1
            raise ServiceError("rate_limited", f"too many {self.name} on this socket", extra={"retry_after_ms": wait_ms})
        self.tokens = tokens - cost
