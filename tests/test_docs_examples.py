"""Every example of the OpenAPI document is a real answer: a scenario of calls records them, and a fresh
run must answer what freecell_site/api_examples.json holds (ids, times and keys aside).

After a change of what the API answers, record the examples again and read the diff:

    FREECELL_RECORD_EXAMPLES=1 .venv/bin/pytest tests/test_docs_examples.py -p no:cacheprovider
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
from unittest import mock

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from freecell_site import api_docs
from games.daily import services as daily
from games.play import ratelimit
from tests.support.daily import make_test_daily, play
from tests.support.examples import Recorder, differences, stable_document
from tests.support.openapi import generated_schema, operations
from tests.support.races import MS1_WIN

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("solver_stand_in")]

#: The scenario's password: not the other tests' (tests/support/players.PASSWORD), so that a request
#: example that schemathesis sends (tests/test_schema.py) never closes or changes a test account.
PASSWORD = "correct horse battery staple"


class FrozenClock:
    """`time` for the action limit's window: one second that lasts while a burst is recorded."""

    @staticmethod
    def time() -> float:
        return 1_800_000_000.25


def signed_up(rec: Recorder, username: str, **extra) -> APIClient:
    answer = rec.call(APIClient(), "post", "/api/auth/register/", {"username": username, "password": PASSWORD, **extra}, expect=201)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {answer.json()['token']}")
    return client


def scenario(settings, monkeypatch) -> dict:
    """Plays every operation of the API once or more, as a developer would, and answers the examples."""
    settings.RACE_COUNTDOWN_S = 0
    settings.HINT_IN_WORKER = False
    settings.FAIR_PLAY_REVIEW = False
    rec = Recorder()
    anyone = APIClient()
    today = daily.today()
    yesterday = today - dt.timedelta(days=1)
    make_test_daily(yesterday)
    make_test_daily(today)

    # accounts
    alice = signed_up(rec, "alice", email="alice@example.com")
    rec.call(APIClient(), "post", "/api/auth/register/", {"username": "Alice", "password": PASSWORD}, expect=400, record_body=False)
    bob, carol, dora = (signed_up(rec, name) for name in ("bob", "carol", "dora"))
    rec.call(anyone, "post", "/api/auth/token/", {"username": "alice", "password": PASSWORD}, expect=200)
    rec.call(anyone, "post", "/api/auth/token/", {"username": "alice", "password": "not her password"}, expect=401, record_body=False)
    session = APIClient()
    rec.call(session, "post", "/api/auth/login/", {"username": "bob", "password": PASSWORD}, expect=200)
    revoked = APIClient()
    revoked.credentials(HTTP_AUTHORIZATION="Bearer fco_" + "x" * 43)
    rec.call(revoked, "post", "/api/auth/logout/", expect=401)
    rec.call(session, "post", "/api/auth/logout/", expect=204)
    # The request example is the refused change: schemathesis sends it, and it must change nothing.
    rec.call(dora, "post", "/api/auth/password/change/", {"old_password": "not my password", "new_password": "another horse battery 7"}, expect=400)
    changed = rec.call(dora, "post", "/api/auth/password/change/", {"old_password": PASSWORD, "new_password": "another horse battery 7"}, expect=200)
    dora.credentials(HTTP_AUTHORIZATION=f"Bearer {changed.json()['token']}")
    rec.call(anyone, "post", "/api/auth/password/reset/", {"email": "not an address"}, expect=400, record_body=False)
    rec.call(anyone, "post", "/api/auth/password/reset/", {"email": "alice@example.com"}, expect=202)
    rec.call(anyone, "post", "/api/auth/password/reset/confirm/", {"uid": "MQ", "token": "c5x-0a1b2c3d4e5f", "new_password": "another horse battery 7"}, expect=400)
    rec.call(alice, "get", "/api/me/", expect=200)
    rec.call(alice, "patch", "/api/me/", {"display_name": "Alice", "bio": "FreeCell in the morning"}, expect=200)
    rec.call(alice, "patch", "/api/me/", {"bio": "aces", "colour": "red"}, expect=400, record_body=False)
    closing = signed_up(rec, "erin")
    rec.call(closing, "post", "/api/me/close/", {"password": "not my password"}, expect=400)
    rec.call(closing, "post", "/api/me/close/", {"password": PASSWORD}, expect=204, record_body=False)
    robot = signed_up(rec, "solverbot")
    rec.call(robot, "post", "/api/account/bot/", expect=200)

    # tokens
    made = rec.call(alice, "post", "/api/tokens/", {"name": "my bot", "scopes": ["read", "play"]}, expect=201)
    rec.call(alice, "post", "/api/tokens/", {"name": "my bot", "scopes": ["admin"]}, expect=400, record_body=False)
    rec.call(alice, "get", "/api/tokens/", expect=200)
    rec.call(alice, "delete", f"/api/tokens/{made.json()['id']}/", expect=204)
    rec.call(alice, "delete", "/api/tokens/999999/", expect=404)

    # friends
    rec.call(bob, "post", "/api/friends/requests/", {"username": "alice"}, expect=201)
    rec.call(carol, "post", "/api/friends/requests/", {"username": "alice"}, expect=201)
    rec.call(alice, "get", "/api/friends/", expect=200)
    rec.call(alice, "post", "/api/friends/requests/bob/accept/", expect=200)
    rec.call(alice, "post", "/api/friends/requests/carol/decline/", expect=200)
    rec.call(alice, "post", "/api/friends/requests/", {"username": "bob"}, expect=200)
    rec.call(alice, "post", "/api/friends/requests/", {"username": "nobody"}, expect=404, record_body=False)
    rec.call(alice, "post", "/api/friends/requests/", {"username": "dora"}, expect=201)
    rec.call(alice, "delete", "/api/friends/dora/", expect=204)
    rec.call(alice, "delete", "/api/friends/nobody/", expect=404)

    # deals, games, moves
    rec.call(anyone, "get", "/api/ping/", expect=200)
    rec.call(anyone, "get", "/api/deals/ms:1/", expect=200)
    rec.call(anyone, "get", "/api/deals/ms:0/", expect=400)
    rec.call(anyone, "get", f"/api/deals/daily:{yesterday.isoformat()}/facts/", expect=200)
    game = rec.call(alice, "post", "/api/games/", {"deal": "ms:1", "autoplay": "none"}, name="a Microsoft deal", body_name="a Microsoft deal", expect=201).json()["id"]
    rec.call(alice, "post", "/api/games/", {"deal": "random"}, name="a fresh random deal", body_name="a fresh random deal", expect=201)
    rec.call(alice, "post", "/api/games/", {"deal": "ms:0"}, expect=400, record_body=False)
    rec.call(alice, "get", f"/api/games/{game}/", expect=200)
    rec.call(alice, "get", "/api/games/?status=playing", expect=200)
    rec.call(alice, "get", "/api/games/?stauts=won", expect=400)
    rec.call(anyone, "get", "/api/games/999999/", expect=404)
    rec.call(alice, "get", f"/api/games/{game}/legal-moves/", expect=200)
    moves = f"/api/games/{game}/moves/"
    rec.call(alice, "post", moves, {"move": "5a", "ply": 0, "client_id": "move-1"}, expect=200)
    rec.call(alice, "post", moves, {"move": "5a", "ply": 0, "client_id": "move-1"}, name="a resend", expect=200, record_body=False)
    rec.call(alice, "post", moves, {"move": "5b", "ply": 0}, expect=409, record_body=False)
    rec.call(alice, "post", moves, {"move": "1h", "ply": 1}, expect=422, record_body=False)
    rec.call(alice, "post", moves, {"move": "zz", "ply": 1}, expect=400, record_body=False)
    rec.call(alice, "post", f"/api/games/{game}/undo/", {"ply": 1, "client_id": "undo-1"}, expect=200)
    rec.call(alice, "post", f"/api/games/{game}/undo/", {"ply": 0}, expect=409, record_body=False)
    rec.call(alice, "post", moves, {"move": "5a", "ply": 2}, expect=200, record_body=False)
    rec.call(alice, "get", f"/api/games/{game}/history/", expect=200)
    rec.call(alice, "get", f"/api/games/{game}/history/?format=text", expect=200)
    rec.call(anyone, "post", "/api/solutions/verify/", {"deal": "ms:1", "moves": "5a 5b 1h", "autoplay": "none"}, name="a bad move", body_name="from a deal", expect=200)
    rec.call(anyone, "post", "/api/solutions/verify/", {"deal": "ms:1", "moves": " ".join(MS1_WIN), "autoplay": "none"}, name="a win", record_body=False, expect=200)
    rec.call(anyone, "get", f"/api/stream/games/{game}/", expect=200)
    rec.call(anyone, "get", "/api/stream/games/999999/", expect=404)
    rec.call(alice, "post", f"/api/games/{game}/resign/", expect=200)
    rec.call(alice, "post", f"/api/games/{game}/resign/", name="again: the same answer", expect=200)
    rec.call(alice, "post", moves, {"move": "5b", "ply": 3}, expect=409, record_body=False)
    # The action limit (ACTIONS_PER_SECOND a second per account): a burst past it, in one second.
    settings.ACTIONS_PER_SECOND = 2
    monkeypatch.setattr(ratelimit, "time", FrozenClock)
    ratelimit.forget()
    burst = alice.post("/api/games/", {"deal": "ms:1", "autoplay": "none"}, format="json").json()["id"]
    alice.post(f"/api/games/{burst}/moves/", {"move": "5a", "ply": 0}, format="json")
    alice.post(f"/api/games/{burst}/moves/", {"move": "5b", "ply": 1}, format="json")
    rec.call(alice, "post", f"/api/games/{burst}/moves/", {"move": "5c", "ply": 2}, expect=429, record_body=False)
    settings.ACTIONS_PER_SECOND = 0
    ratelimit.forget()
    monkeypatch.undo()
    rec.call(alice, "post", f"/api/games/{burst}/restart/", expect=201)

    # a past daily's deal played casually, with a hint
    casual = rec.call(bob, "post", "/api/games/", {"deal": f"daily:{yesterday.isoformat()}"}, record_body=False, expect=201).json()["id"]
    rec.call(bob, "get", f"/api/games/{casual}/hint/", expect=200)

    # the daily
    rec.call(anyone, "get", "/api/daily/", expect=200)
    ranked = rec.call(alice, "post", "/api/daily/play/", expect=201).json()["id"]
    rec.call(alice, "post", "/api/daily/play/", expect=200)
    from games.models import Game

    play(Game.objects.get(pk=ranked), ["2a", "a5", "1b"])
    bobs, _ = daily.start_ranked_game(Game.objects.get(pk=casual).player)
    play(bobs, ["2a", "a5", "5a", "a5", "1b"])
    day = today.isoformat()
    rec.call(alice, "get", f"/api/daily/{day}/leaderboard/", expect=200)
    rec.call(anyone, "get", f"/api/daily/{day}/leaderboard/?scope=friends", expect=401)
    rec.call(alice, "get", f"/api/daily/{day}/histogram/", expect=200)
    rec.call(alice, "get", f"/api/daily/{day}/share/", expect=200)
    rec.call(anyone, "get", f"/api/daily/{yesterday.isoformat()}/", expect=200)
    rec.call(anyone, "get", "/api/daily/archive/", expect=200)
    rec.call(anyone, "get", "/api/users/alice/daily/", expect=200)

    # races
    race = rec.call(alice, "post", "/api/races/", {"deal": "ms:1", "autoplay": "none"}, expect=201).json()["code"]
    rec.call(alice, "post", "/api/races/", {"deal": "random"}, expect=400, record_body=False)  # `random` is for games only
    rec.call(alice, "post", f"/api/races/{race}/invite/", {"username": "bob"}, expect=200)
    rec.call(bob, "get", "/api/races/", name="without status", expect=200)
    rec.call(bob, "get", "/api/stream/events/", expect=200)
    rec.call(bob, "post", f"/api/races/{race}/join/", expect=200)
    rec.call(bob, "post", f"/api/races/{race}/start/", expect=403)
    started = rec.call(alice, "post", f"/api/races/{race}/start/", expect=200).json()
    rec.call(carol, "post", f"/api/races/{race}/join/", expect=409)
    rec.call(anyone, "get", f"/api/races/{race}/", expect=200)
    rec.call(anyone, "get", "/api/races/ZZZZZZ/", expect=404)
    rec.call(anyone, "get", f"/api/stream/races/{race}/", expect=200)
    rec.call(bob, "post", f"/api/races/{race}/resign/", expect=200)
    won = next(r["game"] for r in started["racers"] if r["username"] == "alice")
    for ply, move in enumerate(MS1_WIN):
        alice.post(f"/api/games/{won}/moves/", {"move": move, "ply": ply}, format="json")
    rec.call(alice, "get", "/api/races/?status=finished", name="status=finished", expect=200)
    rec.call(alice, "post", f"/api/races/{race}/rematch/", expect=201)
    rec.call(bob, "post", f"/api/races/{race}/rematch/", expect=200)
    rec.call(bob, "post", "/api/races/ghost/", {"game": won}, expect=201)
    rec.call(carol, "post", "/api/races/quick/", expect=201)
    rec.call(dora, "post", "/api/races/quick/", expect=200)
    rec.call(anyone, "get", "/api/races/?status=open&public=1", name="status=open&public=1", expect=200)
    challenge = rec.call(alice, "post", "/api/challenges/", {"username": "bob", "deal": "ms:1"}, expect=201).json()["id"]
    rec.call(bob, "get", "/api/challenges/", expect=200)
    rec.call(bob, "get", f"/api/challenges/{challenge}/", expect=200)
    rec.call(bob, "post", f"/api/challenges/{challenge}/accept/", expect=200)
    declined = alice.post("/api/challenges/", {"username": "carol"}, format="json").json()["id"]
    rec.call(carol, "post", f"/api/challenges/{declined}/decline/", expect=200)
    cancelled = alice.post("/api/challenges/", {"username": "dora"}, format="json").json()["id"]
    rec.call(alice, "post", f"/api/challenges/{cancelled}/cancel/", expect=200)
    rec.call(anyone, "get", "/api/users/alice/games/", expect=200)
    rec.call(anyone, "get", "/api/users/alice/games/?format=ndjson", expect=200)
    rec.call(anyone, "get", "/api/users/alice/games/?format=text&result=resigned&max=1", expect=200)
    rec.call(anyone, "get", "/api/users/alice/games/?result=lost", expect=400)
    rec.call(anyone, "get", "/api/users/bob/", expect=200)
    rec.call(alice, "get", "/api/users/bob/", expect=200)
    rec.call(anyone, "get", "/api/users/nobody/", expect=404)
    rec.call(anyone, "get", "/api/users/?q=al", expect=200)

    # boards beyond the day
    rec.call(alice, "get", "/api/deals/ms:1/records/?autoplay=none", expect=200)
    rec.call(alice, "get", f"/api/ladder/{today.strftime('%Y-%m')}/", expect=200)
    rec.call(alice, "get", "/api/ladder/streaks/", expect=200)
    rec.call(anyone, "get", "/api/ladder/streaks/?speed=fast", expect=400)

    # fair play: a win at a machine's pace is held for review; a report; a moderator's verdict and mark
    from tests.support.players import make_player, token_of

    moderator = make_player("moderator")
    moderator.is_staff = True
    moderator.save()
    staff = APIClient()
    staff.credentials(HTTP_AUTHORIZATION=f"Token {token_of(moderator)}")
    rec.call(anyone, "get", "/api/fair-play/", expect=200)
    settings.FAIR_PLAY_REVIEW = True
    # On a clock that ticks 40 ms at each reading, from ten minutes ago, so that the signals the win
    # crosses and the order of the queue (the example) do not depend on this machine's speed.
    ticks, start = itertools.count(), timezone.now() - dt.timedelta(minutes=10)
    with mock.patch.object(timezone, "now", lambda: start + dt.timedelta(milliseconds=40 * next(ticks))):
        fast = carol.post("/api/games/", {"deal": "ms:1", "autoplay": "none"}, format="json").json()["id"]
        for ply, move in enumerate(MS1_WIN):
            carol.post(f"/api/games/{fast}/moves/", {"move": move, "ply": ply}, format="json")
    settings.FAIR_PLAY_REVIEW = False
    rec.call(carol, "get", f"/api/games/{fast}/review/", expect=200)
    rec.call(bob, "post", f"/api/games/{won}/report/", {"reason": "127 moves at an even pace"}, expect=202)
    rec.call(staff, "get", "/api/fair-play/queue/", expect=200)
    rec.call(staff, "post", f"/api/games/{fast}/review/", {"verdict": "reject", "note": "a solver's line at an even pace"}, expect=200)
    rec.call(staff, "post", "/api/users/carol/mark/", {"note": "solver lines"}, expect=200)
    rec.call(staff, "delete", "/api/users/carol/mark/", expect=200)
    return rec.document()


EXAMPLES = api_docs.EXAMPLES_FILE


def test_the_examples_are_what_the_service_answers(settings, monkeypatch):
    fresh = scenario(settings, monkeypatch)
    if os.environ.get("FREECELL_RECORD_EXAMPLES"):
        # An example that differs only in ids and times keeps its recorded value: the file's diff shows
        # what the API now answers otherwise, and nothing else.
        before = json.loads(EXAMPLES.read_text()) if EXAMPLES.exists() else {}
        EXAMPLES.write_text(json.dumps(unchanged_kept(fresh, before), indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    recorded = json.loads(EXAMPLES.read_text())
    changed = differences(stable_document(fresh), stable_document(recorded))
    assert changed == [], (
        "the API answers otherwise than its documented examples: record them again "
        "(FREECELL_RECORD_EXAMPLES=1 pytest tests/test_docs_examples.py) and read the diff"
    )


def unchanged_kept(fresh: dict, before: dict) -> dict:
    """`fresh`, but each example that is the same as `before`'s but for what changes from run to run
    (ids, times, keys, a random deal's cards) keeps `before`'s value."""
    kept = json.loads(json.dumps(fresh))
    for key, entry in kept.items():
        old = before.get(key, {})
        for name, body in entry.get("request", {}).items():
            if name in old.get("request", {}) and _same({"request": {name: body}}, {"request": {name: old["request"][name]}}):
                entry["request"][name] = old["request"][name]
        for status, by_media in entry.get("responses", {}).items():
            for media, by_name in by_media.items():
                was = old.get("responses", {}).get(status, {}).get(media, {})
                for name, value in by_name.items():
                    one = {"responses": {status: {media: {name: value}}}}
                    if name in was and _same(one, {"responses": {status: {media: {name: was[name]}}}}):
                        by_name[name] = was[name]
    return kept


def _same(one: dict, other: dict) -> bool:
    return stable_document({"x": one}) == stable_document({"x": other})


def test_every_example_in_the_schema_is_a_recorded_one():
    """The hook serves the recorded examples and nothing else: a view's hand-written example is dropped."""
    recorded = json.loads(EXAMPLES.read_text())
    shapes = {api_docs.shape_key(key): entry for key, entry in recorded.items()}
    faults = []
    for path, method, operation in operations(generated_schema()):
        entry = shapes.get(api_docs.shape_key(f"{method.upper()} {path}"), {})
        for status, answer in operation.get("responses", {}).items():
            for media, content in answer.get("content", {}).items():
                assert "example" not in content, (method, path, status)
                for name, example in content.get("examples", {}).items():
                    if entry.get("responses", {}).get(status, {}).get(media, {}).get(name) != example["value"]:
                        faults.append(f"{method.upper()} {path} {status} {media} {name}")
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
        for name, example in body.get("examples", {}).items():
            if entry.get("request", {}).get(name) != example["value"]:
                faults.append(f"{method.upper()} {path} request {name}")
    assert faults == []


def test_every_recorded_answer_is_one_its_operation_declares():
    """A recorded status or media type the schema does not declare would be dropped by the hook, and
    means the schema does not say what the service answers."""
    recorded = json.loads(EXAMPLES.read_text())
    declared = {(method, api_docs._shape(path)): operation for path, method, operation in operations(generated_schema())}
    faults = []
    for key, entry in recorded.items():
        operation = declared.get(api_docs.shape_key(key))
        if operation is None:
            faults.append(f"{key}: no such operation")
            continue
        for status, by_media in entry.get("responses", {}).items():
            for media in by_media:
                if media not in operation["responses"].get(status, {}).get("content", {}):
                    faults.append(f"{key}: answers {status} {media}, which the schema does not declare")
        if entry.get("request") and "application/json" not in operation.get("requestBody", {}).get("content", {}):
            faults.append(f"{key}: a request body the schema does not declare")
    assert faults == []


def test_a_changed_answer_is_told_apart_from_a_changed_id():
    """The comparison can fail: a value that is not an id or a time differs; an id or a time may."""
    one = {"GET /api/x/": {"responses": {"200": {"application/json": {"200": {"id": 1, "ply": 1, "at": "2026-12-03T13:53:07.800289Z"}}}}}}
    other_id = {"GET /api/x/": {"responses": {"200": {"application/json": {"200": {"id": 7, "ply": 1, "at": "2026-12-04T01:00:00Z"}}}}}}
    other_ply = {"GET /api/x/": {"responses": {"200": {"application/json": {"200": {"id": 1, "ply": 2, "at": "2026-12-03T13:53:07.800289Z"}}}}}}
    assert differences(stable_document(one), stable_document(other_id)) == []
    assert differences(stable_document(one), stable_document(other_ply)) == ["/GET /api/x//responses/200/application/json/200/ply: 1 != 2"]
