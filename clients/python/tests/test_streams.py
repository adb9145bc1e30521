"""The stream iterator against a stand-in ndjson server (no live server needed): keepalive lines are
skipped, a dropped connection is opened again and resynced by its first line, and a finished game's
stream ends the iteration."""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from freecell_client import ApiError, FreeCellClient

# What each connection to the stand-in sends before it closes: the state first, as the server does.
CONNECTIONS = [
    [{"id": 1, "ply": 0, "status": "playing"}, None, {"id": 1, "ply": 1, "status": "playing"}],
    [{"id": 1, "ply": 1, "status": "playing"}, None, None, {"id": 1, "ply": 2, "status": "won"}],
]


class StandIn:
    def __init__(self, connections, status: int = 200):
        self.requests: list[dict] = []
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                stand_in.requests.append(dict(self.headers))
                index = len(stand_in.requests) - 1
                if status != 200:
                    body = json.dumps({"error": {"code": "not_found", "message": "no such endpoint"}}).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.end_headers()
                for line in connections[min(index, len(connections) - 1)]:
                    self.wfile.write(b"\n" if line is None else json.dumps(line).encode() + b"\n")
                    self.wfile.flush()
                self.close_connection = True  # dropped: no more lines on this connection

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def stand_in(request):
    server = StandIn(*request.param)
    yield server
    server.close()


@pytest.mark.parametrize("stand_in", [(CONNECTIONS,)], indirect=True)
def test_keepalives_skipped_drops_resynced_and_a_won_game_ends_the_stream(stand_in):
    waits: list[float] = []
    client = FreeCellClient(stand_in.url, token="secret", sleep=waits.append)
    lines = list(client.stream_game(1))
    assert [line["ply"] for line in lines] == [0, 1, 1, 2]
    assert len(stand_in.requests) == 2 and len(waits) == 1
    assert stand_in.requests[0]["Authorization"] == "Bearer secret"
    assert stand_in.requests[0]["Accept"] == "application/x-ndjson"


@pytest.mark.parametrize("stand_in", [([[{"type": "invite", "code": "ABC"}]],)], indirect=True)
def test_reconnects_are_bounded(stand_in):
    client = FreeCellClient(stand_in.url, sleep=lambda s: None)
    with pytest.raises(ApiError) as gave_up:
        list(client.stream_events(reconnects=2))
    assert gave_up.value.code == "network_error"
    assert len(stand_in.requests) == 3  # the first connection and two reconnects


@pytest.mark.parametrize("stand_in", [([], 404)], indirect=True)
def test_a_refused_stream_raises_at_once(stand_in):
    client = FreeCellClient(stand_in.url, sleep=lambda s: None)
    with pytest.raises(ApiError) as refused:
        next(client.stream_race("ABC"))
    assert (refused.value.status, refused.value.code) == (404, "not_found") and len(stand_in.requests) == 1


# The server's way (docs/streams.md, "The end"): the final state, then a last line {"type": "end"}, then the close.
ENDED = [
    [{"id": 1, "ply": 0, "status": "playing"}, None, {"id": 1, "ply": 1, "status": "won"}, {"type": "end", "game": 1, "status": "won"}],
]
RACE_ENDED = [
    [{"code": "ABC", "status": "running"}, {"code": "ABC", "status": "finished"}, {"type": "end", "race": "ABC", "status": "finished"}],
]


@pytest.mark.parametrize("stand_in", [(ENDED,)], indirect=True)
def test_a_game_stream_ends_at_the_end_line_without_yielding_it_or_reconnecting(stand_in):
    client = FreeCellClient(stand_in.url, sleep=lambda s: None)
    lines = list(client.stream_game(1))
    assert lines == [{"id": 1, "ply": 0, "status": "playing"}, {"id": 1, "ply": 1, "status": "won"}]
    assert len(stand_in.requests) == 1


@pytest.mark.parametrize("stand_in", [(RACE_ENDED,)], indirect=True)
def test_a_race_stream_ends_at_the_end_line(stand_in):
    client = FreeCellClient(stand_in.url, sleep=lambda s: None)
    assert [line["status"] for line in client.stream_race("ABC")] == ["running", "finished"]
    assert len(stand_in.requests) == 1


@pytest.mark.parametrize("stand_in", [([[{"type": "end", "race": "ABC"}, {"type": "race_started", "race": {}}]],)], indirect=True)
def test_the_events_stream_has_no_end_line(stand_in):
    client = FreeCellClient(stand_in.url, sleep=lambda s: None)
    first = next(client.stream_events())
    assert first == {"type": "end", "race": "ABC"}  # an event of that name would be an event, not the end
