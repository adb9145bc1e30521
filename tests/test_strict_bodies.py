"""REST bodies are read as strictly as websocket frames (freecell_site/fields.py): an integer is a JSON
integer, a string a JSON string. Each request below is one an attacker (or a sloppy client) sends; each
is 400 invalid_request in the spec's shape, naming the field, and leaves nothing stored."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.players import PASSWORD, client_for, make_player

pytestmark = pytest.mark.django_db

# JSON values of every other type, written as raw JSON so nothing on the way can coerce them.
NOT_INTEGERS = ['"0"', "0.0", "1.0", "1e0", "0E0", "-0.0", "true", "false", '"1.0"', '" 0"', '"0x0"', "[0]", '{"n": 0}', '""']
NOT_STRINGS = ["12345678", "0", "1.5", "true", "false", '["5a"]', '{"m": "5a"}']


def post_raw(client, path: str, raw: str, method: str = "post"):
    return getattr(client, method)(path, data=raw.encode(), content_type="application/json")


def assert_refused(response, field: str) -> None:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    error = response.json()["error"]
    assert error["code"] == "invalid_request", error
    assert field in error["fields"], error
    assert error["message"].startswith(f"{field}:"), error


def game_row(game_id: int) -> tuple:
    from games.models import Action, Game

    game = Game.objects.get(pk=game_id)
    return game.ply, game.version, game.moves, Action.objects.filter(game_id=game_id).count()


@pytest.fixture
def mallory(db):
    return make_player("mallory")


@pytest.fixture
def game(mallory):
    from games.play import services

    return services.create_game(player=mallory, deal="ms:1", autoplay="none")


# --- moves and undos -------------------------------------------------------------------------------


@pytest.mark.parametrize("ply", NOT_INTEGERS)
def test_a_move_whose_ply_is_not_a_json_integer_is_refused_and_not_played(mallory, game, ply):
    before = game_row(game.pk)
    answer = post_raw(client_for(mallory), f"/api/games/{game.pk}/moves/", f'{{"move": "5a", "ply": {ply}}}')
    assert_refused(answer, "ply")
    assert game_row(game.pk) == before


@pytest.mark.parametrize("ply", NOT_INTEGERS)
def test_an_undo_whose_ply_is_not_a_json_integer_is_refused_and_not_applied(mallory, game, ply):
    player = client_for(mallory)
    assert post_raw(player, f"/api/games/{game.pk}/moves/", '{"move": "5a", "ply": 0}').status_code == 200
    before = game_row(game.pk)
    answer = post_raw(player, f"/api/games/{game.pk}/undo/", f'{{"ply": {ply.replace("0", "1")}}}')
    assert_refused(answer, "ply")
    assert game_row(game.pk) == before


@pytest.mark.parametrize("move", NOT_STRINGS)
def test_a_move_that_is_not_a_json_string_is_refused(mallory, game, move):
    before = game_row(game.pk)
    assert_refused(post_raw(client_for(mallory), f"/api/games/{game.pk}/moves/", f'{{"move": {move}, "ply": 0}}'), "move")
    assert game_row(game.pk) == before


@pytest.mark.parametrize("client_id", NOT_STRINGS)
def test_a_client_id_that_is_not_a_string_is_refused_rather_than_stored_as_one(mallory, game, client_id):
    """DRF stored 123 as "123": a resend with the string would then have matched the number."""
    from games.models import Action

    before = game_row(game.pk)
    answer = post_raw(client_for(mallory), f"/api/games/{game.pk}/moves/", f'{{"move": "5a", "ply": 0, "client_id": {client_id}}}')
    assert_refused(answer, "client_id")
    assert game_row(game.pk) == before and not Action.objects.filter(game=game).exists()


def test_the_same_move_with_a_json_integer_is_played(mallory, game):
    """The control: the refusals above are of the types, not of the move."""
    answer = post_raw(client_for(mallory), f"/api/games/{game.pk}/moves/", '{"move": "5a", "ply": 0, "client_id": "c1"}')
    assert answer.status_code == 200 and answer.json()["ply"] == 1
    undo = post_raw(client_for(mallory), f"/api/games/{game.pk}/undo/", '{"ply": 1}')
    assert undo.status_code == 200 and undo.json()["ply"] == 2


def test_a_huge_integer_or_a_huge_fraction_is_a_400_not_a_500(mallory, game):
    before = game_row(game.pk)
    for ply in ["1" + "0" * 40, "-1", "1e308", "1e999", "-1" + "0" * 400]:
        answer = post_raw(client_for(mallory), f"/api/games/{game.pk}/moves/", f'{{"move": "5a", "ply": {ply}}}')
        assert answer.status_code == 400, (ply, answer.status_code, answer.content[:200])
    assert game_row(game.pk) == before


# --- forms: only strings there, so a plain decimal and nothing looser ---------------------------


@pytest.mark.parametrize(("ply", "played"), [("0", True), ("1.0", False), ("0.0", False), (" 0", False), ("+0", False), ("0x0", False), ("", False), ("true", False)])
def test_a_form_body_takes_only_a_plain_decimal_ply(mallory, game, ply, played):
    before = game_row(game.pk)
    answer = client_for(mallory).post(f"/api/games/{game.pk}/moves/", {"move": "5a", "ply": ply})  # multipart
    if played:
        assert answer.status_code == 200, answer.content
        assert game_row(game.pk)[0] == 1
    else:
        assert_refused(answer, "ply")
        assert game_row(game.pk) == before


def test_a_file_uploaded_as_the_ply_is_refused(mallory, game):
    from django.core.files.uploadedfile import SimpleUploadedFile

    before = game_row(game.pk)
    answer = client_for(mallory).post(f"/api/games/{game.pk}/moves/", {"move": "5a", "ply": SimpleUploadedFile("ply", b"0")})
    assert_refused(answer, "ply")
    assert "a file" in answer.json()["error"]["message"]
    assert game_row(game.pk) == before


# --- games, verify ------------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "field"), [('{"deal": 1}', "deal"), ('{"deal": ["ms:1"]}', "deal"), ('{"deal": "ms:1", "autoplay": true}', "autoplay"), ('{"deal": "ms:1", "autoplay": 0}', "autoplay")])
def test_a_new_game_with_a_value_of_the_wrong_type_is_not_created(mallory, body, field):
    from games.models import Game

    assert_refused(post_raw(client_for(mallory), "/api/games/", body), field)
    assert not Game.objects.filter(player=mallory).exists()


@pytest.mark.parametrize(("body", "field"), [('{"deal": 1, "moves": "5a"}', "deal"), ('{"board": 7, "moves": "5a"}', "board"), ('{"deal": "ms:1", "moves": "5a", "autoplay": false}', "autoplay")])
def test_verify_refuses_values_of_the_wrong_type(db, body, field):
    from rest_framework.test import APIClient

    assert_refused(post_raw(APIClient(), "/api/solutions/verify/", body), field)


# --- accounts ------------------------------------------------------------------------------------


@pytest.mark.parametrize("username", NOT_STRINGS)
def test_a_username_that_is_not_a_json_string_does_not_register(db, username):
    from django.contrib.auth.models import User
    from rest_framework.test import APIClient

    answer = post_raw(APIClient(), "/api/auth/register/", f'{{"username": {username}, "password": "{PASSWORD}"}}')
    assert_refused(answer, "username")
    assert not User.objects.exists()


@pytest.mark.parametrize(("field", "value"), [("password", "1234567890123"), ("password", "true"), ("email", "5"), ("email", '["a@example.com"]')])
def test_a_sign_up_with_another_field_of_the_wrong_type_does_not_register(db, field, value):
    from django.contrib.auth.models import User
    from rest_framework.test import APIClient

    body = {"username": '"mallory2"', "password": f'"{PASSWORD}"', field: value}
    raw = "{" + ", ".join(f'"{k}": {v}' for k, v in body.items()) + "}"
    assert_refused(post_raw(APIClient(), "/api/auth/register/", raw), field)
    assert not User.objects.filter(username="mallory2").exists()


def test_a_login_with_a_numeric_username_is_refused_and_not_counted(mallory):
    from rest_framework.test import APIClient

    from accounts import throttle

    make_player("12345678")
    assert_refused(post_raw(APIClient(), "/api/auth/token/", f'{{"username": 12345678, "password": "{PASSWORD}"}}'), "username")
    assert_refused(post_raw(APIClient(), "/api/auth/login/", '{"username": "mallory", "password": 12345678}'), "password")
    assert throttle.failures("user:mallory") == 0


@pytest.mark.parametrize(("field", "value"), [("display_name", "12345"), ("bio", "true"), ("bio", '{"x": 1}'), ("email", "0")])
def test_a_profile_edit_of_the_wrong_type_changes_nothing(mallory, field, value):
    from accounts.models import Profile

    before = Profile.objects.filter(user=mallory).values().first()
    assert_refused(post_raw(client_for(mallory), "/api/me/", f'{{"{field}": {value}, "password": "{PASSWORD}"}}', method="patch"), field)
    assert Profile.objects.filter(user=mallory).values().first() == before
    mallory.refresh_from_db()
    assert mallory.email == ""


def test_password_change_reset_and_close_refuse_numbers(mallory):
    from rest_framework.test import APIClient

    player = client_for(mallory)
    assert_refused(post_raw(player, "/api/auth/password/change/", f'{{"old_password": "{PASSWORD}", "new_password": 123456789012}}'), "new_password")
    assert_refused(post_raw(player, "/api/me/close/", "{\"password\": 12345678}"), "password")
    assert_refused(post_raw(APIClient(), "/api/auth/password/reset/", '{"email": 42}'), "email")
    assert_refused(post_raw(APIClient(), "/api/auth/password/reset/confirm/", '{"uid": 1, "token": "x", "new_password": "a long new one 9"}'), "uid")
    mallory.refresh_from_db()
    assert mallory.is_active and mallory.check_password(PASSWORD)


def test_a_friend_request_to_a_number_is_refused(mallory):
    from accounts.models import Friendship

    make_player("12345")
    assert_refused(post_raw(client_for(mallory), "/api/friends/requests/", '{"username": 12345}'), "username")
    assert not Friendship.objects.exists()


# --- races ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "field"), [('{"time_limit_s": "60"}', "time_limit_s"), ('{"time_limit_s": 60.0}', "time_limit_s"), ('{"time_limit_s": true}', "time_limit_s"), ('{"deal": 5}', "deal"), ('{"autoplay": 1}', "autoplay")])
def test_a_race_with_a_value_of_the_wrong_type_is_not_created(mallory, body, field):
    from games.models import Race

    assert_refused(post_raw(client_for(mallory), "/api/races/", body), field)
    assert not Race.objects.exists()


@pytest.mark.parametrize("game_id", ['"1"', "1.0", "true"])
def test_a_ghost_race_on_a_game_id_that_is_not_an_integer_is_not_created(mallory, game, game_id):
    from games.models import Race

    assert_refused(post_raw(client_for(mallory), "/api/races/ghost/", f'{{"game": {game_id}}}'), "game")
    assert not Race.objects.exists()


def test_a_race_invite_to_a_number_is_refused(mallory):
    from games.models import RaceInvite
    from games.races import services as races

    race = races.create_race(owner=mallory, deal="ms:1")
    make_player("777")
    assert_refused(post_raw(client_for(mallory), f"/api/races/{race.code}/invite/", '{"username": 777}'), "username")
    assert not RaceInvite.objects.exists()


# --- every request field, every wrong type: a 400, never a 500 -----------------------------------

ENDPOINTS = [
    ("post", "/api/games/{game}/moves/", {"move": "5a", "ply": 0, "client_id": "x"}),
    ("post", "/api/games/{game}/undo/", {"ply": 1, "client_id": "x"}),
    ("post", "/api/games/", {"deal": "ms:2", "autoplay": "none"}),
    ("post", "/api/solutions/verify/", {"deal": "ms:1", "moves": "5a", "autoplay": "none"}),
    ("post", "/api/races/", {"deal": "ms:3", "autoplay": "safe", "time_limit_s": 60}),
    ("post", "/api/races/ghost/", {"game": 1, "time_limit_s": 60}),
    ("post", "/api/friends/requests/", {"username": "nobody"}),
    ("patch", "/api/me/", {"display_name": "M", "bio": "b", "email": "m@example.com", "password": PASSWORD}),
    ("post", "/api/auth/register/", {"username": "someone", "password": PASSWORD, "email": ""}),
    ("post", "/api/auth/token/", {"username": "someone", "password": "x"}),
    ("post", "/api/auth/password/change/", {"old_password": "x", "new_password": "y"}),
    ("post", "/api/auth/password/reset/confirm/", {"uid": "x", "token": "y", "new_password": "z"}),
]
WRONG = [True, False, 0, -1, 1.5, 1e300, "", "0", "1.0", [], [0], {}, {"a": 1}]


def test_every_field_of_every_body_refuses_every_wrong_type_with_a_400(mallory, game):
    """Each field of each endpoint's body, replaced in turn by a value of each JSON type: never a 500,
    and a value of the field's own type aside, always invalid_request naming the field."""
    from games.models import Action, Game, Race

    player = client_for(mallory)
    stored = (Game.objects.count(), Action.objects.count(), Race.objects.count())
    seen = 0
    for method, path, good in ENDPOINTS:
        for field, right in good.items():
            for wrong in WRONG:
                if type(wrong) is type(right) or (field == "moves" and isinstance(wrong, list)):
                    continue  # a value of the right type may well be taken (verify's moves may be a list)
                body = {**good, field: wrong}
                answer = post_raw(player, path.format(game=game.pk), json.dumps(body), method=method)
                assert answer.status_code < 500, (path, body, answer.content[:300])
                if answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_request":
                    seen += 1
                    assert field in answer.json()["error"].get("fields", {}), (path, body, answer.json())
                else:
                    raise AssertionError(f"{method} {path} took {field}={wrong!r}: {answer.status_code} {answer.content[:200]}")
    assert seen > 300
    assert (Game.objects.count(), Action.objects.count(), Race.objects.count()) == stored


# --- every request body, now and later -----------------------------------------------------------


def test_every_request_body_in_the_schema_is_read_by_strict_fields():
    """Each request body the API documents is read by a serializer whose writable fields take only
    their own JSON type: a new endpoint with DRF's lenient IntegerField or CharField fails here."""
    from drf_spectacular.generators import SchemaGenerator
    from rest_framework import serializers

    from freecell_site.fields import (
        StrictBooleanField,
        StrictChoiceListField,
        StrictIntegerField,
        StrictStringMixin,
    )
    from games.play.serializers import LineField

    def every_subclass(klass):
        for sub in klass.__subclasses__():
            yield sub
            yield from every_subclass(sub)

    schema = SchemaGenerator().get_schema(request=None, public=True)  # imports every view
    classes = {klass.__name__: klass for klass in every_subclass(serializers.Serializer)}
    components = {
        media["schema"]["$ref"].rsplit("/", 1)[1]
        for operations in schema["paths"].values()
        for operation in operations.values()
        if isinstance(operation, dict)
        for media in operation.get("requestBody", {}).get("content", {}).values()
        if "$ref" in media["schema"]
    }
    # A body that takes one of several forms (verify's deal or board) is each of its forms.
    for component in list(components):
        forms = schema["components"]["schemas"][component].get("oneOf")
        if forms:
            components.discard(component)
            components.update(form["$ref"].rsplit("/", 1)[1] for form in forms)
    assert len(components) >= 14, components

    def lenient(serializer, prefix="") -> list[str]:
        found = []
        for name, field in serializer.fields.items():
            if field.read_only:
                continue
            if isinstance(field, serializers.ListSerializer):
                field = field.child
            if isinstance(field, serializers.Serializer):
                found += lenient(field, f"{prefix}{name}.")
            elif getattr(field, "checked_by", None) is not None:  # an object read by a serializer of its own
                found += lenient(field.checked_by(), f"{prefix}{name}.")
            elif not isinstance(field, StrictStringMixin | StrictIntegerField | StrictBooleanField | StrictChoiceListField | LineField):
                found.append(f"{prefix}{name} ({type(field).__name__})")
        return found

    faults = {}
    for component in components:
        name = component.removeprefix("Patched").removesuffix("Request") + "Serializer"
        assert name in classes, f"no serializer class for the request body {component}"
        if found := lenient(classes[name]()):
            faults[name] = found
    assert not faults, f"request fields that coerce other JSON types (use freecell_site.fields): {faults}"


# --- random JSON ---------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(move=json_values | st.sampled_from(["5a", "1h", ""]), ply=json_values | st.sampled_from([0, 1, -1]), client_id=json_values)
def test_any_json_in_a_move_is_played_only_when_every_field_has_its_type(mallory, game, move, ply, client_id):
    """Random JSON in each field of a move: never a 500; played only with a string move, an integer
    ply (not a boolean) and a string client_id; otherwise nothing stored."""
    before = game_row(game.pk)
    answer = post_raw(client_for(mallory), f"/api/games/{game.pk}/moves/", json.dumps({"move": move, "ply": ply, "client_id": client_id}))
    assert answer.status_code < 500, answer.content[:300]
    typed = isinstance(move, str) and type(ply) is int and isinstance(client_id, str)
    if not typed:
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_request", (move, ply, client_id, answer.content[:200])
    if answer.status_code != 200:
        assert game_row(game.pk) == before
    else:
        assert typed and ply == before[0]
        post_raw(client_for(mallory), f"/api/games/{game.pk}/undo/", json.dumps({"ply": ply + 1}))
