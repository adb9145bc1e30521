"""The shared result's page /daily/<date>/result/<username>/: it works for anyone at once, shows the moves, the
time, the rank and a picture of them, spoils nothing of the deal, and leads to the replay once the day is over."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client

from games.daily import services as daily
from games.play import services
from tests.support.daily import TRIVIAL_COLUMNS, make_test_daily, win_daily
from tests.support.players import client_for

pytestmark = pytest.mark.usefixtures("solver_stand_in")

DAY = dt.date(2026, 3, 1)
PAGE = "/daily/2026-03-01/result/alice/"
# Every card of the deal as the pages write one (`7D`): none may be on the page while the day lasts.
CARDS = {card for column in TRIVIAL_COLUMNS for card in column}


def page_for(client, path=PAGE):
    return client.get(path)


def cards_named(html: str) -> set[str]:
    """The deal's cards written in the page's body (the head's icon is URL-encoded: `%3C` is no card)."""
    body = html.split("<main", 1)[-1]
    return set(re.findall(r"\b([2-9TJQKA][CDHS])\b", body)) & CARDS


def test_a_friend_sees_the_result_at_once_without_the_deal(db, alice, clock):
    make_test_daily(DAY, par=2)
    clock.set(DAY)
    game = win_daily(alice, moves=5, undos=1, seconds=125)
    answer = page_for(Client())
    assert answer.status_code == 200
    html = answer.content.decode()
    assert 'data-testid="result-moves">5' in html and "(par 2)" in html
    assert 'data-testid="result-time">2:05' in html
    assert 'data-testid="result-rank">1 of 1' in html
    assert 'data-testid="result-picture"' in html and "<svg" in html
    assert "won in 5 moves (par 2, +3), 1 undo, 2:05, rank 1 of 1" in html  # the share text and the picture's words
    # Nothing of the deal: no card of its layout, no line, no link to the replay, no game object.
    assert cards_named(html) == set()
    assert f"/replay/{game.pk}/" not in html and 'data-testid="result-replay-later"' in html
    assert '"state"' not in html and "1b" not in html.split("<main", 1)[1]


def test_the_page_leads_to_the_replay_once_the_day_is_over(db, alice, clock):
    make_test_daily(DAY)
    clock.set(DAY)
    game = win_daily(alice, moves=2)
    visitor = Client()
    assert f"/replay/{game.pk}/" not in page_for(visitor).content.decode()
    clock.advance()
    html = page_for(visitor).content.decode()
    assert f'href="/replay/{game.pk}/"' in html and 'data-day-over="true"' in html
    assert visitor.get(f"/replay/{game.pk}/").status_code == 200


def test_the_player_reaches_their_own_replay_at_once(db, alice, clock):
    make_test_daily(DAY)
    clock.set(DAY)
    game = win_daily(alice, moves=2)
    mine = Client()
    mine.force_login(alice)
    assert f'href="/replay/{game.pk}/"' in page_for(mine).content.decode()


def test_the_shared_text_links_to_the_page(db, alice, clock):
    make_test_daily(DAY)
    clock.set(DAY)
    win_daily(alice, moves=2)
    text = client_for(alice).get("/api/daily/2026-03-01/share/").json()["text"]
    link = text.rsplit("\n", 1)[1]
    assert link == f"http://testserver{PAGE}"
    assert Client().get(PAGE).status_code == 200


def test_a_resigned_result_has_a_page_too(db, alice, clock):
    make_test_daily(DAY, par=2)
    clock.set(DAY)
    game, _ = daily.start_ranked_game(alice)
    services.resign(game_id=game.pk, user=alice)
    html = page_for(Client()).content.decode()
    assert 'data-testid="result-status">Resigned' in html and 'data-testid="result-rank">not ranked' in html


def test_the_picture_is_served_on_its_own(db, alice, clock):
    make_test_daily(DAY)
    clock.set(DAY)
    win_daily(alice, moves=2)
    answer = Client().get(f"{PAGE}picture.svg")
    assert answer.status_code == 200 and answer["Content-Type"] == "image/svg+xml"
    svg = answer.content.decode()
    assert svg.startswith("<svg") and "Rank 1 of 1" in svg and cards_named(svg) == set()


def test_a_name_is_written_as_text_in_the_picture(db, clock):
    from tests.support.players import make_player

    player = make_player("a<b>&c")
    make_test_daily(DAY)
    clock.set(DAY)
    win_daily(player, moves=2)
    svg = Client().get("/daily/2026-03-01/result/a%3Cb%3E%26c/picture.svg").content.decode()
    assert "a&lt;b&gt;&amp;c" in svg and "<b>" not in svg


@pytest.mark.parametrize(
    "path, status",
    [
        ("/daily/2026-03-01/result/nobody/", 404),
        ("/daily/2026-02-30/result/alice/", 404),
        ("/daily/not-a-date/result/alice/", 404),
        ("/daily/2026-03-09/result/alice/", 404),  # a day to come
        ("/daily/2026-03-01/result/%00/", 400),  # the site refuses a NUL in any path
        ("/daily/2026-03-01/result/nobody/picture.svg", 404),
    ],
)
def test_bad_addresses_are_refused_not_errors(db, alice, clock, path, status):
    make_test_daily(DAY)
    clock.set(DAY)
    assert Client().get(path).status_code == status


def test_a_game_still_being_played_says_so_to_its_player_only(db, alice, clock):
    make_test_daily(DAY)
    clock.set(DAY)
    daily.start_ranked_game(alice)
    mine = Client()
    mine.force_login(alice)
    answer = page_for(mine)
    assert answer.status_code == 409 and "still being played" in answer.content.decode()
    # To anyone else, that alice is playing today is nobody's business: there is no result yet.
    answer = page_for(Client())
    assert answer.status_code == 404 and "still being played" not in answer.content.decode()
