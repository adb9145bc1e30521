"""ndjson streams for tests: one held open on the ASGI application in this process, read line by line,
and one held open on a live server (a real HTTP connection)."""

from __future__ import annotations

import asyncio
import http.client
import json
import time

from channels.testing import ApplicationCommunicator


class Stream:
    """`GET <path>` on the project's ASGI application (freecell_site.asgi), held open; its lines are
    kept until a test asks for them. Must be used on the event loop the test's pushes go to."""

    def __init__(
        self, path: str, token: str | None = None, *, cookie: str | None = None, method: str = "GET"
    ):
        from freecell_site.asgi import application

        headers = [(b"host", b"testserver")]
        if token:
            headers.append((b"authorization", f"Token {token}".encode()))
        if cookie:
            headers.append((b"cookie", cookie.encode()))
        scope = {
            "type": "http",
            "http_version": "1.1",
            "method": method,
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "scheme": "http",
            "headers": headers,
            "client": ("127.0.0.1", 40000),
            "server": ("testserver", 80),
        }
        self.communicator = ApplicationCommunicator(application, scope)
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.buffer = b""
        self.ended = False

    async def open(self, timeout: float = 10) -> Stream:
        await self.communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
        start = await self.communicator.receive_output(timeout)
        assert start["type"] == "http.response.start", start
        self.status = start["status"]
        self.headers = {name.decode().lower(): value.decode() for name, value in start["headers"]}
        return self

    async def raw_line(self, timeout: float = 10) -> str:
        """The next line as sent (an empty string for a keepalive), without its newline."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while b"\n" not in self.buffer:
            assert not self.ended, f"the stream ended; left: {self.buffer!r}"
            message = await self.communicator.receive_output(max(0.01, deadline - loop.time()))
            self.buffer += message.get("body", b"")
            self.ended = not message.get("more_body", False)
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    async def line(self, timeout: float = 10) -> dict:
        """The next line that is not a keepalive, as JSON."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            text = await self.raw_line(max(0.01, deadline - loop.time()))
            if text:
                return json.loads(text)

    async def until(self, test, timeout: float = 10) -> dict:
        """The first line (not a keepalive) that passes `test`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            body = await self.line(max(0.01, deadline - loop.time()))
            if test(body):
                return body

    async def body(self, timeout: float = 10) -> dict:
        """The whole body of an answer that is not held open (an error), as JSON."""
        while not self.ended:
            message = await self.communicator.receive_output(timeout)
            self.buffer += message.get("body", b"")
            self.ended = not message.get("more_body", False)
        return json.loads(self.buffer)

    async def end(self, timeout: float = 10) -> None:
        """Reads to the stream's end (the server closed it)."""
        while not self.ended:
            message = await self.communicator.receive_output(timeout)
            self.buffer += message.get("body", b"")
            self.ended = not message.get("more_body", False)

    async def leave(self, timeout: float = 10) -> None:
        """The client goes away: the application must finish."""
        await self.communicator.send_input({"type": "http.disconnect"})
        await self.communicator.wait(timeout)


class LiveStream:
    """`GET <path>` held open on a live server (tests/support/servers.Server), read line by line."""

    def __init__(self, base: str, path: str, token: str | None = None, timeout: float = 10):
        host, port = base.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
        headers = {"Authorization": f"Token {token}"} if token else {}
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.status = self.response.status

    def line(self, timeout: float) -> dict:
        """The next line that is not a keepalive, within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no line within {timeout} s")
            self.connection.sock.settimeout(left)
            try:
                text = self.response.readline()
            except TimeoutError:
                raise AssertionError(f"no line within {timeout} s") from None
            assert text, "the stream ended"
            if text.strip():
                return json.loads(text)

    def close(self) -> None:
        self.connection.close()
