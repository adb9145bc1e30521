"""The admin: every model registered, its pages load, histories read-only, review verdicts."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin

from games.models import Action, DailyGame, Game
from games.play import services


@pytest.fixture
def admin_client(client, db):
    from django.contrib.auth.models import User

    user = User.objects.create_superuser("root", "root@example.com", "a long admin password 1")
    client.force_login(user)
    return client


def test_every_model_of_the_project_is_registered():
    for app in ("games", "accounts"):
        for model in apps.get_app_config(app).get_models():
            assert admin.site.is_registered(model), model.__name__


def test_every_changelist_loads(admin_client, alice):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    services.play_move(game_id=game.pk, user=alice, move="3a", ply=0)
    for model in admin.site._registry:
        meta = model._meta
        response = admin_client.get(f"/admin/{meta.app_label}/{meta.model_name}/")
        assert response.status_code == 200, meta.label
    assert admin_client.get(f"/admin/games/game/{game.pk}/change/").status_code == 200


def test_histories_cannot_be_added_changed_or_deleted(admin_client, alice):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    services.play_move(game_id=game.pk, user=alice, move="3a", ply=0)
    action = Action.objects.get(game=game)
    assert admin_client.get("/admin/games/action/add/").status_code == 403
    admin_client.post(f"/admin/games/action/{action.pk}/delete/", {"post": "yes"})
    assert Action.objects.filter(pk=action.pk).exists()


def test_the_clear_action_skips_a_game_that_is_not_a_won_ranked_game(admin_client, alice):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    Game.objects.filter(pk=game.pk).update(review=Game.Review.FLAGGED)
    response = admin_client.post("/admin/games/game/", {"action": "clear_review_action", "_selected_action": [game.pk]})
    assert response.status_code == 302
    assert Game.objects.get(pk=game.pk).review == Game.Review.FLAGGED  # tests/test_daily.py clears a won one


def test_the_reject_action_skips_a_casual_game(admin_client, alice):
    """A casual game is on no leaderboard: rejecting it said "1 game(s) rejected" and stored a verdict
    that clearing it again refused."""
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    response = admin_client.post("/admin/games/game/", {"action": "reject_review_action", "_selected_action": [game.pk]}, follow=True)
    assert "1 game(s) skipped: not ranked games" in response.content.decode()
    assert Game.objects.get(pk=game.pk).review == Game.Review.NONE


def test_a_racers_game_and_a_race_under_way_are_not_deleted_from_the_admin(admin_client, alice, bob, settings):
    """Deleting a racer's game left them "waiting" in a race that went on; deleting a running race
    turned its games into casual ones. A finished race goes, its games with their entries' links."""
    from games.models import Race, RaceEntry
    from tests.support.races import running_race

    settings.RACE_COUNTDOWN_S = 0
    race = running_race(alice, bob)
    entry = RaceEntry.objects.get(race__code=race["code"], player=alice)
    page = admin_client.get(f"/admin/games/game/{entry.game_id}/delete/").content.decode()
    assert "Cannot delete game" in page or "would require deleting the following protected" in page, page[:2000]
    admin_client.post(f"/admin/games/game/{entry.game_id}/delete/", {"post": "yes"})
    assert Game.objects.filter(pk=entry.game_id).exists()
    response = admin_client.post("/admin/games/game/", {"action": "delete_selected", "_selected_action": [entry.game_id], "post": "yes"})
    assert response.status_code in (200, 302) and Game.objects.filter(pk=entry.game_id).exists()

    race_row = Race.objects.get(code=race["code"])
    assert admin_client.get(f"/admin/games/race/{race_row.pk}/delete/").status_code == 403
    assert "delete_selected" not in admin_client.get("/admin/games/race/").content.decode()
    Race.objects.filter(pk=race_row.pk).update(status=Race.Status.FINISHED)
    admin_client.post(f"/admin/games/race/{race_row.pk}/delete/", {"post": "yes"})
    assert not Race.objects.filter(pk=race_row.pk).exists()
    assert Game.objects.filter(pk=entry.game_id).exists()  # the games stay, as the players' own
    # A player who goes takes their race entries and games with them (the restriction is on the game alone).
    other = running_race(alice, bob)
    bobs = RaceEntry.objects.get(race__code=other["code"], player=bob).game_id
    bob.delete()
    assert not Game.objects.filter(pk=bobs).exists()


def test_rows_the_services_make_have_no_add_form_and_no_editable_field(admin_client, alice, bob):
    """An add form of read-only required fields was a 500; an editable race status put the race in a
    state whose endpoints answered 500; an editable past daily (now the daily's DailyGame row) relabelled a game's deal."""
    from games.models import Race
    from games.races import services as races

    race = races.create_race(owner=alice, deal="ms:5")
    races.join(code=race.code, user=bob)
    game = services.create_game(player=alice, deal="ms:7", autoplay="safe")
    for model in ("deal", "game", "dailychallenge", "race", "raceentry", "raceinvite"):
        assert admin_client.get(f"/admin/games/{model}/add/").status_code == 403, model
        assert admin_client.post(f"/admin/games/{model}/add/", {}).status_code == 403, model
    admin_client.post(f"/admin/games/race/{race.pk}/change/", {"status": "running", "code": race.code, "time_limit_s": 30})
    assert Race.objects.get(pk=race.pk).status == "open"
    admin_client.post(f"/admin/games/game/{game.pk}/change/", {"past_daily": "2026-11-29", "actions-TOTAL_FORMS": 0, "actions-INITIAL_FORMS": 0})
    assert not DailyGame.objects.filter(game=game).exists()
    assert admin_client.get("/admin/games/dailygame/add/").status_code == 403
    page = admin_client.get(f"/admin/games/race/{race.pk}/change/").content.decode()
    assert 'name="status"' not in page and 'name="time_limit_s"' not in page


def test_every_add_change_delete_search_and_history_page_loads(admin_client, alice, bob, charlie):
    """One object of every model (a game with moves, a race, friends, a friend request, a daily...),
    then every admin page of each: none may fail, whatever the model's data looks like."""
    from accounts import services as accounts
    from games.races import services as races

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    services.play_move(game_id=game.pk, user=alice, move="3a", ply=0)
    services.undo(game_id=game.pk, user=alice, ply=1)
    accounts.request_friend(user=charlie, username="alice")
    race = races.create_race(owner=alice, deal="ms:2")
    races.join(code=race.code, user=bob)
    races.start(code=race.code, user=alice)
    admin_client.post("/api/auth/login/", {"username": "alice", "password": "wrong"})  # a login failure row
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        base = f"/admin/{meta.app_label}/{meta.model_name}/"
        for url in (base, base + "?q=alice", base + "?q=%27%22%3C", base + "?o=1.-2", base + "?p=999"):
            assert admin_client.get(url).status_code in (200, 302), (meta.label, url)
        assert admin_client.get(base + "?q=%00").status_code == 400  # the site refuses NUL everywhere
        add = admin_client.get(base + "add/").status_code
        assert add == (200 if model_admin.has_add_permission(_request(admin_client)) else 403), meta.label
        for pk in [obj.pk for obj in model.objects.all()[:3]]:
            for page in ("change/", "history/", "delete/"):
                status = admin_client.get(f"{base}{pk}/{page}").status_code
                assert status in (200, 403), (meta.label, pk, page, status)


def _request(client):
    from django.contrib.auth.models import User
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = User.objects.get(username="root")
    return request


def test_the_admin_sign_in_is_throttled_like_every_login(db, monkeypatch, settings):
    """Wrong passwords from strangers lock the account to strangers (429, even the right password);
    the browser that signed in before (its device cookie, accounts/devices.py) still signs in."""
    from django.contrib.auth.models import User
    from django.test import Client

    from accounts import throttle

    monkeypatch.setattr(throttle.time, "time", lambda: 7_000_500.0)
    User.objects.create_superuser("boss", password="a long staff password 1")
    own = Client(REMOTE_ADDR="10.7.0.2")
    assert own.post("/admin/login/", {"username": "boss", "password": "a long staff password 1"}).status_code == 302
    device = own.cookies["device"].value
    own.logout()  # the test client drops every cookie; a browser keeps the device cookie
    own.cookies["device"] = device
    client = Client(REMOTE_ADDR="10.7.0.1")
    for _ in range(settings.LOGIN_ACCOUNT_FAILURES):
        assert client.post("/admin/login/", {"username": "boss", "password": "wrong"}).status_code == 200
    refused = client.post("/admin/login/", {"username": "boss", "password": "a long staff password 1"})
    assert refused.status_code == 429
    assert Client(REMOTE_ADDR="10.7.0.3").post("/admin/login/", {"username": "boss", "password": "a long staff password 1"}).status_code == 429
    assert own.post("/admin/login/", {"username": "boss", "password": "a long staff password 1"}).status_code == 302


@pytest.mark.parametrize("how", ["admin", "shell"])
def test_a_password_set_outside_the_services_revokes_the_api_token(admin_client, how):
    """The admin's password form and `manage.py changepassword` (a shell's set_password and save) end
    the old token too, as a player's own change does: else locking out a stolen token failed quietly."""
    from django.contrib.auth.models import User
    from rest_framework.test import APIClient

    from accounts import services as accounts

    user, token = accounts.register(username="carol", password="correct horse battery 9")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.get("/api/me/").status_code == 200
    new = "another horse battery 10"
    if how == "admin":
        response = admin_client.post(f"/admin/auth/user/{user.pk}/password/", {"password1": new, "password2": new})
        assert response.status_code == 302
    else:
        user.set_password(new)
        user.save()
    assert api.get("/api/me/").status_code == 401
    assert accounts.token_for(User.objects.get(pk=user.pk)).key != token.key
    # A login that only rehashes the password (a new hasher) is no change: the token stays.
    fresh = accounts.token_for(User.objects.get(pk=user.pk))
    User.objects.get(pk=user.pk).check_password(new)
    assert APIClient(HTTP_AUTHORIZATION=f"Token {fresh.key}").get("/api/me/").status_code == 200


def test_the_close_action_closes_players_as_their_own_close_does(admin_client, alice, bob):
    from django.contrib.auth.models import User

    from accounts.closing import closed_name

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    root = User.objects.get(username="root")
    response = admin_client.post(
        "/admin/auth/user/", {"action": "close_accounts_action", "_selected_action": [alice.pk, root.pk]}, follow=True
    )
    page = response.content.decode()
    assert "1 account(s) closed." in page and "closed from your account page" in page
    closed = User.objects.get(pk=alice.pk)
    assert closed.username == closed_name(alice) and not closed.is_active
    assert Game.objects.get(pk=game.pk).status == Game.Status.RESIGNED
    assert User.objects.get(pk=root.pk).is_active and User.objects.get(pk=bob.pk).is_active
    assert admin_client.get(f"/admin/auth/user/{alice.pk}/change/").status_code == 200


def test_an_action_on_a_forged_selection_is_refused_without_a_server_error(admin_client, alice):
    """`_selected_action` is whatever the request says: `abc` for a game's number was a 500."""
    from freecell_site.admin_selection import CheckedSelection

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    request = _request(admin_client)
    for model, model_admin in admin.site._registry.items():
        assert isinstance(model_admin, CheckedSelection), model.__name__
        url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        for action in model_admin.get_actions(request):
            for forged in (["abc"], [str(game.pk), "1.5"], ["9" * 30]):
                response = admin_client.post(url, {"action": action, "_selected_action": forged, "post": "yes"})
                assert response.status_code < 500, (url, action, forged)
    assert Game.objects.get(pk=game.pk).status == Game.Status.PLAYING
