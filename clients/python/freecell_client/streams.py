"""The ndjson streams (`/api/stream/...`) as iterators of dicts, reconnecting after a dropped
connection: the first line of every connection is the full state, so a reconnect is a resync."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

from freecell_client.errors import ApiError
from freecell_client.transport import NETWORK_ERRORS, Answer, Transport, retry_after

#: Seconds without a line before the connection counts as dropped: the server sends an empty line
#: at least every 10 s.
READ_TIMEOUT = 30.0
#: Seconds a connection must last to count as steady (its drop then starts the count of reconnects again).
STEADY = 60.0


def follow(
    transport: Transport,
    path: str,
    *,
    over: Callable[[dict], bool] | None = None,
    reconnects: int = 5,
    read_timeout: float = READ_TIMEOUT,
) -> Iterator[dict]:
    """Yields each JSON line of the stream at `path`, skipping keepalive blank lines.

    A connection that drops (a network error, or the server closing it) is opened again, up to
    `reconnects` times in a row; a connection that brought a change after its first line, or lasted
    a minute, starts the count again (one that only resyncs and drops does not).

    A stream with an end (`over` given: a game's or a race's) ends the iterator at its last line
    `{"type": "end", ...}`, which the server sends once the game or race is over and which is not
    yielded; the line before it is the final state. A server that closes such a stream after a final
    state without an end line (`over` says which) ends it too."""
    failures = 0
    while True:
        try:
            response = transport.open("GET", path, accept="application/x-ndjson", timeout=read_timeout)
        except NETWORK_ERRORS as error:
            failures += 1
            if failures > reconnects:
                raise ApiError(0, "network_error", f"GET {path}: {error}") from error
            transport.retry.sleep(transport.retry.backoff_for(failures))
            continue
        if isinstance(response, Answer):
            if response.status == 401 and transport.falls_back(response):
                transport.scheme = "Token"  # a server that reads only `Token`
                continue
            failures += 1
            wait = retry_after(response) if response.status in (429, 503) else None
            if wait is None or failures > reconnects or wait > transport.retry.max_wait:
                raise ApiError.from_answer(response.status, response.body, response.text[:200])
            transport.retry.sleep(wait)
            continue
        last: dict | None = None
        opened = time.monotonic()
        read = 0
        try:
            with response:
                for raw in response:
                    line = raw.strip()
                    if not line:
                        continue  # keepalive
                    body = json.loads(line)
                    if over is not None and is_end(body):
                        return  # the last line: the server closes the stream after it
                    last = body
                    read += 1
                    yield last
        except NETWORK_ERRORS:
            pass  # dropped: reconnect below
        if read > 1 or time.monotonic() - opened > STEADY:
            failures = 0
        if last is not None and over is not None and over(last):
            return
        failures += 1
        if failures > reconnects:
            raise ApiError(0, "network_error", f"GET {path}: the stream kept closing")
        transport.retry.sleep(transport.retry.backoff_for(failures))


def is_end(line: dict) -> bool:
    """Whether a line is the end of a game's or a race's stream: `{"type": "end", ...}`."""
    return line.get("type") == "end"


def game_over(line: dict) -> bool:
    game = line.get("game", line) if isinstance(line.get("game"), dict) else line
    return game.get("status") not in (None, "playing")


def race_over(line: dict) -> bool:
    race = line.get("race", line) if isinstance(line.get("race"), dict) else line
    return race.get("status") == "finished"
