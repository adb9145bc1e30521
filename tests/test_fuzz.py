"""Websocket fuzzing: random, malformed, binary and huge frames and floods from one socket get error
frames, never crash a consumer, and never slow down another player's moves; move rate limits per socket
and per account hold across every entry point. (The REST API is fuzzed by schemathesis in
tests/test_schema.py; malformed board text and notation through every entry point are in
tests/test_bad_input.py.)"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.players import token_of
from tests.support.sockets import new_game

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parent.parent
ORIGIN = b"http://testserver"
FRAME_TYPES = ["auth", "ping", "sync", "move", "undo", "resign", "start", "fly", "", "MOVE"]
ANSWERS = {"ack", "error", "pong", "state", "auth_ok", "race", "progress"}  # progress: a push between answers
CODES = {
    "bad_frame", "too_large", "bad_notation", "illegal_move", "ply_conflict", "game_over", "forbidden", "not_found",
    "rate_limited", "authentication_failed", "invalid_request",
    # docs/races.md: e.g. "resign" (the owner cancels the open race) then "start" is race_over
    "race_not_started", "race_started", "race_full", "race_over",
}


@pytest.fixture(autouse=True)
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.WS_HEARTBEAT_S = 30
    settings.WS_IDLE_TIMEOUT_S = 60


def legal_line(deal: str, count: int) -> list[str]:
    """The first `count` moves of a line of legal moves (autoplay none)."""
    from games.engine import Board

    board, line = Board.from_deal(deal), []
    for _ in range(count):
        move = board.legal_moves()[-1]
        board.play(move)
        line.append(str(move))
    return line


async def open_socket(path: str, token: str | None = None) -> WebsocketCommunicator:
    from freecell_site.asgi import application

    socket = WebsocketCommunicator(application, path, headers=[(b"origin", ORIGIN)])
    connected, _ = await socket.connect(timeout=3)
    assert connected
    if token:
        await socket.send_json_to({"type": "auth", "token": token})
        await next_of(socket, "auth_ok")
    return socket


async def next_of(socket, *kinds: str, timeout: float = 3.0) -> dict:
    while True:
        frame = await socket.receive_json_from(timeout=timeout)
        if frame["type"] in kinds:
            return frame


async def send_raw(socket, kind: str, payload) -> None:
    """Any frame, empty ones too (WebsocketCommunicator.send_to refuses an empty text or binary frame)."""
    await socket.send_input({"type": "websocket.receive", "text" if kind == "text" else "bytes": payload})


async def answer_to(socket, timeout: float = 3.0) -> dict:
    """The next frame that answers something (heartbeats and pushes of others' changes skipped)."""
    while True:
        output = await socket.receive_output(timeout=timeout)
        assert output["type"] == "websocket.send", f"the socket was closed: {output}"
        frame = json.loads(output["text"])
        if frame["type"] != "heartbeat":
            return frame


# --- random frames ---------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
field_values = st.one_of(
    json_values,
    st.sampled_from(["5a", "1h", "ah", "24v3", "9z", "", "  ", "5a ", "\x00", "a" * 17, "0", "-1", "1e9"]),
    st.integers(min_value=-3, max_value=3),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=70),
)
frames_as_objects = st.fixed_dictionaries(
    {"type": st.sampled_from(FRAME_TYPES)},
    optional={
        "move": field_values,
        "ply": field_values,
        # NUL characters in a client_id or token reach PostgreSQL, which refuses them: that bug has its
        # own test in tests/test_bad_input.py, so it does not make this one fail at random.
        "client_id": field_values.filter(lambda v: not (isinstance(v, str) and "\x00" in v)),
        "id": field_values,
        "token": field_values.filter(lambda v: not (isinstance(v, str) and "\x00" in v)),
        "game": field_values,
        "moves": field_values,
        "status": field_values,
    },
)
frames = st.one_of(
    frames_as_objects.map(lambda f: ("text", json.dumps(f))),
    json_values.map(lambda v: ("text", json.dumps(v))),
    st.text(max_size=200).map(lambda t: ("text", t)),
    st.binary(max_size=200).map(lambda b: ("bytes", b)),
    st.integers(min_value=4097, max_value=200_000).map(lambda n: ("text", '{"type":"ping","pad":"' + "x" * n + '"}')),
    st.integers(min_value=1, max_value=5000).map(lambda n: ("text", "[" * n + "]" * n)),
)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(frames, min_size=1, max_size=25))
def test_every_random_frame_is_answered_once_without_a_server_error_and_the_socket_lives_on(alice, settings, batch):
    # Hundreds of frames from one account in seconds: the account's budget over all its sockets
    # (tests/test_socket_limits.py) would refuse them; this test is about each frame's answer.
    settings.WS_ACCOUNT_FRAME_BURST = settings.WS_ADDRESS_FRAME_BURST = 0
    settings.WS_OVERSIZED_FRAMES = 0  # nor is the close after a few frames over 4 KiB (tests/test_hostile.py)
    game = new_game(alice)
    token = token_of(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token)  # its state frame came before auth_ok
        for kind, payload in batch:
            await send_raw(socket, kind, payload)
            answer = await answer_to(socket)
            assert answer["type"] in ANSWERS, (payload[:200], answer)
            if answer["type"] == "error":
                assert answer["code"] in CODES, (payload[:200], answer)
        await socket.send_json_to({"type": "ping", "id": "last"})
        assert await answer_to(socket) == {"type": "pong", "id": "last"}, "a frame was answered more than once"
        await socket.disconnect()

    async_to_sync(scenario)()


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(frames, min_size=1, max_size=15))
def test_random_frames_on_a_race_socket_get_answers_and_never_a_server_error(alice, settings, batch):
    from games.races import services as races

    settings.WS_ACCOUNT_FRAME_BURST = settings.WS_ADDRESS_FRAME_BURST = 0  # as in the test above
    settings.WS_OVERSIZED_FRAMES = 0

    race = races.create_race(owner=alice, deal="ms:2")
    token = token_of(alice)

    async def scenario():
        socket = await open_socket(f"/ws/races/{race.code}/", token)
        await next_of(socket, "race")
        for kind, payload in batch:
            await send_raw(socket, kind, payload)
            answer = await answer_to(socket)
            assert answer["type"] in ANSWERS, (payload[:200], answer)
            if answer["type"] == "error":
                assert answer["code"] in CODES, (payload[:200], answer)
        await socket.send_json_to({"type": "ping", "id": "last"})
        assert (await next_of(socket, "pong"))["id"] == "last"
        await socket.disconnect()

    async_to_sync(scenario)()


# --- floods ----------------------------------------------------------------------------------------


def test_a_flood_from_one_socket_does_not_slow_another_players_moves(alice, charlie, settings):
    settings.WS_MOVE_BURST = 5
    settings.WS_MOVE_RATE = 1
    # The socket's own budgets at work: the account's (which closes a socket that floods past it,
    # tests/test_socket_limits.py) is off here.
    settings.WS_ACCOUNT_FRAME_BURST = 0
    mine, theirs = new_game(alice), new_game(charlie)
    alice_token, charlie_token = token_of(alice), token_of(charlie)
    line = legal_line("ms:1", 4)

    async def scenario():
        flooder = await open_socket(f"/ws/games/{theirs.pk}/", charlie_token)
        player = await open_socket(f"/ws/games/{mine.pk}/", alice_token)
        flood = (
            [{"type": "move", "move": "1h", "ply": 0}] * 200
            + [{"type": "sync"}] * 200
            + [{"type": "auth", "token": "x" * 40}] * 100
            + [{"type": "nonsense", "pad": "y" * 3000}] * 200
        )
        for frame in flood:  # all sent before the player's first move, none of their answers read yet
            await flooder.send_json_to(frame)
        await flooder.send_to(text_data="{" * 5000)
        await flooder.send_to(bytes_data=b"\xff" * 5000)
        waits = []
        for ply, move in enumerate(line):
            started = time.perf_counter()
            await player.send_json_to({"type": "move", "move": move, "ply": ply})
            ack = await next_of(player, "ack", "error", timeout=5)
            waits.append(time.perf_counter() - started)
            assert ack["type"] == "ack", ack
        codes = []
        for _ in range(len(flood) + 2):
            frame = await next_of(flooder, "error", "state", "auth_ok", "ack", timeout=10)
            codes.append(frame.get("code", frame["type"]))
        await player.disconnect()
        await flooder.disconnect()
        return waits, codes

    waits, codes = async_to_sync(scenario)()
    assert max(waits) < 1.0, f"the player's acks waited behind the flood: {waits}"
    assert codes.count("rate_limited") >= 190, "moves beyond the socket's burst are refused without a database call"
    assert codes.count("bad_frame") >= 201 and codes.count("too_large") >= 1
    assert "server_error" not in codes


def test_many_sockets_of_one_account_share_its_moves_per_second_with_rest(alice, settings, monkeypatch):
    from games.play import ratelimit
    from tests.support.players import client_for

    settings.ACTIONS_PER_SECOND = 4
    settings.WS_MOVE_BURST = 100
    monkeypatch.setattr(ratelimit, "time", type("FrozenClock", (), {"time": staticmethod(lambda: 1_700_000_000.5)}))
    games = [new_game(alice) for _ in range(3)]
    token = token_of(alice)
    rest = client_for(alice)

    async def scenario():
        sockets = [await open_socket(f"/ws/games/{g.pk}/", token) for g in games[:2]]
        answers = []
        for socket in sockets:
            for _ in range(3):
                await socket.send_json_to({"type": "move", "move": "5a", "ply": 0})
                answers.append(await next_of(socket, "ack", "error"))
        for socket in sockets:
            await socket.disconnect()
        return answers

    answers = async_to_sync(scenario)()
    rest_codes = [rest.post(f"/api/games/{games[2].pk}/moves/", {"move": "5a", "ply": 0}, format="json") for _ in range(2)]
    codes = [a.get("code", a["type"]) for a in answers] + [r.json().get("error", {}).get("code", "ok") for r in rest_codes]
    # Within one second the account gets 4 actions across both sockets and REST; every other is refused.
    assert len([c for c in codes if c != "rate_limited"]) == 4, codes
    assert codes.count("rate_limited") == 4
    assert [r.status_code for r in rest_codes] == [429, 429]


def test_a_socket_gets_moves_again_once_its_bucket_refills(alice, settings):
    settings.WS_MOVE_BURST = 2
    settings.WS_MOVE_RATE = 20
    game = new_game(alice)
    token = token_of(alice)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token)
        codes = []
        for _ in range(4):
            await socket.send_json_to({"type": "move", "move": "1h", "ply": 0})
            codes.append((await next_of(socket, "error"))["code"])
        error = codes[-1]
        await asyncio.sleep(0.2)  # 20 tokens a second: full again
        await socket.send_json_to({"type": "move", "move": "5a", "ply": 0})
        ack = await next_of(socket, "ack", "error")
        await socket.disconnect()
        return codes, error, ack

    codes, _error, ack = async_to_sync(scenario)()
    assert codes[:2] == ["illegal_move", "illegal_move"] and "rate_limited" in codes[2:]
    assert ack["type"] == "ack"


# --- against a real Daphne process -----------------------------------------------------------------


@pytest.fixture(scope="module")
def daphne_server(tmp_path_factory):
    """One Daphne process on SQLite and the in-memory layer, with two players and a game each; the tests
    of a real server share it (starting one takes seconds), each using what the other leaves alone."""
    tmp_path = tmp_path_factory.mktemp("daphne")
    sys.path.insert(0, str(ROOT))
    from bench._server import free_port

    env = {
        **os.environ,
        "SQLITE_PATH": str(tmp_path / "db.sqlite3"),
        "DATABASE_URL": "",
        "REDIS_URL": "",
        "DEBUG": "0",
        "SECURE_SSL_REDIRECT": "0",
        "SECRET_KEY": "fuzz-" + "x" * 50,
        "ALLOWED_HOSTS": "127.0.0.1",
        "LOG_LEVEL": "WARNING",
        "ACTIONS_PER_SECOND": "0",
        "FAIR_PLAY_REVIEW": "0",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    setup = (
        "import json; from accounts import services as a; from games.play import services as g\n"
        "out = []\n"
        "for name in ('fuzzer', 'player'):\n"
        "    user, token = a.register(username=name, password='fuzz password 123')\n"
        "    out.append([token.key, g.create_game(player=user, deal='ms:1', autoplay='none').pk])\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", setup], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    players = json.loads(done.stdout.strip().splitlines()[-1])
    port = free_port()
    log = open(tmp_path / "daphne.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "freecell_site.asgi:application"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    import urllib.request

    deadline = time.time() + 30
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/ping/", timeout=1)
            break
        except Exception:
            assert time.time() < deadline, "daphne did not start"
            time.sleep(0.2)
    yield port, players, proc, tmp_path / "daphne.log"
    proc.terminate()
    proc.wait(10)
    log.close()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_real_server_shrugs_off_huge_frames_and_floods_and_keeps_acking_others(daphne_server):
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    port, ((fuzz_token, fuzz_game), (token, game)), proc, log = daphne_server
    url = f"ws://127.0.0.1:{port}/ws/games/"
    origin = f"http://127.0.0.1:{port}"

    async def scenario():
        results = {}
        async with connect(url + f"{game}/", origin=origin) as player:
            await player.send(json.dumps({"type": "auth", "token": token}))
            # 1. A frame over Daphne's 1 MiB message limit: that connection is dropped, nothing else.
            try:
                async with connect(url + f"{fuzz_game}/", origin=origin, max_size=None) as big:
                    await big.send("x" * (2 * 1024 * 1024))
                    try:
                        while True:
                            await asyncio.wait_for(big.recv(), 5)
                    except Exception as exc:
                        results["huge"] = type(exc).__name__
            except ConnectionClosed as exc:  # the drop may also surface when the client closes its side
                results.setdefault("huge", type(exc).__name__)
            # 2. Just under it: answered too_large, the socket stays open.
            async with connect(url + f"{fuzz_game}/", origin=origin, max_size=None) as large:
                await large.send('{"type":"ping","pad":"' + "x" * (1024 * 1024 - 100) + '"}')
                answers = [json.loads(await asyncio.wait_for(large.recv(), 10)) for _ in range(2)]
                results["large"] = [a.get("code", a["type"]) for a in answers]
            # 3. A flood of 20,000 frames sent without reading an answer, while the player plays.
            # From another address: the limits per address (games/sockets/limits.py) are the flooder's.
            async with connect(url + f"{fuzz_game}/", origin=origin, max_size=None, local_addr=("127.0.0.2", 0)) as flooder:
                await flooder.send(json.dumps({"type": "auth", "token": fuzz_token}))
                garbage = [json.dumps({"type": "move", "move": "1h", "ply": 0}), "{nope", json.dumps({"type": "sync"}), "[]"]
                flood = asyncio.create_task(flood_with(flooder, garbage, 20_000))
                waits = []
                for ply, move in enumerate(legal_line("ms:1", 4)):
                    await asyncio.sleep(0.2)
                    started = time.perf_counter()
                    await player.send(json.dumps({"type": "move", "move": move, "ply": ply, "id": ply}))
                    while True:
                        frame = json.loads(await asyncio.wait_for(player.recv(), 10))
                        if frame.get("id") == ply and frame["type"] in ("ack", "error"):
                            break
                    assert frame["type"] == "ack", frame
                    waits.append(time.perf_counter() - started)
                await flood
                results["waits"] = waits
        return results

    results = asyncio.run(scenario())
    assert results["huge"] == "ConnectionClosedError", results
    assert "too_large" in results["large"], results
    # Generous: a liveness check (others are still answered during the flood), not a speed goal.
    assert max(results["waits"]) < 5, results
    assert proc.poll() is None, "the server died"
    assert "Traceback" not in log.read_text(errors="replace")


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_a_real_server_answers_a_malformed_form_upload_with_the_spec_error_shape(daphne_server):
    """Twisted parsed multipart bodies itself and answered one it could not parse with a bare 400 and a
    closed connection, before Django saw it (freecell_site/daphne_requests.py): no JSON, no code."""
    import http.client

    port, ((token, _game), _), proc, log = daphne_server
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    bodies = [
        ("multipart/form-data; boundary=c637e12e2b1a998d80d1b087531af51c", b"--c637e12e2b1a998d80d1b087531af51c--\r\n"),
        ("multipart/form-data; boundary=zz", b"garbage"),
        ("multipart/form-data", b"garbage"),
    ]
    answers = []
    for content_type, body in bodies:  # all on one connection: none of them may close it
        for path in ("/api/solutions/verify/", "/api/games/"):
            connection.request("POST", path, body, {"Content-Type": content_type, "Authorization": f"Token {token}"})
            response = connection.getresponse()
            answers.append((response.status, response.getheader("Content-Type"), json.loads(response.read())["error"]["code"]))
    assert all(status == 400 and kind == "application/json" for status, kind, _code in answers), answers
    assert {code for *_, code in answers} <= {"invalid_request", "bad_request", "invalid_deal"}, answers
    # A form body still reaches Django whole (Twisted no longer reads it first).
    connection.request("POST", "/api/solutions/verify/", b"deal=ms%3A1&moves=1h", {"Content-Type": "application/x-www-form-urlencoded"})
    answer = json.loads(connection.getresponse().read())
    assert answer["valid"] is False and answer["error"]["code"] == "illegal_move", answer
    assert proc.poll() is None and "Traceback" not in log.read_text(errors="replace")


async def flood_with(socket, frames: list[str], count: int) -> None:
    """Sends `count` frames without reading an answer, or until the server closes the socket for
    flooding past the limits of its address or account (4429)."""
    from websockets.exceptions import ConnectionClosed

    try:
        for i in range(count):
            await socket.send(frames[i % len(frames)])
    except ConnectionClosed:
        assert socket.close_code == 4429, socket.close_code
