"""Closing an account (POST /api/me/close/): confirmed by the password, it ends the player's games, races,
sign-ins and personal data, keeps their finished games for everyone else under a name that is not
theirs, and frees the username."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.closing import closed_name
from accounts.models import Friendship
from games.models import Game
from tests.conftest import PASSWORD, client_for
from tests.test_daily_support import *  # noqa: F403
from tests.test_daily_support import win_daily
from tests.test_races import act, open_race, read, running_race

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast(settings):
    settings.RACE_COUNTDOWN_S = 0
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def close(user, password=PASSWORD, client=None):
    return (client or client_for(user)).post("/api/me/close/", {"password": password}, format="json")


def test_closing_ends_every_sign_in_and_frees_the_name(alice, anon_client):
    token = Token.objects.get(user=alice).key
    response = close(alice)
    assert response.status_code == 204
    closed = User.objects.get(pk=alice.pk)
    assert closed.username == closed_name(alice) == f"closed account {alice.pk}"
    assert not closed.is_active and not closed.has_usable_password() and closed.email == ""
    assert APIClient(HTTP_AUTHORIZATION=f"Token {token}").get("/api/me/").status_code == 401
    login = anon_client.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json")
    assert login.status_code == 401
    assert anon_client.get("/api/users/alice/").status_code == 404
    assert anon_client.get(f"/api/users/{closed.username}/").status_code == 404
    again = anon_client.post("/api/auth/register/", {"username": "alice", "password": PASSWORD}, format="json")
    assert again.status_code == 201, "the name is free for a new sign-up"
    assert User.objects.get(username="alice").pk != alice.pk


def test_closing_signs_the_session_out(alice):
    client = APIClient()
    client.force_login(alice)
    assert close(alice, client=client).status_code == 204
    assert client.get("/api/me/").status_code in (401, 403)


@pytest.mark.parametrize("body", [{"password": "not my password"}, {"password": ""}, {}])
def test_closing_needs_the_current_password(alice, body):
    response = client_for(alice).post("/api/me/close/", body, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_request"
    alice.refresh_from_db()
    assert alice.is_active and alice.username == "alice" and alice.check_password(PASSWORD)
    assert Token.objects.filter(user=alice).exists()


def test_closing_needs_an_account(anon_client):
    assert anon_client.post("/api/me/close/", {"password": PASSWORD}, format="json").status_code == 401


def test_personal_data_and_friendships_are_deleted(alice, bob, charlie):
    alice.email = "alice@example.com"
    alice.save()
    client_for(alice).patch("/api/me/", {"display_name": "Alice A.", "bio": "hello"}, format="json")
    client_for(charlie).post("/api/friends/requests/", {"username": "alice"}, format="json")
    assert close(alice).status_code == 204
    assert not Friendship.objects.filter(from_user=alice).exists() and not Friendship.objects.filter(to_user=alice).exists()
    assert client_for(bob).get("/api/friends/").json()["friends"] == []
    assert client_for(charlie).get("/api/friends/").json()["outgoing"] == []
    closed = User.objects.get(pk=alice.pk)
    assert (closed.email, closed.profile.display_name, closed.profile.bio) == ("", "", "")


def test_games_being_played_are_resigned_and_finished_ones_stay_under_the_closed_name(alice, charlie, today_daily):
    from games import services

    playing = services.create_game(player=alice, deal="ms:5", autoplay="safe")
    won = win_daily(alice, moves=3)
    win_daily(charlie, moves=2)
    assert close(alice).status_code == 204
    assert Game.objects.get(pk=playing.pk).status == Game.Status.RESIGNED
    assert Game.objects.get(pk=won.pk).status == Game.Status.WON
    name = closed_name(alice)
    board = client_for(charlie).get(f"/api/daily/{today_daily.date.isoformat()}/leaderboard/").json()
    assert [(e["rank"], e["username"]) for e in board["entries"]] == [(1, "charlie"), (2, name)]
    assert "alice" not in str(board)


def test_an_open_race_is_left_and_an_owners_race_called_off(alice, bob):
    own = open_race(alice)
    act(bob, own["code"], "join")
    theirs = open_race(bob)
    act(alice, theirs["code"], "join")
    assert close(alice).status_code == 204
    assert read(own["code"])["status"] == "finished"
    left = read(theirs["code"])
    assert left["status"] == "open" and [r["username"] for r in left["racers"]] == ["bob"]


def test_a_running_race_goes_on_without_the_closed_account_and_ends_with_the_last_racer(alice, bob):
    race = running_race(alice, bob)
    assert close(alice).status_code == 204
    going = read(race["code"])
    assert going["status"] == "running"
    statuses = {r["username"]: r["status"] for r in going["racers"]}
    assert statuses == {closed_name(alice): "resigned", "bob": "playing"}
    act(bob, race["code"], "resign")
    assert read(race["code"])["status"] == "finished"


def test_closing_waits_out_a_race_countdown(alice, bob, settings):
    settings.RACE_COUNTDOWN_S = 60
    race = open_race(alice)
    act(bob, race["code"], "join")
    act(alice, race["code"], "start")
    response = close(alice)
    assert response.status_code == 409 and response.json()["error"]["code"] == "race_not_started"
    alice.refresh_from_db()
    assert alice.is_active and alice.username == "alice"


def test_open_sockets_are_told_to_look_again(alice, monkeypatch, django_capture_on_commit_callbacks):
    from accounts.signals import credentials_changed

    heard = []

    def listener(sender, user_id, **kwargs):
        heard.append(user_id)

    credentials_changed.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            assert close(alice).status_code == 204
    finally:
        credentials_changed.disconnect(listener)
    assert alice.pk in heard


def test_closing_twice_is_harmless(alice):
    from accounts.closing import close_account

    close_account(alice)
    close_account(alice)
    assert User.objects.get(pk=alice.pk).username == closed_name(alice)


def test_the_closed_accounts_page_says_it_was_closed(alice, bob):
    from django.test import Client

    close(alice)
    page = Client().get(f"/u/{closed_name(alice)}/")
    assert page.status_code == 404 and "closed their account" in page.content.decode()
    for other in (f"closed account {bob.pk}", "closed account 99999", "closed account x", "closed account " + "9" * 40, "alice"):
        assert "closed their account" not in Client().get(f"/u/{other}/").content.decode(), other
