"""The served AsyncAPI document names every socket, every frame the sockets take and send, and every close code."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import jsonschema
import pytest

from games.routing import websocket_urlpatterns
from games.sockets.base import Socket
from tests.support.openapi import strict

SOCKETS = Path(__file__).resolve().parents[1] / "games" / "sockets"

# A channel of the document whose socket is still to come (none now): every other channel must have
# its socket.
PENDING_CHANNELS: set[str] = set()


@pytest.fixture(scope="module")
def document():
    from django.test import Client

    answer = Client().get("/api/asyncapi.json")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/json"
    return answer.json()


def unnamed(path: str) -> str:
    return re.sub(r"\{[^}]+\}|<[^>]+>", "{}", path)


def routes() -> dict[str, type]:
    """Each socket's path (parameters unnamed) and its consumer class, from the server's own routes."""
    return {unnamed("/" + str(route.pattern)): route.callback.consumer_class for route in websocket_urlpatterns}


def types_of(document: dict, channel: dict, direction: str) -> set[str]:
    found = set()
    for message in channel[direction]["message"]["oneOf"]:
        name = message["$ref"].rsplit("/", 1)[1]
        found.add(document["components"]["messages"][name]["payload"]["properties"]["type"]["const"])
    return found


def dict_types(tree: ast.AST) -> set[str]:
    """The `type` of every dict literal in the code (channels' own events, such as `websocket.accept`,
    have a dot and are left out; a type named inside a message string is no frame and is not read)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "type" and isinstance(value, ast.Constant):
                    if isinstance(value.value, str) and "." not in value.value:
                        found.add(value.value)
    return found


def sent_types(consumer: type) -> set[str]:
    """The frame types a consumer's code sends: the dict literals with a `type` in the modules of its
    class and of the classes it builds on, plus `error` (send_error, close_with, the limits' refusals)."""
    found = {"error"}
    for klass in inspect.getmro(consumer):
        if klass.__module__.startswith("games."):
            found |= dict_types(ast.parse(inspect.getsource(inspect.getmodule(klass))))
    return found


def close_codes(tree: ast.AST) -> set[str]:
    """The close codes in the code: numbers given to close() or close_with(), and CLOSE_CODE constants."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("close", "close_with"):
            for arg in [*node.args, *(keyword.value for keyword in node.keywords)]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, int):
                    found.add(str(arg.value))
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "").endswith("CLOSE_CODE") for t in node.targets):
            if isinstance(node.value, ast.Constant):
                found.add(str(node.value.value))
    return found


def channel_for(document: dict, path: str) -> dict:
    matches = [c for p, c in document["channels"].items() if unnamed(p) == path]
    assert matches, f"the AsyncAPI document has no channel {path}"
    return matches[0]


def test_the_document_is_asyncapi_with_its_channels(document):
    assert document["asyncapi"].startswith(("2.6", "3."))
    assert document["info"]["title"] and document["info"]["description"]
    for heading in ("Origin", "auth", "version", "sync", "4401", "4429"):
        assert heading in document["info"]["description"], heading
    known = set(routes()) | PENDING_CHANNELS
    assert {unnamed(path) for path in document["channels"]} <= known, "a channel without its socket"


@pytest.mark.parametrize("path", sorted(routes()))
def test_every_frame_a_socket_takes_is_documented(document, path):
    consumer = routes()[path]
    assert issubclass(consumer, Socket)
    taken = set(consumer.frame_types)
    # Every frame type has its handler, so frame_types is the whole list of what the socket takes.
    assert all(callable(getattr(consumer, f"frame_{kind}", None)) for kind in taken)
    assert taken == types_of(document, channel_for(document, path), "publish")


@pytest.mark.parametrize("path", sorted(routes()))
def test_every_frame_a_socket_sends_is_documented(document, path):
    consumer = routes()[path]
    sent = sent_types(consumer)
    assert {"state", "ack", "error", "pong", "auth_ok", "heartbeat"} <= sent  # the scan finds what base.py sends
    if "move" not in consumer.frame_types:
        # base.py's game state and its answers to actions go out only from sockets that take actions
        # (a record board's socket inherits the code but never runs it).
        sent -= {"state", "ack"}
    documented = types_of(document, channel_for(document, path), "subscribe")
    assert sent <= documented, sent - documented


def test_the_scan_of_sent_frames_sees_a_new_frame(tmp_path):
    """sent_types reads the code: a consumer that sends a frame type of its own shows up in it."""
    from games.sockets.race import RaceConsumer

    assert "progress" in sent_types(RaceConsumer)
    assert "progress" not in sent_types(routes()["/ws/games/{}/"])


def test_every_close_code_of_the_sockets_is_documented(document):
    used = set().union(*(close_codes(ast.parse(path.read_text())) for path in SOCKETS.glob("*.py")))
    assert {"4401", "4404", "4408", "4429", "1011"} <= used
    assert used <= set(document["info"]["x-close-codes"]), used - set(document["info"]["x-close-codes"])
    for code in used:
        assert code in document["info"]["description"], code


def test_every_message_has_a_schema_and_examples_that_fit_it(document):
    components = document["components"]
    for name, message in components["messages"].items():
        assert message.get("summary") and message.get("examples"), name
        schema = {"components": strict(components), **strict(message["payload"])}
        for example in message["examples"]:
            jsonschema.validate(example["payload"], schema)


def test_a_frame_that_breaks_its_schema_is_refused(document):
    components = document["components"]
    schema = {"components": strict(components), **strict(components["messages"]["move"]["payload"])}
    jsonschema.validate({"type": "move", "move": "5a", "ply": 0}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"type": "move", "move": "5a"}, schema)  # no ply
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"type": "move", "move": "5a", "ply": 0, "extra": 1}, schema)


def test_every_page_footer_links_the_document(client, db):
    html = client.get("/").content.decode()
    footer = re.search(r'<footer class="site-footer">(.*?)</footer>', html, re.S)
    assert footer and 'href="/api/asyncapi.json"' in footer.group(1)
