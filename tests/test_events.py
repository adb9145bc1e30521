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


class BatchingLayer:
    """A stand-in for our pub/sub layer: records each group_send_many call; the first call is slow,
    so that what is put meanwhile queues up; calls whose first event has n == "fail" raise."""

    def __init__(self):
        self.calls: list[list[tuple[str, object]]] = []

    async def group_send_many(self, sends):
        self.calls.append([(group, event["n"]) for group, event in sends])
        if len(self.calls) == 1:
            await asyncio.sleep(0.2)
        if sends[0][1]["n"] == "fail":
            raise ConnectionError("redis went away")


def wait_for(condition, seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_with_a_layer_that_sends_many_what_queues_up_goes_out_together_and_in_order(monkeypatch):
    layer = BatchingLayer()
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    publisher = events._Publisher()
    publisher.put("game.1", {"n": 0})
    wait_for(lambda: layer.calls)
    for n in range(1, 6):  # while the first send is on its way
        publisher.put("game.1" if n % 2 else "race.A", {"n": n})
    wait_for(lambda: sum(len(call) for call in layer.calls) == 6)
    assert layer.calls == [[("game.1", 0)], [("game.1", 1), ("race.A", 2), ("game.1", 3), ("race.A", 4), ("game.1", 5)]]


def test_a_failed_batch_is_logged_and_what_comes_next_still_goes_out(monkeypatch, caplog):
    layer = BatchingLayer()
    monkeypatch.setattr(events, "get_channel_layer", lambda: layer)
    publisher = events._Publisher()
    publisher.put("game.1", {"n": "fail"})
    wait_for(lambda: layer.calls)
    time.sleep(0.3)  # the first (slow, failing) send is over
    publisher.put("game.1", {"n": 1})
    wait_for(lambda: len(layer.calls) == 2)
    assert layer.calls == [[("game.1", "fail")], [("game.1", 1)]]
    assert "publish to game.1 failed" in caplog.text and "redis went away" in caplog.text


def test_the_first_events_put_from_many_threads_at_once_all_go_out(monkeypatch):
    """The publisher's thread starts on first use; threads that put events while it starts must not
    find it without its loop (that failed a move committed in the same instant with a 500)."""
    for _ in range(20):
        layer = BatchingLayer()
        layer.calls.append([])  # no slow first call here
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
        wait_for(lambda layer=layer: sum(len(call) for call in layer.calls) == 12)
        assert sorted(n for call in layer.calls for _, n in call) == list(range(12))
        publisher.loop.call_soon_threadsafe(publisher.loop.stop)


def test_a_publish_that_cannot_be_queued_is_logged_and_not_raised(monkeypatch, caplog):
    monkeypatch.setattr(events, "get_channel_layer", lambda: BatchingLayer())

    def broken(group, event):
        raise RuntimeError("no publisher thread")

    monkeypatch.setattr(events._publisher, "put", broken)
    assert events.publish("game.1", {"type": "game.state"}) is False
    assert "publish to game.1 failed" in caplog.text and "no publisher thread" in caplog.text


@pytest.mark.services
def test_our_pub_sub_layer_sends_many_group_messages_in_one_go_and_in_order():
    from freecell_site.channel_layer import PubSubChannelLayer

    async def scenario():
        layer = PubSubChannelLayer(hosts=[os.environ["REDIS_URL"]], prefix=f"freecell.test{os.getpid()}.")
        try:
            channel = await layer.new_channel()
            await layer.group_add("game.1", channel)
            await layer.group_add("race.A", channel)
            await layer.group_send_many([("game.1", {"type": "t", "n": 0}), ("race.A", {"type": "t", "n": 1}), ("game.2", {"type": "t", "n": 2}), ("game.1", {"type": "t", "n": 3})])
            received = [await asyncio.wait_for(layer.receive(channel), 2) for _ in range(3)]
            assert [message["n"] for message in received] == [0, 1, 3]  # nobody is in game.2
        finally:
            await layer.flush()

    asyncio.run(scenario())
