"""The ASGI server's event loop, for sync code in worker threads that must hand it async work.

HTTP views run in a pool of plain threads (see asgi.py). The in-memory channel layer's queues, and the
websocket consumers waiting on them, belong to the server's loop, so a push from a view must run
there; async_to_sync in such a thread would start a loop of its own instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import async_to_sync

_loop: asyncio.AbstractEventLoop | None = None


def remember(loop: asyncio.AbstractEventLoop) -> None:
    global _loop
    _loop = loop


def _usable_loop() -> asyncio.AbstractEventLoop | None:
    loop = _loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    try:
        if asyncio.get_running_loop() is loop:
            return None  # on the loop itself: the caller must await, not block it
    except RuntimeError:
        pass
    return loop


def call(func: Callable[..., Awaitable[Any]], *args, timeout: float = 5.0) -> Any:
    """Runs ``await func(*args)`` on the server's loop when there is one, and returns its result."""
    loop = _usable_loop()
    if loop is None:
        return async_to_sync(func)(*args)
    return asyncio.run_coroutine_threadsafe(func(*args), loop).result(timeout)
