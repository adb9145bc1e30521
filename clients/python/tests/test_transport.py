"""Retries and the Authorization scheme against a scripted stand-in server (answers a live server does
not give on demand: a 503 with Retry-After, a 502, a server that reads only `Token`)."""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from freecell_client import ApiError, FreeCellClient


class Scripted:
    """Answers each request with the next (status, headers, body) of its script; keeps what it got."""

    def __init__(self, answer):
        self.seen: list[tuple[str, str, dict, bytes]] = []
        scripted = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def handle_one(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                scripted.seen.append((self.command, self.path, dict(self.headers), body))
                status, headers, payload = answer(len(scripted.seen), dict(self.headers))
                data = json.dumps(payload).encode()
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = handle_one

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def scripted():
    made: list[Scripted] = []

    def make(answer) -> Scripted:
        made.append(Scripted(answer))
        return made[-1]

    yield make
    for server in made:
        server.close()


def error(code: str, message: str = "refused") -> dict:
    return {"error": {"code": code, "message": message}}


def test_bearer_falls_back_to_token_on_a_server_that_reads_only_token(scripted):
    def answer(n, headers):
        if headers.get("Authorization", "").startswith("Token "):
            return 200, {}, {"username": "alice"}
        return 401, {}, error("not_authenticated", "Authentication credentials were not provided.")

    server = scripted(answer)
    client = FreeCellClient(server.url, "key")
    assert client.me() == {"username": "alice"}
    assert client.me() == {"username": "alice"}  # the scheme is kept: no second refusal
    assert [h["Authorization"] for _, _, h, _ in server.seen] == ["Bearer key", "Token key", "Token key"]


def test_a_bad_token_does_not_fall_back(scripted):
    server = scripted(lambda n, h: (401, {}, error("authentication_failed", "invalid token")))
    with pytest.raises(ApiError) as refused:
        FreeCellClient(server.url, "key").me()
    assert refused.value.code == "authentication_failed" and len(server.seen) == 1


def test_503_retry_after_is_waited_then_the_answer_comes(scripted):
    server = scripted(lambda n, h: (503, {"Retry-After": "2"}, error("hint_unavailable")) if n == 1 else (200, {}, {"move": "3a", "result": "solved"}))
    waits: list[float] = []
    hint = FreeCellClient(server.url, "key", sleep=waits.append).hint(1)
    assert hint.move == "3a" and waits == [2.0] and len(server.seen) == 2


def test_retries_are_bounded(scripted):
    server = scripted(lambda n, h: (429, {"Retry-After": "1"}, error("rate_limited")))
    waits: list[float] = []
    with pytest.raises(ApiError) as refused:
        FreeCellClient(server.url, "key", retries=2, sleep=waits.append).game(1)
    assert refused.value.status == 429 and waits == [1.0, 1.0] and len(server.seen) == 3


def test_a_move_is_resent_after_a_5xx_with_the_same_body_but_other_posts_are_not(scripted):
    server = scripted(lambda n, h: (502, {}, error("bad_gateway")) if n in (1, 3) else (200, {}, {"id": 1, "ply": 1, "repeated": True}))
    client = FreeCellClient(server.url, "key", sleep=lambda s: None)
    game = client.play_move(1, "3a", 0)
    assert game.repeated is True
    first, second = (json.loads(body) for _, _, _, body in server.seen[:2])
    assert first == second and first["client_id"] and first["move"] == "3a"
    with pytest.raises(ApiError) as refused:
        client.create_race("ms:1")  # not safe to send twice: raised, not resent
    assert refused.value.status == 502 and len(server.seen) == 3


def test_a_network_error_on_a_read_is_retried_and_then_reported(scripted):
    server = scripted(lambda n, h: (200, {}, {"ok": True}))
    url = server.url
    server.close()  # nothing listens there now
    waits: list[float] = []
    with pytest.raises(ApiError) as failed:
        FreeCellClient(url, retries=2, sleep=waits.append).ping()
    assert (failed.value.status, failed.value.code) == (0, "network_error") and len(waits) == 2
