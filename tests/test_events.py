"""games.events: the publisher thread that sends pushes to a shared channel layer (Redis)."""

from __future__ import annotations

import asyncio
import threading
import time

from games import events


class RecordingLayer:
    """A stand-in for channels-redis: records sends; sends to group "slow" take a while."""

    def __init__(self):
        self.sent: list[tuple[str, int, float]] = []
        self.lock = threading.Lock()

    async def group_send(self, group: str, event: dict) -> None:
        if group == "slow":
            await asyncio.sleep(0.2)
        with self.lock:
            self.sent.append((group, event["n"], time.monotonic()))


def test_each_groups_events_go_out_in_order_and_a_slow_group_holds_up_no_other(monkeypatch):
    layer = RecordingLayer()
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    publisher = events._Publisher()
    started = time.monotonic()
    for n in range(3):
        publisher.put("slow", {"n": n})
        publisher.put("fast", {"n": n})
    deadline = time.monotonic() + 5
    while len(layer.sent) < 6 and time.monotonic() < deadline:
        time.sleep(0.01)
    by_group = {group: [n for g, n, _ in layer.sent if g == group] for group in ("slow", "fast")}
    assert by_group == {"slow": [0, 1, 2], "fast": [0, 1, 2]}
    fast_done = max(at for g, _, at in layer.sent if g == "fast") - started
    slow_done = max(at for g, _, at in layer.sent if g == "slow") - started
    assert fast_done < 0.15, "the fast group waited for the slow one"
    assert slow_done >= 0.6, "the slow group's events went out side by side, not one after another"


def test_a_failing_send_is_logged_and_the_next_event_still_goes_out(monkeypatch, caplog):
    layer = RecordingLayer()
    calls = []

    async def flaky(group, event):
        calls.append(event["n"])
        if event["n"] == 0:
            raise ConnectionError("redis went away")
        await RecordingLayer.group_send(layer, group, event)

    layer.group_send = flaky
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    publisher = events._Publisher()
    publisher.put("g", {"n": 0})
    publisher.put("g", {"n": 1})
    deadline = time.monotonic() + 5
    while not layer.sent and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls == [0, 1] and [n for _, n, _ in layer.sent] == [1]
    assert "redis went away" in caplog.text
