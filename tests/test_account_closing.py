"""Closing an account (POST /api/me/close/): confirmed by the password, it ends the player's games, races,
sign-ins and personal data, keeps their finished games for everyone else under a name that is not
theirs, and frees the username."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from accounts.closing import closed_name
from accounts.models import AccessToken, Friendship
from games.models import Game
from tests.support.daily import win_daily
from tests.support.players import PASSWORD, client_for, token_of
from tests.support.races import act, open_race, read, running_race

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("solver_stand_in")]  # dailies from the trivial deal (tests/support/daily.py)


@pytest.fixture(autouse=True)
def _fast(settings):
    settings.RACE_COUNTDOWN_S = 0


def close(user, password=PASSWORD, client=None):
    return (client or client_for(user)).post("/api/me/close/", {"password": password}, format="json")


def test_closing_ends_every_sign_in_and_frees_the_name(alice, anon_client):
    token = token_of(alice)
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
    assert AccessToken.objects.filter(user=alice).exists()


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
    from games.play import services

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


# --- what was in flight when the close committed (found by a black-box pass) ----------------------


@pytest.fixture
def stale(alice):
    """Alice as a request authenticated a moment before her close committed still holds her."""
    from accounts.closing import close_account

    held = User.objects.get(pk=alice.pk)
    close_account(alice)
    return held


def test_nothing_new_is_made_for_an_account_closed_while_the_request_was_on_its_way(bob, stale):
    from accounts import services as accounts
    from freecell_site.errors import ServiceError
    from games.models import Race, RaceEntry
    from games.play import services
    from games.races import services as races

    bobs = open_race(bob)
    attempts = {
        "game": lambda: services.create_game(player=stale, deal="ms:1"),
        "race": lambda: races.create_race(owner=stale, deal="ms:3"),
        "join": lambda: races.join(code=bobs["code"], user=stale),
        "friend": lambda: accounts.request_friend(user=stale, username="bob"),
    }
    for what, attempt in attempts.items():
        with pytest.raises(ServiceError) as refused:
            attempt()
        assert refused.value.code == "authentication_failed" and refused.value.status == 401, what
    assert not Game.objects.filter(player_id=stale.pk).exists()
    assert not Race.objects.filter(owner_id=stale.pk).exists()
    assert not RaceEntry.objects.filter(player_id=stale.pk).exists()
    assert not Friendship.objects.filter(from_user_id=stale.pk).exists()


def test_a_friend_request_to_an_account_closed_meanwhile_is_not_found(alice, charlie, monkeypatch):
    from accounts import services as accounts
    from accounts.closing import close_account
    from freecell_site.errors import ServiceError

    held = User.objects.get(pk=alice.pk)
    close_account(alice)
    monkeypatch.setattr(accounts, "player_named", lambda name: held)  # read before the close
    with pytest.raises(ServiceError) as refused:
        accounts.request_friend(user=charlie, username="alice")
    assert refused.value.code == "not_found"
    assert not Friendship.objects.filter(to_user_id=alice.pk).exists()


def test_a_rematch_leaves_out_a_racer_who_closed_their_account(alice, bob, charlie):
    race = running_race(alice, bob, charlie)
    assert close(alice).status_code == 204
    act(bob, race["code"], "resign")
    act(charlie, race["code"], "resign")
    assert read(race["code"])["status"] == "finished"
    rematch = act(bob, race["code"], "rematch")
    assert rematch.status_code == 201
    assert sorted(r["username"] for r in rematch.json()["racers"]) == ["bob", "charlie"]


def test_invitations_sent_by_a_closed_account_go_with_it(alice, bob, charlie):
    from games.models import RaceInvite

    race = open_race(charlie)
    act(alice, race["code"], "join")
    assert act(alice, race["code"], "invite", username="bob").status_code == 200
    assert close(alice).status_code == 204
    assert not RaceInvite.objects.exists()
    assert client_for(bob).get("/api/races/").json()["invites"] == []


def test_a_ghost_of_a_closed_accounts_game_shows_the_closed_name(alice, bob):
    from tests.support.races import MS1_WIN, win

    game = client_for(alice).post("/api/games/", {"deal": "ms:1", "autoplay": "none"}, format="json").json()
    win(alice, game["id"], MS1_WIN)
    ghost = client_for(bob).post("/api/races/ghost/", {"game": game["id"]}, format="json")
    assert ghost.status_code == 201, ghost.json()
    code = ghost.json()["code"]
    assert read(code)["ghost"]["username"] == "alice"  # the timeline is cached now
    assert close(alice).status_code == 204
    shown = read(code)
    assert shown["ghost"]["username"] == closed_name(alice) and "alice" not in str(shown)


def test_the_last_pushes_name_the_closed_account(alice, bob, monkeypatch, django_capture_on_commit_callbacks):
    from games import events

    race = running_race(alice, bob)
    sent = []
    monkeypatch.setattr(events, "publish_game", lambda payload: sent.append(payload))
    monkeypatch.setattr(events, "publish_race", lambda payload: sent.append(payload))
    with django_capture_on_commit_callbacks(execute=True):
        assert close(alice).status_code == 204
    assert sent and "alice" not in str(sent) and closed_name(alice) in str(sent)
    assert read(race["code"])["status"] == "running"


def test_the_admin_saves_a_closed_accounts_page(client, alice):
    root = User.objects.create_superuser("root", "root@example.com", "a long admin password 1")
    client.force_login(root)
    close(alice)
    page = client.get(f"/admin/auth/user/{alice.pk}/change/")
    assert page.status_code == 200
    form = {"is_active": "", "is_staff": "on", "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00", "last_login_0": "", "last_login_1": ""}
    saved = client.post(f"/admin/auth/user/{alice.pk}/change/", form)
    assert saved.status_code == 302, saved.content.decode()[:3000]
    closed = User.objects.get(pk=alice.pk)
    assert closed.is_staff and closed.username == closed_name(alice)
