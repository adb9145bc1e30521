"""Who may do what: an authorization matrix over every endpoint, page and socket for anonymous, owner,
friend, stranger and staff (enumerated from the OpenAPI schema and the URL resolver, so a new endpoint
without a row fails); CSRF on session writes; websocket origins; tokens never logged; login throttling;
no score or result taken from a client.

`check --deploy` in production settings is tested in tests/test_foundation.py (TestDeployCheck).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from rest_framework.authentication import SessionAuthentication
from rest_framework.test import APIClient

from tests.support.players import PASSWORD, befriend, client_for, make_player

ROLES = ["anonymous", "owner", "friend", "stranger", "staff"]
NEW_PASSWORD = "a brand new passphrase 77"


@pytest.fixture(autouse=True)
def _fast(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.RACE_COUNTDOWN_S = 0
    settings.WS_AUTH_TIMEOUT_S = 0.3
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


# --- the world every row acts on -----------------------------------------------------------------


class World:
    """alice (the owner) with: a casual game in play (one move made), today's ranked daily in play
    (hidden from others), a won casual game, an open race, a running race with bob and a finished race;
    bob her friend; charlie a stranger with a friend request pending to alice; dave, nobody's friend;
    staffer, staff."""

    def __init__(self):
        from games.daily import services as daily
        from games.play import services
        from games.races import services as races
        from games.races.selectors import get_race
        from tests.support.daily import make_test_daily, trivial_deal

        self.alice = make_player("alice")
        self.bob = make_player("bob")
        befriend(self.alice, self.bob)
        self.charlie = make_player("charlie")
        self.dave = make_player("dave")  # nobody's friend, for friend requests
        self.staff = make_player("staffer")
        self.staff.is_staff = True
        self.staff.save()
        from accounts import services as accounts

        accounts.request_friend(user=self.charlie, username="alice")
        self.token = accounts.issue_token(self.alice, name="a bot of alice's", scopes=["read"])
        self.alice.email = "alice@example.com"
        self.alice.save()

        self.today = daily.today()
        self.yesterday = self.today - dt.timedelta(days=1)
        make_test_daily(self.today)
        make_test_daily(self.yesterday)

        self.game = services.create_game(player=self.alice, deal="ms:1", autoplay="none")
        services.play_move(game_id=self.game.pk, user=self.alice, move=self.legal(self.game), ply=0)
        self.ranked, _ = daily.start_ranked_game(self.alice)
        won = services.create_game(player=self.alice, deal=trivial_deal(), autoplay="safe")
        self.won = services.play_move(game_id=won.pk, user=self.alice, move="1b", ply=0).game
        assert self.won.status == "won"

        self.open_race = races.create_race(owner=self.alice, deal="ms:5")
        races.join(code=self.open_race.code, user=self.bob)
        self.running_race = races.create_race(owner=self.alice, deal="ms:6")
        races.join(code=self.running_race.code, user=self.bob)
        races.start(code=self.running_race.code, user=self.alice)
        races.advance(self.running_race.code)
        self.finished_race = races.create_race(owner=self.alice, deal="ms:7")
        races.join(code=self.finished_race.code, user=self.bob)
        races.start(code=self.finished_race.code, user=self.alice)
        races.advance(self.finished_race.code)
        races.resign(code=self.finished_race.code, user=self.alice)
        races.resign(code=self.finished_race.code, user=self.bob)
        assert get_race(self.finished_race.code).status == "finished"
        from games.races import challenges

        self.challenge = challenges.send(user=self.alice, username="bob", deal="ms:8")  # open, alice to bob

    def legal(self, game) -> str:
        from games.play import services

        return str(services.board_of(type(game).objects.get(pk=game.pk)).legal_moves()[0])

    def user(self, role: str):
        return {"anonymous": None, "owner": self.alice, "friend": self.bob, "stranger": self.charlie, "staff": self.staff}[role]

    def client(self, role: str) -> APIClient:
        return client_for(self.user(role))


def row(url, expected, body=None):
    """One matrix row: the URL (a function of the world), the body (ditto), the status per role."""
    if isinstance(expected, int):
        expected = dict.fromkeys(ROLES, expected)
    elif isinstance(expected, tuple):  # (anonymous, owner, friend, stranger, staff)
        expected = dict(zip(ROLES, expected, strict=True))
    return {"url": url, "body": body, "expected": expected}


SIGNED_IN = (401, 200, 200, 200, 200)
CREATED = (401, 201, 201, 201, 201)
OWNER_ONLY = (401, 200, 403, 403, 403)

# Every operation of the OpenAPI schema. "owner" is the owner of the object in the URL (alice), or
# for an endpoint on one's own account, any signed-in player acting on their own.
API = {
    # accounts
    "POST /api/auth/register/": row(lambda w, r: "/api/auth/register/", 201, lambda w, r: {"username": f"new_{r}", "password": PASSWORD}),
    "POST /api/auth/token/": row(lambda w, r: "/api/auth/token/", 200, lambda w, r: {"username": "alice", "password": PASSWORD}),
    "POST /api/auth/login/": row(lambda w, r: "/api/auth/login/", 200, lambda w, r: {"username": "alice", "password": PASSWORD}),
    "POST /api/auth/logout/": row(lambda w, r: "/api/auth/logout/", 204),
    "POST /api/auth/password/change/": row(
        lambda w, r: "/api/auth/password/change/", (401, 200, 200, 200, 200), lambda w, r: {"old_password": PASSWORD, "new_password": NEW_PASSWORD}
    ),
    "POST /api/auth/password/reset/": row(lambda w, r: "/api/auth/password/reset/", 202, lambda w, r: {"email": "alice@example.com"}),
    "POST /api/auth/password/reset/confirm/": row(
        lambda w, r: "/api/auth/password/reset/confirm/", 400, lambda w, r: {"uid": "MQ", "token": "guess", "new_password": NEW_PASSWORD}
    ),
    "GET /api/me/": row(lambda w, r: "/api/me/", SIGNED_IN),
    "PATCH /api/me/": row(lambda w, r: "/api/me/", SIGNED_IN, lambda w, r: {"bio": "hello"}),
    "POST /api/me/close/": row(lambda w, r: "/api/me/close/", (401, 204, 204, 204, 204), lambda w, r: {"password": PASSWORD}),
    "GET /api/users/{username}/": row(lambda w, r: "/api/users/alice/", 200),
    "GET /api/users/{username}/games/": row(lambda w, r: "/api/users/alice/games/", 200),
    "GET /api/users/": row(lambda w, r: "/api/users/?q=al", 200),
    "GET /api/users/{username}/daily/": row(lambda w, r: "/api/users/alice/daily/", 200),
    "GET /api/friends/": row(lambda w, r: "/api/friends/", SIGNED_IN),
    "POST /api/friends/requests/": row(lambda w, r: "/api/friends/requests/", (401, 201, 201, 201, 201), lambda w, r: {"username": "dave"}),
    # charlie asked alice: only alice (the one asked) can answer
    "POST /api/friends/requests/{username}/accept/": row(lambda w, r: "/api/friends/requests/charlie/accept/", (401, 200, 404, 404, 404)),
    "POST /api/friends/requests/{username}/decline/": row(lambda w, r: "/api/friends/requests/charlie/decline/", (401, 200, 404, 404, 404)),
    # personal access tokens: one's own, made and listed; alice's revoked by her alone (others: not found)
    "GET /api/tokens/": row(lambda w, r: "/api/tokens/", SIGNED_IN),
    "POST /api/tokens/": row(lambda w, r: "/api/tokens/", CREATED, lambda w, r: {"name": "a script", "scopes": ["read", "play"]}),
    "DELETE /api/tokens/{token_id}/": row(lambda w, r: f"/api/tokens/{w.token.pk}/", (401, 204, 404, 404, 404)),
    # alice removes bob; nobody else has bob to remove but bob (who is not his own friend)
    "DELETE /api/friends/{username}/": row(lambda w, r: "/api/friends/bob/", (401, 204, 404, 404, 404)),
    # deals, games
    "GET /api/ping/": row(lambda w, r: "/api/ping/", 200),
    "GET /api/deals/{deal}/": row(lambda w, r: "/api/deals/ms:1/", 200),
    "GET /api/deals/{deal}/facts/": row(lambda w, r: f"/api/deals/daily:{w.yesterday}/facts/", 200),
    "POST /api/solutions/verify/": row(lambda w, r: "/api/solutions/verify/", 200, lambda w, r: {"deal": "ms:1", "moves": "5a"}),
    "GET /api/games/": row(lambda w, r: "/api/games/", SIGNED_IN),
    "POST /api/games/": row(lambda w, r: "/api/games/", CREATED, lambda w, r: {"deal": "ms:2"}),
    # today's ranked game of alice: hidden from everyone but her and staff until the day is over
    "GET /api/games/{game_id}/": row(lambda w, r: f"/api/games/{w.ranked.pk}/", (404, 200, 404, 404, 200)),
    "GET /api/games/{game_id}/history/": row(lambda w, r: f"/api/games/{w.ranked.pk}/history/", (404, 200, 404, 404, 200)),
    "GET /api/games/{game_id}/legal-moves/": row(lambda w, r: f"/api/games/{w.ranked.pk}/legal-moves/", (404, 200, 404, 404, 200)),
    "GET /api/games/{game_id}/hint/": row(lambda w, r: f"/api/games/{w.game.pk}/hint/", OWNER_ONLY),
    "POST /api/games/{game_id}/moves/": row(
        lambda w, r: f"/api/games/{w.game.pk}/moves/", OWNER_ONLY, lambda w, r: {"move": w.legal(w.game), "ply": 1}
    ),
    "POST /api/games/{game_id}/undo/": row(lambda w, r: f"/api/games/{w.game.pk}/undo/", OWNER_ONLY, lambda w, r: {"ply": 1}),
    "POST /api/games/{game_id}/resign/": row(lambda w, r: f"/api/games/{w.game.pk}/resign/", OWNER_ONLY),
    # the same deal again, for the game's player alone (games/play/restart.py)
    "POST /api/games/{game_id}/restart/": row(lambda w, r: f"/api/games/{w.game.pk}/restart/", (401, 201, 403, 403, 403)),
    # daily
    "GET /api/daily/": row(lambda w, r: "/api/daily/", 200),
    "POST /api/daily/play/": row(lambda w, r: "/api/daily/play/", (401, 200, 201, 201, 201)),
    "GET /api/daily/archive/": row(lambda w, r: "/api/daily/archive/", 200),
    "GET /api/daily/{date}/": row(lambda w, r: f"/api/daily/{w.yesterday}/", 200),
    "GET /api/daily/{date}/leaderboard/": row(lambda w, r: f"/api/daily/{w.today}/leaderboard/", 200),
    "GET /api/daily/{date}/histogram/": row(lambda w, r: f"/api/daily/{w.today}/histogram/", 200),
    # boards beyond the day: public; today's daily's record board only once the day is over
    "GET /api/deals/{deal}/records/": row(lambda w, r: f"/api/deals/daily:{w.today}/records/", 403),
    "GET /api/ladder/{month}/": row(lambda w, r: f"/api/ladder/{w.today.strftime('%Y-%m')}/", 200),
    "GET /api/ladder/streaks/": row(lambda w, r: "/api/ladder/streaks/", 200),
    # alice's daily of today is still being played: only she and staff may know it exists
    "GET /api/daily/{date}/share/": row(lambda w, r: f"/api/daily/{w.today}/share/?user=alice", (404, 409, 404, 404, 409)),
    # races
    "GET /api/races/": row(lambda w, r: "/api/races/", SIGNED_IN),
    "POST /api/races/": row(lambda w, r: "/api/races/", CREATED, lambda w, r: {"deal": "ms:3"}),
    "POST /api/races/ghost/": row(lambda w, r: "/api/races/ghost/", (401, 201, 201, 403, 403), lambda w, r: {"game": w.won.pk}),
    "GET /api/races/{code}/": row(lambda w, r: f"/api/races/{w.open_race.code}/", 200),
    "POST /api/races/{code}/join/": row(lambda w, r: f"/api/races/{w.open_race.code}/join/", SIGNED_IN),
    "POST /api/races/{code}/start/": row(lambda w, r: f"/api/races/{w.open_race.code}/start/", OWNER_ONLY),
    "POST /api/races/{code}/invite/": row(
        lambda w, r: f"/api/races/{w.open_race.code}/invite/", (401, 200, 403, 403, 403), lambda w, r: {"username": "bob"}
    ),
    # bob races too: racers may resign and ask for a rematch, nobody else
    "POST /api/races/{code}/resign/": row(lambda w, r: f"/api/races/{w.running_race.code}/resign/", (401, 200, 200, 403, 403)),
    "POST /api/races/{code}/rematch/": row(lambda w, r: f"/api/races/{w.finished_race.code}/rematch/", (401, 201, 201, 403, 403)),
    # quick play: no public race waits in the world, so each signed-in role opens one
    "POST /api/races/quick/": row(lambda w, r: "/api/races/quick/", CREATED),
    # challenges: alice's open one to bob is seen by the two alone; bob answers it, alice cancels it
    "GET /api/challenges/": row(lambda w, r: "/api/challenges/", SIGNED_IN),
    "POST /api/challenges/": row(lambda w, r: "/api/challenges/", CREATED, lambda w, r: {"username": "dave"}),
    "GET /api/challenges/{challenge_id}/": row(lambda w, r: f"/api/challenges/{w.challenge.pk}/", (401, 200, 200, 404, 404)),
    "POST /api/challenges/{challenge_id}/accept/": row(lambda w, r: f"/api/challenges/{w.challenge.pk}/accept/", (401, 403, 200, 404, 404)),
    "POST /api/challenges/{challenge_id}/decline/": row(lambda w, r: f"/api/challenges/{w.challenge.pk}/decline/", (401, 403, 200, 404, 404)),
    "POST /api/challenges/{challenge_id}/cancel/": row(lambda w, r: f"/api/challenges/{w.challenge.pk}/cancel/", (401, 200, 403, 404, 404)),
    # fair play: the policy is public; alice's won game is reported by others, its review read by her and
    # staff; verdicts, the queue and marks are staff's; alice has results, so she cannot become a bot
    "GET /api/fair-play/": row(lambda w, r: "/api/fair-play/", 200),
    "GET /api/fair-play/queue/": row(lambda w, r: "/api/fair-play/queue/", (401, 403, 403, 403, 200)),
    "POST /api/games/{game_id}/report/": row(lambda w, r: f"/api/games/{w.won.pk}/report/", (401, 400, 202, 202, 202), lambda w, r: {"reason": "too fast"}),
    "GET /api/games/{game_id}/review/": row(lambda w, r: f"/api/games/{w.won.pk}/review/", (401, 200, 404, 404, 200)),
    "POST /api/games/{game_id}/review/": row(
        lambda w, r: f"/api/games/{w.won.pk}/review/", (401, 403, 403, 403, 200), lambda w, r: {"verdict": "clear", "note": "fair"}
    ),
    "POST /api/account/bot/": row(lambda w, r: "/api/account/bot/", (401, 409, 200, 200, 200)),
    "POST /api/users/{username}/mark/": row(lambda w, r: "/api/users/alice/mark/", (401, 403, 403, 403, 200), lambda w, r: {"note": "engine"}),
    "DELETE /api/users/{username}/mark/": row(lambda w, r: "/api/users/alice/mark/", (401, 403, 403, 403, 200)),
    # streams (under the test client, WSGI: their first lines, then the end): who sees what as REST
    "GET /api/stream/games/{game_id}/": row(lambda w, r: f"/api/stream/games/{w.ranked.pk}/", (404, 200, 404, 404, 200)),
    "GET /api/stream/races/{code}/": row(lambda w, r: f"/api/stream/races/{w.open_race.code}/", 200),
    "GET /api/stream/events/": row(lambda w, r: "/api/stream/events/", SIGNED_IN),
}

# Every page (and other non-API route) of the resolver, by route, with GET.
PAGES = {
    "": row(lambda w, r: "/", 200),
    "favicon.ico": row(lambda w, r: "/favicon.ico", 200),
    "healthz": row(lambda w, r: "/healthz", 200),
    "api/schema/": row(lambda w, r: "/api/schema/", 200),
    "api/docs/": row(lambda w, r: "/api/docs/", 200),
    "api/asyncapi.json": row(lambda w, r: "/api/asyncapi.json", 200),
    "developers/": row(lambda w, r: "/developers/", 200),
    "developers/docs/": row(lambda w, r: "/developers/docs/", 200),
    "developers/docs/<str:name>/": row(lambda w, r: "/developers/docs/streams/", 200),
    # OAuth (docs/tokens.md): an app's request with no client is refused; a visitor signs in first. The
    # token endpoint takes a POST only.
    "oauth/authorize/": row(lambda w, r: "/oauth/authorize/", (302, 400, 400, 400, 400)),
    "oauth/token/": row(lambda w, r: "/oauth/token/", 405),
    "leaderboards/": row(lambda w, r: "/leaderboards/", 200),
    # Signed in, there is nothing to do there: on to `next` or the home page.
    "signup/": row(lambda w, r: "/signup/", (200, 302, 302, 302, 302)),
    "login/": row(lambda w, r: "/login/", (200, 302, 302, 302, 302)),
    "logout/": row(lambda w, r: "/logout/", 200),
    "reset/": row(lambda w, r: "/reset/", 200),
    "reset/<str:uid>/<str:token>/": row(lambda w, r: "/reset/MQ/guess/", 400),
    "play/": row(lambda w, r: "/play/?deal=ms:2", 302),
    "play/<str:deal>/": row(lambda w, r: "/play/ms:2/", 200),  # the start page, for anyone (docs/frontend.md, open play): a GET deals nothing
    "games/<int:game_id>/": row(lambda w, r: f"/games/{w.ranked.pk}/", (404, 200, 404, 404, 200)),
    "replay/<int:game_id>/": row(lambda w, r: f"/replay/{w.ranked.pk}/", (404, 200, 404, 404, 200)),
    "daily/": row(lambda w, r: "/daily/", 200),  # the ranked table for a player; a visitor is invited to sign up
    "account/": row(lambda w, r: "/account/", (302, 200, 200, 200, 200)),  # one's own settings
    "daily/<str:date>/": row(lambda w, r: f"/daily/{w.yesterday}/", 200),
    # A shared result: alice's ranked game is still being played, which only those who may see it learn.
    "daily/<str:date>/result/<str:username>/": row(lambda w, r: f"/daily/{w.today}/result/alice/", (404, 409, 404, 404, 409)),
    "daily/<str:date>/result/<str:username>/picture.svg": row(
        lambda w, r: f"/daily/{w.today}/result/alice/picture.svg", (404, 409, 404, 404, 409)
    ),
    "races/": row(lambda w, r: "/races/", 302),  # the no-script form's target: on to the race page
    "races/<str:code>/": row(lambda w, r: f"/races/{w.open_race.code}/", 200),
    "challenges/": row(lambda w, r: "/challenges/", (302, 200, 200, 200, 200)),  # a player's own
    "u/<str:username>/": row(lambda w, r: "/u/alice/", 200),
    # The moderators' pages: staff only, not even named to others (the site's 404).
    "staff/reviews/": row(lambda w, r: "/staff/reviews/", (404, 404, 404, 404, 200)),
    "staff/reviews/<int:game_id>/": row(lambda w, r: f"/staff/reviews/{w.won.pk}/", (404, 404, 404, 404, 200)),
    "admin/": row(lambda w, r: "/admin/", (302, 302, 302, 302, 200)),
    "admin/login/": row(lambda w, r: "/admin/login/", (200, 200, 200, 200, 302)),  # staff: on to the admin
}


def schema_operations() -> set[str]:
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    return {f"{method.upper()} {path}" for path, ops in paths.items() for method in ops if method in ("get", "post", "put", "patch", "delete")}


def resolver_routes() -> set[str]:
    def walk(resolver, prefix=""):
        for pattern in resolver.url_patterns:
            if isinstance(pattern, URLResolver):
                if str(pattern.pattern) == "admin/":
                    yield "admin/"
                    continue
                yield from walk(pattern, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern)

    return set(walk(get_resolver()))


def api_route(operation: str) -> str:
    """`POST /api/games/{game_id}/moves/` as the resolver's route `api/games/<int:game_id>/moves/`."""
    path = operation.split(" ", 1)[1]
    return resolve(re.sub(r"\{\w+\}", "1", path)).route


def test_every_api_operation_has_a_row_in_the_matrix():
    assert schema_operations() == set(API), "add the new endpoint to API (or remove the old row)"


def test_every_route_of_the_resolver_is_in_the_schema_or_has_a_page_row():
    api_routes = {api_route(op) for op in API}
    missing = {route for route in resolver_routes() if route not in api_routes and route not in PAGES}
    assert not missing, f"routes without a matrix row: {sorted(missing)}"


def call(client: APIClient, method: str, url: str, body) -> int:
    response = getattr(client, method.lower())(url, body, format="json") if body is not None else getattr(client, method.lower())(url)
    return response


def as_each_role(world: World, attempt) -> list:
    """Runs `attempt(role)` for every role on the same world, each undone afterwards (a savepoint
    rolled back, the throttle counters cleared), and lists the answers that differ from the matrix."""
    from django.core.cache import cache
    from django.db import transaction

    wrong = []
    for role in ROLES:
        cache.clear()
        with transaction.atomic():
            problem = attempt(role)
            transaction.set_rollback(True)
        if problem:
            wrong.append(problem)
    return wrong


@pytest.fixture(scope="class")
def world(django_db_setup, django_db_blocker):
    """One World for a class of tests, in a transaction of its own that each test's savepoint sits in and
    that is rolled back after the class."""
    from django.db import transaction
    from django.test.utils import override_settings

    # The settings the function-scoped fixtures (`_fast` above, conftest's) give each test.
    fast = override_settings(
        CHANNEL_LAYERS={"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}},
        RACE_COUNTDOWN_S=0,
        WS_AUTH_TIMEOUT_S=0.3,
        EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
        ACTIONS_PER_SECOND=0,
    )
    with fast, django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            world = World()
        except BaseException:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            raise
    yield world
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        outer.__exit__(None, None, None)


class TestTheMatrix:
    """Every row acts on one world, built once for the class: each role's attempt is rolled back
    (as_each_role) and each test runs in a savepoint of the world's transaction, so every attempt still
    meets the world as built."""

    @pytest.mark.django_db
    @pytest.mark.parametrize("operation", sorted(API))
    def test_who_may_call_each_api_endpoint(self, operation, world):
        spec = API[operation]
        method = operation.split(" ")[0]

        def attempt(role):
            body = spec["body"](world, role) if spec["body"] else None
            response = call(world.client(role), method, spec["url"](world, role), body)
            if response.status_code != spec["expected"][role]:
                return (role, response.status_code, response.content[:200])
            if response.status_code >= 400 and "error" not in response.json():
                return (role, "not the error shape", response.content[:200])
            return None

        assert as_each_role(world, attempt) == [], f"{operation}: expected {spec['expected']}"

    @pytest.mark.django_db
    @pytest.mark.parametrize("route", sorted(PAGES))
    def test_who_may_open_each_page(self, route, world):
        def attempt(role):
            client = APIClient()
            if world.user(role) is not None:
                client.force_login(world.user(role))
            response = client.get(PAGES[route]["url"](world, role))
            return (role, response.status_code) if response.status_code != PAGES[route]["expected"][role] else None

        assert as_each_role(world, attempt) == [], f"{route}: expected {PAGES[route]['expected']}"


@pytest.mark.django_db
def test_a_ranked_game_of_today_stays_hidden_on_every_read_until_the_day_is_over():
    from games.models import Game
    from games.play import services

    world = World()
    for path in (f"/api/games/{world.ranked.pk}/", f"/api/games/{world.ranked.pk}/history/", f"/api/games/{world.ranked.pk}/history/?format=text"):
        assert world.client("friend").get(path).status_code == 404
    # Nor does playing it tell a stranger that it exists; staff, who may see it, may not play it.
    for action, body in (("moves", {"move": "1a", "ply": 0}), ("undo", {"ply": 0}), ("resign", {})):
        for role, expected in (("friend", 404), ("stranger", 404), ("staff", 403)):
            response = world.client(role).post(f"/api/games/{world.ranked.pk}/{action}/", body, format="json")
            assert (response.status_code, response.json()["error"]["code"]) == (expected, {404: "not_found", 403: "forbidden"}[expected]), (action, role)
    # Resigning one's own ranked game of today is not enough (a second account would do it at once).
    dailies = __import__("games.daily.services", fromlist=["x"])
    resigned, _ = dailies.start_ranked_game(world.charlie)
    services.resign(game_id=resigned.pk, user=world.charlie)
    assert world.client("stranger").get(f"/api/games/{world.ranked.pk}/history/?format=text").status_code == 404
    # Nor is winning it: a throwaway account that won would hand the leader's line to the main one.
    game, _ = dailies.start_ranked_game(world.bob)
    services.play_move(game_id=game.pk, user=world.bob, move="1b", ply=0)
    assert Game.objects.get(pk=game.pk).status == Game.Status.WON
    assert world.client("friend").get(f"/api/games/{world.ranked.pk}/").status_code == 404
    exported = world.client("stranger").get("/api/users/alice/games/").json()["results"]
    assert world.ranked.pk not in [g["id"] for g in exported]


@pytest.mark.django_db
def test_the_games_list_shows_only_the_callers_own_games():
    world = World()
    for role in ("friend", "stranger", "staff"):
        listed = world.client(role).get("/api/games/").json()
        assert all(game["player"] == world.user(role).username for game in listed["results"]), role
    mine = {game["id"] for game in world.client("owner").get("/api/games/").json()["results"]}
    assert {world.game.pk, world.ranked.pk, world.won.pk} <= mine


# --- sockets -------------------------------------------------------------------------------------


def websocket_routes() -> set[str]:
    from games.routing import websocket_urlpatterns

    return {str(p.pattern) for p in websocket_urlpatterns}


SOCKETS = {
    # watching today's ranked game: only its player and staff get its state
    "ws/games/<int:game_id>/": {"anonymous": "closed", "owner": "state", "friend": "closed", "stranger": "closed", "staff": "state"},
    # starting alice's open race over its socket: everyone may watch, only the owner starts
    "ws/races/<str:code>/": {"anonymous": "not_authenticated", "owner": "race", "friend": "forbidden", "stranger": "forbidden", "staff": "forbidden"},
    # a deal's record board: public, but today's daily's only once its day is over, for everyone
    "ws/deals/<str:deal>/records/": dict.fromkeys(ROLES, "forbidden"),  # today's daily: secret until its day is over
}
# an anonymous socket is told to authenticate; a signed-in one that may not play is refused
PLAYING = {"anonymous": "not_authenticated", "owner": "ack", "friend": "forbidden", "stranger": "forbidden", "staff": "forbidden"}


def test_every_socket_route_has_a_row_in_the_matrix():
    assert websocket_routes() == set(SOCKETS)


def token_of(user) -> str | None:
    if user is None:
        return None
    from tests.support import players

    return players.token_of(user)


async def socket_for(path: str, token: str | None, origin: bytes = b"http://testserver"):
    from freecell_site.asgi import application

    socket = WebsocketCommunicator(application, path, headers=[(b"origin", origin)])
    connected, _ = await socket.connect(timeout=3)
    assert connected
    if token:
        await socket.send_json_to({"type": "auth", "token": token})
    return socket


async def outcome(socket, wanted: tuple[str, ...], timeout: float = 2.0) -> str:
    """The first frame of a wanted type (or an error's code, or 'closed')."""
    while True:
        output = await socket.receive_output(timeout=timeout)
        if output["type"] == "websocket.close":
            return "closed"
        frame = json.loads(output["text"])
        if frame["type"] == "error":
            return "closed" if frame["code"] == "not_found" else frame["code"]
        if frame["type"] in wanted:
            return frame["type"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("role", ROLES)
def test_who_may_watch_a_hidden_game_socket(role):
    world = World()
    token = token_of(world.user(role))

    async def scenario():
        socket = await socket_for(f"/ws/games/{world.ranked.pk}/", token)
        result = await outcome(socket, ("state",))
        await socket.disconnect()
        return result

    assert async_to_sync(scenario)() == SOCKETS["ws/games/<int:game_id>/"][role]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("role", ROLES)
def test_who_may_watch_the_record_board_of_todays_daily(role):
    world = World()
    token = token_of(world.user(role))

    async def scenario():
        socket = await socket_for(f"/ws/deals/daily:{world.today}/records/", token)
        result = await outcome(socket, ("records",))
        await socket.disconnect()
        return result

    assert async_to_sync(scenario)() == SOCKETS["ws/deals/<str:deal>/records/"][role]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("role", ROLES)
def test_the_record_board_of_a_numbered_deal_is_public(role):
    world = World()
    token = token_of(world.user(role))

    async def scenario():
        socket = await socket_for("/ws/deals/ms:1/records/", token)
        result = await outcome(socket, ("records",))
        await socket.disconnect()
        return result

    assert async_to_sync(scenario)() == "records"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("role", ROLES)
def test_who_may_play_over_a_game_socket(role):
    world = World()
    token = token_of(world.user(role))
    move = world.legal(world.game)

    async def scenario():
        socket = await socket_for(f"/ws/games/{world.game.pk}/", token)
        if token:
            await outcome(socket, ("auth_ok",))
        await socket.send_json_to({"type": "move", "move": move, "ply": 1, "status": "won"})
        result = await outcome(socket, ("ack",))
        await socket.disconnect()
        return result

    assert async_to_sync(scenario)() == PLAYING[role]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("role", ROLES)
def test_who_may_start_a_race_over_its_socket(role):
    world = World()
    token = token_of(world.user(role))

    async def scenario():
        socket = await socket_for(f"/ws/races/{world.open_race.code}/", token)
        await outcome(socket, ("race",))
        if token:
            await outcome(socket, ("auth_ok",))
            await outcome(socket, ("race",))
        await socket.send_json_to({"type": "start", "id": "s"})
        result = await outcome(socket, ("race",))
        await socket.disconnect()
        return result

    assert async_to_sync(scenario)() == SOCKETS["ws/races/<str:code>/"][role]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["game", "race"])
@pytest.mark.parametrize(
    "origin", [b"http://evil.example", b"http://testserver.evil.example", b"https://evil.example:443", b"null", b"", None]
)
def test_a_socket_from_a_foreign_or_missing_origin_is_refused(path, origin):
    from freecell_site.asgi import application
    from games.races import services as races

    world_user = make_player("alice")
    url = f"/ws/games/{__import__('games.play.services', fromlist=['x']).create_game(player=world_user, deal='ms:1').pk}/" if path == "game" else (
        f"/ws/races/{races.create_race(owner=world_user, deal='ms:1').code}/"
    )

    async def scenario():
        headers = [(b"origin", origin)] if origin is not None else []
        socket = WebsocketCommunicator(application, url, headers=headers)
        connected, _ = await socket.connect(timeout=3)
        if connected:
            await socket.disconnect()
        return connected

    assert async_to_sync(scenario)() is False


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("host", "origin", "accepted"),
    [
        (b"testserver", b"https://testserver", True),
        (b"localhost:8000", b"http://localhost:8000", True),
        (b"localhost:8000", b"http://localhost:3000", False),  # another server on the same host
        (b"localhost:8000", b"http://localhost", False),
        (b"127.0.0.1:8000", b"http://localhost:8000", False),
    ],
)
def test_a_socket_must_come_from_the_page_of_the_same_host_and_port(host, origin, accepted):
    """The session cookie is not scoped by port: a page of another port of the same host (anyone's
    dev server) must not open sockets as the player."""
    from freecell_site.asgi import application
    from games.play import services

    game = services.create_game(player=make_player("alice"), deal="ms:1")

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=[(b"origin", origin), (b"host", host)])
        connected, _ = await socket.connect(timeout=3)
        await socket.disconnect()
        return connected

    assert async_to_sync(scenario)() is accepted


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("proto", "origin", "accepted"),
    [
        (b"https", b"https://testserver", True),
        (b"https", b"http://testserver", False),  # a plain-HTTP page, which a network attacker can write
        (b"http", b"http://testserver", True),
        (None, b"https://testserver", True),  # a proxy that forwards no scheme: either is taken
        (None, b"http://testserver", True),
    ],
)
def test_a_socket_that_came_over_tls_must_come_from_an_https_page(settings, proto, origin, accepted):
    from freecell_site.asgi import application
    from games.play import services

    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    game = services.create_game(player=make_player("alice"), deal="ms:1")
    headers = [(b"origin", origin), (b"host", b"testserver")]
    if proto is not None:
        headers.append((b"x-forwarded-proto", proto))

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=headers)
        connected, _ = await socket.connect(timeout=3)
        await socket.disconnect()
        return connected

    assert async_to_sync(scenario)() is accepted


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("origin", [b"http://testserver", b"http://localhost:8000", b"https://127.0.0.1"])
def test_a_socket_from_an_allowed_host_is_accepted(origin):
    from freecell_site.asgi import application
    from games.play import services

    game = services.create_game(player=make_player("alice"), deal="ms:1")

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=[(b"origin", origin)])
        connected, _ = await socket.connect(timeout=3)
        await socket.disconnect()
        return connected

    assert async_to_sync(scenario)() is True


# --- CSRF ----------------------------------------------------------------------------------------

# Views that take no session at all (authentication_classes = []): they never act as the session's
# user, so a forged cross-site request gains nothing there.
SESSIONLESS = {"POST /api/auth/token/", "POST /api/auth/password/reset/", "POST /api/auth/password/reset/confirm/", "POST /api/solutions/verify/"}


def view_class(operation: str):
    path = operation.split(" ", 1)[1]
    return resolve(re.sub(r"\{\w+\}", "1", path)).func.view_class


def test_only_the_known_views_take_no_session():
    writes = {op for op in API if not op.startswith("GET ")}
    sessionless = {op for op in writes if not any(issubclass(a, SessionAuthentication) for a in view_class(op).authentication_classes)}
    assert sessionless == SESSIONLESS


@pytest.mark.django_db
def test_every_session_write_without_the_csrf_token_is_refused():
    from django.db import transaction

    world = World()
    wrong = []
    for operation in sorted(op for op in API if not op.startswith("GET ") and op not in SESSIONLESS):
        with transaction.atomic():
            client = APIClient(enforce_csrf_checks=True)
            client.force_login(world.alice)
            spec = API[operation]
            body = spec["body"](world, "owner") if spec["body"] else None
            response = call(client, operation.split(" ")[0], spec["url"](world, "owner"), body)
            transaction.set_rollback(True)
        error = response.json().get("error", {}) if response["Content-Type"].startswith("application/json") else {}
        if response.status_code != 403 or error.get("code") != "forbidden" or "CSRF" not in error.get("message", ""):
            wrong.append((operation, response.status_code, response.content[:120]))
    assert wrong == []


@pytest.mark.django_db
def test_a_session_write_with_the_csrf_token_goes_through():
    world = World()
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(world.alice)
    client.get("/")  # the page sets the csrftoken cookie
    token = client.cookies["csrftoken"].value
    response = client.post("/api/games/", {"deal": "ms:2"}, format="json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 201


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/login/", "/signup/", "/logout/"])
def test_page_forms_need_the_csrf_token(path):
    make_player("alice")
    client = APIClient(enforce_csrf_checks=True)
    response = client.post(path, {"username": "alice", "password": PASSWORD})
    assert response.status_code == 403


# --- tokens never logged -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_tokens_never_appear_in_the_logs(caplog, settings):
    caplog.set_level(logging.DEBUG)
    for name in ("django", "django.request", "django.server", "django.channels.server", "daphne", "games", "accounts", "freecell_site"):
        caplog.set_level(logging.DEBUG, logger=name)
    settings.LOGGING_CONFIG = None
    client = APIClient()
    registered = client.post("/api/auth/register/", {"username": "alice", "password": PASSWORD}, format="json").json()["token"]
    token = client.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json").json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/me/").status_code == 200
    game = client.post("/api/games/", {"deal": "ms:1"}, format="json").json()
    client.post(f"/api/games/{game['id']}/moves/", {"move": "zz", "ply": 0}, format="json")  # a logged refusal
    wrong = "0123456789abcdef0123456789abcdef01234567"
    APIClient(HTTP_AUTHORIZATION=f"Token {wrong}").get("/api/me/")

    async def scenario():
        for key in (token, wrong):
            socket = await socket_for(f"/ws/games/{game['id']}/", key)
            await outcome(socket, ("auth_ok",))
            await socket.send_json_to({"type": "move", "move": "zz", "ply": 0})
            await outcome(socket, ("ack",))
            await socket.disconnect()

    async_to_sync(scenario)()
    logged = caplog.text + "".join(repr(r.args) + repr(r.__dict__) for r in caplog.records)
    assert caplog.records, "nothing was logged: the capture is not working"
    for secret in (token, registered, wrong, PASSWORD):
        assert secret not in logged
    # SQL logging (which would show the token lookup's parameters) stays off whatever LOG_LEVEL says.
    from freecell_site import settings as project_settings

    assert project_settings.LOGGING["loggers"]["django"]["level"] == "INFO"


# --- login throttling ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_failures_on_the_token_endpoint_also_lock_session_login_whatever_the_case_of_the_name(monkeypatch, settings):
    from accounts import throttle

    monkeypatch.setattr(throttle.time, "time", lambda: 2_000_700.0)  # the start of a quarter hour
    make_player("alice")
    for i in range(settings.LOGIN_ACCOUNT_FAILURES):
        name = "alice" if i % 2 else "ALICE"
        assert APIClient().post("/api/auth/token/", {"username": name, "password": "wrong"}, format="json", REMOTE_ADDR=f"10.0.{i}.1").status_code == 401
    # The account is locked to every client that has not signed in to it before (accounts/throttle.py).
    locked = APIClient().post("/api/auth/login/", {"username": "Alice", "password": PASSWORD}, format="json", REMOTE_ADDR="10.9.0.1")
    assert locked.status_code == 429
    assert locked.json()["error"]["code"] == "rate_limited" and locked.json()["error"]["retry_after"] > 60
    page = APIClient().post("/login/", {"username": "alice", "password": PASSWORD}, REMOTE_ADDR="10.9.0.1")
    assert page.status_code != 302, "the sign-in page let a locked account in"


@pytest.mark.django_db
def test_a_throttled_login_says_nothing_about_whether_the_account_exists(monkeypatch, settings):
    from accounts import throttle

    monkeypatch.setattr(throttle.time, "time", lambda: 3_000_600.0)
    make_player("alice")
    answers = {}
    for name in ("alice", "nobody"):
        for i in range(settings.LOGIN_ACCOUNT_FAILURES + 1):
            response = APIClient().post("/api/auth/token/", {"username": name, "password": "wrong"}, format="json", REMOTE_ADDR=f"10.{len(answers)}.{i}.1")
        answers[name] = (response.status_code, response.json()["error"]["code"])
    assert answers["alice"] == answers["nobody"] == (429, "rate_limited")


# --- no score or result from a client ------------------------------------------------------------

FORGED = {"moves": 1, "undos": 0, "status": "won", "won": True, "elapsed_ms": 1, "ply": 40, "cards_home": 52,
          "finished_at": "2000-01-01T00:00:00Z", "player": "bob", "ranked": True, "version": 99,
          "state": {"columns": [[]] * 8, "cells": [None] * 4, "foundations": {"C": 13, "D": 13, "H": 13, "S": 13}}}


@pytest.mark.django_db
def test_forged_score_fields_in_create_move_and_undo_bodies_are_ignored():
    from games.models import Game
    from games.play.integrity import check_game

    world = World()
    client = world.client("owner")
    created = client.post("/api/games/", {**FORGED, "deal": "ms:3", "autoplay": "none"}, format="json").json()
    assert (created["status"], created["ply"], created["player"], created["cards_home"], created["version"]) == ("playing", 0, "alice", 0, 0)
    move = world.legal(Game.objects.get(pk=created["id"]))
    moved = client.post(f"/api/games/{created['id']}/moves/", {**FORGED, "move": move, "ply": 0}, format="json").json()
    assert (moved["status"], moved["ply"], moved["undos"], moved["finished_at"]) == ("playing", 1, 0, None)
    undone = client.post(f"/api/games/{created['id']}/undo/", {**FORGED, "ply": 1}, format="json").json()
    assert (undone["status"], undone["ply"], undone["undos"]) == ("playing", 2, 1)
    game = Game.objects.get(pk=created["id"])
    assert game.status == "playing" and game.elapsed_ms is None and game.cards_home == 0 and check_game(game) is None
    history = client.get(f"/api/games/{created['id']}/history/").json()["actions"]
    assert [a["kind"] for a in history] == ["move", "undo"]


@pytest.mark.django_db(transaction=True)
def test_forged_fields_in_a_websocket_move_are_ignored():
    from games.models import Game

    world = World()
    token = token_of(world.alice)
    move = world.legal(world.game)

    async def scenario():
        socket = await socket_for(f"/ws/games/{world.game.pk}/", token)
        await outcome(socket, ("auth_ok",))
        await socket.send_json_to({**FORGED, "game": FORGED, "type": "move", "move": move, "ply": 1})
        result = await outcome(socket, ("ack",))
        await socket.disconnect()
        return result

    assert async_to_sync(scenario)() == "ack"
    game = Game.objects.get(pk=world.game.pk)
    assert (game.status, game.ply, game.elapsed_ms, game.player_id) == ("playing", 2, None, world.alice.pk)


@pytest.mark.django_db
def test_forged_fields_in_race_daily_and_verify_bodies_are_ignored():
    from games.models import Race

    world = World()
    client = world.client("stranger")
    race = client.post("/api/races/", {"deal": "ms:4", "status": "finished", "owner": "alice", "racers": [{"username": "charlie", "rank": 1}]}, format="json").json()
    assert (race["status"], race["owner"], [r["rank"] for r in race["racers"]]) == ("open", "charlie", [None])
    assert Race.objects.get(code=race["code"]).status == "open"
    daily = client.post("/api/daily/play/", {"moves": 1, "status": "won", "elapsed_ms": 5}, format="json").json()
    assert (daily["status"], daily["ply"]) == ("playing", 0)
    verified = client.post("/api/solutions/verify/", {"deal": "ms:1", "moves": "zz", "valid": True, "won": True}, format="json").json()
    assert verified["valid"] is False and verified["won"] is False


@pytest.mark.django_db
def test_privileges_cannot_be_given_through_sign_up_or_the_profile():
    from django.contrib.auth.models import User

    client = APIClient()
    answer = client.post("/api/auth/register/", {"username": "mallory", "password": PASSWORD, "is_staff": True, "is_superuser": True}, format="json")
    assert answer.status_code == 201
    client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
    client.patch("/api/me/", {"username": "alice", "is_staff": True, "is_active": False, "date_joined": "2000-01-01T00:00:00Z"}, format="json")
    user = User.objects.get(pk=User.objects.get(username="mallory").pk)
    assert (user.username, user.is_staff, user.is_superuser, user.is_active) == ("mallory", False, False, True)


def test_a_made_up_x_forwarded_for_does_not_give_a_client_a_fresh_throttle_allowance():
    """Anonymous throttles (sign-up, reset e-mails, verify) key a client by its address: the one the
    connection came from, not one the client writes in a header."""
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory
    from rest_framework.throttling import AnonRateThrottle

    raw = APIRequestFactory().post("/api/solutions/verify/", REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="10.0.0.42")
    assert AnonRateThrottle().get_ident(Request(raw)) == "203.0.113.7"
