"""The garbage collector of a server process that holds thousands of sockets: a full collection walks
every object alive, and with 7,000 sockets open one took 1-2 s on the reference box, holding the event
loop (handshakes then timed out with 403, channel-layer calls with TimeoutError).

After a full collection that took longer than `GC_FREEZE_AFTER_MS`, what survived it is frozen
(`gc.freeze`): later collections walk only the objects made since, until the next long one freezes
those too. The cost: an object frozen while alive that later dies in a reference cycle stays until
the frozen objects are handed back to the collector, every `GC_UNFREEZE_EVERY_S`; the full collection
after that walks everything once. A game socket frozen while open leaves about ten such objects when
it closes (its context's database connection wrapper: tests/test_collector.py).

Full collections come often and stay small: one is weighed after each collection of the middle
generation (`GC_FULL_AFTER_MIDDLE`, 1; CPython's default is 10), and runs once what was moved to the
oldest generation since the last one passes a quarter of what that one left (CPython's own rule). An
idle socket keeps a few dozen objects alive between two frames (its wait for the next one), which
outlive the young collections: at 10,000 idle sockets about 150,000 of them piled up between full
collections under CPython's thresholds, and each walk held the loop 80-120 ms every 12 s. Weighed
after each middle one and frozen after 2 ms, a full collection walks only what came since the last:
one or two a second, of at most 12-25 ms of CPU. docs/performance.md has the figures.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


class FreezeAfterLongCollections:
    """A `gc.callbacks` entry: freezes the survivors of each full collection that took over
    `threshold_s`, and unfreezes everything once `unfreeze_every_s` has passed since the first freeze."""

    def __init__(self, threshold_s: float, unfreeze_every_s: float, clock: Callable[[], float] = time.monotonic):
        self.threshold_s, self.unfreeze_every_s, self.clock = threshold_s, unfreeze_every_s, clock
        self.began: float | None = None
        self.frozen_since: float | None = None
        self.freezes = 0

    def __call__(self, phase: str, info: dict) -> None:
        if info.get("generation") != 2:
            return
        now = self.clock()
        if phase == "start":
            self.began = now
            if self.frozen_since is not None and now - self.frozen_since >= self.unfreeze_every_s:
                # Handed back before this collection runs: it walks them all once and collects
                # what died in a cycle among them.
                gc.unfreeze()
                self.frozen_since = None
        elif self.began is not None and now - self.began > self.threshold_s:
            self.began = None
            gc.freeze()
            self.freezes += 1
            if self.frozen_since is None:
                self.frozen_since = now


_installed: FreezeAfterLongCollections | None = None


def install(threshold_ms: float, unfreeze_every_s: float, full_after_middle: int = 10) -> None:
    """Once per process (a threshold of 0 turns it off, and leaves CPython's thresholds)."""
    global _installed
    if _installed is None and threshold_ms > 0:
        _installed = FreezeAfterLongCollections(threshold_ms / 1000, unfreeze_every_s)
        gc.callbacks.append(_installed)
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, full_after_middle)
