"""Sockets in tests: the ASGI application's websockets through Channels' communicator, from sync tests."""

from __future__ import annotations

import asyncio

from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

ORIGIN = b"http://testserver"


def run(scenario):
    """Runs an async scenario from a sync test (database calls go to this thread, as in the server)."""
    return async_to_sync(scenario)()


def session_cookie(user) -> str:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def open_socket(path: str, *, origin: bytes | None = ORIGIN, cookie: str | None = None, token: str | None = None):
    from freecell_site.asgi import application

    headers = []
    if origin is not None:
        headers.append((b"origin", origin))
    if cookie is not None:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    socket = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await socket.connect(timeout=10)
    assert connected, f"{path} refused the connection"
    if token is not None:
        await socket.send_json_to({"type": "auth", "token": token})
    return socket


async def next_of(socket, kind: str, timeout: float = 10.0) -> dict:
    """The next frame of a type, skipping others (heartbeats, pushes)."""
    while True:
        frame = await socket.receive_json_from(timeout=timeout)
        if frame["type"] == kind:
            return frame


async def nothing_more(socket, wait: float = 0.15) -> bool:
    return await socket.receive_nothing(timeout=wait)


def new_game(user, deal="ms:1", autoplay="none"):
    from games.play import services

    return services.create_game(player=user, deal=deal, autoplay=autoplay)


def tasks_asleep_on_a_timer() -> int:
    """How many tasks of the running loop wait, at the end of their chain of awaits, in asyncio.sleep."""

    def asleep(task) -> bool:
        awaited = task.get_coro()
        while awaited is not None:
            if getattr(awaited, "cr_code", None) is asyncio.sleep.__code__:
                return True
            awaited = getattr(awaited, "cr_await", None)
        return False

    return sum(1 for task in asyncio.all_tasks() if asleep(task))
