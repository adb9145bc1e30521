"""One beat for all the live connections of a process: a socket's heartbeats and idle timeout, a
stream's keepalives (games/streams/feed.py), and the sign-in checks of both (games.sockets.sign_in),
from one task.

A task of its own per socket, asleep until its next beat, cost every idle socket a task, and every
WS_HEARTBEAT_S a timer and a future that outlived the young collections: at 10,000 idle sockets, a
thousand such objects a second reached the oldest generation and brought full collections on
(docs/performance.md). Here each socket is an entry in a heap of when it is next due (a heartbeat to
send, or its idle timeout), kept by the process's one beating task; an entry holds floats and a key,
which the collector does not track, and the socket itself is held only weakly.

A socket or stream asks to be beaten (`keep`) once open, and again (`soon`) when it has something due
sooner than it said (a game socket's clock beat, once its game has begun; a sign-in's next check);
`beat()` on it does what is due (or wakes the stream's loop to) and says when it is next due, or None
once it has closed.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import weakref

logger = logging.getLogger(__name__)


class Beats:
    """The heartbeats of the sockets on one event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.due: list[tuple[float, int]] = []  # (when, key), a heap; an entry no longer wanted is skipped
        self.sockets: dict[int, weakref.ref] = {}
        self.wanted: dict[int, float] = {}  # key -> when its socket is next due
        self.keys = itertools.count()
        self.wake = asyncio.Event()
        self.task = loop.create_task(self._run())

    def keep(self, socket) -> None:
        key = next(self.keys)
        self.sockets[key] = weakref.ref(socket)
        socket.beat_key = key
        self._schedule(socket.next_due(), key)

    def soon(self, socket) -> None:
        """The socket has something due sooner than it said when it was last beaten."""
        key = getattr(socket, "beat_key", None)
        when = socket.next_due()
        if key in self.sockets and when < self.wanted.get(key, when + 1):
            self._schedule(when, key)

    def drop(self, socket) -> None:
        """The socket closed: forgotten now (its entry in the heap is skipped when it comes up)."""
        self._forget(getattr(socket, "beat_key", None))

    def _forget(self, key) -> None:
        self.sockets.pop(key, None)
        self.wanted.pop(key, None)

    def __len__(self) -> int:
        return len(self.sockets)

    def _schedule(self, when: float, key: int) -> None:
        self.wanted[key] = when
        heapq.heappush(self.due, (when, key))
        if self.due[0][1] == key:  # sooner than what the task sleeps until
            self.wake.set()

    async def _run(self) -> None:
        while True:
            if not self.due or self.due[0][0] > self.loop.time():
                self.wake.clear()
                timer = self.loop.call_at(self.due[0][0], self.wake.set) if self.due else None
                try:
                    await self.wake.wait()
                finally:
                    if timer is not None:
                        timer.cancel()
                continue
            when, key = heapq.heappop(self.due)
            if self.wanted.get(key) != when:  # its socket closed, or was asked for sooner since
                continue
            found = self.sockets.get(key)
            socket = found() if found is not None else None
            if socket is None:
                self._forget(key)
                continue
            try:
                when = await socket.beat()
            except Exception:  # one socket's failure must not stop the others' beats
                logger.exception("a socket's heartbeat failed")
                when = None
            if when is None:
                self._forget(key)
            else:
                self._schedule(when, key)


_beats: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Beats] = weakref.WeakKeyDictionary()


def of_this_loop() -> Beats:
    """The beats of the running loop (started with its first socket)."""
    loop = asyncio.get_running_loop()
    beats = _beats.get(loop)
    if beats is None or beats.task.done():
        beats = _beats[loop] = Beats(loop)
    return beats


def keep(socket) -> None:
    """Beats an open socket from now on: it has `next_due()`, `beat()` and `closed`."""
    of_this_loop().keep(socket)


def soon(socket) -> None:
    beats = _beats.get(asyncio.get_running_loop())
    if beats is not None:
        beats.soon(socket)


def drop(socket) -> None:
    beats = _beats.get(asyncio.get_running_loop())
    if beats is not None:
        beats.drop(socket)
