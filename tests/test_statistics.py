"""Statistics a player reads (games/statistics.py; `statistics` of GET /api/users/<u>/ and the profile page),
and Restart, which leaves the game unfinished rather than resigned (games/play/restart.py)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone

from games.daily.services import today
from games.models import DailyGame, Game
from games.play import services
from games.statistics import player_statistics
from tests.support.boards import casual_deal, win_casual
from tests.support.daily import make_test_daily, win_daily
from tests.support.players import client_for, code_of

pytestmark = pytest.mark.django_db


def finished_in_order(*games: Game) -> None:
    """Dates the games' finishes one minute apart, in the order given (the streaks follow finishes)."""
    start = timezone.now() - dt.timedelta(hours=1)
    for i, game in enumerate(games):
        Game.objects.filter(pk=game.pk).update(finished_at=start + dt.timedelta(minutes=i))


def resigned(user, deal: str = "seed:101") -> Game:
    casual_deal(deal)
    game = services.create_game(player=user, deal=deal)
    services.resign(game_id=game.pk, user=user)
    return Game.objects.get(pk=game.pk)


def test_restart_deals_the_same_deal_and_keeps_the_old_game_as_abandoned(alice, bob):
    casual_deal()
    old = services.create_game(player=alice, deal="seed:101", autoplay="none")
    services.play_move(game_id=old.pk, user=alice, move="2a", ply=0)
    answer = client_for(alice).post(f"/api/games/{old.pk}/restart/")
    assert answer.status_code == 201, answer.content
    fresh = answer.json()
    assert fresh["deal"] == "seed:101" and fresh["autoplay"] == "none" and fresh["ply"] == 0 and fresh["id"] != old.pk
    kept = Game.objects.get(pk=old.pk)
    assert kept.status == Game.Status.ABANDONED and kept.ply == 1  # not resigned: no loss
    assert not kept.clock_running_at(timezone.now())  # its clock stands still
    assert client_for(alice).get(f"/api/games/{old.pk}/").json()["status"] == "abandoned"
    assert client_for(alice).get("/api/games/?status=abandoned").json()["count"] == 1
    # Only its player restarts it; anonymous callers are asked to sign in.
    assert client_for(bob).post(f"/api/games/{old.pk}/restart/").status_code == 403
    assert client_for().post(f"/api/games/{old.pk}/restart/").status_code in (401, 403)
    assert code_of(client_for(alice).post("/api/games/999999/restart/")) == "not_found"
    stats = player_statistics(alice)
    assert stats["games_finished"] == 0 and stats["games_unfinished"] == 2 and stats["win_rate"] is None


def test_a_ranked_daily_is_never_restarted(alice, today_daily):
    game = win_daily(alice)
    answer = client_for(alice).post(f"/api/games/{game.pk}/restart/")
    assert answer.status_code == 403 and "ranked daily" in answer.json()["error"]["message"]


def test_a_past_dailys_casual_game_restarts_under_the_dailys_id(alice):
    """A game asked for as `daily:DATE` (a day that is over) is shown under that id, and so is its restart."""

    day = make_test_daily(today() - dt.timedelta(days=3))
    old = client_for(alice).post("/api/games/", {"deal": f"daily:{day.date.isoformat()}", "autoplay": "safe"}, format="json").json()
    answer = client_for(alice).post(f"/api/games/{old['id']}/restart/")
    assert answer.status_code == 201, answer.content
    fresh = answer.json()
    assert old["deal"] == fresh["deal"] == f"daily:{day.date.isoformat()}" and not fresh["ranked"] and fresh["id"] != old["id"]
    assert sorted(DailyGame.objects.filter(daily=day).values_list("game_id", "ranked")) == [(old["id"], False), (fresh["id"], False)]


def test_the_win_rate_counts_finished_games_only(alice):
    wins = [win_casual(alice, moves=3, seconds=300), win_casual(alice, moves=5, seconds=100)]
    loss = resigned(alice)
    casual_deal()
    services.create_game(player=alice, deal="seed:101")  # still being played: out of the rate
    stats = player_statistics(alice)
    assert (stats["games_finished"], stats["games_won"], stats["games_lost"], stats["games_unfinished"]) == (3, 2, 1, 1)
    assert stats["win_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert stats["moves"] == {"best": 3, "mean": 4.0}
    times = sorted(g.elapsed_ms for g in wins)
    assert stats["time_ms"]["best"] == times[0] and stats["time_ms"]["mean"] == round(sum(times) / 2)
    today = stats["by_day"][-1]
    assert len(stats["by_day"]) == 30 and today == {"date": timezone.now().date().isoformat(), "won": 2, "lost": 1}
    assert loss.status == Game.Status.RESIGNED


def test_casual_streaks_follow_the_order_of_finishes(alice):
    w1, w2 = win_casual(alice), win_casual(alice)
    lost = resigned(alice)
    w3 = win_casual(alice)
    finished_in_order(w1, w2, lost, w3)
    assert player_statistics(alice)["casual_streak"] == {"current": 1, "best": 2}
    finished_in_order(lost, w1, w2, w3)
    assert player_statistics(alice)["casual_streak"] == {"current": 3, "best": 3}


def test_the_daily_streak_is_the_ranked_one(alice, today_daily):
    win_daily(alice)
    stats = player_statistics(alice)
    assert stats["daily_streak"] == {"current": 1, "best": 1}
    assert stats["casual_streak"] == {"current": 0, "best": 0}  # a ranked daily is no casual win


def test_each_numbered_deal_shows_the_players_best_beside_its_record(alice, bob):
    mine = win_casual(alice, moves=5, deal="ms:77")
    win_casual(alice, moves=7, deal="ms:77")
    record = win_casual(bob, moves=3, deal="ms:77")
    win_casual(alice, moves=4, deal="seed:5")  # not numbered: not listed
    deals = player_statistics(alice)["deals"]
    assert [(d["deal"], d["played"], d["won"], d["best_moves"], d["best_game"]) for d in deals] == [("ms:77", 2, 2, 5, mine.pk)]
    assert deals[0]["record"] == {"username": "bob", "moves": 3, "elapsed_ms": record.elapsed_ms, "game": record.pk}
    assert deals[0]["holds_record"] is False
    assert player_statistics(bob)["deals"][0]["holds_record"] is True


def test_the_api_and_the_profile_page_show_the_statistics(alice):
    win_casual(alice, moves=5, deal="ms:77")
    resigned(alice)
    body = client_for().get("/api/users/alice/").json()
    assert body["statistics"]["games_won"] == 1 and body["statistics"]["win_rate"] == 0.5
    assert body["statistics"]["deals"][0]["deal"] == "ms:77"
    page = Client().get("/u/alice/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="win-rate">50%<' in html
    assert 'data-testid="won-of-finished">1 of 2<' in html
    assert html.count('data-kind="won"') == 1 and html.count('data-kind="lost"') == 1
    assert "Results of the last 30 days: 1 won, 1 lost" in html
    assert '<tr data-deal="ms:77">' in html and "<strong>yours</strong>" in html


def test_a_new_player_has_empty_statistics(alice):
    stats = player_statistics(alice)
    assert stats["win_rate"] is None and stats["moves"] == {"best": None, "mean": None} and stats["deals"] == []
    html = Client().get("/u/alice/").content.decode()
    assert 'data-testid="win-rate">—<' in html and "0 won, 0 lost." in html


def _without_ids_dates_and_times(value):
    """The answer with what changes from run to run (ids, dates, times in ms) blanked out."""
    if isinstance(value, dict):
        return {k: None if k in {"date", "game", "best_game", "elapsed_ms", "best_time_ms", "time_ms"} else _without_ids_dates_and_times(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_ids_dates_and_times(v) for v in value]
    return value


def test_the_docs_statistics_example(alice, bob):
    """docs/api.md's example of `statistics` is this call's answer (but for ids, dates and times)."""
    import json
    import re
    from pathlib import Path

    win_casual(alice, moves=5, deal="ms:77")
    win_casual(bob, moves=3, deal="ms:77")
    resigned(alice)
    answer = client_for().get("/api/users/alice/").json()["statistics"]
    answer["by_day"] = answer["by_day"][-2:]  # the docs show the last two of 30
    docs = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    section = docs.split("### A player's statistics", 1)[1]
    example = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    assert _without_ids_dates_and_times(example) == _without_ids_dates_and_times(answer)
    assert example["time_ms"]["best"] == example["deals"][0]["best_time_ms"]  # the same win, as in the answer
    assert answer["time_ms"]["best"] == answer["deals"][0]["best_time_ms"]
