"""The web pages without a browser: who may open what, what a page promises to create, the hooks the
scripts and browser tests rely on, and that the static ES modules import only what exists."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games.play import services
from tests.support.daily import ranked_game
from tests.support.players import PASSWORD, sent_mail

STATIC_JS = Path(__file__).resolve().parent.parent / "frontend" / "static" / "frontend" / "js"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def boot_of(response) -> dict:
    match = re.search(rb'<script id="boot" type="application/json">(.*?)</script>', response.content, re.S)
    assert match, "the page embeds its boot JSON"
    return json.loads(match.group(1))


def today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def make_daily(date: dt.date, deal: str = "seed:77"):
    from games.models import DailyChallenge
    from games.play import services

    return DailyChallenge.objects.create(date=date, deal=services.get_deal(deal), par=40)


# --- sign up, sign in, sign out ------------------------------------------------------------------


@pytest.mark.django_db
def test_it_signs_up_and_signs_in_the_new_player():
    client = Client()
    page = client.get("/signup/")
    assert page.status_code == 200
    assert "csrftoken" in page.cookies
    response = client.post("/signup/", {"username": "zoe", "password": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    assert User.objects.filter(username="zoe").exists()
    assert client.get("/").context["user"].username == "zoe"


@pytest.mark.django_db
def test_sign_up_follows_next_on_this_site_only():
    client = Client()
    response = client.post("/signup/", {"username": "zed", "password": PASSWORD, "password2": PASSWORD, "next": "/daily/"})
    assert response["Location"] == "/daily/"
    other = Client()
    response = other.post("/signup/", {"username": "zia", "password": PASSWORD, "password2": PASSWORD, "next": "https://evil.example/"})
    assert response["Location"] == "/"


@pytest.mark.django_db
def test_signing_in_from_an_account_page_lands_on_the_home_page_not_back_on_it(alice):
    """The header's links carry the page they are on; from /signup/ that sent you back to a sign-up form."""
    for page in ("/signup/", "/login/", "/logout/", "/reset/"):
        header = Client().get(page).content.decode()
        assert f"?next={page}" not in header, page
    answer = Client().post("/login/", {"username": "alice", "password": PASSWORD, "next": "/signup/"})
    assert answer.status_code == 302 and answer["Location"] == "/"
    client = signed_in(alice)
    assert client.get("/login/?next=/daily/")["Location"] == "/daily/"  # already signed in: go on
    assert client.get("/signup/")["Location"] == "/"
    assert Client().get("/u/alice/").content.decode().count("?next=/u/alice/") == 2  # other pages keep it


@pytest.mark.django_db
def test_sign_up_refuses_a_taken_name_and_a_weak_password(alice):
    client = Client()
    taken = client.post("/signup/", {"username": "alice", "password": PASSWORD, "password2": PASSWORD})
    assert taken.status_code == 400
    assert b"taken" in taken.content
    weak = client.post("/signup/", {"username": "newbie", "password": "123", "password2": "123"})
    assert weak.status_code == 400
    assert b"data-testid=\"form-errors\"" in weak.content
    assert not User.objects.filter(username="newbie").exists()


@pytest.mark.django_db
def test_sign_up_refuses_two_different_passwords():
    response = Client().post("/signup/", {"username": "newbie", "password": PASSWORD, "password2": PASSWORD + "x"})
    assert response.status_code == 400
    assert b"differ" in response.content


@pytest.mark.django_db
def test_it_signs_in_with_the_right_password_only(alice):
    client = Client()
    wrong = client.post("/login/", {"username": "alice", "password": "nope"})
    assert wrong.status_code == 401
    assert b"wrong username or password" in wrong.content
    right = client.post("/login/", {"username": "alice", "password": PASSWORD, "next": "/u/alice/"})
    assert right.status_code == 302 and right["Location"] == "/u/alice/"


@pytest.mark.django_db
def test_sign_out_takes_a_post(alice):
    client = signed_in(alice)
    assert client.get("/logout/").status_code == 200
    assert client.get("/").context["user"].is_authenticated
    response = client.post("/logout/")
    assert response.status_code == 302
    assert not client.get("/").context["user"].is_authenticated


# --- pages that need a player --------------------------------------------------------------------


@pytest.mark.django_db
def test_a_stranger_gets_a_deals_start_page_and_the_daily_invites_sign_up():
    # Open play (docs/frontend.md): anyone deals a casual game (as a guest, tests/test_guests.py); the ranked daily is players'.
    start = Client().get("/play/1/")
    assert start.status_code == 200 and b'data-testid="start"' in start.content
    daily = Client().get("/daily/")
    assert daily.status_code == 200 and b'href="/signup/?next=/daily/"' in daily.content


@pytest.mark.django_db
def test_play_deals_a_fresh_game_on_each_press_of_its_button(alice):
    from games.models import Game

    client = signed_in(alice)
    first = client.post("/play/ms:1/")
    second = client.post("/play/1/")
    assert first.status_code == second.status_code == 302
    games = list(Game.objects.filter(player=alice).order_by("id"))
    assert [g.deal_id for g in games] == ["ms:1", "ms:1"]
    assert first["Location"] == f"/games/{games[0].pk}/"
    assert second["Location"] == f"/games/{games[1].pk}/"
    assert games[0].autoplay == "safe"


@pytest.mark.django_db
def test_opening_a_play_link_deals_nothing(alice):
    # A browser prefetching the link, or a link or image on another site, must not leave games behind:
    # the GET is the start page, and only its button's POST deals.
    from games.models import Game

    client = signed_in(alice)
    for path in ("/play/ms:1/", "/play/random/", "/play/1/?autoplay=none", "/play/?deal=617"):
        answer = client.get(path, follow=True)
        assert answer.status_code == 200, path
    assert not Game.objects.filter(player=alice).exists()
    page = client.get("/play/1/?autoplay=none").content.decode()
    assert 'data-testid="start-deal">ms:1<' in page and 'method="post"' in page
    assert 'value="none" checked' in page  # the link's autoplay is the box's first setting
    assert "A random deal" in client.get("/play/random/").content.decode()
    assert client.put("/play/ms:1/").status_code == 405


@pytest.mark.django_db
def test_dealing_needs_the_csrf_token(alice):
    from games.models import Game

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post("/play/ms:1/").status_code == 403
    assert client.post("/play/", {"deal": "1"}).status_code == 403
    token = client.get("/play/ms:1/").cookies["csrftoken"].value
    assert client.post("/play/ms:1/", {"csrfmiddlewaretoken": token})["Location"].startswith("/games/")
    assert Game.objects.filter(player=alice).count() == 1


@pytest.mark.django_db
def test_play_takes_random_seeds_and_autoplay_none(alice):
    from games.models import Game

    client = signed_in(alice)
    client.post("/play/random/", {"autoplay": "none"})
    game = Game.objects.get(player=alice)
    assert game.deal_id.startswith("seed:")
    assert game.autoplay == "none"


@pytest.mark.django_db
def test_the_home_form_deals_without_script(alice):
    from games.models import Game

    client = signed_in(alice)
    answer = client.post("/play/", {"deal": "617", "autoplay": "none"})
    game = Game.objects.get(player=alice)
    assert answer["Location"] == f"/games/{game.pk}/"
    assert (game.deal_id, game.autoplay) == ("ms:617", "none")
    # Spaces typed inside the deal are dropped, any case is taken, blank is a random deal, and so is
    # the Random deal button whatever the field says.
    for typed, dealt in (("ms: 617", "ms:617"), ("MS:7", "ms:7"), ("", "seed:"), ("12", "seed:")):
        body = {"deal": typed, **({"random": "1"} if typed == "12" else {})}
        location = client.post("/play/", body)["Location"]
        assert Game.objects.get(pk=int(location.split("/")[2])).deal_id.startswith(dealt), typed
    # A GET (the address typed, an old link) goes on to the start page, which deals nothing.
    assert client.get("/play/?deal=617")["Location"] == "/play/ms:617/"
    assert client.get("/play/?deal=617&autoplay=none")["Location"] == "/play/ms:617/?autoplay=none"
    assert client.get("/play/")["Location"] == "/play/random/"
    assert client.get("/races/?code=ab-c12")["Location"] == "/races/ABC12/"
    # One that cannot be a path is the "No such deal" page, not the site's plain 404.
    for odd in ("a/b", ".", ".."):  # the last two made /play/./ and /play/../: a random deal, the home page
        for answer in (client.get("/play/", {"deal": odd}), client.post("/play/", {"deal": odd})):
            assert answer.status_code == 404 and b"No such deal" in answer.content, odd
    # Signed out, the form deals at once too, as a guest (accounts/guests.py).
    assert Client().post("/play/", {"deal": "5"})["Location"].startswith("/games/")


@pytest.mark.django_db
def test_play_takes_a_deal_id_in_any_case(alice):
    for deal in ("MS:1", "Seed:42"):
        response = signed_in(alice).post(f"/play/{deal}/")
        assert response.status_code == 302 and response["Location"].startswith("/games/"), deal
        assert signed_in(alice).get(f"/play/{deal}/").status_code == 200, deal


@pytest.mark.django_db
def test_play_refuses_a_bad_deal(alice):
    for response in (signed_in(alice).get("/play/ms:0/"), signed_in(alice).post("/play/ms:0/")):
        assert response.status_code == 404
        assert b"No such deal" in response.content


@pytest.mark.django_db
def test_play_refuses_a_deal_id_with_a_slash_from_the_form(alice):
    # The no-script form puts the deal in the path, where a "/" cannot go.
    for deal in ("a/b", "ms:1/"):
        response = signed_in(alice).get("/play/", {"deal": deal})
        assert response.status_code == 404
        assert b"No such deal" in response.content


@pytest.mark.django_db
def test_play_sends_todays_daily_to_the_ranked_page(alice):
    from games.models import Game

    path = f"/play/daily:{today().isoformat()}/"
    for response in (signed_in(alice).get(path), signed_in(alice).post(path), signed_in(alice).post("/play/", {"deal": f"daily:{today()}"})):
        assert response.status_code == 302 and response["Location"] == "/daily/"
    assert not Game.objects.filter(player=alice).exists()


@pytest.mark.django_db
def test_play_says_a_daily_to_come_is_not_out(alice):
    import datetime as dt

    path = f"/play/daily:{(today() + dt.timedelta(days=1)).isoformat()}/"
    for response in (signed_in(alice).get(path), signed_in(alice).post(path)):
        assert response.status_code == 404
        assert b"has not begun" in response.content


# --- the game, replay and profile pages ----------------------------------------------------------


@pytest.mark.django_db
def test_the_game_page_carries_the_game_and_the_test_hooks(alice):
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1")
    response = signed_in(alice).get(f"/games/{game.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    for hook in ('data-testid="moves"', 'data-testid="undos"', 'data-testid="status"', 'data-testid="clock"', "data-table"):
        assert hook in html
    assert "frontend/js/pages/game.js" in html
    boot = boot_of(response)
    assert boot["me"] == "alice"
    assert boot["game"]["id"] == game.pk
    assert boot["game"]["state"]["columns"][0] == ["JD", "KD", "2S", "4C", "3S", "6D", "6S"]
    assert "csrftoken" in response.cookies


@pytest.mark.django_db
def test_anyone_may_watch_a_casual_game(alice):
    from games.play import services

    game = services.create_game(player=alice, deal="ms:2")
    response = Client().get(f"/games/{game.pk}/")
    assert response.status_code == 200
    assert boot_of(response)["me"] == ""


@pytest.mark.django_db
def test_todays_ranked_game_of_another_player_stays_hidden(alice, charlie):

    daily = make_daily(today())
    game = ranked_game(alice, daily)
    assert signed_in(charlie).get(f"/games/{game.pk}/").status_code == 404
    assert signed_in(charlie).get(f"/replay/{game.pk}/").status_code == 404
    assert Client().get(f"/games/{game.pk}/").status_code == 404
    assert signed_in(alice).get(f"/games/{game.pk}/").status_code == 200


@pytest.mark.django_db
def test_a_missing_game_is_404(alice):
    assert signed_in(alice).get("/games/999999/").status_code == 404
    assert signed_in(alice).get("/replay/999999/").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/games/999999/", "/u/nobody/", "/no/such/page/"])
def test_a_page_that_names_nothing_is_the_sites_own_404(alice, path, settings):
    settings.DEBUG = False
    response = signed_in(alice).get(path)
    html = response.content.decode()
    assert response.status_code == 404
    assert "Not found · FreeCell Online" in html and path in html and 'href="/daily/"' in html
    assert 'data-testid="me"' in html  # the page keeps the player's header


@pytest.mark.django_db
def test_a_page_that_crashes_is_the_sites_own_500(alice, settings, monkeypatch):
    import frontend.views

    def crash(*args, **kwargs):
        raise RuntimeError("boom")

    settings.DEBUG = False
    monkeypatch.setattr(frontend.views, "render", crash)
    client = signed_in(alice)
    client.raise_request_exception = False
    response = client.get("/")
    assert response.status_code == 500
    html = response.content.decode()
    assert "Something went wrong · FreeCell Online" in html and "boom" not in html


@pytest.mark.django_db
def test_the_replay_page_gets_the_layout_and_the_autoplay_prelude(alice):
    from games.engine import Board
    from games.play import services

    # seed deals are random enough that some start with an ace on top; find one that does.
    for seed in range(1, 400):
        board = Board.from_deal(f"seed:{seed}")
        if board.safe_autoplay():
            break
    game = services.create_game(player=alice, deal=f"seed:{seed}")
    response = Client().get(f"/replay/{game.pk}/")
    assert response.status_code == 200
    boot = boot_of(response)
    assert boot["columns"] == services.get_deal(f"seed:{seed}").columns
    assert boot["prelude"] and all(move.endswith("h") for move in boot["prelude"])
    assert "replay-slider" in response.content.decode()


@pytest.mark.django_db
def test_the_profile_page_exists_for_players_only(alice, bob):
    assert Client().get("/u/alice/").status_code == 200
    assert Client().get("/u/nobody/").status_code == 404
    own = signed_in(alice).get("/u/alice/")
    assert b"data-friends" in own.content and b'data-testid="account-link"' in own.content
    assert b"data-friends" not in Client().get("/u/alice/").content
    assert b'data-testid="account-link"' not in signed_in(bob).get("/u/alice/").content


@pytest.mark.django_db
def test_the_header_links_a_player_to_their_account_page(alice):
    assert 'data-testid="nav-account"' not in Client().get("/").content.decode()
    home = signed_in(alice).get("/").content.decode()
    # Its word, or a gear on a phone (the word stays its name).
    assert '<a href="/account/" data-testid="nav-account" aria-label="Account"><span class="nav-long">Account</span>' in home
    account = signed_in(alice).get("/account/").content.decode()
    assert '<a href="/account/" data-testid="nav-account" aria-current="page" aria-label="Account"><span class="nav-long">Account</span>' in account


@pytest.mark.django_db
def test_the_account_page_is_ones_own_and_needs_a_player(alice):
    assert Client().get("/account/")["Location"].startswith("/login/?next=/account/")
    page = signed_in(alice).get("/account/").content.decode()
    for form in ("profile", "email", "password", "close"):
        assert f'data-form="{form}"' in page
    assert "can’t contain your username" in page  # the password rules, as at sign-up
    assert "can’t be the one you have now" in page  # and the one sign-up has no use for
    assert 'href="/api/users/alice/games/?format=ndjson"' in page  # one's games, to keep before closing


# --- daily and race pages ------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_daily_page_names_today(alice):
    response = signed_in(alice).get("/daily/")
    assert response.status_code == 200
    assert boot_of(response)["date"] == today().isoformat()


@pytest.mark.django_db
def test_a_past_day_has_a_leaderboard_page_and_the_future_none():
    from games.models import DailyChallenge

    day = today() - dt.timedelta(days=3)
    past = day.isoformat()
    missing = Client().get(f"/daily/{past}/")  # no daily was made that day: as the API, 404
    assert missing.status_code == 404 and b"No daily that day" in missing.content
    DailyChallenge.objects.create(date=day, deal=services.get_deal("seed:3"), par=40, par_line="")
    DailyChallenge.objects.create(date=day - dt.timedelta(days=5), deal=services.get_deal("seed:4"), par=40, par_line="")
    gap = Client().get(f"/daily/{(day - dt.timedelta(days=2)).isoformat()}/").content.decode()
    # a day without a daily links to the nearest days with one, either side
    assert f'href="/daily/{(day - dt.timedelta(days=5)).isoformat()}/"' in gap and f'href="/daily/{past}/"' in gap
    response = Client().get(f"/daily/{past}/")
    assert response.status_code == 200
    assert boot_of(response)["date"] == past
    assert Client().get(f"/daily/{(today() + dt.timedelta(days=1)).isoformat()}/").status_code == 404
    for bad in ("not-a-date", day.strftime("%Y%m%d"), "2026-W49-2"):  # only YYYY-MM-DD, as the API
        assert Client().get(f"/daily/{bad}/").status_code == 404, bad


@pytest.mark.django_db
def test_the_race_page_hands_the_code_to_the_script(alice):
    from games.races import services as races

    code = races.create_race(owner=alice, deal="ms:5").code
    response = signed_in(alice).get(f"/races/{code}/")
    assert response.status_code == 200
    assert boot_of(response) == {"code": code, "me": "alice"}
    unknown = signed_in(alice).get("/races/ZZZZZZ/")
    assert unknown.status_code == 404 and b"No such race" in unknown.content
    # no hints in races (the API refuses them too); a casual game's page offers them
    assert 'data-action="hint"' not in response.content.decode()
    game = services.create_game(player=alice, deal="ms:5", autoplay="safe")
    assert 'data-action="hint"' in signed_in(alice).get(f"/games/{game.pk}/").content.decode()


@pytest.mark.django_db
def test_the_home_page_offers_daily_deals_and_races(alice):
    html = signed_in(alice).get("/").content.decode()
    for hook in ('href="/daily/"', 'data-play-form', 'data-open-race', 'data-join-race', 'data-testid="random-deal"'):
        assert hook in html


def test_the_favicon_is_served(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"


# --- static files --------------------------------------------------------------------------------


def test_static_files_are_served_without_collectstatic(client):
    response = client.get("/static/frontend/app.css")
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert b".card" in body


IMPORT_RE = re.compile(r"import\s*\{([^}]*)\}\s*from\s*\"(\.{1,2}/[^\"]+)\"")
EXPORT_RE = re.compile(r"export\s+(?:async\s+)?(?:function\*?|class|const|let|var)\s+([A-Za-z_$][\w$]*)")


def test_every_module_imports_only_names_that_exist():
    """A typo in an import breaks a whole page in the browser; catch it here, without one."""
    modules = sorted(STATIC_JS.rglob("*.js"))
    assert len(modules) >= 10
    exports = {path: set(EXPORT_RE.findall(path.read_text())) for path in modules}
    for path in modules:
        for names, target in IMPORT_RE.findall(path.read_text()):
            source = (path.parent / target).resolve()
            assert source in exports, f"{path.name} imports a missing module {target}"
            for name in (n.strip().split(" as ")[0] for n in names.split(",") if n.strip()):
                assert name in exports[source], f"{path.name} imports {name} that {target} does not export"


def test_every_page_script_exists():
    templates = Path(__file__).resolve().parent.parent / "frontend" / "templates" / "frontend"
    for template in templates.glob("*.html"):
        for script in re.findall(r"static 'frontend/(js/[^']+)'", template.read_text()):
            assert (STATIC_JS.parent / script).exists(), f"{template.name} loads a missing {script}"


# --- password reset page and names in any case -----------------------------------------------------


def reset_path_of(user) -> str:
    """The page link of the reset e-mail sent to `user`, as a path."""
    from rest_framework.test import APIClient

    user.email = "reset@example.com"
    user.save()
    assert APIClient().post("/api/auth/password/reset/", {"email": user.email}, format="json").status_code == 202
    from django.conf import settings

    link = re.search(re.escape(settings.SITE_URL) + r"(/reset/\S+/\S+/)", sent_mail()[-1].body)
    assert link, "the e-mail links to the reset page"
    return link.group(1)


NEW_PASSWORD = "a fresh password 7"


@pytest.mark.django_db
def test_the_reset_link_opens_a_form_that_sets_the_password_and_signs_in(alice):
    from accounts.tokens import token_of_key
    from tests.support.players import token_of

    old_token = token_of(alice)
    path = reset_path_of(alice)
    client = Client()
    page = client.get(path)
    assert page.status_code == 200 and "csrftoken" in page.cookies
    assert b'name="password2"' in page.content and b"csrfmiddlewaretoken" in page.content
    response = client.post(path, {"password": NEW_PASSWORD, "password2": NEW_PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/").context["user"].username == "alice"
    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD)
    assert token_of_key(old_token) is None  # the same revocation as the API's confirm
    # The link is spent.
    again = Client().get(path)
    assert again.status_code == 400 and b"invalid or has expired" in again.content


@pytest.mark.django_db
def test_the_reset_form_refuses_two_different_or_weak_passwords(alice):
    path = reset_path_of(alice)
    differ = Client().post(path, {"password": NEW_PASSWORD, "password2": NEW_PASSWORD + "x"})
    assert differ.status_code == 400 and b"The two passwords differ." in differ.content
    weak = Client().post(path, {"password": "12345678", "password2": "12345678"})
    assert weak.status_code == 400 and b"too common" in weak.content  # Django's validators, as the API
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)
    assert Client().get(path).status_code == 200  # a refused try leaves the link working


@pytest.mark.django_db
@pytest.mark.parametrize("tail", ["MQ/nope/", "!!/x-y/", "OTk5OTk/abc-def/"])
def test_a_bad_reset_link_says_so(alice, tail):
    for method in ("get", "post"):
        response = getattr(Client(), method)(f"/reset/{tail}", {"password": NEW_PASSWORD, "password2": NEW_PASSWORD})
        assert response.status_code == 400
        assert b"invalid or has expired" in response.content and b'name="password"' not in response.content
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


@pytest.mark.django_db
def test_the_reset_form_needs_the_csrf_token(alice):
    path = reset_path_of(alice)
    client = Client(enforce_csrf_checks=True)
    assert client.post(path, {"password": NEW_PASSWORD, "password2": NEW_PASSWORD}).status_code == 403
    alice.refresh_from_db()
    assert alice.check_password(PASSWORD)


@pytest.mark.django_db
def test_names_are_taken_in_any_case_on_the_sign_in_and_profile_pages(alice):
    profile = Client().get("/u/ALICE/")
    assert profile.status_code == 200 and boot_of(profile)["username"] == "alice"
    client = Client()
    assert client.post("/login/", {"username": "Alice", "password": PASSWORD}).status_code == 302
    assert client.get("/").context["user"].username == "alice"


@pytest.mark.django_db
def test_sign_up_refuses_a_name_outside_ascii():
    response = Client().post("/signup/", {"username": "\u0430lice", "password": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 400 and b"form-errors" in response.content
    assert not User.objects.exists()


@pytest.mark.django_db
def test_forgot_password_sends_the_reset_e_mail_from_the_sign_in_page(alice):
    alice.email = "alice@example.com"
    alice.save()
    login_page = Client().get("/login/")
    assert b'href="/reset/"' in login_page.content  # "Forgot your password?"
    form = Client().get("/reset/")
    assert form.status_code == 200 and b'name="email"' in form.content
    sent = Client().post("/reset/", {"email": "ALICE@example.com"})
    assert sent.status_code == 200 and b"Check your e-mail" in sent.content
    assert len(sent_mail()) == 1 and sent_mail()[0].to == ["alice@example.com"]
    link = re.search(r"https?://[^/\s]+(/reset/\S+/\S+/)", sent_mail()[0].body).group(1)
    assert Client().get(link).status_code == 200  # the link opens the form of the test above
    unknown = Client().post("/reset/", {"email": "nobody@example.com"})
    assert unknown.status_code == 200 and b"Check your e-mail" in unknown.content  # reveals no accounts
    assert len(sent_mail()) == 1
    bad = Client().post("/reset/", {"email": "not an address"})
    assert bad.status_code == 400 and b"valid email" in bad.content


@pytest.mark.django_db
def test_forgot_password_is_throttled_like_the_api(alice, monkeypatch):
    from django.core.cache import cache

    from freecell_site.throttling import AnonRateThrottle

    cache.clear()
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {**AnonRateThrottle.THROTTLE_RATES, "anon": "2/min"})
    answers = [Client().post("/reset/", {"email": "x@example.com"}).status_code for _ in range(3)]
    cache.clear()
    assert answers == [200, 200, 429]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/login/", "/signup/", "/races/new/", "/play/ms:1/", "/u/nobody-here/"])
def test_pages_carry_a_content_security_policy_with_nothing_inline(client, path):
    """An injected script or style attribute would not run (the pages build their DOM from /static/)."""
    response = client.get(path)
    policy = response.get("Content-Security-Policy", "")
    assert "script-src 'self'" in policy and "style-src 'self'" in policy, (path, response.status_code, policy)
    assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy


@pytest.mark.django_db
def test_the_api_and_its_docs_keep_their_own_scripts(client):
    """DRF's browsable API and Swagger UI have inline scripts: no page policy on /api/."""
    for path in ("/api/docs/", "/api/ping/?format=api"):
        assert "Content-Security-Policy" not in client.get(path), path


# --- accessibility: forms, structure, day links --------------------------------------------------


def _input(html: str, name: str) -> str:
    match = re.search(rf'<input name="{name}"[^>]*>', html)
    assert match, f"no input named {name}"
    return match.group(0)


def _described_by(html: str, name: str) -> str:
    """The text of the elements the input's aria-describedby names."""
    ids = re.search(r'aria-describedby="([^"]*)"', _input(html, name))
    assert ids, f"{name} has no aria-describedby"
    texts = []
    for ident in ids.group(1).split():
        match = re.search(rf'<(\w+)[^>]* id="{ident}"[^>]*>(.*?)</\1>', html, re.S)
        assert match, f"aria-describedby of {name} names a missing id {ident}"
        texts.append(re.sub(r"<[^>]+>", " ", match.group(2)))
    return " ".join(" ".join(texts).split())


@pytest.mark.django_db
def test_the_sign_up_form_states_the_password_rules_before_the_first_try():
    html = Client().get("/signup/").content.decode()
    rules = _described_by(html, "password")
    assert "at least 8 characters" in rules and "username" in rules
    assert "the one you have now" not in html  # a new account has no current password
    assert "autofocus" in _input(html, "username") and "aria-invalid" not in html
    assert "<title>Sign up" in html


@pytest.mark.django_db
def test_a_refused_sign_up_marks_the_first_bad_field_names_its_error_and_focuses_it(alice):
    html = Client().post("/signup/", {"username": "samuel", "password": "samuel-99x", "password2": "samuel-99x"}).content.decode()
    assert "<title>Error: Sign up" in html
    password = _input(html, "password")
    assert 'aria-invalid="true"' in password and "autofocus" in password
    assert "contains the username" in _described_by(html, "password")
    assert "autofocus" not in _input(html, "username") and "aria-invalid" not in _input(html, "username")
    assert 'value="samuel"' in _input(html, "username")
    html = Client().post("/signup/", {"username": "alice", "password": PASSWORD, "password2": PASSWORD + "x"}).content.decode()
    assert 'aria-invalid="true"' in _input(html, "password2") and "differ" in _described_by(html, "password2")
    html = Client().post("/signup/", {"username": "alice", "password": PASSWORD, "password2": PASSWORD}).content.decode()
    assert 'aria-invalid="true"' in _input(html, "username") and "taken" in _described_by(html, "username")
    assert "autofocus" in _input(html, "username")


@pytest.mark.django_db
def test_a_refused_sign_in_ties_its_message_to_both_fields_and_focuses_the_password(alice):
    html = Client().post("/login/", {"username": "alice", "password": "wrong password"}).content.decode()
    assert "<title>Error: Sign in" in html
    for name in ("username", "password"):
        assert 'aria-invalid="true"' in _input(html, name)
        assert "password" in _described_by(html, name).lower()
    assert "autofocus" in _input(html, "password") and "autofocus" not in _input(html, "username")
    assert "aria-invalid" not in Client().get("/login/").content.decode()


@pytest.mark.django_db
def test_the_reset_forms_tie_their_errors_to_their_fields(alice):
    html = Client().post("/reset/", {"email": "not an address"}).content.decode()
    assert "<title>Error: Forgot" in html
    email = _input(html, "email")
    assert 'aria-invalid="true"' in email and "autofocus" in email and "valid email" in _described_by(html, "email")
    path = reset_path_of(alice)
    page = Client().get(path).content.decode()
    assert "at least 8 characters" in _described_by(page, "password")
    html = Client().post(path, {"password": "1234567890123", "password2": "1234567890123"}).content.decode()
    assert "<title>Error: Choose" in html
    assert 'aria-invalid="true"' in _input(html, "password") and "numeric" in _described_by(html, "password")
    html = Client().post(path, {"password": NEW_PASSWORD, "password2": NEW_PASSWORD + "x"}).content.decode()
    assert 'aria-invalid="true"' in _input(html, "password2") and "autofocus" in _input(html, "password2")


@pytest.mark.django_db
def test_the_daily_page_has_a_main_heading(alice):
    html = signed_in(alice).get("/daily/").content.decode()
    assert re.search(r"<h1[^>]*>Today's daily", html)


@pytest.mark.django_db
def test_a_day_page_links_only_to_neighbouring_days_that_have_a_daily():
    """On a new site today's page linked "← yesterday", a day with no daily: a 404."""
    day = today()
    assert boot_of(Client().get(f"/daily/{day.isoformat()}/"))["prev"] is None
    make_daily(day - dt.timedelta(days=4), "seed:1")
    make_daily(day - dt.timedelta(days=9), "seed:2")
    boot = boot_of(Client().get(f"/daily/{day.isoformat()}/"))
    assert boot["prev"] == (day - dt.timedelta(days=4)).isoformat() and boot["next"] is None
    boot = boot_of(Client().get(f"/daily/{(day - dt.timedelta(days=4)).isoformat()}/"))
    assert boot["prev"] == (day - dt.timedelta(days=9)).isoformat() and boot["next"] == day.isoformat()
    boot = boot_of(Client().get(f"/daily/{(day - dt.timedelta(days=9)).isoformat()}/"))
    assert boot["prev"] is None and boot["next"] == (day - dt.timedelta(days=4)).isoformat()
    source = (STATIC_JS / "leaderboard.js").read_text()
    assert "shift(-1)" not in source  # no link made by date arithmetic


def test_the_race_page_keeps_its_status_line_live_and_its_timer_quiet():
    html = (Path(__file__).resolve().parent.parent / "frontend" / "templates" / "frontend" / "race.html").read_text()
    assert re.search(r'data-testid="race-status"><span[^>]*role="status"', html)
    assert re.search(r'data-testid="countdown" role="timer" aria-live="off"', html)


@pytest.mark.django_db
def test_a_next_that_is_not_a_path_goes_home(alice):
    """`next=abc` reached redirect(), which took it for a URL pattern's name: a 500 (and a correct
    sign-in lost with it), or with `page-logout` a way round the account-pages rule."""
    for odd in ("nosuchpage", "page-logout", "logout", "a b"):
        assert signed_in(alice).get("/login/", {"next": odd})["Location"] == "/", odd
        assert signed_in(alice).get("/signup/", {"next": odd})["Location"] == "/", odd
        answer = Client().post("/login/", {"username": "alice", "password": PASSWORD, "next": odd})
        assert answer.status_code == 302 and answer["Location"] == "/", odd


@pytest.mark.django_db
def test_a_look_alike_of_a_name_is_not_that_player(alice):
    """PostgreSQL's UPPER folds a dotless i to I: `alıce` signed in as alice, its failed guesses
    counted under a key of its own (the per-account login limit multiplied by each look-alike)."""
    from rest_framework.test import APIClient

    from accounts.selectors import player_named

    assert player_named("ALICE") == alice
    for look_alike in ("al\u0131ce", "\u0430lice"):
        assert player_named(look_alike) is None
        answer = APIClient().post("/api/auth/token/", {"username": look_alike, "password": PASSWORD}, format="json")
        assert answer.status_code == 401, look_alike


@pytest.mark.django_db
def test_a_signed_out_deal_button_deals_as_a_guest_with_its_autoplay():
    from games.models import Game

    answer = Client().post("/play/ms:21/", {"autoplay": "none"})
    assert answer.status_code == 302 and answer["Location"].startswith("/games/")
    game = Game.objects.get(pk=int(answer["Location"].split("/")[2]))
    assert game.autoplay == "none" and game.player.username.startswith("guest ")
    assert Client().get("/play/ms:21/").status_code == 200


@pytest.mark.django_db
def test_the_replay_of_a_game_still_being_played_says_so_and_links_to_it_live(alice):
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    page = Client().get(f"/replay/{game.pk}/").content.decode()
    assert "still being played" in page and f'href="/games/{game.pk}/"' in page
    services.resign(game_id=game.pk, user=alice)
    assert "still being played" not in Client().get(f"/replay/{game.pk}/").content.decode()


@pytest.mark.django_db
def test_a_watchers_tab_title_says_whose_game_it_is(alice, bob):
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    assert "<title>ms:1 by alice · FreeCell Online</title>" in Client().get(f"/games/{game.pk}/").content.decode()
    assert "<title>ms:1 by alice · FreeCell Online</title>" in signed_in(bob).get(f"/games/{game.pk}/").content.decode()
    assert "<title>ms:1 · FreeCell Online</title>" in signed_in(alice).get(f"/games/{game.pk}/").content.decode()
