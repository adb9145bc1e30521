"""The garbage collector of a server holding thousands of sockets (freecell_site/collector.py): the
survivors of a long full collection are frozen, and handed back to the collector after a while, so
that what died in a cycle among them is collected."""

from __future__ import annotations

import gc

import pytest

from freecell_site import collector
from freecell_site.collector import FreezeAfterLongCollections
from tests.support.players import token_of
from tests.support.sockets import new_game, next_of, open_socket, run


@pytest.fixture
def unfrozen_after():
    yield
    gc.unfreeze()  # the test process's own: the next tests see the collector as it was at start-up
    gc.freeze()


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def collection(callback, clock, generation: int, took: float) -> None:
    callback("start", {"generation": generation})
    clock.now += took
    callback("stop", {"generation": generation, "collected": 0, "uncollectable": 0})


def test_only_a_long_full_collection_freezes_what_survived(unfrozen_after):
    clock = Clock()
    callback = FreezeAfterLongCollections(0.02, 3600, clock)
    survivor = [object() for _ in range(10)]
    frozen = gc.get_freeze_count()
    for generation, took in ((0, 1.0), (1, 1.0), (2, 0.01)):
        collection(callback, clock, generation, took)
    assert (callback.freezes, gc.get_freeze_count()) == (0, frozen)
    collection(callback, clock, 2, 0.5)
    assert callback.freezes == 1 and gc.get_freeze_count() > frozen
    assert survivor  # alive, and now frozen with the rest


def test_what_was_frozen_is_handed_back_once_the_period_has_passed(unfrozen_after):
    clock = Clock()
    callback = FreezeAfterLongCollections(0.02, 3600, clock)
    collection(callback, clock, 2, 0.5)
    assert gc.get_freeze_count() > 0
    clock.now += 3000
    callback("start", {"generation": 2})
    assert gc.get_freeze_count() > 0  # not yet
    callback("stop", {"generation": 2, "collected": 0, "uncollectable": 0})
    clock.now += 700
    callback("start", {"generation": 2})
    assert gc.get_freeze_count() == 0  # this collection walks them all once


@pytest.mark.django_db(transaction=True)
def test_what_sockets_frozen_open_leave_in_cycles_is_collected_once_handed_back(alice, settings, unfrozen_after):
    """What freezing keeps: objects frozen while alive that die in a reference cycle. Sockets frozen
    while open leave some when they close (docs/performance.md gives the count); the hand-back frees it."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.WS_SOCKETS_PER_ACCOUNT = 100
    game = new_game(alice)
    token = token_of(alice)
    clock = Clock()
    callback = FreezeAfterLongCollections(-1.0, 3600, clock)  # every full collection counts as long
    gc.callbacks.append(callback)

    async def scenario():
        sockets = []
        for _ in range(30):
            socket = await open_socket(f"/ws/games/{game.pk}/", token=token)
            await next_of(socket, "state")
            sockets.append(socket)
        gc.collect()  # a full collection: the open sockets are frozen after it
        frozen = gc.get_freeze_count()
        for socket in sockets:
            await socket.disconnect()
        sockets.clear()
        kept = gc.collect()  # what died young; the frozen are not walked (and freeze again)
        clock.now += 3600
        collected = gc.collect()  # handed back first: everything is walked once
        return frozen, kept, collected

    try:
        frozen, kept, collected = run(scenario)
    finally:
        gc.callbacks.remove(callback)
    assert frozen > 0 and callback.freezes >= 2
    assert collected > 0, "the cycles the closed sockets left among the frozen objects were collected"
    print(f"young garbage {kept}, collected once handed back {collected} (30 sockets)")


def test_a_full_collection_is_weighed_after_each_middle_one(monkeypatch):
    """Under CPython's thresholds (a full collection weighed after ten of the middle generation), the
    objects 10,000 idle sockets keep alive between frames piled up to 150,000 between full collections,
    each holding the loop 80-120 ms."""
    thresholds = gc.get_threshold()
    monkeypatch.setattr(collector, "_installed", None)
    try:
        collector.install(2, 3600, 1)
        assert gc.get_threshold() == (thresholds[0], thresholds[1], 1)
        assert collector._installed in gc.callbacks and collector._installed.threshold_s == 0.002
    finally:
        if collector._installed in gc.callbacks:
            gc.callbacks.remove(collector._installed)
        gc.set_threshold(*thresholds)
