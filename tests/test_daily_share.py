"""Sharing a finished daily: a short text with date, moves, par, undos, time, rank and a link to the result's
page, which works for anyone at once and tells nothing of the deal; the replay waits for the day's end."""

from __future__ import annotations

import datetime as dt

import pytest

from games.daily import services as daily
from games.play import services
from tests.support.daily import make_test_daily, win_daily
from tests.support.players import client_for

pytestmark = pytest.mark.usefixtures("solver_stand_in")  # dailies from the trivial deal (tests/support/daily.py)

DAY = dt.date(2026, 3, 1)


def share(client, date=DAY, **params):
    return client.get(f"/api/daily/{date.isoformat()}/share/", params)


def test_the_shared_text_has_date_moves_par_undos_time_rank_and_the_results_page(db, alice, clock):
    make_test_daily(DAY, par=2)
    clock.set(DAY)
    game = win_daily(alice, moves=5, undos=1, seconds=125)
    answer = share(client_for(alice))
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["replay_url"] == f"http://testserver/replay/{game.pk}/"
    assert body["result_url"] == "http://testserver/daily/2026-03-01/result/alice/"
    assert body["replay_open"] is True  # one's own replay
    assert (body["moves"], body["undos"], body["par"], body["rank"], body["status"]) == (5, 1, 2, 1, "won")
    assert body["text"] == (
        "FreeCell Online daily 2026-03-01: won in 5 moves (par 2, +3), 1 undo, 2:05, rank 1 of 1\n"
        "http://testserver/daily/2026-03-01/result/alice/"
    )


def test_a_resigned_daily_can_be_shared_as_a_loss(db, alice, clock):
    make_test_daily(DAY, par=2)
    clock.set(DAY)
    game, _ = daily.start_ranked_game(alice)
    services.resign(game_id=game.pk, user=alice)
    body = share(client_for(alice)).json()
    assert body["status"] == "resigned" and body["rank"] is None
    assert body["text"].startswith("FreeCell Online daily 2026-03-01: resigned after 0 moves (par 2), 0 undos")


def test_someone_elses_result_is_shared_at_once_but_their_line_waits_for_the_days_end(db, alice, charlie, clock):
    """The numbers are the leaderboard's; the line is not: a throwaway account that won would hand the
    leader's line to the main account."""
    make_test_daily(DAY)
    clock.set(DAY)
    game = win_daily(alice, moves=2)
    viewer = client_for(charlie)
    answer = share(viewer, user="alice")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert (body["username"], body["moves"], body["rank"], body["replay_open"]) == ("alice", 2, 1, False)
    assert viewer.get(f"/api/games/{game.pk}/history/").status_code == 404
    win_daily(charlie, moves=3)
    assert share(viewer, user="alice").json()["replay_open"] is False  # winning is no key to the line
    assert viewer.get(f"/api/games/{game.pk}/history/").status_code == 404
    clock.advance()
    assert share(viewer, user="alice").json()["replay_open"] is True
    assert viewer.get(f"/api/games/{game.pk}/history/").status_code == 200


def test_anyone_can_see_a_shared_result_at_once(db, alice, anon_client, clock):
    make_test_daily(DAY)
    clock.set(DAY)
    win_daily(alice, moves=2)
    answer = share(anon_client, user="alice")
    assert answer.status_code == 200 and answer.json()["replay_open"] is False
    clock.advance()
    assert share(anon_client, user="alice").json()["replay_open"] is True


def test_a_daily_still_being_played_cannot_be_shared_yet(db, alice, clock):
    make_test_daily(DAY)
    clock.set(DAY)
    daily.start_ranked_game(alice)
    answer = share(client_for(alice))
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "game_not_finished"


def test_sharing_needs_a_player(db, anon_client, clock):
    make_test_daily(DAY)
    clock.set(DAY)
    assert share(anon_client).status_code == 401
    assert share(anon_client, user="nobody").status_code == 404
