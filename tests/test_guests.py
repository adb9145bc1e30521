"""Guests (accounts/guests.py, docs/api.md "Guests"): a visitor deals at once as a guest, made only when a first game is
dealt; sign-up keeps the same account and its games, a sign-in hands them over; guests play casual deals
only; idle guests are cleaned up."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from accounts import guests
from games.boards.models import DealRecord
from games.daily.models import daily_game_of
from games.models import Game
from tests.support.boards import CASUAL_DEAL, win_casual
from tests.support.players import PASSWORD, code_of

pytestmark = pytest.mark.django_db


def guest_browser(deal: str = "ms:1") -> tuple[Client, Game]:
    """A visitor's browser that pressed Deal on `deal`'s start page: its client and the game dealt."""
    client = Client()
    answer = client.post(f"/play/{deal}/")
    assert answer.status_code == 302 and answer["Location"].startswith("/games/"), answer
    return client, Game.objects.get(pk=int(answer["Location"].split("/")[2]))


def test_a_page_view_makes_no_guest_and_the_first_deal_makes_one():
    visitor = Client()
    for path in ("/", "/play/ms:1/", "/play/random/", "/leaderboards/"):
        assert visitor.get(path).status_code == 200, path
    assert b'data-testid="guest-play"' in visitor.get("/play/ms:1/").content
    assert not User.objects.exists()  # no row per page view

    client, game = guest_browser()
    guest = game.player
    assert guests.is_guest(guest) and guest.username.startswith("guest ") and not guest.has_usable_password()
    assert game.deal_id == "ms:1" and daily_game_of(game) is None
    # The same browser deals again as the same guest; the home page's form deals at once too.
    client.post("/play/ms:2/")
    answer = client.post("/play/", {"deal": "617"})
    assert answer["Location"].startswith("/games/")
    assert User.objects.count() == 1 and Game.objects.filter(player=guest).count() == 3
    # The table is the guest's to play: its page names the guest "Guest", and the header offers sign-up.
    page = client.get(f"/games/{game.pk}/")
    assert page.status_code == 200
    shown = page.content.split(b'<script id="boot"')[0]  # the boot data holds the name for the page's script
    assert b'<span data-testid="player">Guest</span>' in shown and guest.username.encode() not in shown
    assert b'data-testid="guest-signup"' in page.content and b">Guest</a>" in page.content
    moved = client.post(f"/api/games/{game.pk}/moves/", {"move": "3a", "ply": 0}, content_type="application/json")
    assert moved.status_code == 200, moved.content


def test_a_guest_name_is_none_a_player_can_take():
    taken = Client().post("/signup/", {"username": "guest abc", "password": PASSWORD, "password2": PASSWORD})
    assert taken.status_code == 400 and not User.objects.exists()


def test_sign_up_from_a_guest_browser_keeps_the_account_and_its_games(swept_dailies):  # today's daily, made as the server's sweeper makes it
    client, game = guest_browser()
    guest_id = game.player_id
    answer = client.post("/signup/", {"username": "newcomer", "password": PASSWORD, "password2": PASSWORD, "email": "n@example.com"})
    assert answer.status_code == 302
    player = User.objects.get(pk=guest_id)  # the same row: nothing copied
    assert player.username == "newcomer" and player.email == "n@example.com" and player.check_password(PASSWORD)
    assert not guests.is_guest(player) and User.objects.count() == 1
    assert list(Game.objects.filter(player=player)) == [game]
    # Signed in as the player now: the header names them, and the daily is theirs to play.
    assert b">newcomer</a>" in client.get("/").content
    assert client.post("/api/daily/play/").status_code in (200, 201)
    assert Client().login(username="newcomer", password=PASSWORD)


def test_a_guest_sign_up_refused_leaves_the_guest_as_it_was(alice):
    client, game = guest_browser()
    answer = client.post("/signup/", {"username": "alice", "password": PASSWORD, "password2": PASSWORD})
    assert answer.status_code == 400 and b"taken" in answer.content
    assert guests.is_guest(User.objects.get(pk=game.player_id))


def test_sign_in_from_a_guest_browser_hands_the_games_over(alice):
    win_casual(alice, moves=60)  # alice's own record: 60 moves
    client, game = guest_browser()
    guest = game.player
    won = win_casual(guest, moves=55)
    assert not DealRecord.objects.filter(game=won).exists()  # a guest's win is off the boards
    answer = client.post("/login/", {"username": "alice", "password": PASSWORD})
    assert answer.status_code == 302
    assert not User.objects.filter(pk=guest.pk).exists()
    assert set(Game.objects.filter(pk__in=[game.pk, won.pk]).values_list("player_id", flat=True)) == {alice.pk}
    # The win the guest made is alice's now, and her best on the deal's board.
    assert DealRecord.objects.get(deal=CASUAL_DEAL, player=alice).game_id == won.pk
    assert b">alice</a>" in client.get("/").content


def test_a_guest_plays_casual_deals_only(swept_dailies):  # today's daily, made as the server's sweeper makes it
    client, game = guest_browser()
    forbidden = [
        ("post", "/api/daily/play/", None),
        ("post", "/api/races/", {"deal": "ms:1"}),
        ("post", "/api/tokens/", {"name": "x", "scopes": ["read"]}),
        ("post", "/api/friends/requests/", {"username": "nobody"}),
        ("patch", "/api/me/", {"display_name": "Squatter"}),
        ("post", f"/api/games/{game.pk}/report/", {"reason": "x"}),
    ]
    for method, path, body in forbidden:
        answer = getattr(client, method)(path, body, content_type="application/json")
        assert answer.status_code == 403 and code_of(answer) == "forbidden", (path, answer.content)
        assert "sign up" in answer.json()["error"]["message"]
    # Casual play and reads go on.
    assert client.post("/api/games/", {"deal": "ms:5"}, content_type="application/json").status_code == 201
    assert client.get("/api/daily/").status_code == 200
    # The daily, a race and the account page invite the guest to sign up instead.
    daily = client.get("/daily/")
    assert daily.status_code == 200 and b'data-testid="invite"' in daily.content and b"come with you" in daily.content
    assert client.get("/account/")["Location"] == "/signup/?next=/account/"
    home = client.get("/")
    assert b'data-testid="open-race"' not in home.content and b'data-testid="guest-note"' in home.content


def test_the_daily_invites_a_visitor_to_sign_up():
    page = Client().get("/daily/")
    assert page.status_code == 200 and b'data-testid="invite-signup"' in page.content
    assert not User.objects.exists()


def test_a_guest_has_no_public_profile():
    client, game = guest_browser()
    name = game.player.username
    assert Client().get(f"/u/{name}/").status_code == 404
    assert Client().get(f"/api/users/{name}/").status_code == 404
    own = client.get(f"/u/{name}/")
    assert own.status_code == 200 and b'data-testid="profile-name">Guest<' in own.content
    assert client.get(f"/api/users/{name}/").status_code == 200
    assert Client().get(f"/api/users/{name}/games/").status_code == 404
    assert client.get(f"/api/users/{name}/games/").status_code == 200
    assert Client().get("/api/users/?q=guest").json()["count"] == 0


def test_idle_guests_are_cleaned_up_with_their_games(alice, capsys):
    _, old_game = guest_browser()
    _, fresh_game = guest_browser("ms:2")
    old_guest = old_game.player
    long_ago = timezone.now() - dt.timedelta(days=guests.GUEST_DAYS + 1)
    User.objects.filter(pk__in=[old_guest.pk, fresh_game.player_id, alice.pk]).update(date_joined=long_ago)
    Game.objects.filter(pk=old_game.pk).update(created_at=long_ago)
    Game.objects.filter(player=alice).update(created_at=long_ago)  # a player is never cleaned up
    call_command("clean_guests")
    assert "1 idle guest deleted" in capsys.readouterr().out
    assert not User.objects.filter(pk=old_guest.pk).exists() and not Game.objects.filter(pk=old_game.pk).exists()
    assert User.objects.filter(pk=fresh_game.player_id).exists() and User.objects.filter(pk=alice.pk).exists()


def test_the_sweepers_clean_up_runs_at_most_hourly():
    from django.core.cache import cache

    from games.guests import clean_guests_now_and_then

    cache.delete("guests:cleaned")
    _, game = guest_browser()
    User.objects.filter(pk=game.player_id).update(date_joined=timezone.now() - dt.timedelta(days=40))
    Game.objects.filter(pk=game.pk).update(created_at=timezone.now() - dt.timedelta(days=40))
    assert clean_guests_now_and_then() == 1
    _, other = guest_browser()
    User.objects.filter(pk=other.player_id).update(date_joined=timezone.now() - dt.timedelta(days=40))
    Game.objects.filter(pk=other.pk).update(created_at=timezone.now() - dt.timedelta(days=40))
    assert clean_guests_now_and_then() == 0  # within the hour: nothing


def test_a_session_sign_in_over_the_api_hands_the_games_over_too(alice):
    client, game = guest_browser()
    answer = client.post("/api/auth/login/", {"username": "alice", "password": PASSWORD}, content_type="application/json")
    assert answer.status_code == 200
    assert Game.objects.get(pk=game.pk).player_id == alice.pk and User.objects.count() == 1


def test_a_deal_refused_leaves_no_guest_behind(monkeypatch):
    from freecell_site.errors import ServiceError
    from games.play import services

    def refuse(**kwargs):
        raise ServiceError("invalid_deal", "not today")

    monkeypatch.setattr(services, "create_game", refuse)
    answer = Client().post("/play/ms:1/")
    assert answer.status_code == 400 and b"not today" in answer.content
    assert not User.objects.exists()


def test_one_address_makes_a_few_guests_an_hour(monkeypatch):
    from django.core.cache import cache

    cache.clear()
    monkeypatch.setattr(guests, "GUESTS_PER_ADDRESS_PER_HOUR", 2)
    first, _ = guest_browser()
    guest_browser()
    refused = Client().post("/play/ms:1/")
    assert refused.status_code == 429 and b"Too many new guests" in refused.content
    assert User.objects.count() == 2
    assert first.post("/play/ms:2/")["Location"].startswith("/games/")  # a browser that kept its guest deals on


def test_clean_guests_takes_a_number_of_days_or_says_so():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="'0' is not a number of days"):
        call_command("clean_guests", "--days", "0")
