"""One watch of the bus per process (games.sockets.bus): idle sockets cost no bus call and no wake-up of
their own between heartbeats, and after a failure each socket that saw it re-joins its groups and
resyncs its client once the bus is back."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games import events
from games.play import services
from games.sockets import bus
from tests.support.sockets import (
    new_game,
    next_of,
    nothing_more,
    open_socket,
    run,
    session_cookie,
    tasks_asleep_on_a_timer,
)

pytestmark = pytest.mark.django_db(transaction=True)


def flaky(monkeypatch, call: str, noted, *, once: bool = False) -> tuple[list, list[bool]]:
    """Makes the channel layer's `call` fail (TimeoutError, as a call past its 1 s) while the flag given
    back is set (`once`: for the next call only); each call's `noted(*its arguments)` is appended to the
    list given back."""
    layer = get_channel_layer()
    real = getattr(layer, call)
    calls, failing = [], [False]

    async def maybe_failing(*args, **kwargs):
        calls.append(noted(*args))
        if failing[0]:
            failing[0] = not once
            raise TimeoutError(f"a {call} that took too long")
        return await real(*args, **kwargs)

    monkeypatch.setattr(layer, call, maybe_failing)
    return calls, failing


def test_idle_sockets_make_no_bus_call_between_failures(alice, settings, monkeypatch):
    """Each socket re-joined each of its groups at every check (every 5 s): at 10,000 idle sockets,
    2,000 wake-ups and several thousand layer calls a second."""
    settings.WS_BUS_CHECK_S = 0.05
    game = new_game(alice)
    layer = get_channel_layer()
    calls = []
    real_add = layer.group_add

    async def counted_add(group, channel):
        calls.append(group)
        await real_add(group, channel)

    monkeypatch.setattr(layer, "group_add", counted_add)

    cookie = session_cookie(alice)

    async def scenario():
        sockets = [await open_socket(f"/ws/games/{game.pk}/", cookie=cookie) for _ in range(4)]
        for socket in sockets:
            await next_of(socket, "state")
        joined = len(calls)
        assert joined >= 4  # each socket joined its groups once
        await asyncio.sleep(0.6)  # a dozen check periods
        assert len(calls) == joined, calls[joined:]
        watch = bus._watches[asyncio.get_running_loop()]  # one watch on this loop for all its sockets
        assert not watch.done() and sum(1 for s in bus._watched if not s.closed and s.user == alice) == 4
        for socket in sockets:
            await socket.disconnect()

    run(scenario)


def test_after_a_bus_failure_each_socket_rejoins_its_groups_and_resyncs_its_client(alice, settings, monkeypatch):
    settings.WS_BUS_CHECK_S = 0.05
    game = new_game(alice)
    layer = get_channel_layer()
    rejoined = []
    real_add = layer.group_add

    async def counted_add(group, channel):
        rejoined.append(group)
        await real_add(group, channel)

    cookie = session_cookie(alice)

    async def scenario():
        sockets = [await open_socket(f"/ws/games/{game.pk}/", cookie=cookie) for _ in range(2)]
        for socket in sockets:
            await next_of(socket, "state")
        monkeypatch.setattr(layer, "group_add", counted_add)
        # A move whose push the outage lost: each socket learns it from the database once the bus is back.
        monkeypatch.setattr(events, "publish_game", lambda payload: None)
        await database_sync_to_async(services.play_move)(game_id=game.pk, user=alice, move="3a", ply=0)
        events.note_bus_failure("a test's outage")
        for socket in sockets:
            assert (await next_of(socket, "state", timeout=5))["version"] == 1  # resynced
        assert rejoined.count(events.game_group(game.pk)) == 2, rejoined  # each socket its game's group
        await asyncio.sleep(0.3)
        count = len(rejoined)
        await asyncio.sleep(0.3)
        assert len(rejoined) == count  # once back in step, nothing more
        for socket in sockets:
            await socket.disconnect()

    run(scenario)


def test_a_join_that_fails_for_one_socket_brings_back_that_socket_alone(alice, settings, monkeypatch):
    """A join timed out under load (1 s) while thousands of sockets opened counted as a failure of the
    process: every socket open then joined its groups again and read its state (about 7,600 sockets after six
    timeouts in one run). Now the socket whose join failed comes back alone, once the bus answers."""
    settings.WS_BUS_CHECK_S = 0.05
    game = new_game(alice)
    joins, failing = flaky(monkeypatch, "group_add", lambda group, channel: group)
    cookie = session_cookie(alice)

    async def scenario():
        steady = [await open_socket(f"/ws/games/{game.pk}/", cookie=cookie) for _ in range(3)]
        for socket in steady:
            await next_of(socket, "state")
        failures = events.bus_failures()
        failing[0] = True
        late = await open_socket(f"/ws/games/{game.pk}/", cookie=cookie)
        await next_of(late, "state")
        failing[0] = False
        joined = len(joins)
        # A move's push reaches the sockets in its game's group; the late one learns it once brought back.
        await database_sync_to_async(services.play_move)(game_id=game.pk, user=alice, move="3a", ply=0)
        for socket in steady:
            assert (await next_of(socket, "state"))["version"] == 1
        assert (await next_of(late, "state", timeout=5))["version"] == 1
        await asyncio.sleep(0.3)
        assert events.bus_failures() == failures  # the process is in step
        # The late socket's two groups (its account's and its game's), and no other socket's.
        assert sorted(joins[joined:]) == sorted([events.account_group(alice.pk), events.game_group(game.pk)]), joins[joined:]
        for socket in steady:
            assert await nothing_more(socket, 0.1)
        await database_sync_to_async(services.play_move)(game_id=game.pk, user=alice, move="3b", ply=1)
        assert (await next_of(late, "state"))["version"] == 2  # in its game's group again
        for socket in [*steady, late]:
            await socket.disconnect()

    run(scenario)


def test_a_socket_opened_without_its_channel_waits_for_the_watch_on_no_timer_of_its_own(alice, settings, monkeypatch):
    """A socket whose channel could not be made at its open (the layer's call failed or passed its
    1 s) asked for it again every second on a timer of its own, beside the watch that brings it back."""
    settings.WS_BUS_CHECK_S = 0.3
    game = new_game(alice)
    # Refused once: under load the watch may ask before the test could clear a flag.
    made, failing = flaky(monkeypatch, "new_channel", lambda *args: "refused" if failing[0] else "made", once=True)
    cookie = session_cookie(alice)

    async def scenario():
        steady = await open_socket(f"/ws/games/{game.pk}/", cookie=cookie)
        await next_of(steady, "state")
        await asyncio.sleep(0.05)
        timers = tasks_asleep_on_a_timer()
        failing[0] = True
        late = await open_socket(f"/ws/games/{game.pk}/", cookie=cookie)
        await next_of(late, "state")
        assert made[-1] == "refused"  # its channel
        # No timer of its own while it waits for the watch (one of the process's may be awake just now).
        assert tasks_asleep_on_a_timer() <= timers
        await database_sync_to_async(services.play_move)(game_id=game.pk, user=alice, move="3a", ply=0)
        assert (await next_of(steady, "state"))["version"] == 1
        assert (await next_of(late, "state", timeout=5))["version"] == 1  # brought back by the watch
        await database_sync_to_async(services.play_move)(game_id=game.pk, user=alice, move="3b", ply=1)
        assert (await next_of(late, "state"))["version"] == 2  # on its channel, in its game's group
        assert made.count("refused") == 1, made  # then made by the watch
        for socket in (steady, late):
            await socket.disconnect()

    run(scenario)


class Behind:
    """A socket (or stream) that saw a bus failure: its way back takes a little while."""

    on_the_way = 0
    most_at_once = 0

    def __init__(self):
        self.closed = False
        self.bus_generation = -1
        self.back = False

    async def bus_back(self, generation: int) -> None:
        Behind.on_the_way += 1
        Behind.most_at_once = max(Behind.most_at_once, Behind.on_the_way)
        await asyncio.sleep(0.001)
        self.bus_generation, self.back = generation, True
        Behind.on_the_way -= 1


def test_after_a_failure_sockets_take_their_way_back_a_few_at_a_time(monkeypatch):
    """All of a process's sockets took their way back at once: after one call to the bus timed out while
    thousands opened, each joined its groups again and read its state together, every join timed out
    (a new failure), and the handshakes waiting behind them were refused. Now BACK_AT_ONCE at a time,
    and none is left behind."""
    sockets = [Behind() for _ in range(4 * bus.BACK_AT_ONCE + 7)]
    monkeypatch.setattr(bus, "_watched", set(sockets))

    async def is_back(layer):
        return True

    monkeypatch.setattr(bus, "is_back", is_back)
    Behind.on_the_way = Behind.most_at_once = 0
    asyncio.run(bus._check(None, 5.0))
    assert all(socket.back and socket.bus_generation == events.bus_failures() for socket in sockets)
    assert Behind.most_at_once == bus.BACK_AT_ONCE


def test_a_round_trip_that_does_not_come_back_sends_no_other_socket_back(monkeypatch):
    """The watch's round trip (is the bus back for the sockets behind?) timed out on a loop busy with
    10,000 sockets opening; counted as a failure of the process, it sent every socket back together, and
    that herd kept the loop busy enough for the next round trip to time out too."""
    behind = [Behind() for _ in range(3)]
    in_step = [Behind() for _ in range(5)]
    for socket in in_step:
        socket.bus_generation = events.bus_failures()
    monkeypatch.setattr(bus, "_watched", set(behind + in_step))
    comes_back = [False]

    async def round_trip(layer, timeout):
        if not comes_back[0]:
            raise TimeoutError("nothing came back within the second")

    monkeypatch.setattr(events, "round_trip", round_trip)
    failures = events.bus_failures()
    asyncio.run(bus._check(object(), 5.0))
    assert events.bus_failures() == failures  # "not yet" for those behind, not a new failure
    assert not any(socket.back for socket in behind + in_step)
    comes_back[0] = True
    asyncio.run(bus._check(object(), 5.0))
    assert all(socket.back for socket in behind) and not any(socket.back for socket in in_step)


def test_the_watch_stops_once_cancelled_even_when_a_check_lost_the_cancellation(settings, monkeypatch):
    """On Python 3.11 an asyncio.wait_for whose call finishes just as its task is cancelled returns
    the call's result and drops the cancellation. The watch went on checking, and asyncio.run's
    teardown, which cancels each task once and waits for all, hung with it."""
    settings.WS_BUS_CHECK_S = 0.01
    lost = []

    async def check_losing_the_cancellation(layer, every):
        try:
            await asyncio.sleep(1)
        except asyncio.CancelledError:
            if lost:
                raise
            lost.append(True)  # returns instead, as that wait_for does (once: a later cancel ends the loop)

    monkeypatch.setattr(bus, "_check", check_losing_the_cancellation)

    async def scenario():
        watch = asyncio.get_running_loop().create_task(bus._watch_forever(layer=None))
        await asyncio.sleep(0.05)  # inside a check
        watch.cancel()
        await asyncio.wait([watch], timeout=1)
        assert lost and watch.done() and watch.cancelled()

    asyncio.run(scenario())
