"""The sockets (docs/websocket.md): a game's, a race's and a deal's record board, each with the `auth`
frame, the `Origin` the server asks of non-browser clients, heartbeats answered, and a reconnect (a
resync) when the connection drops."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from urllib.parse import quote, urlencode, urlsplit

from freecell_client.errors import ApiError

#: Frames the iterator answers itself and does not yield.
QUIET = {"heartbeat", "pong"}


def socket_url(base_url: str, path: str) -> tuple[str, str]:
    """The `ws://` or `wss://` URL of `path` on the server, and the `Origin` to send: the site's own
    scheme, host and port, as its pages would."""
    parts = urlsplit(base_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}{path}", f"{parts.scheme}://{parts.netloc}"


#: Close codes after which opening the socket again cannot help: a bad query, signed out, no such thing.
FINAL_CLOSES = (4400, 4401, 4403, 4404)


class Socket:
    """One socket of the server at `path`: `async with` it, then `async for frame in it:` (dicts) or
    `await recv(timeout)`. It signs in with `token` (an `auth` frame) when one is given."""

    def __init__(self, base_url: str, path: str, token: str | None, *, reconnects: int = 5):
        self.path = path
        self.url, self.origin = socket_url(base_url, path)
        self.token = token
        self.reconnects = reconnects
        self.ws = None
        self.username: str | None = None
        self.closed = False

    async def connect(self) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        self.ws = await connect(self.url, origin=self.origin, open_timeout=10)
        if self.token:
            try:
                await self.send({"type": "auth", "token": self.token, "id": "auth"})
            except ConnectionClosed:
                pass  # refused at once (a bad query, no such thing): `recv` reads why and raises

    async def __aenter__(self) -> Socket:
        await self.connect()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def close(self) -> None:
        self.closed = True
        if self.ws is not None:
            await self.ws.close()

    async def send(self, frame: dict) -> None:
        await self.ws.send(json.dumps(frame))

    async def sync(self) -> None:
        await self.send({"type": "sync"})

    async def ping(self) -> None:
        await self.send({"type": "ping"})

    async def recv(self, timeout: float | None = None) -> dict:
        """The next frame worth a caller's attention; heartbeats are answered here. A dropped
        connection is opened again (its first frames are the full state). An `auth` refusal raises ApiError."""
        from websockets.exceptions import ConnectionClosed

        failures = 0
        while True:
            try:
                raw = await asyncio.wait_for(self.ws.recv(), timeout)
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd else None
                if self.closed or code in FINAL_CLOSES or failures >= self.reconnects:
                    raise ApiError(0, "socket_closed", f"socket {self.path} closed ({code})") from closed
                failures += 1
                await asyncio.sleep(min(5.0, 0.5 * 2 ** (failures - 1)))
                try:
                    await self.connect()
                except OSError:
                    continue
                continue
            frame = json.loads(raw)
            kind = frame.get("type")
            if kind == "heartbeat":
                await self.send({"type": "ping"})
            if kind in QUIET:
                continue
            if kind == "auth_ok":
                self.username = frame.get("username")
                continue
            if kind == "error" and frame.get("id") == "auth":
                raise ApiError(401, frame.get("code", "authentication_failed"), frame.get("message", ""), frame)
            return frame

    def __aiter__(self) -> AsyncIterator[dict]:
        return self.frames()

    async def frames(self) -> AsyncIterator[dict]:
        while True:
            try:
                yield await self.recv()
            except ApiError as error:
                if error.code == "socket_closed" and self.closed:
                    return
                raise


class PlaySocket(Socket):
    """A socket one plays on: `move`, `undo` and `resign` send frames, answered `ack` or `error`."""

    async def move(self, move: str, ply: int, client_id: str | None = None) -> str:
        client_id = client_id or uuid.uuid4().hex
        await self.send({"type": "move", "move": move, "ply": ply, "client_id": client_id})
        return client_id

    async def undo(self, ply: int, client_id: str | None = None) -> str:
        client_id = client_id or uuid.uuid4().hex
        await self.send({"type": "undo", "ply": ply, "client_id": client_id})
        return client_id

    async def resign(self) -> None:
        await self.send({"type": "resign"})


class GameSocket(PlaySocket):
    """`/ws/games/<id>/`: the game's `state` on connect and after every change; the player's `move`,
    `undo` and `resign` are answered `ack` (with the new game) or `error`."""

    def __init__(self, base_url: str, game_id: int, token: str | None, **options):
        super().__init__(base_url, f"/ws/games/{int(game_id)}/", token, **options)


class RaceSocket(PlaySocket):
    """`async with client.race_socket(code) as race:` then `async for frame in race:` (dicts: `race`,
    `progress`, the racer's own `state`, `ack`, `error`). `move`, `undo`, `resign` and `start` send frames."""

    def __init__(self, base_url: str, code: str, token: str | None, **options):
        super().__init__(base_url, f"/ws/races/{quote(code, safe='')}/", token, **options)

    async def start(self) -> None:
        await self.send({"type": "start"})


class RecordsSocket(Socket):
    """`/ws/deals/<deal>/records/`: a deal's record board, a `records` frame on connect and after every
    change (`record_fell` when the record was beaten); `autoplay` `none` or `safe`, `players` `people` or `bots`."""

    def __init__(self, base_url: str, deal: str, token: str | None, *, autoplay: str = "safe", players: str = "people", **options):
        query = urlencode({"autoplay": autoplay, "players": players})
        super().__init__(base_url, f"/ws/deals/{quote(deal, safe=':')}/records/?{query}", token, **options)
