"""Malformed board text, notation and deal ids through every entry point (the engine, REST moves, undo,
verify, deals, games and races, websocket moves, the deal/verify commands) get the spec's error codes,
never a server error. Garbage comes from hypothesis. (Schemathesis covers the schema-shaped fuzzing of
the whole API in tests/test_schema.py; random websocket frames are in tests/test_fuzz.py.)"""

from __future__ import annotations

import json
import re
import urllib.parse

import pytest
from asgiref.sync import async_to_sync
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import BadBoardText, BadNotation, Board, InvalidDeal, Move, parse_deal, verify
from games.engine.notation import parse_moves

FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
ENGINE = settings(max_examples=300, deadline=None)

# Strings near the notation (to reach deep into the parser) and far from it.
notation_alphabet = st.sampled_from(list("12345678abcdhvABCDHV09fx :-\t\n") + ["10", "\x00", "é", "٣", "１", "\u200b"])
notationish = st.lists(notation_alphabet, max_size=8).map("".join)
garbage = st.one_of(notationish, st.text(max_size=30), st.text(alphabet=st.characters(codec="utf-8"), max_size=30))
deal_alphabet = st.sampled_from(list("msedaily:0123456789-+ _xX") + ["٣", "\x00", "１", "e9", "99999999999999999999"])
dealish = st.one_of(
    st.lists(deal_alphabet, max_size=14).map("".join),
    st.integers(min_value=-(2**65), max_value=2**65).map(lambda n: f"ms:{n}"),
    st.integers(min_value=-(2**65), max_value=2**66).map(lambda n: f"seed:{n}"),
    st.dates().map(lambda d: f"daily:{d.isoformat()}"),
    st.text(max_size=20),
)


def board_text(deal: str = "ms:1") -> str:
    return Board.from_deal(deal).to_text()


def mutated_board_texts():
    """Board text of a real deal with one thing broken (or not): the common ways pasted text goes wrong."""
    base = board_text().splitlines()
    cards = [c for line in base for c in line.replace(":", " ").split()]

    def mutate(args):
        kind, i, token = args
        lines = list(base)
        row = i % len(lines)
        if kind == "drop_line":
            del lines[row]
        elif kind == "duplicate_line":
            lines.insert(row, lines[row])
        elif kind == "replace_card":
            card = cards[i % len(cards)]
            lines = [line.replace(card, token, 1) for line in lines]
        elif kind == "append_token":
            lines[row] += " " + token
        elif kind == "foundations":
            lines.append(f"Foundations: {token}")
        elif kind == "freecells":
            lines.append(f"Freecells: {token}")
        elif kind == "swap_lines":
            lines[row], lines[-1] = lines[-1], lines[row]
        elif kind == "nine_columns":
            lines.append(lines[row])
        return "\n".join(lines)

    token = st.one_of(
        st.sampled_from(["AH", "10D", "td", "1C", "KX", "ZZ", "-", "H-14", "H-K", "C-0 C-1", "S--1", "AS AS", "KH QS JH", "\x00"]),
        st.text(max_size=6),
    )
    kinds = st.sampled_from(["drop_line", "duplicate_line", "replace_card", "append_token", "foundations", "freecells", "swap_lines", "nine_columns"])
    return st.tuples(kinds, st.integers(min_value=0, max_value=200), token).map(mutate)


# --- the engine ------------------------------------------------------------------------------------


@ENGINE
@given(text=st.one_of(st.text(max_size=300), mutated_board_texts()))
def test_board_text_is_a_valid_position_or_bad_board_never_another_error(text):
    try:
        board = Board.from_text(text)
    except BadBoardText as exc:
        assert exc.code == "bad_board" and str(exc)
        return
    state = board.state()
    cards = [c for column in state["columns"] for c in column] + [c for c in state["cells"] if c]
    assert len(cards) == len(set(cards)) and len(cards) + sum(state["foundations"].values()) == 52
    assert Board.from_text(board.to_text()) == board


def test_board_text_that_is_not_a_string_is_bad_board():
    for value in (None, 42, b"AH", ["AH"], {"columns": []}):
        with pytest.raises(BadBoardText):
            Board.from_text(value)


@ENGINE
@given(text=garbage)
def test_a_move_string_parses_or_is_bad_notation(text):
    try:
        move = Move.parse(text)
    except BadNotation as exc:
        assert exc.code == "bad_notation"
        return
    assert Move.parse(str(move)) == move


@ENGINE
@given(text=st.lists(garbage, max_size=6).map(" ".join))
def test_a_line_parses_or_is_bad_notation(text):
    try:
        parse_moves(text)
    except BadNotation as exc:
        assert exc.code == "bad_notation"


@ENGINE
@given(text=dealish)
def test_a_deal_id_parses_or_is_invalid_deal(text):
    try:
        deal = parse_deal(text)
    except InvalidDeal as exc:
        assert exc.code == "invalid_deal"
        return
    assert parse_deal(str(deal)) == deal


@ENGINE
@given(line=st.lists(st.one_of(notationish, st.sampled_from(["1h", "5a", "a5", "57", "24v3", "ah"])), max_size=12).map(" ".join))
def test_verify_names_the_first_bad_move_and_never_raises(line):
    result = verify(Board.from_deal("ms:1"), line)
    if result.error is not None:
        assert result.error["code"] in ("bad_notation", "illegal_move")
        assert 0 <= result.error["index"] == result.moves
        assert not result.valid and not result.won
    else:
        assert result.valid


# --- REST ------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_throttles(settings):
    """Hypothesis sends more requests a minute than the API's throttles allow a person."""
    from rest_framework.throttling import SimpleRateThrottle

    rates = {k: "1000000/min" for k in settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    old = SimpleRateThrottle.THROTTLE_RATES
    SimpleRateThrottle.THROTTLE_RATES = rates
    yield
    SimpleRateThrottle.THROTTLE_RATES = old


def error_code(response) -> str | None:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    body = response.json()
    return body["error"]["code"] if "error" in body else None


ply_values = st.one_of(
    st.integers(min_value=-3, max_value=3),
    st.integers(min_value=2**31 - 2, max_value=2**64),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
)


@pytest.fixture
def game(alice):
    from games.play import services

    return services.create_game(player=alice, deal="ms:1", autoplay="none")


@pytest.mark.django_db
@FAST
@given(move=st.one_of(garbage, st.integers(), st.none(), st.lists(st.text(max_size=2), max_size=2)), ply=ply_values)
def test_rest_moves_with_garbage_get_the_spec_codes_and_change_nothing(alice_client, game, move, ply):
    before = alice_client.get(f"/api/games/{game.pk}/").json()
    answer = alice_client.post(f"/api/games/{game.pk}/moves/", {"move": move, "ply": ply}, format="json")
    assert answer.status_code in (200, 400, 409, 422), answer.content
    if answer.status_code == 200:
        assert answer.json()["ply"] == before["ply"] + 1
        return
    assert error_code(answer) in ("bad_notation", "illegal_move", "invalid_request", "ply_conflict")
    assert alice_client.get(f"/api/games/{game.pk}/").json()["version"] == before["version"]


@pytest.mark.django_db
@FAST
@given(ply=ply_values, extra=st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3))
def test_rest_undo_with_garbage_gets_the_spec_codes(alice_client, game, ply, extra):
    answer = alice_client.post(f"/api/games/{game.pk}/undo/", {**extra, "ply": ply}, format="json")
    assert answer.status_code in (400, 409, 422), answer.content
    assert error_code(answer) in ("illegal_move", "invalid_request", "ply_conflict")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body", ["[]", '"5a"', "42", "null", '{"move": ', "\x00", '{"move": "5a", "ply": NaN}', '{"move": "5a", "ply": -Infinity}', '{"move": "5a", "ply": 1e400}']
)
def test_a_move_body_that_is_not_an_object_is_a_json_400(alice_client, game, body):
    answer = alice_client.post(f"/api/games/{game.pk}/moves/", body, content_type="application/json")
    assert answer.status_code == 400 and error_code(answer) in ("invalid_request", "bad_request")


@pytest.mark.django_db
@pytest.mark.parametrize("body", ["[" * 5000 + "]" * 5000, '{"a":' * 5000 + "1" + "}" * 5000])
@pytest.mark.parametrize("path", ["/api/solutions/verify/", "/api/auth/token/"])
def test_json_nested_too_deeply_for_python_is_a_400_not_a_server_error(anon_client, body, path):
    anon_client.raise_request_exception = False
    answer = anon_client.post(path, body, content_type="application/json")
    assert (answer.status_code, error_code(answer)) == (400, "bad_request"), answer.content[:200]
    assert "nested too deeply" in answer.json()["error"]["message"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/solutions/verify/", '{"deal": "ms:1", "moves": "1a \\udfff"}'),  # echoed as the bad move
        ("/api/solutions/verify/", '{"deal": "ms:1", "moves": ["\\ud800"]}'),
        ("/api/solutions/verify/", '{"deal": "ms:1", "moves": "1a", "autoplay": "\\ud800"}'),  # echoed by the choice
        ("/api/games/", '{"deal": "ms:1", "autoplay": "\\ud800"}'),
        ("/api/races/", '{"autoplay": "\\ud800"}'),
    ],
)
def test_a_lone_surrogate_in_a_json_body_is_a_400_not_a_server_error(alice_client, path, body):
    alice_client.raise_request_exception = False
    answer = alice_client.post(path, body, content_type="application/json")
    assert (answer.status_code, error_code(answer)) == (400, "bad_request"), answer.content[:200]
    assert "surrogate" in answer.json()["error"]["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("method", ["post", "put", "delete"])
@pytest.mark.parametrize("path", ["/api/solutions/verify", "/api/auth/register", "/api/games/1/moves", "/api", "/api/nothing"])
def test_an_api_url_without_its_trailing_slash_is_a_json_404_that_names_the_url(anon_client, settings, debug, method, path):
    """Not Django's redirect (which turns a POST into a GET without its body) nor, in DEBUG, its 500."""
    settings.DEBUG = debug
    anon_client.raise_request_exception = False
    answer = getattr(anon_client, method)(path, {"deal": "ms:1", "moves": "5a"}, format="json")
    assert (answer.status_code, error_code(answer)) == (404, "not_found"), answer.content[:300]
    assert f"{path}/" in answer.json()["error"]["message"]


@pytest.mark.django_db
def test_a_get_of_an_api_url_without_its_slash_is_redirected_and_an_unknown_one_is_a_json_404(anon_client):
    assert anon_client.get("/api/daily").status_code == 301
    answer = anon_client.get("/api")
    assert answer.status_code in (301, 404)
    if answer.status_code == 404:
        assert error_code(answer) == "not_found"


@pytest.mark.django_db
@FAST
@given(deal=st.one_of(dealish, st.just("ms:1")), moves=st.one_of(st.lists(garbage, max_size=8).map(" ".join), st.integers(), st.none()),
       autoplay=st.sampled_from(["none", "safe", "SAFE", "", "all", None]))
def test_verify_with_garbage_answers_valid_or_names_the_error(anon_client, deal, moves, autoplay):
    answer = anon_client.post("/api/solutions/verify/", {"deal": deal, "moves": moves, "autoplay": autoplay}, format="json")
    assert answer.status_code in (200, 400, 403, 404), answer.content
    if answer.status_code == 200:
        body = answer.json()
        if not body["valid"]:
            assert body["error"]["code"] in ("bad_notation", "illegal_move")
    elif answer.status_code == 403:
        assert error_code(answer) == "forbidden" and "daily:" in deal.lower()  # a daily's deal while its day is on
    else:
        assert error_code(answer) in ("invalid_deal", "invalid_request", "not_found")


@pytest.mark.django_db
@FAST
@given(deal=dealish)
def test_a_garbage_deal_in_the_url_is_invalid_deal_or_not_found(anon_client, deal):
    answer = anon_client.get("/api/deals/" + urllib.parse.quote(deal, safe="") + "/")
    assert answer.status_code in (200, 400, 403, 404), answer.content
    if answer.status_code == 403:
        assert error_code(answer) == "forbidden" and "daily:" in deal.lower()  # a daily's deal while its day is on
    elif answer.status_code != 200:
        # A NUL character anywhere in a URL is refused before routing, as a bad request.
        assert error_code(answer) in (("bad_request",) if "\x00" in deal else ("invalid_deal", "not_found"))


@pytest.mark.django_db
@FAST
@given(deal=dealish, autoplay=st.sampled_from(["none", "safe", "x", None]))
def test_games_and_races_on_garbage_deals_are_refused_with_the_spec_codes(alice_client, deal, autoplay):
    for path in ("/api/games/", "/api/races/"):
        answer = alice_client.post(path, {"deal": deal, "autoplay": autoplay}, format="json")
        assert answer.status_code in (201, 400, 403, 404), (path, answer.content)
        if answer.status_code != 201:
            assert error_code(answer) in ("invalid_deal", "invalid_request", "forbidden", "not_found"), (path, answer.json())


# --- websocket moves -------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@FAST
@given(moves=st.lists(st.one_of(notationish, st.sampled_from(["5a", "a5", "24v3", "1h", "ah"])), min_size=1, max_size=6))
def test_websocket_moves_in_garbage_notation_get_bad_notation_or_illegal_move(alice, game, moves, settings):
    from channels.testing import WebsocketCommunicator

    from freecell_site.asgi import application
    from tests.support.players import token_of

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.WS_MOVE_BURST = 1000
    token = token_of(alice)

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=[(b"origin", b"http://testserver")])
        assert (await socket.connect(timeout=3))[0]
        await socket.send_json_to({"type": "auth", "token": token})
        ply, answers = None, []
        while ply is None:
            frame = await socket.receive_json_from(timeout=3)
            if frame["type"] == "state":
                ply = frame["game"]["ply"]
        for move in moves:
            await socket.send_json_to({"type": "move", "move": move, "ply": ply})
            while True:
                frame = await socket.receive_json_from(timeout=3)
                if frame["type"] in ("ack", "error"):
                    break
            if frame["type"] == "ack":
                ply = frame["ply"]
            answers.append(frame.get("code", "ack"))
        await socket.disconnect()
        return answers

    for code in async_to_sync(scenario)():
        assert code in ("ack", "bad_notation", "illegal_move", "bad_frame"), code


# --- management commands ---------------------------------------------------------------------------


@FAST
@given(deal=dealish)
def test_the_deal_command_prints_a_board_or_fails_with_the_code(deal, capsys, db):
    try:
        call_command("deal", "--", deal)  # "--": a deal may begin with "-", as on a command line
    except CommandError as exc:
        assert str(exc).startswith(("invalid_deal: ", "not_found: there is no daily")), str(exc)
        return
    assert Board.from_text(capsys.readouterr().out).cards_home() == 0


@FAST
@given(deal=st.one_of(dealish, st.just("ms:1")), moves=st.lists(garbage, max_size=8).map(" ".join))
def test_the_verify_command_answers_or_names_the_problem(deal, moves, capsys):
    try:
        call_command("verify", "--", deal, moves)
    except CommandError as exc:
        assert re.match(r"^(invalid_deal: |invalid: move \d+ \(.*\) is refused: (bad_notation|illegal_move): )", str(exc), re.S), str(exc)
        return
    assert capsys.readouterr().out.startswith("valid")


# --- NUL characters reach PostgreSQL, which refuses them (services: SQLite stores them) --------------


def url_routes(resolver=None, prefix=""):
    """Every URL route of the site, as its pattern text (`api/games/<int:game_id>/`)."""
    from django.urls import URLResolver, get_resolver

    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            yield from url_routes(pattern, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern)


def path_routes() -> list[tuple[str, str]]:
    """Every URL route with a text parameter, with that parameter set to 'a<NUL>b'."""
    routes = []
    for route in url_routes():
        if route.startswith("admin") or not re.search(r"<(str:)?\w+>", route):
            continue
        routes.append("/" + re.sub(r"<int:\w+>", "1", re.sub(r"<(str:)?\w+>", "a%00b", route)))
    return sorted(set(routes))


@pytest.mark.services
@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        p for p in path_routes()
    ],
)
def test_a_nul_character_in_a_url_parameter_is_never_a_server_error(alice, path):
    from tests.support.players import client_for

    client = client_for(alice)
    client.raise_request_exception = False
    for method in ("get", "post", "delete"):
        answer = getattr(client, method)(path)
        assert answer.status_code < 500, (method, path, answer.status_code)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "frame",
    [
        pytest.param({"type": "move", "move": "5a", "ply": 0, "client_id": "a\x00b", "id": 3}, id="client_id"),
        pytest.param({"type": "auth", "token": "a\x00b", "id": "t1"}, id="token"),
    ],
)
def test_a_nul_character_in_a_websocket_frame_is_refused_not_a_server_error(alice, game, frame, settings):
    from channels.testing import WebsocketCommunicator

    from freecell_site.asgi import application
    from tests.support.players import token_of

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    token = token_of(alice)

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=[(b"origin", b"http://testserver")])
        assert (await socket.connect(timeout=3))[0]
        await socket.send_json_to({"type": "auth", "token": token})
        while (await socket.receive_json_from(timeout=3))["type"] != "auth_ok":
            pass
        await socket.send_to(text_data=json.dumps(frame))
        while True:
            answer = await socket.receive_json_from(timeout=3)
            if answer["type"] in ("ack", "error"):
                break
        await socket.disconnect()
        return answer

    answer = async_to_sync(scenario)()
    assert answer["type"] == "error" and answer["code"] in ("bad_frame", "authentication_failed"), answer
    assert answer.get("id") == frame["id"], "the refusal must be paired with its frame by id"


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_nul_character_in_a_race_socket_code_is_not_found(alice, settings):
    from channels.testing import WebsocketCommunicator

    from freecell_site.asgi import application

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

    async def scenario():
        socket = WebsocketCommunicator(application, "/ws/races/AB\x00C/", headers=[(b"origin", b"http://testserver")])
        assert (await socket.connect(timeout=3))[0]
        answer = await socket.receive_json_from(timeout=3)
        await socket.disconnect()
        return answer

    answer = async_to_sync(scenario)()
    assert answer["code"] == "not_found", answer


# --- ids that name nothing, and formats an endpoint does not have ---------------------------------------


def int_routes() -> list[str]:
    """Every /api/ route with a number in it, with that number left as '{}'."""
    routes = {"/" + re.sub(r"<int:\w+>", "{}", r) for r in url_routes() if r.startswith("api/") and "<int:" in r}
    return sorted(routes)


def test_the_api_has_routes_with_ids_to_check():
    assert "/api/games/{}/" in int_routes()


@pytest.mark.django_db
@pytest.mark.parametrize("route", int_routes())
@pytest.mark.parametrize("number", [987654, 2**70])
def test_an_id_that_names_nothing_is_not_found_with_the_spec_code(alice, route, number):
    from tests.support.players import client_for

    client = client_for(alice)
    client.raise_request_exception = False
    for method in ("get", "post"):
        # a well-formed body, so that the id, not the body, is what is wrong
        answer = getattr(client, method)(route.format(number), {"move": "3a", "ply": 0}, format="json")
        if answer.status_code == 405:
            continue
        assert answer.status_code == 404, (method, route, answer.status_code, answer.content[:200])
        assert error_code(answer) == "not_found", (method, route, answer.json())
        assert answer.json()["error"]["message"], (method, route)


@pytest.mark.django_db
def test_an_unknown_format_is_a_400_that_names_the_formats(alice_client, game):
    answer = alice_client.get(f"/api/games/{game.pk}/history/?format=xml")
    assert answer.status_code == 400, answer.content[:200]
    assert error_code(answer) == "invalid_request"
    message = answer.json()["error"]["message"]
    assert "xml" in message and "text" in message and "json" in message, message
    assert alice_client.get(f"/api/games/{game.pk}/history/?format=text").status_code == 200


@pytest.mark.django_db
def test_a_format_named_in_the_url_wins_over_the_accept_header(alice_client, game):
    """Many HTTP clients send `Accept: application/json` on every request; ?format= says what they want."""
    assert alice_client.post(f"/api/games/{game.pk}/moves/", {"move": "5a", "ply": 0}, format="json").status_code == 200
    answer = alice_client.get(f"/api/games/{game.pk}/history/?format=text", HTTP_ACCEPT="application/json")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/plain") and answer.content == b"5a\n"
    # DRF's browsable HTML is never answered (freecell_site/negotiation.py): a 400 naming the formats.
    browsable = alice_client.get(f"/api/games/{game.pk}/history/?format=api")
    assert browsable.status_code == 400 and browsable["Content-Type"] == "application/json"
    assert alice_client.get(f"/api/games/{game.pk}/history/", HTTP_ACCEPT="text/csv").status_code == 406  # no format named


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/solutions/verify/", "/api/games/", "/api/auth/register/", "/api/races/"])
def test_a_form_with_more_fields_than_django_takes_is_a_400_not_a_server_error(alice_client, settings, path):
    from urllib.parse import urlencode

    alice_client.raise_request_exception = False
    body = urlencode([(f"f{i}", "x") for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 5)])
    answer = alice_client.post(path, body, content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 400, (path, answer.status_code, answer.content[:200])
    assert error_code(answer) == "bad_request"


@pytest.mark.django_db
def test_a_database_that_cannot_be_reached_is_a_503_to_retry_not_a_500(alice_client, game, monkeypatch):
    """Every pooled connection busy past the pool's timeout, or PostgreSQL restarting."""
    from django.db import OperationalError

    def unreachable(*args, **kwargs):
        raise OperationalError("couldn't get a connection after 10.00 sec")

    monkeypatch.setattr("games.play.views.visible_game", unreachable)
    alice_client.raise_request_exception = False
    answer = alice_client.get(f"/api/games/{game.pk}/")
    assert (answer.status_code, error_code(answer)) == (503, "unavailable"), answer.content[:200]
    assert answer.json()["error"]["retry_after"] == 2 and answer["Retry-After"] == "2"
