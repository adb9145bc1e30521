"""Challenges (docs/races.md): send, accept into a race of the two, decline, cancel, expiry, who
may do what, and the `challenge` event on the players' events streams."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games import sweeper
from tests.support.players import client_for, code_of, make_player
from tests.support.races import read
from tests.support.tokens import key_with

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _countdowns(settings):
    settings.RACE_PUBLIC_COUNTDOWN_S = 10
    settings.CHALLENGE_EXPIRY_S = 600


def challenge(user, username, **body):
    return client_for(user).post("/api/challenges/", {"username": username, **body}, format="json")


def answer(user, challenge_id, what):
    return client_for(user).post(f"/api/challenges/{challenge_id}/{what}/", format="json")


def sent(user, username, **body) -> dict:
    response = challenge(user, username, **body)
    assert response.status_code == 201, response.json()
    return response.json()


def expire(challenge_id: int) -> None:
    from games.models import Challenge

    Challenge.objects.filter(pk=challenge_id).update(expires_at=timezone.now() - dt.timedelta(seconds=1))


# --- sending -----------------------------------------------------------------------------------------


def test_a_challenge_is_sent_with_the_spec_s_fields(alice, bob):
    response = challenge(alice, "BOB", deal="ms:7")
    assert response.status_code == 201
    body = response.json()
    assert {k: body[k] for k in ("challenger", "challenged", "deal", "status", "code")} == {
        "challenger": "alice", "challenged": "bob", "deal": "ms:7", "status": "open", "code": None,
    }
    assert isinstance(body["id"], int)
    expires = dt.datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert 590 <= (expires - timezone.now()).total_seconds() <= 600


def test_without_a_deal_the_challenge_is_on_a_fresh_seed(alice, bob):
    assert sent(alice, "bob")["deal"].startswith("seed:")


def test_both_players_see_it_in_their_lists_and_no_one_else(alice, bob, charlie):
    body = sent(alice, "bob", deal="ms:2")
    bobs = client_for(bob).get("/api/challenges/").json()
    alices = client_for(alice).get("/api/challenges/").json()
    assert [c["id"] for c in bobs["received"]] == [body["id"]] and bobs["sent"] == []
    assert [c["id"] for c in alices["sent"]] == [body["id"]] and alices["received"] == []
    assert client_for(bob).get(f"/api/challenges/{body['id']}/").json() == body
    stranger = client_for(charlie).get(f"/api/challenges/{body['id']}/")
    assert stranger.status_code == 404 and code_of(stranger) == "not_found"
    assert client_for(charlie).get("/api/challenges/").json() == {"received": [], "sent": []}


def test_a_second_challenge_to_the_same_player_is_challenge_pending(alice, bob):
    first = sent(alice, "bob")
    again = challenge(alice, "bob", deal="ms:3")
    assert again.status_code == 409 and code_of(again) == "challenge_pending"
    assert again.json()["error"]["challenge"]["id"] == first["id"]
    assert sent(bob, "alice")["challenger"] == "bob"  # the other way round is another challenge


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"username": "alice"}, 400, "invalid_request"),
        ({"username": "nobody"}, 404, "not_found"),
        ({"username": "bob", "deal": "ms:0"}, 400, "invalid_deal"),
        ({"username": "bob", "autoplay": "all"}, 400, "invalid_request"),
        ({"username": 12}, 400, "invalid_request"),
        ({}, 400, "invalid_request"),
    ],
)
def test_bad_challenges_are_refused_with_the_spec_s_codes(alice, bob, body, status, code):
    response = client_for(alice).post("/api/challenges/", body, format="json")
    assert (response.status_code, code_of(response)) == (status, code), response.json()
    from games.models import Challenge

    assert not Challenge.objects.exists()


def test_todays_daily_cannot_be_the_deal(alice, bob):
    from games.daily.services import today

    response = challenge(alice, "bob", deal=f"daily:{today().isoformat()}")
    assert response.status_code == 403 and code_of(response) == "forbidden"


def test_a_closed_account_and_a_guest_cannot_be_challenged_but_a_bot_can(alice, bob):
    from django.contrib.auth.models import User

    from accounts.closing import close_account
    from accounts.models import Profile

    carol = make_player("carol")
    close_account(carol)
    closed_name = User.objects.get(pk=carol.pk).username
    assert code_of(challenge(alice, closed_name)) == "not_found"
    User.objects.create_user(username="guest abcdefghijkm", password=None)
    assert code_of(challenge(alice, "guest abcdefghijkm")) == "not_found"
    robot = make_player("robot")
    Profile.objects.update_or_create(user=robot, defaults={"bot": True})
    assert sent(alice, "robot")["challenged"] == "robot"


def test_challenging_needs_a_sign_in_and_the_race_scope(alice, bob):
    assert client_for().post("/api/challenges/", {"username": "bob"}, format="json").status_code == 401
    limited = client_for().post(
        "/api/challenges/", {"username": "bob"}, format="json", HTTP_AUTHORIZATION=f"Token {key_with(alice, 'read')}"
    )
    assert limited.status_code == 403 and code_of(limited) == "missing_scope"


# --- answering ---------------------------------------------------------------------------------------


def test_accepting_makes_a_race_of_the_two_that_counts_down_and_starts(alice, bob):
    body = sent(alice, "bob", deal="ms:1", autoplay="none")
    accepted = answer(bob, body["id"], "accept")
    assert accepted.status_code == 200
    result = accepted.json()
    assert result["status"] == "accepted" and result["answered_at"] is not None
    assert result["link"] == f"/races/{result['code']}/"
    race = read(result["code"])
    assert (race["deal"], race["owner"], race["autoplay"], race["status"]) == ("ms:1", "alice", "none", "countdown")
    assert [r["username"] for r in race["racers"]] == ["alice", "bob"] and race["public"] is False
    from games.models import Race

    Race.objects.filter(code=result["code"]).update(starts_at=timezone.now())
    sweeper.sweep()
    assert all(r["status"] == "playing" and r["game"] for r in read(result["code"])["racers"])


def test_declining_and_cancelling_settle_it(alice, bob, charlie):
    declined = answer(bob, sent(alice, "bob")["id"], "decline")
    assert declined.status_code == 200 and declined.json()["status"] == "declined" and declined.json()["code"] is None
    cancelled = answer(alice, sent(alice, "bob")["id"], "cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"


def test_a_settled_challenge_cannot_be_answered_again(alice, bob):
    body = sent(alice, "bob")
    assert answer(bob, body["id"], "decline").status_code == 200
    for who, what in ((bob, "accept"), (bob, "decline"), (alice, "cancel")):
        again = answer(who, body["id"], what)
        assert again.status_code == 409 and code_of(again) == "challenge_over"
        assert again.json()["error"]["challenge"]["status"] == "declined"


def test_only_the_challenged_answers_and_only_the_challenger_cancels(alice, bob, charlie):
    body = sent(alice, "bob")
    for who, what in ((alice, "accept"), (alice, "decline"), (bob, "cancel")):
        refused = answer(who, body["id"], what)
        assert refused.status_code == 403 and code_of(refused) == "forbidden", (who, what)
    for what in ("accept", "decline", "cancel"):
        stranger = answer(charlie, body["id"], what)
        assert stranger.status_code == 404 and code_of(stranger) == "not_found"
    assert client_for(bob).get(f"/api/challenges/{body['id']}/").json()["status"] == "open"


@pytest.mark.parametrize("challenge_id", ["999999", "99999999999999999999999"])
def test_an_unknown_challenge_is_not_found(alice, challenge_id):
    for what in ("accept", "decline", "cancel"):
        response = client_for(alice).post(f"/api/challenges/{challenge_id}/{what}/")
        assert response.status_code == 404 and code_of(response) == "not_found"
    assert client_for(alice).get(f"/api/challenges/{challenge_id}/").status_code == 404


def test_an_unanswered_challenge_expires(alice, bob):
    body = sent(alice, "bob")
    expire(body["id"])
    assert client_for(bob).get(f"/api/challenges/{body['id']}/").json()["status"] == "expired"
    late = answer(bob, body["id"], "accept")
    assert late.status_code == 409 and code_of(late) == "challenge_over"
    again = challenge(alice, "bob")  # the expired one no longer holds the pair's place
    assert again.status_code == 201
    from games.models import Challenge

    assert Challenge.objects.get(pk=body["id"]).status == "expired"


def test_closing_an_account_cancels_its_open_challenges(alice, bob):
    from accounts.closing import close_account

    to_bob = sent(alice, "bob")
    from_bob = sent(bob, "alice")
    close_account(bob)
    assert client_for(alice).get(f"/api/challenges/{to_bob['id']}/").json()["status"] == "cancelled"
    assert client_for(alice).get(f"/api/challenges/{from_bob['id']}/").json()["status"] == "cancelled"


# --- the events stream -------------------------------------------------------------------------------


def test_each_change_is_told_to_the_other_player(alice, bob, monkeypatch, django_capture_on_commit_callbacks):
    from games import events

    told = []
    monkeypatch.setattr(events, "publish_player_event", lambda user_id, event: told.append((user_id, event)))
    with django_capture_on_commit_callbacks(execute=True):
        first = sent(alice, "bob")
        answer(alice, first["id"], "cancel")
        second = sent(alice, "bob")
        answer(bob, second["id"], "decline")
        third = sent(alice, "bob")
        answer(bob, third["id"], "accept")
    said = [(user_id, event["challenge"]["id"], event["challenge"]["status"]) for user_id, event in told if event["type"] == "challenge"]
    assert said == [
        (bob.pk, first["id"], "open"),
        (bob.pk, first["id"], "cancelled"),
        (bob.pk, second["id"], "open"),
        (alice.pk, second["id"], "declined"),
        (bob.pk, third["id"], "open"),
        (alice.pk, third["id"], "accepted"),
    ]
    accepted = next(event for _, event in told if event["type"] == "challenge" and event["challenge"]["status"] == "accepted")
    starting = {user_id for user_id, event in told if event["type"] == "race_starting"}
    assert accepted["challenge"]["code"] and starting == {alice.pk, bob.pk}


def test_the_events_stream_opens_with_the_challenges_awaiting_an_answer(alice, bob, charlie):
    from django.test import Client

    waiting = sent(alice, "bob", deal="ms:9")
    expired = sent(charlie, "bob")
    expire(expired["id"])
    client = Client()
    client.force_login(bob)
    lines = [line for line in client.get("/api/stream/events/").content.decode().splitlines() if line]
    import json

    events = [json.loads(line) for line in lines]
    assert [e["challenge"]["id"] for e in events if e["type"] == "challenge"] == [waiting["id"]]
    assert events[0]["challenge"]["deal"] == "ms:9"


def test_a_guest_can_neither_challenge_nor_race_quickly(bob):
    from accounts.guests import new_guest

    guest = new_guest()
    client = client_for()
    client.force_login(guest)
    for path, body in (("/api/challenges/", {"username": "bob"}), ("/api/races/quick/", {})):
        refused = client.post(path, body, format="json")
        assert refused.status_code == 403 and "csrf" not in refused.json()["error"]["message"].lower(), (path, refused.json())
    from games.models import Challenge, Race

    assert not Challenge.objects.exists() and not Race.objects.exists()


# --- the pages -----------------------------------------------------------------------------------------


def test_another_player_s_profile_links_to_challenging_them_and_one_s_own_does_not(alice, bob):
    from django.test import Client

    viewer = Client()
    viewer.force_login(alice)
    assert 'href="/challenges/?to=bob" data-testid="challenge-player"' in viewer.get("/u/bob/").content.decode()
    assert 'data-testid="challenge-player"' not in viewer.get("/u/alice/").content.decode()
    assert 'data-testid="challenge-player"' not in Client().get("/u/bob/").content.decode()
    page = viewer.get("/challenges/?to=bob").content.decode()
    assert 'value="bob"' in page and "challenges.js" in page


def test_the_challenges_page_asks_a_visitor_to_sign_in_and_a_guest_to_sign_up(bob):
    from django.test import Client

    from accounts.guests import new_guest

    assert Client().get("/challenges/").status_code == 302
    guest = Client()
    guest.force_login(new_guest())
    page = guest.get("/challenges/").content.decode()
    assert "sign up" in page and "challenges.js" not in page
    assert 'data-testid="challenge-player"' not in guest.get("/u/bob/").content.decode()
