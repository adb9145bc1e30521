"""Boards beyond the day (docs/boards.md): deal records, the month's ladder, streaks, their live socket."""

from __future__ import annotations

import datetime as dt

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command

from games.boards import services as boards
from games.daily import services as daily
from games.fairplay import services as fairplay
from games.models import (
    DailyChallenge,
    DealRecord,
    Game,
    LadderDay,
    LadderEntry,
    LadderTally,
    LongestTally,
    RecordTally,
    Streak,
    StreakTally,
)
from games.play import follow_ups, services
from tests.support.boards import CASUAL_DEAL, casual_deal, names_and_moves, win_casual
from tests.support.daily import actions_for, make_test_daily, play, win_daily
from tests.support.players import client_for, code_of, make_player
from tests.support.sockets import next_of, open_socket, run

pytestmark = pytest.mark.usefixtures("solver_stand_in")  # dailies from the trivial deal (tests/support/daily.py)

RECORDS = f"/api/deals/{CASUAL_DEAL}/records/"
DAY = dt.date(2026, 3, 10)


def month_url(day: dt.date) -> str:
    return f"/api/ladder/{day:%Y-%m}/"


# --- deal records ---------------------------------------------------------------------------------


def test_a_deal_board_ranks_each_players_best_by_moves_undos_counted_then_time(db, alice, bob, charlie, anon_client):
    win_casual(alice, moves=5, seconds=100)
    win_casual(bob, moves=5, undos=2, seconds=50)  # 5 actions with 2 undos: scores 5, and is faster
    win_casual(charlie, moves=3, seconds=900)
    body = anon_client.get(RECORDS).json()
    assert names_and_moves(body["entries"]) == [("charlie", 3), ("bob", 5), ("alice", 5)]
    assert [e["rank"] for e in body["entries"]] == [1, 2, 3]
    assert body["entries"][1]["undos"] == 2 and body["count"] == 3
    assert body["record"]["username"] == "charlie" and body["me"] is None
    assert Game.objects.get(pk=body["record"]["game"]).player == charlie
    # Own ranks: behind the fewer moves (the tally), then behind the same moves in less time (the index).
    assert [client_for(p).get(RECORDS).json()["me"]["rank"] for p in (charlie, bob, alice)] == [1, 2, 3]


def test_a_players_new_game_replaces_their_best_only_when_better(db, alice, bob, alice_client, django_capture_on_commit_callbacks):
    first = win_casual(alice, moves=5)
    win_casual(bob, moves=4)
    win_casual(alice, moves=7)  # worse: the board keeps the first
    body = alice_client.get(RECORDS).json()
    assert names_and_moves(body["entries"]) == [("bob", 4), ("alice", 5)]
    assert body["me"]["game"] == first.pk and body["me"]["rank"] == 2
    with django_capture_on_commit_callbacks(execute=True):  # committed: the board's version moves on
        better = win_casual(alice, moves=3)
    body = alice_client.get(RECORDS).json()
    assert names_and_moves(body["entries"]) == [("alice", 3), ("bob", 4)]
    assert body["me"] == {**body["entries"][0], "rank": 1} and body["me"]["game"] == better.pk
    assert body["count"] == 2 and RecordTally.objects.filter(deal=CASUAL_DEAL, count__gt=0).count() == 2


def test_each_autoplay_mode_has_its_own_board(db, alice, bob, anon_client):
    win_casual(alice, moves=2)
    win_casual(bob, moves=54, autoplay="none")
    assert names_and_moves(anon_client.get(RECORDS).json()["entries"]) == [("alice", 2)]
    body = anon_client.get(RECORDS + "?autoplay=none").json()
    assert body["autoplay"] == "none" and names_and_moves(body["entries"]) == [("bob", 54)]


def test_the_friends_board_ranks_the_caller_and_friends_among_themselves(db, alice, bob, charlie, bob_client, anon_client):
    win_casual(charlie, moves=1)
    win_casual(alice, moves=3)
    win_casual(bob, moves=5)
    body = bob_client.get(RECORDS + "?scope=friends").json()
    assert body["scope"] == "friends" and names_and_moves(body["entries"]) == [("alice", 3), ("bob", 5)]
    assert body["me"]["rank"] == 2 and body["record"]["username"] == "charlie"  # the record is the deal's
    assert bob_client.get(RECORDS).json()["me"]["rank"] == 3
    assert code_of(anon_client.get(RECORDS + "?scope=friends")) == "not_authenticated"


def test_pages_of_a_board_rank_from_the_page_start(db, anon_client):
    for i in range(5):
        win_casual(make_player(f"p{i}"), moves=1 + 2 * i)
    body = anon_client.get(RECORDS + "?page=2&page_size=2").json()
    assert [e["rank"] for e in body["entries"]] == [3, 4] and names_and_moves(body["entries"]) == [("p2", 5), ("p3", 7)]
    assert body["next"] and body["previous"]


def test_a_daily_deal_has_a_board_only_once_its_day_is_over(db, alice, clock, anon_client):
    clock.set(DAY)
    seed_deal = casual_deal("seed:202")
    DailyChallenge.objects.create(date=DAY, deal=seed_deal, par=1, par_line="1b")
    game, _ = daily.start_ranked_game(alice)
    play(game, actions_for(2))
    # By either id, the one answer of a daily's secrecy, as its layout and facts give (tests/test_hostile.py).
    for url in (f"/api/deals/daily:{DAY}/records/", f"/api/deals/daily:{DAY + dt.timedelta(days=3)}/records/", "/api/deals/seed:202/records/"):
        answer = anon_client.get(url)
        assert answer.status_code == 403 and code_of(answer) == "forbidden", url
    clock.advance()
    for url in (f"/api/deals/daily:{DAY}/records/", "/api/deals/seed:202/records/"):
        body = anon_client.get(url).json()
        assert names_and_moves(body["entries"]) == [("alice", 2)] and body["entries"][0]["game"] == game.pk, url
    assert code_of(anon_client.get(f"/api/deals/daily:{DAY - dt.timedelta(days=1)}/records/")) == "not_found"  # no daily that day


def test_games_held_for_review_are_not_counted_and_a_rejected_record_gives_way_to_the_next_best(
    db, alice, bob, clock, anon_client, settings, django_capture_on_commit_callbacks
):
    settings.FAIR_PLAY_REVIEW = True
    clock.set(DAY)
    DailyChallenge.objects.create(date=DAY, deal=casual_deal("seed:202"), par=1, par_line="1b")
    too_fast = win_daily(alice, moves=1, seconds=0.1)  # flagged by the daily: won faster than a person plays
    win_daily(bob, moves=3)
    assert Game.objects.get(pk=too_fast.pk).review == Game.Review.FLAGGED
    board = f"/api/deals/daily:{DAY}/records/"
    clock.advance()
    assert names_and_moves(anon_client.get(board).json()["entries"]) == [("bob", 3)]
    assert not LadderEntry.objects.filter(player=alice, won__gt=0).exists()
    with django_capture_on_commit_callbacks(execute=True):  # each verdict committed: the board's version moves on
        fairplay.clear(too_fast)
    assert names_and_moves(anon_client.get(board).json()["entries"]) == [("alice", 1), ("bob", 3)]
    assert LadderEntry.objects.get(player=alice).points == 100 and Streak.objects.get(player=alice).current == 1
    # A second, casual win of the same deal by alice: the board falls back on it when the first is rejected.
    casual = win_casual(alice, moves=5, deal="seed:202")
    assert DealRecord.objects.get(deal="seed:202", player=alice).game_id == too_fast.pk
    with django_capture_on_commit_callbacks(execute=True):
        fairplay.reject(Game.objects.get(pk=too_fast.pk))
    assert names_and_moves(anon_client.get(board).json()["entries"]) == [("bob", 3), ("alice", 5)]
    assert DealRecord.objects.get(deal="seed:202", player=alice).game_id == casual.pk
    entry = LadderEntry.objects.get(player=alice)
    assert (entry.points, entry.played, entry.won) == (0, 1, 0) and not Streak.objects.filter(player=alice).exists()
    assert LadderTally.objects.get(month=DAY.replace(day=1), points=0).count == 1


def test_the_follow_ups_run_again_for_a_game_already_counted_change_nothing(db, alice, clock):
    clock.set(DAY)
    make_test_daily(DAY, par=2)
    game = win_daily(alice, moves=3)
    casual = win_casual(alice, moves=4)
    before = board_tables()
    follow_ups.after_change(game)
    follow_ups.after_change(casual)
    follow_ups.after_verdict(game)
    assert board_tables() == before
    assert LadderEntry.objects.get(player=alice).points == 67 and RecordTally.objects.get(deal=CASUAL_DEAL).count == 1


# --- the month's ladder ---------------------------------------------------------------------------


def test_points_earn_more_the_closer_to_par_capped_at_100():
    assert boards.points_for(30, 30) == 100
    assert boards.points_for(20, 30) == 100  # under par (a par is not proven optimal): capped
    assert boards.points_for(3, 2) == 67 and boards.points_for(4, 2) == 50 and boards.points_for(8, 3) == 38
    assert boards.points_for(1000, 1) == 1 and boards.points_for(5, None) == 100


def test_the_ladder_sums_points_over_the_months_dailies_with_played_and_won(db, alice, bob, charlie, clock, anon_client, bob_client):
    days = [DAY, DAY + dt.timedelta(days=1), DAY + dt.timedelta(days=2)]
    for day, par in zip(days, (2, 3, 1), strict=True):
        clock.set(day)
        make_test_daily(day, par=par)
    clock.set(days[0])
    win_daily(alice, moves=3)  # 67
    win_daily(bob, moves=2)  # 100
    clock.set(days[1])
    win_daily(alice, moves=3)  # 100
    lost, _ = daily.start_ranked_game(bob)
    play(lost, ["2a"])
    services.resign(game_id=lost.pk, user=bob)  # played, not won: no points
    untouched, _ = daily.start_ranked_game(charlie)  # started but never played: not counted yet
    clock.set(days[2])
    win_daily(charlie, moves=2)  # 50
    body = anon_client.get(month_url(DAY)).json()
    lines = [(e["rank"], e["username"], e["points"], e["played"], e["won"]) for e in body["entries"]]
    assert lines == [(1, "alice", 167, 2, 2), (2, "bob", 100, 2, 1), (3, "charlie", 50, 1, 1)]
    assert body["month"] == "2026-03" and "round(100 x par / moves)" in body["points_rule"] and body["count"] == 3
    services.end_time_up(untouched.pk)  # the sweeper resigns it after its day: played now
    assert LadderEntry.objects.get(player=charlie).played == 2
    friends = bob_client.get(month_url(DAY) + "?scope=friends").json()
    assert [(e["rank"], e["username"]) for e in friends["entries"]] == [(1, "alice"), (2, "bob")] and friends["me"]["rank"] == 2
    assert anon_client.get(month_url(DAY + dt.timedelta(days=40))).json()["entries"] == []


def test_equal_points_share_a_rank(db, alice, bob, charlie, clock, anon_client):
    clock.set(DAY)
    make_test_daily(DAY, par=1)
    for player in (alice, bob, charlie):
        win_daily(player, moves=1 if player != charlie else 2)
    ranks = [(e["username"], e["rank"]) for e in anon_client.get(month_url(DAY)).json()["entries"]]
    assert ranks == [("alice", 1), ("bob", 1), ("charlie", 3)]
    assert client_for(charlie).get(month_url(DAY)).json()["me"]["rank"] == 3


# --- streaks --------------------------------------------------------------------------------------


def test_streaks_count_consecutive_days_won_and_stay_current_through_today(db, alice, bob, charlie, clock, anon_client):
    d = [DAY + dt.timedelta(days=i) for i in range(6)]

    def win_days(*days_won):
        for day, players in days_won:
            clock.set(day)
            make_test_daily(day)
            for player in players:
                win_daily(player)

    win_days((d[0], [alice, bob]), (d[1], [alice, charlie]), (d[2], [alice]))
    clock.set(d[3])  # alice won yesterday: her streak of 3 is still current today
    # bob's and charlie's last wins are before yesterday: current 0, tied on longest 1, so one rank.
    assert streaks(anon_client) == [(1, "alice", 3, 3), (2, "bob", 0, 1), (2, "charlie", 0, 1)]
    win_days((d[4], [bob]), (d[5], [bob]))  # bob: d0, then d4 d5; alice's last win is three days ago
    assert streaks(anon_client) == [(1, "bob", 2, 2), (2, "alice", 0, 3), (3, "charlie", 0, 1)]
    for page, line in ((1, [1, "bob", 2, 2, False]), (2, [2, "alice", 0, 3, False]), (3, [3, "charlie", 0, 1, False])):  # living, then the others
        entries = anon_client.get(f"/api/ladder/streaks/?page={page}&page_size=1").json()["entries"]
        assert [list(e.values()) for e in entries] == [line]
    me = client_for(charlie).get("/api/ladder/streaks/").json()["me"]
    assert me == {"rank": 3, "username": "charlie", "current": 0, "longest": 1, "bot": False}
    friends = client_for(bob).get("/api/ladder/streaks/?scope=friends").json()
    assert [(e["rank"], e["username"]) for e in friends["entries"]] == [(1, "bob"), (2, "alice")] and friends["me"]["rank"] == 1


def test_a_stale_streak_reads_as_zero_without_writing(db, alice, clock, anon_client):
    clock.set(DAY)
    make_test_daily(DAY)
    win_daily(alice)
    clock.set(DAY + dt.timedelta(days=5))
    before = board_tables()
    body = client_for(alice).get("/api/ladder/streaks/").json()
    assert body["me"] == {"rank": 1, "username": "alice", "current": 0, "longest": 1, "bot": False}
    assert board_tables() == before and Streak.objects.get(player=alice).current == 1


def test_a_streak_counted_again_when_a_review_clears_an_earlier_day(db, alice, clock, settings):
    settings.FAIR_PLAY_REVIEW = True
    d = [DAY + dt.timedelta(days=i) for i in range(3)]
    clock.set(d[0])
    make_test_daily(d[0])
    held = win_daily(alice, seconds=0.1)  # flagged
    for day in d[1:]:
        clock.set(day)
        make_test_daily(day, par=None)  # no par: a one-move win is not "at par with no undo" (fair play)
        win_daily(alice)
    assert (Streak.objects.get(player=alice).current, Streak.objects.get(player=alice).longest) == (2, 2)
    fairplay.clear(held)
    streak = Streak.objects.get(player=alice)
    assert (streak.last_day, streak.current, streak.longest) == (d[2], 3, 3)
    assert StreakTally.objects.get(last_day=d[2], current=3, longest=3).count == 1
    assert sum(StreakTally.objects.values_list("count", flat=True)) == 1 and LongestTally.objects.get(longest=3).count == 1


def streaks(client) -> list[tuple]:
    return [(e["rank"], e["username"], e["current"], e["longest"]) for e in client.get("/api/ladder/streaks/").json()["entries"]]


# --- rebuild --------------------------------------------------------------------------------------


def board_tables() -> dict:
    """Every board row, by table, without ids: what a rebuild must give again."""
    return {
        "records": sorted(DealRecord.objects.values_list("deal", "autoplay", "player_id", "game_id", "moves", "undos", "elapsed_ms")),
        "record_tallies": sorted(RecordTally.objects.filter(count__gt=0).values_list("deal", "autoplay", "moves", "count")),
        "days": sorted(LadderDay.objects.values_list("player_id", "date", "won", "points")),
        "entries": sorted(LadderEntry.objects.values_list("month", "player_id", "points", "played", "won")),
        "ladder_tallies": sorted(LadderTally.objects.filter(count__gt=0).values_list("month", "points", "count")),
        "streaks": sorted(Streak.objects.values_list("player_id", "last_day", "current", "longest")),
        "streak_tallies": sorted(StreakTally.objects.filter(count__gt=0).values_list("last_day", "current", "longest", "count")),
        "longest_tallies": sorted(LongestTally.objects.filter(count__gt=0).values_list("longest", "count")),
    }


def test_rebuild_gives_the_boards_the_live_updates_gave(db, alice, bob, charlie, clock):
    d = [DAY + dt.timedelta(days=i) for i in range(4)]
    for i, day in enumerate(d):
        clock.set(day)
        make_test_daily(day, par=2)
        win_daily(alice, moves=1 + i)
        if i != 1:
            win_daily(bob, moves=3)
        if i == 2:
            win_daily(charlie, seconds=0.1)  # held for review
        if i == 3:
            started, _ = daily.start_ranked_game(charlie)
            play(started, ["2a"])
    win_casual(alice, moves=4)
    win_casual(alice, moves=2)
    win_casual(bob, moves=54, autoplay="none")
    live = board_tables()
    assert live["records"] and live["streaks"] and len(live["entries"]) == 3
    call_command("rebuild_boards", stdout=open("/dev/null", "w"))
    assert board_tables() == live


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "status", "code"),
    [
        ("/api/deals/nonsense/records/", 400, "invalid_deal"),
        ("/api/deals/ms:0/records/", 400, "invalid_deal"),
        ("/api/deals/daily:2026-02-30/records/", 400, "invalid_deal"),
        (RECORDS + "?autoplay=fast", 400, "invalid_request"),
        (RECORDS + "?scope=everyone", 400, "invalid_request"),
        (RECORDS + "?page=0", 400, "invalid_request"),
        (RECORDS + "?page_size=201", 400, "invalid_request"),
        (RECORDS + "?page=3", 404, "not_found"),
        ("/api/ladder/2026-13/", 400, "invalid_request"),
        ("/api/ladder/2026-1/", 400, "invalid_request"),
        ("/api/ladder/２０２６-01/", 400, "invalid_request"),
        ("/api/ladder/streaks/?page=x", 400, "invalid_request"),
        ("/api/ladder/streaks/?scope=friends", 401, "not_authenticated"),
    ],
)
def test_bad_input_gets_our_error_codes(db, anon_client, url, status, code):
    answer = anon_client.get(url)
    assert (answer.status_code, code_of(answer)) == (status, code)


# --- the live board -------------------------------------------------------------------------------


@pytest.fixture
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.WS_HEARTBEAT_S = 30
    settings.WS_IDLE_TIMEOUT_S = 60


@pytest.mark.django_db(transaction=True)
def test_a_record_that_falls_is_pushed_to_the_deals_watchers(_in_memory_layer, alice, bob):
    win_casual(alice, moves=5)

    async def scenario():
        socket = await open_socket(f"/ws/deals/{CASUAL_DEAL}/records/")
        first = await next_of(socket, "records")
        assert first["record"]["username"] == "alice" and first["count"] == 1 and first["record_fell"] is False
        await sync_to_async(win_casual)(bob, moves=7)  # on the board, not the record
        pushed = await next_of(socket, "records")
        assert pushed["record_fell"] is False and [e["username"] for e in pushed["entries"]] == ["alice", "bob"]
        await sync_to_async(win_casual)(bob, moves=3)
        pushed = await next_of(socket, "records")
        assert pushed["record_fell"] is True and pushed["record"]["username"] == "bob" and pushed["record"]["moves"] == 3
        other = await open_socket(f"/ws/deals/{CASUAL_DEAL}/records/?autoplay=none")
        assert (await next_of(other, "records"))["entries"] == []
        await socket.disconnect()
        await other.disconnect()

    run(scenario)


@pytest.mark.django_db(transaction=True)
def test_the_records_socket_refuses_a_daily_deal_whose_day_is_on(_in_memory_layer, alice):
    async def scenario():
        socket = await open_socket(f"/ws/deals/daily:{daily.today()}/records/")
        frame = await next_of(socket, "error")
        assert frame["code"] == "forbidden"
        assert (await socket.receive_output(timeout=5))["code"] == 4403
        bad = await open_socket("/ws/deals/nonsense/records/")
        assert (await next_of(bad, "error"))["code"] == "invalid_deal"

    run(scenario)
