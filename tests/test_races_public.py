"""Public races and quick play (docs/races.md): listed for anyone, joined by quick play, started
by themselves once a second racer is in and their countdown has run, called off when nobody comes."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games import sweeper
from tests.support.players import client_for, code_of, make_player
from tests.support.races import act, open_race, read
from tests.support.tokens import key_with

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _countdowns(settings):
    settings.RACE_PUBLIC_COUNTDOWN_S = 10
    settings.RACE_PUBLIC_WAIT_S = 300


def quick(user):
    return client_for(user).post("/api/races/quick/", {}, format="json")


def listed(**params) -> list[str]:
    answer = client_for().get("/api/races/", {"status": "open", "public": "1", **params})
    assert answer.status_code == 200, answer.json()
    return [race["code"] for race in answer.json()["results"]]


def at_start(code: str) -> None:
    """The race's countdown has run: its start instant is now."""
    from games.models import Race

    Race.objects.filter(code=code).update(starts_at=timezone.now() - dt.timedelta(milliseconds=1))


def aged(code: str, seconds: float) -> None:
    from games.models import Race

    Race.objects.filter(code=code).update(created_at=timezone.now() - dt.timedelta(seconds=seconds))


# --- opening and listing ---------------------------------------------------------------------------


def test_a_public_race_is_listed_for_anyone_and_a_private_one_is_not(alice):
    public = open_race(alice, deal="ms:5", public=True)
    private = open_race(alice, deal="ms:6")
    assert public["public"] is True and private["public"] is False
    assert public["status"] == "open" and public["racers"][0]["username"] == "alice"
    assert listed() == [public["code"]]
    shown = client_for().get("/api/races/?status=open&public=1").json()
    assert shown["count"] == 1 and shown["results"][0] == read(public["code"])


def test_the_list_is_oldest_first(alice, bob):
    newer = open_race(bob, public=True)
    older = open_race(alice, public=True)
    aged(older["code"], 60)
    assert listed() == [older["code"], newer["code"]]


@pytest.mark.parametrize("value", ["1", "yes", 1, None, []])
def test_public_must_be_a_json_boolean(alice, value):
    answer = client_for(alice).post("/api/races/", {"public": value}, format="json")
    assert answer.status_code == 400 and code_of(answer) == "invalid_request"
    assert "public" in answer.json()["error"]["fields"]


@pytest.mark.parametrize(
    "query", ["status=open", "public=0", "public=1&status=finished", "status=open&public=1&player=alice", "public=yes"]
)
def test_the_public_list_is_asked_for_as_the_spec_says(db, query):
    answer = client_for().get(f"/api/races/?{query}")
    assert answer.status_code == 400 and code_of(answer) == "invalid_request", answer.json()


def test_an_unknown_query_parameter_is_a_bad_filter(db):
    answer = client_for().get("/api/races/?status=open&public=1&deal=ms:1")
    assert answer.status_code == 400 and code_of(answer) == "bad_filter"


# --- starting by itself ----------------------------------------------------------------------------


def test_a_public_race_counts_down_by_itself_once_a_second_racer_is_in_then_starts(alice, bob):
    race = open_race(alice, deal="ms:1", public=True)
    joined = act(bob, race["code"], "join")
    assert joined.status_code == 200
    counting = joined.json()
    assert counting["status"] == "countdown"
    starts = dt.datetime.fromisoformat(counting["starts_at"].replace("Z", "+00:00"))
    assert 8 <= (starts - timezone.now()).total_seconds() <= 10
    assert all(r["game"] is None for r in counting["racers"])
    at_start(race["code"])
    sweeper.sweep()
    running = read(race["code"])
    assert running["status"] == "running"
    assert all(r["game"] is not None and r["status"] == "playing" for r in running["racers"])


def test_the_owner_of_a_public_race_cannot_start_it(alice):
    race = open_race(alice, public=True)
    answer = act(alice, race["code"], "start")
    assert answer.status_code == 403 and code_of(answer) == "forbidden"
    assert read(race["code"])["status"] == "open"


def test_a_public_race_in_its_countdown_takes_late_racers_until_a_second_before_its_start(alice, bob, charlie, settings):
    from games.models import Race

    race = open_race(alice, public=True)
    assert act(bob, race["code"], "join").json()["status"] == "countdown"
    assert race["code"] in listed()
    late = act(charlie, race["code"], "join")
    assert late.status_code == 200 and [r["username"] for r in late.json()["racers"]] == ["alice", "bob", "charlie"]
    Race.objects.filter(code=race["code"]).update(starts_at=timezone.now() + dt.timedelta(milliseconds=500))
    too_late = act(make_player("dave"), race["code"], "join")
    assert too_late.status_code == 409 and code_of(too_late) == "race_started"
    assert race["code"] not in listed()


def test_a_private_race_in_its_countdown_takes_nobody(alice, bob, charlie, settings):
    settings.RACE_COUNTDOWN_S = 30
    race = open_race(alice)
    act(bob, race["code"], "join")
    assert act(alice, race["code"], "start").json()["status"] == "countdown"
    answer = act(charlie, race["code"], "join")
    assert answer.status_code == 409 and code_of(answer) == "race_started"


def test_an_open_public_race_nobody_joins_is_called_off(alice, bob):
    race = open_race(alice, public=True)
    aged(race["code"], 301)
    shown = read(race["code"])  # a read shows it as it is, before the sweeper stores it
    assert shown["status"] == "finished" and shown["starts_at"] is None
    assert listed() == []
    refused = act(bob, race["code"], "join")
    assert refused.status_code == 409 and code_of(refused) == "race_over"
    sweeper.sweep()
    from games.models import Race

    assert Race.objects.get(code=race["code"]).status == "finished"


# --- quick play ------------------------------------------------------------------------------------


def test_quick_play_opens_a_public_race_when_there_is_none(alice):
    answer = quick(alice)
    assert answer.status_code == 201
    race = answer.json()
    assert race["public"] is True and race["status"] == "open" and race["owner"] == "alice"
    assert race["deal"].startswith("seed:")
    assert listed() == [race["code"]]


def test_quick_play_puts_the_next_player_in_that_race_and_it_counts_down(alice, bob):
    first = quick(alice).json()
    answer = quick(bob)
    assert answer.status_code == 200
    race = answer.json()
    assert race["code"] == first["code"] and race["status"] == "countdown"
    assert [r["username"] for r in race["racers"]] == ["alice", "bob"]


def test_quick_play_joins_the_oldest_public_race_that_takes_racers(alice, bob, charlie):
    newer = open_race(bob, public=True)
    older = open_race(alice, public=True)
    aged(older["code"], 120)
    private = open_race(make_player("dave"))
    aged(private["code"], 200)
    race = quick(charlie).json()
    assert race["code"] == older["code"]
    assert [r["username"] for r in race["racers"]] == ["alice", "charlie"]
    assert read(newer["code"])["status"] == "open"


def test_quick_play_skips_a_race_that_waited_out_its_time_and_a_full_one(alice, bob, charlie, settings):
    settings.RACE_MAX_RACERS = 2
    stale = quick(alice).json()
    aged(stale["code"], 301)
    fresh = quick(bob)
    assert fresh.status_code == 201 and fresh.json()["code"] != stale["code"]
    from games.models import Race

    assert Race.objects.get(code=stale["code"]).status == "finished"  # called off, its place taken
    assert quick(charlie).json()["code"] == fresh.json()["code"]  # now full (2 racers) and counting down
    other = quick(make_player("dave"))
    assert other.status_code == 201 and other.json()["code"] not in (stale["code"], fresh.json()["code"])


def test_a_player_already_waiting_gets_their_race_back(alice):
    first = quick(alice).json()
    again = quick(alice)
    assert again.status_code == 200 and again.json()["code"] == first["code"]
    from games.models import Race

    assert Race.objects.count() == 1


def test_quick_play_needs_a_sign_in_and_the_race_scope(alice):
    anonymous = client_for().post("/api/races/quick/")
    assert anonymous.status_code == 401
    limited = client_for().post("/api/races/quick/", HTTP_AUTHORIZATION=f"Token {key_with(alice, 'read')}")
    assert limited.status_code == 403 and code_of(limited) == "missing_scope"


def test_a_late_racer_is_told_the_race_is_starting(alice, bob, charlie, monkeypatch, django_capture_on_commit_callbacks):
    from games import events

    told = []
    monkeypatch.setattr(events, "publish_player_event", lambda user_id, event: told.append((user_id, event)))
    quick(alice)
    with django_capture_on_commit_callbacks(execute=True):
        quick(bob)
    assert {user_id for user_id, event in told if event["type"] == "race_starting"} == {alice.pk, bob.pk}
    told.clear()
    with django_capture_on_commit_callbacks(execute=True):
        quick(charlie)
    assert [(user_id, event["type"]) for user_id, event in told] == [(charlie.pk, "race_starting")]
