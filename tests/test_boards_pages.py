"""The leaderboards page and the game page's record line without a browser: the page renders for anyone
with its boards' hooks and boot data, the header links it, and the record line shows on numbered and
seeded deals only."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from django.test import Client

from games.daily.services import played_as
from games.play import services

STATIC = Path(__file__).resolve().parent.parent / "frontend" / "static" / "frontend"


def boot_of(response) -> dict:
    match = re.search(rb'<script id="boot" type="application/json">(.*?)</script>', response.content, re.S)
    assert match, "the page embeds its boot JSON"
    return json.loads(match.group(1))


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["visitor", "player"])
def test_the_leaderboards_page_renders_its_three_boards_for_anyone(who, alice):
    client = signed_in(alice) if who == "player" else Client()
    response = client.get("/leaderboards/")
    assert response.status_code == 200
    html = response.content.decode()
    for hook in ("data-records", "data-ladder", "data-streaks", 'data-testid="records-deal"', 'data-testid="ladder-month"', 'data-testid="points-rule"'):
        assert hook in html, hook
    for anchor in ('id="records"', 'id="ladder"', 'id="streaks"'):
        assert anchor in html
    assert "frontend/js/pages/leaderboards.js" in html and "frontend/boards.css" in html
    boot = boot_of(response)
    assert boot["month"] == dt.datetime.now(dt.UTC).strftime("%Y-%m")
    assert boot["me"] == ("alice" if who == "player" else "")
    # The header's link to the page says it is the page shown.
    assert re.search(r'<a href="/leaderboards/" data-testid="nav-leaderboards" aria-current="page"[^>]*>', html)


@pytest.mark.django_db
def test_every_page_links_the_leaderboards_from_its_header(alice):
    for path in ("/", "/daily/2020-01-01/", f"/u/{alice.username}/"):
        html = Client().get(path).content.decode()
        assert 'href="/leaderboards/" data-testid="nav-leaderboards"' in html, path


@pytest.mark.django_db
def test_the_leaderboards_page_leaves_its_query_to_the_script():
    """The deal, autoplay and month in the address are the script's to read: the server answers the same
    page whatever they say, and reflects none of it."""
    plain = boot_of(Client().get("/leaderboards/"))
    for query in ("?deal=ms:1&autoplay=none", "?deal=%3Cscript%3Ealert(1)%3C/script%3E", "?month=9999-99", "?month=x&autoplay=both"):
        response = Client().get(f"/leaderboards/{query}")
        assert response.status_code == 200, query
        assert boot_of(response) == plain
        assert b"alert(1)" not in response.content
    # A NUL byte is refused by the site as bad input, never a 500.
    assert Client().get("/leaderboards/?deal=%00").status_code == 400


@pytest.mark.django_db
@pytest.mark.parametrize("deal", ["ms:1234", "seed:77"])
def test_a_numbered_or_seeded_deals_table_has_the_record_line(alice, deal):
    game = services.create_game(player=alice, deal=deal)
    response = signed_in(alice).get(f"/games/{game.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="record"' in html
    assert "frontend/boards.css" in html
    # The line comes before the table, so the play area is sized below it.
    assert html.index('data-testid="record"') < html.index("data-game-panel")


@pytest.mark.django_db
def test_a_past_dailys_table_has_no_record_line(alice):
    from tests.support.daily import make_test_daily

    daily = make_test_daily(dt.datetime.now(dt.UTC).date() - dt.timedelta(days=3))
    game = services.create_game(player=alice, deal=daily.deal, record=played_as(daily.date))
    response = signed_in(alice).get(f"/games/{game.pk}/")
    assert response.status_code == 200
    assert 'data-testid="record"' not in response.content.decode()


def test_the_boards_stylesheet_and_modules_exist():
    for path in ("boards.css", "js/record.js", "js/pages/leaderboards.js"):
        assert (STATIC / path).is_file(), path
    # The game page's module reads the record line's hook.
    assert "data-testid=record" in (STATIC / "js" / "pages" / "game.js").read_text()
