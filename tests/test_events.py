"""games.events: the publisher thread that sends pushes to a shared channel layer (Redis)."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import pytest

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


def wait_for(condition, seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_the_first_events_put_from_many_threads_at_once_all_go_out(monkeypatch):
    """The publisher's thread starts on first use; threads that put events while it starts must not
    find it without its loop (that failed a move committed in the same instant with a 500)."""
    for _ in range(20):
        layer = RecordingLayer()
        monkeypatch.setattr(events, "get_channel_layer", lambda layer=layer: layer)
        publisher = events._Publisher()
        barrier = threading.Barrier(12)
        failures = []

        def put(n, publisher=publisher, barrier=barrier, failures=failures):
            barrier.wait()
            try:
                publisher.put("game.1", {"n": n})
            except Exception as exc:
                failures.append(exc)

        threads = [threading.Thread(target=put, args=(n,)) for n in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        wait_for(lambda layer=layer: len(layer.sent) == 12)
        assert sorted(n for _, n, _ in layer.sent) == list(range(12))
        publisher.loop.call_soon_threadsafe(publisher.loop.stop)


def test_a_publish_that_cannot_be_queued_is_logged_and_not_raised(monkeypatch, caplog):
    monkeypatch.setattr(events, "get_channel_layer", lambda: RecordingLayer())

    def broken(group, event):
        raise RuntimeError("no publisher thread")

    monkeypatch.setattr(events._publisher, "put", broken)
    assert events.publish("game.1", {"type": "game.state"}) is False
    assert "publish to game.1 failed" in caplog.text and "no publisher thread" in caplog.text


@pytest.mark.services
def test_the_redis_pub_sub_layer_delivers_a_groups_events_in_the_order_they_were_published(monkeypatch):
    """The publisher sends through channels-redis' public group_send; a socket in a group receives
    its events in order, and nothing of a group it is not in."""
    from channels_redis.pubsub import RedisPubSubChannelLayer

    async def scenario():
        layer = RedisPubSubChannelLayer(hosts=[os.environ["REDIS_URL"]], prefix=f"freecell.test{os.getpid()}.")
        try:
            channel = await layer.new_channel()
            await layer.group_add("game.1", channel)
            await layer.group_add("race.A", channel)
            for group, n in (("game.1", 0), ("race.A", 1), ("game.2", 2), ("game.1", 3)):
                await layer.group_send(group, {"type": "t", "n": n})
            received = [await asyncio.wait_for(layer.receive(channel), 2) for _ in range(3)]
            assert [message["n"] for message in received] == [0, 1, 3]  # nobody is in game.2
        finally:
            await layer.flush()

    asyncio.run(scenario())
