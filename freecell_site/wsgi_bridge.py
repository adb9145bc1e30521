"""HTTP requests from the ASGI server to Django's WSGI handler, in worker threads, one hand-over each way.

Every view is synchronous (DRF, the ORM). a2wsgi's bridge, used before, blocks its worker thread on
the event loop for each step: reading the body, the status line, each chunk of the body and its end,
four or five trips between threads per request that cost a millisecond of a 3 ms request on our
machine (docs/performance.md). Here the loop reads the whole body first (the server has it already,
up to Django's size limit), a worker runs Django and hands back the whole response, and the loop
sends it. Only streamed responses (the NDJSON export, static files) send chunk by chunk from the
worker, waiting for each to be taken so that a slow client holds back the stream.
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import json
from concurrent.futures import ThreadPoolExecutor

from a2wsgi.wsgi import build_environ
from django.conf import settings

from freecell_site.errors import error_body


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
        loop = asyncio.get_running_loop()
        run = contextvars.copy_context().run
        answer = await loop.run_in_executor(self.executor, run, self._respond, environ, loop, send)
        if answer is not None:  # a whole response: the worker did not send it
            start, content = answer
            await send(start)
            await send({"type": "http.response.body", "body": content})

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
        """Runs Django in a worker thread. Returns (start message, body) for an ordinary response;
        sends a streamed one itself and returns None."""
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
