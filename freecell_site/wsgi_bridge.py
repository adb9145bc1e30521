"""HTTP requests from the ASGI server to Django's WSGI handler, in worker threads, one hand-over each way.

Every view is synchronous (DRF, the ORM). a2wsgi's bridge, used before, blocks its worker thread on
the event loop for each step: reading the body, the status line, each chunk of the body and its end,
four or five trips between threads per request that cost a millisecond of a 3 ms request on our
machine (docs/performance.md). Here the loop reads the whole body first (the server has it already,
up to Django's size limit), a worker runs Django and hands back the whole response, and the loop
sends it. Streamed responses with a sync iterator (the NDJSON export, static files) send chunk by
chunk from the worker, waiting for each to be taken so that a slow client holds back the stream.

A streamed response with an async iterator (the held-open ndjson streams, games/streams/) is sent
from the loop: the worker runs the view's checks and gives the thread back, and the stream waits on
the loop, holding no thread, until it ends or the client leaves (which cancels it). A view knows it
may answer so by `ASYNC_BODIES` in its request's META; the test client and plain WSGI servers have
no such key.
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from contextlib import aclosing

from a2wsgi.wsgi import build_environ
from django.conf import settings

from freecell_site.errors import error_body

logger = logging.getLogger(__name__)

#: The WSGI environ key that tells a view the server sends an async iterator's chunks from its loop.
ASYNC_BODIES = "freecell.async_bodies"


class WSGIBridge:
    def __init__(self, app, workers: int):
        self.app = app
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="http")

    async def __call__(self, scope, receive, send):
        body = await self._read_body(receive, send)
        if body is None:
            return
        environ = build_environ(scope, io.BytesIO(body))
        environ["CONTENT_LENGTH"] = str(len(body))  # a chunked upload had none: WSGI reads exactly this many
        environ[ASYNC_BODIES] = True
        loop = asyncio.get_running_loop()
        run = contextvars.copy_context().run
        answer = await loop.run_in_executor(self.executor, run, self._respond, environ, loop, send)
        if answer is None:  # the worker sent a streamed response itself
            return
        start, content = answer
        await send(start)
        if isinstance(content, bytes):
            await send({"type": "http.response.body", "body": content})
        else:
            await self._send_async(content, receive, send)

    @staticmethod
    async def _send_async(response, receive, send) -> None:
        """Sends an async streamed response chunk by chunk until it ends or the client leaves (then
        the iterator is cancelled, and its `finally` runs)."""

        async def chunks():
            async with aclosing(aiter(response)) as content:
                async for chunk in content:
                    if chunk:
                        await send(_body(chunk, more=True))
            await send(_body(b"", more=False))

        async def client_leaves():
            while (await receive())["type"] != "http.disconnect":
                pass

        sending, leaving = asyncio.ensure_future(chunks()), asyncio.ensure_future(client_leaves())
        try:
            await asyncio.wait({sending, leaving}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (sending, leaving):
                task.cancel()
            try:
                await sending
            except asyncio.CancelledError:
                pass  # the client left, or the server is stopping
            except Exception:
                logger.exception("a streamed response failed")

    @staticmethod
    async def _read_body(receive, send) -> bytes | None:
        """The request's body, read on the loop; None if the client left or the body is too large
        (answered with 413 `too_large`)."""
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if limit is not None and size > limit:
                content = json.dumps(error_body("too_large", "the request body is too large")).encode()
                await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": content})
                return None
        return b"".join(chunks)

    def _respond(self, environ, loop, send):
        """Runs Django in a worker thread. Returns (start message, body) for an ordinary response and
        (start message, the response) for one streamed by an async iterator; sends one streamed by a
        sync iterator itself and returns None."""
        started = {}

        def start_response(status, headers, exc_info=None):
            started["message"] = {
                "type": "http.response.start",
                "status": int(status.split(" ", 1)[0]),
                "headers": [(name.lower().encode("latin1"), value.encode("latin1")) for name, value in headers],
            }
            return lambda chunk: send_now(_body(chunk, more=True))

        def send_now(message):
            """Sends from the worker thread and waits until the loop has taken it."""
            asyncio.run_coroutine_threadsafe(send(message), loop).result()

        response = self.app(environ, start_response)
        try:
            if not getattr(response, "streaming", False):
                return started["message"], b"".join(response)
            if getattr(response, "is_async", False):
                # Closed here as any other (Django's request_finished gives the worker's connection
                # back); the loop runs the iterator, which gets connections of its own.
                return started["message"], response
            send_now(started["message"])
            for chunk in response:
                if chunk:
                    send_now(_body(chunk, more=True))
            send_now(_body(b"", more=False))
            return None
        finally:
            getattr(response, "close", lambda: None)()


def _body(chunk: bytes, *, more: bool) -> dict:
    return {"type": "http.response.body", "body": chunk, "more_body": more}
