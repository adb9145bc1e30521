"""HTTP through the server's ASGI entry (freecell_site.asgi): Django's WSGI handler in worker threads."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator, WebsocketCommunicator

from tests.support.players import token_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


async def http(method: str, path: str, *, body: dict | None = None, token: str | None = None, length: bool = True) -> dict:
    """One request; ``length=False`` leaves out Content-Length, as a chunked upload does."""
    from freecell_site.asgi import application

    data = json.dumps(body).encode() if body else b""
    headers = [(b"host", b"testserver"), (b"content-type", b"application/json")]
    if length:
        headers.append((b"content-length", str(len(data)).encode()))
    if token:
        headers.append((b"authorization", f"Token {token}".encode()))
    communicator = HttpCommunicator(application, method, path, body=data, headers=headers)
    return await communicator.get_response(timeout=10)


def test_a_request_through_the_asgi_entry_is_answered_by_django():
    response = async_to_sync(http)("GET", "/api/ping/")
    assert response["status"] == 200
    assert json.loads(response["body"]) == {"ok": True}
    missing = async_to_sync(http)("GET", "/api/no-such-thing/")
    assert missing["status"] == 404 and json.loads(missing["body"])["error"]["code"] == "not_found"


def test_a_move_posted_through_the_asgi_entry_reaches_a_socket_watcher_on_the_same_loop(alice):
    """The view runs in a worker thread; its push must reach the in-memory layer on the server's loop."""
    from freecell_site.asgi import application
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    token = token_of(alice)

    async def scenario():
        watcher = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=[(b"origin", b"http://testserver")])
        assert (await watcher.connect(timeout=10))[0]
        while (await watcher.receive_json_from(timeout=10))["type"] != "state":
            pass
        response = await http("POST", f"/api/games/{game.pk}/moves/", body={"move": "5a", "ply": 0}, token=token)
        assert response["status"] == 200, response
        while True:
            frame = await watcher.receive_json_from(timeout=10)
            if frame["type"] == "state":
                break
        await watcher.disconnect()
        return json.loads(response["body"]), frame

    answer, pushed = async_to_sync(scenario)()
    assert answer["ply"] == 1 and pushed["game"]["ply"] == 1 and pushed["game"]["version"] == answer["version"]


def test_a_streamed_export_comes_through_the_asgi_entry_whole(alice):
    from games.play import services

    for _ in range(3):
        game = services.create_game(player=alice, deal="ms:1", autoplay="none")
        services.resign(game_id=game.pk, user=alice)
    response = async_to_sync(http)("GET", "/api/users/alice/games/?format=ndjson", token=token_of(alice))
    assert response["status"] == 200
    lines = [json.loads(line) for line in response["body"].decode().splitlines() if line.strip()]
    assert len(lines) == 3


@pytest.mark.services
def test_the_cache_objects_of_a_process_share_their_redis_connections():
    """Django makes a cache object per request context; fifty of them, each used, must not each open a
    connection to Redis (a fresh TCP connection and handshake per request, before)."""
    import redis
    from django.conf import settings
    from django.core.cache.backends.base import InvalidCacheBackendError
    from django.utils.module_loading import import_string

    config = settings.CACHES["default"]
    if "redis" not in config["BACKEND"].lower():
        raise InvalidCacheBackendError("the services tests run with REDIS_URL")
    backend = import_string(config["BACKEND"])
    server = redis.Redis.from_url(config["LOCATION"])
    before = len(server.client_list())
    caches = [backend(config["LOCATION"], {"OPTIONS": config["OPTIONS"]}) for _ in range(50)]
    for index, cache in enumerate(caches):
        cache.set(f"shared-pool-{index}", index, timeout=5)
        assert cache.get(f"shared-pool-{index}") == index
    assert len(server.client_list()) - before <= 2


def test_a_body_sent_without_content_length_still_reaches_the_view(alice):
    """A chunked upload carries no Content-Length; WSGI would otherwise read an empty body."""
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    response = async_to_sync(http)("POST", f"/api/games/{game.pk}/moves/", body={"move": "5a", "ply": 0}, token=token_of(alice), length=False)
    assert response["status"] == 200, response
    assert json.loads(response["body"])["ply"] == 1


def test_an_oversized_body_without_content_length_is_refused_with_too_large(alice, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = async_to_sync(http)("POST", "/api/solutions/verify/", body={"deal": "ms:1", "moves": "5a " * 2000}, length=False)
    assert response["status"] == 413
    assert json.loads(response["body"])["error"]["code"] == "too_large"


class TestWSGIBridge:
    """freecell_site.wsgi_bridge at the ASGI level, with a small WSGI app of its own."""

    @staticmethod
    def run(app, body_parts: list[bytes], headers=()) -> list[dict]:
        from freecell_site.wsgi_bridge import WSGIBridge

        bridge = WSGIBridge(app, workers=2)
        scope = {"type": "http", "method": "POST", "path": "/x", "query_string": b"", "http_version": "1.1", "headers": list(headers)}
        incoming = [{"type": "http.request", "body": part, "more_body": i < len(body_parts) - 1} for i, part in enumerate(body_parts)]
        sent = []

        async def receive():
            return incoming.pop(0) if incoming else {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)

        async_to_sync(bridge)(scope, receive, send)
        return sent

    def test_an_ordinary_response_goes_out_whole_after_a_body_read_in_parts(self):
        seen = {}

        def app(environ, start_response):
            seen["length"] = environ["CONTENT_LENGTH"]
            seen["body"] = environ["wsgi.input"].read(int(environ["CONTENT_LENGTH"]))
            start_response("201 Created", [("Content-Type", "text/plain"), ("X-Thing", "1")])
            return [b"made ", b"it"]

        sent = self.run(app, [b"ab", b"cd", b"e"])
        assert seen == {"length": "5", "body": b"abcde"}
        assert sent == [
            {"type": "http.response.start", "status": 201, "headers": [(b"content-type", b"text/plain"), (b"x-thing", b"1")]},
            {"type": "http.response.body", "body": b"made it"},
        ]

    def test_a_streamed_response_goes_out_chunk_by_chunk_and_is_closed(self):
        closed = []

        class Stream:
            streaming = True

            def __iter__(self):
                yield from (b"one\n", b"", b"two\n")

            def close(self):
                closed.append(True)

        def app(environ, start_response):
            start_response("200 OK", [("Content-Type", "application/x-ndjson")])
            return Stream()

        sent = self.run(app, [b""])
        assert [(m["type"], m.get("body"), m.get("more_body")) for m in sent] == [
            ("http.response.start", None, None),
            ("http.response.body", b"one\n", True),
            ("http.response.body", b"two\n", True),
            ("http.response.body", b"", False),
        ]
        assert closed == [True]

    def test_a_client_that_leaves_before_its_body_is_read_runs_nothing(self):
        calls = []

        def app(environ, start_response):
            calls.append(environ)
            start_response("200 OK", [])
            return [b""]

        sent = self.run(app, [])  # the first receive says the client has gone
        assert calls == [] and sent == []
