"""Personal access tokens: stored hashed, Bearer and Token, made, listed and revoked, scopes enforced on
REST and sockets, the old DRF tokens converted, and every API view declaring its scopes."""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib
from types import SimpleNamespace

import pytest
from channels.db import database_sync_to_async
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from rest_framework.test import APIClient, APIRequestFactory, force_authenticate
from rest_framework.views import APIView

from accounts import services
from accounts.models import AccessToken
from accounts.permissions import TokenScopes
from accounts.scopes import ACCOUNT, PLAY, RACE, READ, SCOPES
from accounts.tokens import digest, token_of_key, unexpired
from tests.support.players import client_for, code_of
from tests.support.sockets import new_game, next_of, open_socket, run
from tests.support.tokens import client_with, key_with


def session_of(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def make(client, name="my bot", scopes=(READ, PLAY)):
    return client.post("/api/tokens/", {"name": name, "scopes": list(scopes)}, format="json")


# --- storage --------------------------------------------------------------------------------------


def test_a_key_is_shown_once_and_only_its_digest_is_stored(alice):
    answer = make(session_of(alice), scopes=[PLAY, READ])
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert set(body) == {"id", "name", "scopes", "token", "created_at", "expires_at"}
    assert body["expires_at"] is None  # a personal access token holds until revoked
    assert body["name"] == "my bot" and body["scopes"] == [READ, PLAY]  # in the order of SCOPES
    key = body["token"]
    assert key.startswith("fco_") and len(key) >= 40
    row = AccessToken.objects.get(pk=body["id"])
    assert row.key_digest == hashlib.sha256(key.encode()).hexdigest()
    stored = [str(value) for value in AccessToken.objects.values_list("name", "scopes", "key_digest", "prefix").get(pk=row.pk)]
    assert not any(key in value for value in stored)
    assert len(row.prefix) < len(key) // 4  # too short to help a guesser
    listed = session_of(alice).get("/api/tokens/").json()
    assert all("token" not in entry and key not in str(entry) for entry in listed)


def test_the_list_shows_the_players_own_tokens_newest_first(alice, bob):
    make(session_of(alice), name="first")
    make(session_of(alice), name="second", scopes=[RACE])
    make(session_of(bob), name="bob's")
    listed = session_of(alice).get("/api/tokens/").json()
    names = [entry["name"] for entry in listed]
    assert names[:2] == ["second", "first"] and "bob's" not in names and "sign-up" in names
    assert set(listed[0]) == {"id", "name", "scopes", "created_at", "last_used_at", "expires_at"}
    assert listed[0]["scopes"] == [RACE] and listed[0]["last_used_at"] is None


@pytest.mark.parametrize(
    "body",
    [
        {"name": "x", "scopes": ["admin"]},
        {"name": "x", "scopes": []},
        {"name": "x", "scopes": "read"},
        {"name": "x", "scopes": [READ, READ]},
        {"name": "x", "scopes": [7]},
        {"name": "x", "scopes": [None]},
        {"name": "x", "scopes": [READ, None]},
        {"name": "x", "scopes": {"read": True}},
        {"name": "", "scopes": [READ]},
        {"name": "n" * 61, "scopes": [READ]},
        {"name": 7, "scopes": [READ]},
        {"scopes": [READ]},
        {"name": "x"},
    ],
)
def test_bad_names_and_scopes_are_refused_in_our_shape(alice, body):
    answer = session_of(alice).post("/api/tokens/", body, format="json")
    assert answer.status_code == 400 and code_of(answer) == "invalid_request", answer.content
    fields = answer.json()["error"]["fields"]
    assert all(isinstance(messages, list) and all(isinstance(m, str) for m in messages) for messages in fields.values()), fields
    assert not AccessToken.objects.filter(user=alice).exclude(name="sign-up").exists()


def test_tokens_are_made_by_a_session_or_a_token_with_the_account_scope(alice, anon_client):
    assert make(client_with(key_with(alice, ACCOUNT)), scopes=[ACCOUNT]).status_code == 201
    refused = make(client_with(key_with(alice, READ, PLAY, RACE)))
    assert refused.status_code == 403 and code_of(refused) == "missing_scope"
    assert anon_client.get("/api/tokens/").status_code == 401
    assert code_of(make(anon_client)) == "not_authenticated"


# --- the header ---------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["Bearer", "Token", "bearer"])
def test_bearer_and_token_both_sign_in(alice, scheme):
    assert client_with(key_with(alice, READ), scheme).get("/api/me/").json()["username"] == "alice"


@pytest.mark.parametrize("header", ["Bearer nonsense", "Token nonsense", "Bearer ", "Bearer a b", "Bearer fco_" + "x" * 43, "Bearer é"])
def test_a_bad_key_is_refused_as_authentication_failed(db, header):
    answer = APIClient(HTTP_AUTHORIZATION=header).get("/api/me/")
    assert answer.status_code == 401 and code_of(answer) == "authentication_failed", answer.content
    assert "not provided" not in answer.json()["error"]["message"]


def test_a_token_of_a_closed_account_is_refused(alice):
    key = key_with(alice, READ)
    alice.is_active = False
    alice.save()
    assert code_of(client_with(key).get("/api/me/")) == "authentication_failed"


def _fields(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields}


def test_the_lookup_finds_what_the_orm_finds_for_every_kind_of_token(alice, bob, charlie, django_assert_num_queries):
    """token_of_key's one statement (written for every database) against the ORM's own query with
    `unexpired()`: the same token and user, field by field, or none, in one query."""
    now = timezone.now()
    keys = {
        "for good": key_with(alice, READ, PLAY),
        "ends later": services.issue_token(alice, name="app", scopes=[READ], expires_at=now + dt.timedelta(hours=1)).key,
        "ended": services.issue_token(bob, name="old app", scopes=[READ], expires_at=now - dt.timedelta(seconds=1)).key,
        "closed account": key_with(charlie, READ),
        "revoked": key_with(bob, READ),
        "never made": "fco_" + "y" * 43,
    }
    AccessToken.objects.filter(key_digest=digest(keys["revoked"])).delete()
    type(charlie).objects.filter(pk=charlie.pk).update(is_active=False)
    found = {}
    for kind, key in keys.items():
        expected = AccessToken.objects.select_related("user").filter(unexpired(), key_digest=digest(key), user__is_active=True).first()
        with django_assert_num_queries(1):
            token = token_of_key(key)
            user = token.user if token is not None else None  # read with the token: no query of its own
        found[kind] = token is not None
        if expected is None:
            assert token is None, kind
        else:
            assert (_fields(token), _fields(user)) == (_fields(expected), _fields(expected.user)), kind
    assert found == {"for good": True, "ends later": True, "ended": False, "closed account": False, "revoked": False, "never made": False}


# --- last use -------------------------------------------------------------------------------------


def test_last_used_at_is_written_at_most_once_a_minute(alice):
    key = key_with(alice, READ)
    client = client_with(key)
    assert client.get("/api/me/").status_code == 200
    first = AccessToken.objects.get(prefix=key[:8]).last_used_at
    assert first is not None
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/api/me/").status_code == 200
    assert not [q for q in queries.captured_queries if "UPDATE" in q["sql"] and "accounts_accesstoken" in q["sql"]]
    assert AccessToken.objects.get(prefix=key[:8]).last_used_at == first
    AccessToken.objects.filter(prefix=key[:8]).update(last_used_at=first - dt.timedelta(minutes=2))
    assert client.get("/api/me/").status_code == 200
    assert AccessToken.objects.get(prefix=key[:8]).last_used_at > first - dt.timedelta(seconds=1)


# --- scopes on REST -------------------------------------------------------------------------------


def _race_code(user) -> str:
    return client_for(user).post("/api/races/", {"deal": "ms:1", "autoplay": "none"}, format="json").json()["code"]


# (the scope needed, method, URL, body): real endpoints, one or more per scope.
CASES = [
    (READ, "get", "/api/games/", None),
    (READ, "get", "/api/me/", None),
    (READ, "get", "/api/friends/", None),
    (PLAY, "post", "/api/games/", {"deal": "ms:1", "autoplay": "none"}),
    (PLAY, "post", "/api/games/{game}/moves/", {"move": "5a", "ply": 0}),
    (PLAY, "post", "/api/games/{game}/resign/", None),
    (RACE, "post", "/api/races/", {"deal": "ms:2", "autoplay": "none"}),
    (RACE, "post", "/api/races/{race}/join/", None),
    (ACCOUNT, "patch", "/api/me/", {"bio": "hello"}),
    (ACCOUNT, "post", "/api/friends/requests/", {"username": "bob"}),
    (ACCOUNT, "get", "/api/tokens/", None),
]


@pytest.mark.parametrize(("scope", "method", "url", "body"), CASES)
def test_each_scope_is_needed_for_its_endpoints_and_enough(alice, bob, scope, method, url, body):
    url = url.format(game=new_game(alice).pk, race=_race_code(bob))
    others = [s for s in SCOPES if s != scope]
    refused = getattr(client_with(key_with(alice, *others)), method)(url, body, format="json")
    assert refused.status_code == 403, refused.content
    assert refused.json() == {
        "error": {
            "code": "missing_scope",
            "message": refused.json()["error"]["message"],
            "scopes": [scope],
        }
    }
    assert f"`{scope}`" in refused.json()["error"]["message"]
    allowed = getattr(client_with(key_with(alice, scope)), method)(url, body, format="json")
    assert allowed.status_code < 300, (scope, url, allowed.content)


def test_a_refused_request_changes_nothing(alice):
    game = new_game(alice)
    refused = client_with(key_with(alice, READ)).post(f"/api/games/{game.pk}/moves/", {"move": "5a", "ply": 0}, format="json")
    assert code_of(refused) == "missing_scope"
    game.refresh_from_db()
    assert game.ply == 0


def test_public_reads_need_no_scope(alice):
    client = client_with(key_with(alice, RACE))
    assert client.get("/api/ping/").status_code == 200
    assert client.get("/api/deals/ms:1/").status_code == 200


def test_a_session_holds_every_scope(alice):
    client = session_of(alice)
    assert client.patch("/api/me/", {"bio": "hi"}, format="json").status_code == 200
    assert client.post("/api/games/", {"deal": "ms:1", "autoplay": "none"}, format="json").status_code == 201


class Undeclared(APIView):
    """A view that forgot its `scopes`."""

    def get(self, request):
        from rest_framework.response import Response

        return Response({"ok": True})

    post = get


@pytest.mark.parametrize(
    ("method", "scopes", "allowed"),
    [
        ("get", [PLAY, RACE, ACCOUNT], False),
        ("get", [READ], True),
        ("post", [READ, PLAY, RACE], False),
        ("post", list(SCOPES), True),
    ],
)
def test_a_view_without_scopes_fails_closed(alice, method, scopes, allowed):
    token = token_of_key(key_with(alice, *scopes))
    request = getattr(APIRequestFactory(), method)("/api/nothing/")
    force_authenticate(request, user=alice, token=token)
    answer = Undeclared.as_view()(request)
    assert (answer.status_code == 200) is allowed, answer.data


def _api_views(patterns=None, prefix=""):
    """(route, view class) of every DRF view the URLconf serves under /api/."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _api_views(entry.url_patterns, route)
        elif isinstance(entry, URLPattern) and route.startswith("api/") and hasattr(entry.callback, "cls"):
            yield route, entry.callback.cls, getattr(entry.callback, "initkwargs", {})


def test_every_api_view_declares_the_scope_of_each_method_it_allows():
    """So that no new view can forget: a view of ours under /api/ names a scope (or None: a public
    read) for every method it serves, and checks it (TokenScopes among its permissions). The schema and
    its docs pages are drf-spectacular's, public and the same for everyone."""
    checked = 0
    for route, view, initkwargs in _api_views():
        if not view.__module__.startswith(("accounts.", "games.", "frontend.", "freecell_site.")):
            continue
        instance = view(**initkwargs)
        methods = [m for m in instance.allowed_methods if m not in ("OPTIONS", "HEAD")]
        declared = getattr(view, "scopes", None)
        assert isinstance(declared, dict), f"{view.__qualname__} ({route}) declares no `scopes`"
        for method in methods:
            assert method in declared, f"{view.__qualname__} ({route}) declares no scope for {method}"
            assert declared[method] is None or declared[method] in SCOPES, (route, method, declared[method])
        assert set(declared) <= set(methods), f"{view.__qualname__} ({route}) declares methods it does not serve"
        assert TokenScopes in instance.permission_classes, f"{view.__qualname__} ({route}) does not check scopes (TokenScopes)"
        checked += 1
    assert checked >= 40


# --- revocation -----------------------------------------------------------------------------------


def test_a_revoked_token_gets_401_and_the_others_go_on(alice):
    page = session_of(alice)
    kept, revoked = make(page, name="kept").json(), make(page, name="gone").json()
    assert client_with(revoked["token"]).get("/api/me/").status_code == 200
    assert page.delete(f"/api/tokens/{revoked['id']}/").status_code == 204
    answer = client_with(revoked["token"]).get("/api/me/")
    assert answer.status_code == 401 and code_of(answer) == "authentication_failed"
    assert client_with(kept["token"]).get("/api/me/").status_code == 200
    assert revoked["id"] not in [entry["id"] for entry in page.get("/api/tokens/").json()]
    assert code_of(page.delete(f"/api/tokens/{revoked['id']}/")) == "not_found"


def test_another_players_token_is_not_found(alice, bob):
    theirs = make(session_of(bob)).json()
    answer = session_of(alice).delete(f"/api/tokens/{theirs['id']}/")
    assert answer.status_code == 404 and code_of(answer) == "not_found"
    assert client_with(theirs["token"]).get("/api/me/").status_code == 200


def test_the_token_past_max_tokens_is_refused_and_none_is_revoked(alice, monkeypatch):
    monkeypatch.setattr(services, "MAX_TOKENS", 3)
    AccessToken.objects.filter(user=alice).delete()
    keys = [key_with(alice, READ, ACCOUNT, name=f"t{i}") for i in range(3)]
    refused = make(client_with(keys[0]), name="one more", scopes=[READ])
    assert refused.status_code == 409 and code_of(refused) == "too_many_tokens", refused.content
    assert "revoke" in refused.json()["error"]["message"]
    assert sorted(AccessToken.objects.filter(user=alice).values_list("name", flat=True)) == ["t0", "t1", "t2"]
    assert all(client_with(key).get("/api/me/").status_code == 200 for key in keys)  # the token in use included
    assert session_of(alice).delete(f"/api/tokens/{AccessToken.objects.get(name='t2').pk}/").status_code == 204
    assert make(client_with(keys[0]), name="one more", scopes=[READ]).status_code == 201


def test_expired_tokens_do_not_count_against_the_limit(alice, monkeypatch):
    monkeypatch.setattr(services, "MAX_TOKENS", 2)
    AccessToken.objects.filter(user=alice).delete()
    key_with(alice, READ, name="old")
    key_with(alice, READ, name="older")
    AccessToken.objects.filter(user=alice).update(expires_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
    assert make(session_of(alice)).status_code == 201


@pytest.mark.parametrize(
    ("held", "asked", "allowed"),
    [
        ([ACCOUNT], [ACCOUNT], True),
        ([ACCOUNT, READ, PLAY], [READ, PLAY], True),
        ([ACCOUNT, READ], [READ, PLAY], False),
        ([ACCOUNT], [READ], False),
        (list(SCOPES), list(SCOPES), True),
    ],
)
def test_a_token_makes_only_tokens_within_its_own_scopes(alice, held, asked, allowed):
    answer = make(client_with(key_with(alice, *held)), name="child", scopes=asked)
    if allowed:
        assert answer.status_code == 201 and answer.json()["scopes"] == [s for s in SCOPES if s in asked]
    else:
        missing = [s for s in SCOPES if s in asked and s not in held]
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "missing_scope", answer.content
        assert answer.json()["error"]["scopes"] == missing
        assert not AccessToken.objects.filter(user=alice, name="child").exists()


def test_the_session_makes_tokens_of_any_scope(alice):
    assert make(session_of(alice), scopes=list(SCOPES)).status_code == 201


def test_password_sign_in_keeps_one_token_per_account(alice):
    """POST /api/auth/token/ answers a new key for the account's one password sign-in token: calls do
    not pile up tokens, and the key an earlier call answered stops working."""
    from tests.support.players import PASSWORD

    def sign_in():
        answer = APIClient().post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json")
        assert answer.status_code == 200, answer.content
        return answer.json()["token"]

    first, second = sign_in(), sign_in()
    assert first != second
    assert AccessToken.objects.filter(user=alice, name="password sign-in").count() == 1
    assert client_with(second).get("/api/me/").status_code == 200
    assert code_of(client_with(first).get("/api/me/")) == "authentication_failed"
    assert AccessToken.objects.filter(user=alice, name="sign-up").exists()  # other tokens stay


# --- sockets --------------------------------------------------------------------------------------


@pytest.fixture
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.RACE_COUNTDOWN_S = 0
    settings.WS_HEARTBEAT_S = 30


@pytest.mark.django_db(transaction=True)
def test_a_revoked_tokens_socket_is_closed(in_memory_layer, alice):
    game = new_game(alice)
    page = session_of(alice)
    made = make(page).json()

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=made["token"])
        await next_of(socket, "auth_ok")
        answer = await database_sync_to_async(page.delete)(f"/api/tokens/{made['id']}/")
        assert answer.status_code == 204
        error = await next_of(socket, "error")
        assert error["code"] == "authentication_failed", error
        assert await socket.receive_output(timeout=10) == {"type": "websocket.close", "code": 4401}

    run(scenario)


@pytest.mark.django_db(transaction=True)
def test_game_frames_need_the_play_scope(in_memory_layer, alice):
    game = new_game(alice)
    reader, player = key_with(alice, READ), key_with(alice, PLAY)

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=reader)
        await next_of(socket, "auth_ok")  # any scope signs in
        for frame in ({"type": "move", "move": "5a", "ply": 0, "id": 1}, {"type": "undo", "ply": 0, "id": 2}, {"type": "resign", "id": 3}):
            await socket.send_json_to(frame)
            error = await next_of(socket, "error")
            assert (error["code"], error["id"], error["scopes"]) == ("missing_scope", frame["id"], [PLAY]), error
            assert "`play`" in error["message"]
        await socket.send_json_to({"type": "sync", "id": 4})
        assert (await next_of(socket, "state"))["id"] == 4  # reads go on
        await socket.send_json_to({"type": "auth", "token": player})
        await next_of(socket, "auth_ok")
        await socket.send_json_to({"type": "move", "move": "5a", "ply": 0, "id": 5})
        assert (await next_of(socket, "ack"))["ply"] == 1
        await socket.disconnect()

    run(scenario)


@pytest.mark.django_db(transaction=True)
def test_race_frames_need_race_to_start_and_play_to_move(in_memory_layer, alice, bob):
    code = _race_code(alice)
    client_for(bob).post(f"/api/races/{code}/join/")
    player, racer = key_with(alice, PLAY), key_with(alice, RACE)

    async def scenario():
        socket = await open_socket(f"/ws/races/{code}/", token=player)
        await next_of(socket, "auth_ok")
        await socket.send_json_to({"type": "start", "id": "s"})
        error = await next_of(socket, "error")
        assert (error["code"], error["id"]) == ("missing_scope", "s") and "`race`" in error["message"]
        await socket.send_json_to({"type": "auth", "token": racer})
        await next_of(socket, "auth_ok")
        await socket.send_json_to({"type": "start", "id": "s2"})
        while True:  # the race starts (countdown 0) and deals alice her game
            frame = await next_of(socket, "race")
            if frame["race"]["status"] == "running":
                break
        await socket.send_json_to({"type": "move", "move": "5a", "ply": 0, "id": "m"})
        error = await next_of(socket, "error")
        assert (error["code"], error["id"]) == ("missing_scope", "m") and "`play`" in error["message"]
        await socket.disconnect()

    run(scenario)


# --- the old tokens -------------------------------------------------------------------------------


def test_the_migration_turns_an_old_drf_token_into_a_working_token_of_every_scope(alice):
    """What 0005 does to a database that had rest_framework.authtoken's table: the key its holder has
    keeps working, with every scope, and the plain key leaves the database."""
    from django.apps import apps

    migration = importlib.import_module("accounts.migrations.0005_access_tokens")
    old_key = "0123456789abcdef0123456789abcdef01234567"  # DRF's keys: 40 hex digits
    q = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {q('authtoken_token')} ({q('key')} varchar(40) PRIMARY KEY, created timestamp NOT NULL, user_id bigint NOT NULL)")
        cursor.execute(f"INSERT INTO {q('authtoken_token')} ({q('key')}, created, user_id) VALUES (%s, %s, %s)", [old_key, dt.datetime(2025, 1, 2, 3, 4, 5), alice.pk])
    migration.convert_old_tokens(apps, SimpleNamespace(connection=connection, quote_name=q))
    token = AccessToken.objects.get(user=alice, name=migration.OLD_TOKEN_NAME)
    assert token.scopes == list(SCOPES) and token.key_digest == hashlib.sha256(old_key.encode()).hexdigest()
    assert token.created_at.year == 2025
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {q('authtoken_token')}")
        assert cursor.fetchone()[0] == 0
    for scheme in ("Token", "Bearer"):
        assert client_with(old_key, scheme).patch("/api/me/", {"bio": "still here"}, format="json").status_code == 200


# --- the account page -----------------------------------------------------------------------------


def test_the_account_page_lists_makes_and_revokes_tokens_over_its_session(alice):
    """The page's markup, and the calls its script makes with the page's session (CSRF checked)."""
    page = Client(enforce_csrf_checks=True)
    page.force_login(alice)
    html = page.get("/account/").content.decode()
    for hook in ('id="tokens"', 'id="token-form"', 'id="token-list"', 'name="scopes"', "tokens.css", "account.js"):
        assert hook in html, hook
    for scope in SCOPES:
        assert f'value="{scope}"' in html
    csrf = {"HTTP_X_CSRFTOKEN": page.cookies["csrftoken"].value}
    body = {"name": "from the page", "scopes": [READ]}
    assert page.post("/api/tokens/", body, content_type="application/json").status_code == 403  # no CSRF token
    made = page.post("/api/tokens/", body, content_type="application/json", **csrf)
    assert made.status_code == 201
    listed = page.get("/api/tokens/").json()
    assert [entry["name"] for entry in listed][0] == "from the page"
    assert page.delete(f"/api/tokens/{made.json()['id']}/", **csrf).status_code == 204
    assert "from the page" not in [entry["name"] for entry in page.get("/api/tokens/").json()]


def test_a_sign_up_on_the_page_makes_no_token(db):
    from django.contrib.auth.models import User

    from tests.support.players import PASSWORD

    page = Client()
    assert page.post("/signup/", {"username": "zoe", "password": PASSWORD, "password2": PASSWORD}).status_code == 302
    assert not AccessToken.objects.filter(user=User.objects.get(username="zoe")).exists()


@pytest.mark.django_db(transaction=True)
def test_migrating_a_database_with_drf_tokens_keeps_their_keys_working(alice):
    """The real migration run: back before 0005, DRF's table with a token in it, then forward."""
    from django.db.migrations.executor import MigrationExecutor

    before = [("accounts", "0004_table_settings")]
    after = MigrationExecutor(connection).loader.graph.leaf_nodes("accounts")  # forward to the newest
    old_key = "fedcba9876543210fedcba9876543210fedcba98"
    q = connection.ops.quote_name
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE TABLE {q('authtoken_token')} ({q('key')} varchar(40) PRIMARY KEY, created timestamp NOT NULL, user_id bigint NOT NULL)")
            cursor.execute(f"INSERT INTO {q('authtoken_token')} ({q('key')}, created, user_id) VALUES (%s, %s, %s)", [old_key, dt.datetime(2025, 1, 2, 3, 4, 5), alice.pk])
        executor = MigrationExecutor(connection)  # the graph as it stands now
        executor.migrate(after)
        assert client_with(old_key, "Bearer").get("/api/me/").json()["username"] == "alice"
        assert AccessToken.objects.get(user=alice, name="API token").scopes == list(SCOPES)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT COUNT(*) FROM {q('authtoken_token')}")
            assert cursor.fetchone()[0] == 0
    finally:
        MigrationExecutor(connection).migrate(after)
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE IF EXISTS {q('authtoken_token')}")
