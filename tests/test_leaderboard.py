"""Daily leaderboards: the spec's ranking, the caller's own rank, friends, pages, archive, histogram."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.contrib.auth.models import User

from games import sweeper
from games.daily import leaderboard
from games.daily import services as daily
from games.models import DailyChallenge, DailyGame, DailyMovesTally, DailyResult, DailySpanTally, Game
from tests.support.daily import make_test_daily, win_daily
from tests.support.players import client_for

pytestmark = pytest.mark.usefixtures("solver_stand_in")  # dailies from the trivial deal (tests/support/daily.py)

T0 = dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)


def ranked_result(user, day: DailyChallenge, *, moves: int, elapsed_ms: int, finished_at=None, undos: int = 0) -> Game:
    """A won ranked game put on the board directly (the ranking itself is what is under test)."""
    game = Game.objects.create(
        deal=day.deal, player=user, status=Game.Status.WON, ply=moves, undos=undos,
        elapsed_ms=elapsed_ms, finished_at=finished_at or T0 + dt.timedelta(milliseconds=elapsed_ms), state={},
    )
    DailyGame.objects.create(game=game, daily=day, player=user, ranked=True)
    assert leaderboard.add_result(game)
    return game


def players(n: int) -> list[User]:
    return User.objects.bulk_create(User(username=f"p{i:04d}") for i in range(n))


def board(client, date, **params) -> dict:
    answer = client.get(f"/api/daily/{date.isoformat()}/leaderboard/", params)
    assert answer.status_code == 200, answer.content
    return answer.json()


def test_two_players_on_the_same_deal_are_ranked_by_fewest_moves(alice, charlie, today_daily):
    win_daily(alice, moves=4)
    win_daily(charlie, moves=2)
    body = board(client_for(alice), today_daily.date)
    assert [(e["rank"], e["username"], e["moves"]) for e in body["entries"]] == [(1, "charlie", 2), (2, "alice", 4)]
    assert body["count"] == 2 and body["par"] == 1


def test_ties_on_moves_are_broken_by_the_shorter_time(alice, bob, charlie, today_daily):
    win_daily(alice, moves=3, seconds=300)
    win_daily(bob, moves=3, seconds=100)
    win_daily(charlie, moves=3, seconds=200)
    body = board(client_for(alice), today_daily.date)
    assert [e["username"] for e in body["entries"]] == ["bob", "charlie", "alice"]
    assert [e["rank"] for e in body["entries"]] == [1, 2, 3]
    assert body["entries"][0]["elapsed_ms"] < body["entries"][1]["elapsed_ms"]


def test_ties_on_moves_and_time_are_broken_by_the_earlier_finish(alice, bob, charlie, today_daily):
    ranked_result(alice, today_daily, moves=50, elapsed_ms=90_000, finished_at=T0 + dt.timedelta(minutes=9))
    ranked_result(bob, today_daily, moves=50, elapsed_ms=90_000, finished_at=T0 + dt.timedelta(minutes=3))
    ranked_result(charlie, today_daily, moves=49, elapsed_ms=99_000)
    body = board(client_for(alice), today_daily.date)
    assert [e["username"] for e in body["entries"]] == ["charlie", "bob", "alice"]


def test_undos_count_in_the_score(alice, charlie, today_daily):
    undoing = win_daily(alice, moves=3, undos=1)  # "2a", undo, the winning move
    assert (undoing.ply, undoing.undos) == (3, 1)
    win_daily(charlie, moves=2)
    entries = board(client_for(alice), today_daily.date)["entries"]
    assert [(e["username"], e["moves"], e["undos"]) for e in entries] == [("charlie", 2, 0), ("alice", 3, 1)]


def test_the_caller_sees_their_own_entry_and_rank_as_me(alice, charlie, today_daily):
    for user in players(5):
        ranked_result(user, today_daily, moves=10, elapsed_ms=60_000)
    ranked_result(alice, today_daily, moves=20, elapsed_ms=60_000)
    body = board(client_for(alice), today_daily.date, page_size=2)
    assert body["me"]["username"] == "alice" and body["me"]["rank"] == 6
    assert len(body["entries"]) == 2
    # `me` writes its instant as the entries do (a UTC instant with a Z), on every database
    mine = board(client_for(alice), today_daily.date, page_size=10)
    assert mine["me"] == {**mine["entries"][5], "review": "none"} and mine["me"]["finished_at"].endswith("Z"), mine["me"]
    assert board(client_for(charlie), today_daily.date)["me"] is None
    assert board(client_for(), today_daily.date)["me"] is None


def test_the_friends_scope_holds_only_the_caller_and_their_friends(alice, bob, charlie, today_daily):
    ranked_result(charlie, today_daily, moves=5, elapsed_ms=60_000)
    ranked_result(bob, today_daily, moves=7, elapsed_ms=60_000)
    ranked_result(alice, today_daily, moves=9, elapsed_ms=60_000)
    body = board(client_for(alice), today_daily.date, scope="friends")
    assert [(e["rank"], e["username"]) for e in body["entries"]] == [(1, "bob"), (2, "alice")]
    assert body["me"]["rank"] == 2 and body["count"] == 2 and body["scope"] == "friends"
    assert [e["username"] for e in board(client_for(charlie), today_daily.date, scope="friends")["entries"]] == ["charlie"]
    assert board(client_for(alice), today_daily.date)["me"]["rank"] == 3  # everyone's board


def test_the_friends_scope_needs_a_signed_in_caller(db, anon_client, today_daily):
    answer = anon_client.get(f"/api/daily/{today_daily.date.isoformat()}/leaderboard/", {"scope": "friends"})
    assert answer.status_code == 401


def test_an_unknown_scope_is_invalid_request_naming_the_field(db, anon_client, today_daily):
    answer = anon_client.get(f"/api/daily/{today_daily.date.isoformat()}/leaderboard/", {"scope": "everyone"})
    assert answer.status_code == 400 and answer.json()["error"]["fields"] == {"scope": ["scope must be all or friends"]}


def test_pages_follow_one_another_with_ranks_continuing(alice, today_daily):
    for i, user in enumerate(players(5)):
        ranked_result(user, today_daily, moves=10 + i, elapsed_ms=60_000)
    client = client_for(alice)
    first = board(client, today_daily.date, page_size=2)
    assert [e["rank"] for e in first["entries"]] == [1, 2] and first["previous"] is None
    second = client.get(first["next"]).json()
    assert [e["rank"] for e in second["entries"]] == [3, 4] and second["page"] == 2
    third = client.get(second["next"]).json()
    assert [e["rank"] for e in third["entries"]] == [5] and third["next"] is None
    past = client.get(f"/api/daily/{today_daily.date.isoformat()}/leaderboard/", {"page": 9, "page_size": 2})
    assert past.status_code == 404 and past.json()["error"]["code"] == "not_found"  # as on every list
    for scope in ("all", "friends"):
        last = client.get(f"/api/daily/{today_daily.date.isoformat()}/leaderboard/", {"page": "last", "page_size": 2, "scope": scope}).json()
        assert last["page"] == (3 if scope == "all" else 1) and last["next"] is None, (scope, last)


@pytest.mark.parametrize("bad", [{"page": "0"}, {"page_size": "500"}, {"page": "x"}, {"scope": "world"}])
def test_bad_paging_or_scope_is_a_bad_request(db, anon_client, today_daily, bad):
    answer = anon_client.get(f"/api/daily/{today_daily.date.isoformat()}/leaderboard/", bad)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_request"


def test_ranks_from_tallies_equal_a_count_of_better_results(db, today_daily, settings, monkeypatch):
    settings.DAILY_SPAN_MS = 1000  # many spans, so that every path of the rank is exercised
    rng = random.Random(7)
    users = players(300)
    games = []
    for user in users:
        moves = rng.choice([40, 41, 41, 42, 42, 42, 43, 60])
        elapsed = rng.choice([5_000, 5_000, 5_500, 6_999, 7_000, 12_345]) + rng.choice([0, 0, 1])
        finished = T0 + dt.timedelta(seconds=rng.choice([1, 1, 2]))
        games.append(ranked_result(user, today_daily, moves=moves, elapsed_ms=elapsed, finished_at=finished))
    ordered = sorted(games, key=lambda g: (g.ply, g.elapsed_ms, g.finished_at, g.pk))
    expected = {g.pk: i + 1 for i, g in enumerate(ordered)}
    for result in DailyResult.objects.filter(daily=today_daily):
        assert leaderboard.rank_of(result) == expected[result.game_id]
    by_day = leaderboard.ranks_of_player(users[17])
    assert by_day == {today_daily.date: expected[games[17].pk]}
    # Deep pages are found through the tallies, not an OFFSET: same entries either way, from every
    # offset (one at the first row of a (moves, span) group showed the top of the board).
    monkeypatch.setattr(leaderboard, "SEEK_FROM", 0)
    for offset in range(0, 301):
        page = leaderboard.page(today_daily.date, offset=offset, limit=25)
        assert [e.game for e in page] == [g.pk for g in ordered[offset : offset + 25]]
        assert [e.rank for e in page] == list(range(offset + 1, offset + 1 + len(page)))


def test_rebuilding_a_day_restores_its_tallies(db, today_daily):
    for i, user in enumerate(players(6)):
        ranked_result(user, today_daily, moves=10 + i % 3, elapsed_ms=60_000 + i)
    before = sorted(DailyMovesTally.objects.values_list("moves", "count"))
    DailyMovesTally.objects.all().delete()
    DailySpanTally.objects.update(count=99)
    assert leaderboard.rebuild(today_daily.date) == 6
    assert sorted(DailyMovesTally.objects.values_list("moves", "count")) == before
    assert leaderboard.count(today_daily.date) == 6


def test_the_histogram_counts_winning_move_counts(alice, today_daily):
    for i, user in enumerate(players(5)):
        ranked_result(user, today_daily, moves=[10, 12, 10, 15, 12][i], elapsed_ms=60_000)
    ranked_result(alice, today_daily, moves=12, elapsed_ms=60_000)
    answer = client_for(alice).get(f"/api/daily/{today_daily.date.isoformat()}/histogram/")
    assert answer.status_code == 200
    body = answer.json()
    assert body["buckets"] == [{"moves": 10, "count": 2}, {"moves": 12, "count": 3}, {"moves": 15, "count": 1}]
    assert body["total"] == 6 and body["me"] == 12 and body["par"] == 1


def test_the_archive_lists_past_dailies_with_par_players_and_winner(db, alice, bob, clock, anon_client):
    days = [dt.date(2026, 3, 1) + dt.timedelta(days=i) for i in range(4)]
    for day in days:
        make_test_daily(day, par=day.day)
    clock.set(days[1])
    win_daily(alice, moves=3)
    win_daily(bob, moves=2)
    clock.set(days[2])
    body = anon_client.get("/api/daily/archive/").json()
    assert [d["date"] for d in body["dailies"]] == ["2026-03-02", "2026-03-01"]  # not today, not tomorrow
    latest = body["dailies"][0]
    assert latest["par"] == 2 and latest["players"] == 2 and latest["deal"] == "daily:2026-03-02"
    assert latest["winner"]["username"] == "bob" and latest["winner"]["moves"] == 2
    assert body["dailies"][1]["winner"] is None and body["count"] == 2


def test_past_leaderboards_stay_available(db, alice, clock):
    make_test_daily(dt.date(2026, 3, 1))
    clock.set(dt.date(2026, 3, 1))
    win_daily(alice, moves=2)
    clock.set(dt.date(2026, 4, 1))
    body = board(client_for(alice), dt.date(2026, 3, 1))
    assert body["entries"][0]["username"] == "alice" and body["me"]["rank"] == 1


def test_a_flagged_game_stays_off_the_board(alice, bob, today_daily, settings):
    settings.DAILY_MIN_MS_PER_MOVE = 150
    settings.FAIR_PLAY_REVIEW = True
    win_daily(alice, moves=9, seconds=0.5)
    win_daily(bob, moves=9)
    entries = board(client_for(alice), today_daily.date)["entries"]
    assert [e["username"] for e in entries] == ["bob"]


def test_a_game_that_is_only_playing_is_not_on_the_board(alice, today_daily):
    daily.start_ranked_game(alice)
    assert board(client_for(alice), today_daily.date)["entries"] == []


def test_todays_leaderboard_and_histogram_before_the_daily_is_made_are_a_retry_not_a_404(db, anon_client):
    """An API client that asked for today's leaderboard before anyone had opened the daily got 404
    `there is no daily`; then the request made it (a read that wrote). Before the sweeper has made it,
    it is 503 `daily_pending` (retry), and nothing is stored; once made, 200."""
    assert not DailyChallenge.objects.exists()
    day = daily.today().isoformat()
    for url in (f"/api/daily/{day}/leaderboard/", f"/api/daily/{day}/histogram/"):
        answer = anon_client.get(url)
        assert answer.status_code == 503 and answer.json()["error"]["code"] == "daily_pending", url
    assert not DailyChallenge.objects.exists()
    sweeper.make_dailies()
    board_answer = anon_client.get(f"/api/daily/{day}/leaderboard/")
    assert board_answer.status_code == 200 and board_answer.json()["count"] == 0
    assert anon_client.get(f"/api/daily/{day}/histogram/").status_code == 200
    assert DailyChallenge.objects.filter(date=daily.today()).count() == 1
    past = (daily.today() - dt.timedelta(days=3)).isoformat()
    assert anon_client.get(f"/api/daily/{past}/leaderboard/").status_code == 404  # a missing past day is not made
