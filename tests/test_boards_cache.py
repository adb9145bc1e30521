"""A board's count, pages and each caller's own line are kept in the cache with the board's version
(games.boards.services.Kept, docs/boards.md "Kept in the cache"): every change of a board moves its
version on once committed, so a read after a change shows it at once, never what was kept before; `me`
is each caller's own; a kept read costs no query but the caller's token; and without the cache the
boards still answer.

The tests of a change commit for real (a transactional database): on SQLite with the in-process cache,
and in the services run (-m services) on PostgreSQL with Redis, as deployed."""

from __future__ import annotations

import datetime as dt
import random
import threading

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import OperationalError, connection, transaction

from accounts.closing import close_account, closed_name
from games.boards import selectors
from games.boards import services as boards
from games.fairplay import services as fairplay
from games.models import DealRecord, Game, LadderEntry, Streak
from games.sockets import boards as live_board
from tests.support.boards import CASUAL_DEAL, names_and_moves, win_casual
from tests.support.daily import make_test_daily, win_daily
from tests.support.players import client_for, make_player

pytestmark = pytest.mark.usefixtures("solver_stand_in")  # dailies from the trivial deal (tests/support/daily.py)

RECORDS = f"/api/deals/{CASUAL_DEAL}/records/"
STREAKS = "/api/ladder/streaks/"
DAY = dt.date(2026, 3, 10)
LADDER = f"/api/ladder/{DAY:%Y-%m}/"


@pytest.fixture(params=["here", pytest.param("services", marks=pytest.mark.services)])
def committed(request, transactional_db, clock):
    """Changes commit (a transactional test): on the run's own database and cache, and again in the
    services run on PostgreSQL and Redis. The day is DAY, with its daily."""
    clock.set(DAY)
    make_test_daily(DAY)
    return clock


def ladder(client) -> list[tuple]:
    return [(e["rank"], e["username"], e["points"]) for e in client.get(LADDER).json()["entries"]]


def streaks(client) -> list[tuple]:
    return [(e["rank"], e["username"], e["current"], e["longest"]) for e in client.get(STREAKS).json()["entries"]]


# --- a change shows at once -------------------------------------------------------------------------


def test_a_new_record_shows_at_once(committed, anon_client):
    alice, bob = make_player("alice"), make_player("bob")
    win_casual(alice, moves=5)
    assert names_and_moves(anon_client.get(RECORDS).json()["entries"]) == [("alice", 5)]
    assert anon_client.get(f"{RECORDS}?page_size=1").json()["record"]["username"] == "alice"
    assert client_for(alice).get(RECORDS).json()["me"]["rank"] == 1
    win_casual(bob, moves=3)
    body = anon_client.get(RECORDS).json()
    assert names_and_moves(body["entries"]) == [("bob", 3), ("alice", 5)] and body["count"] == 2
    # The game page's read (page_size=1, kept apart) and a later page show it too.
    assert anon_client.get(f"{RECORDS}?page_size=1").json()["record"]["username"] == "bob"
    assert names_and_moves(anon_client.get(f"{RECORDS}?page=2&page_size=1").json()["entries"]) == [("alice", 5)]
    assert client_for(alice).get(RECORDS).json()["me"]["rank"] == 2


def test_a_verdict_taking_a_record_off_shows_at_once(committed, anon_client):
    alice, bob = make_player("alice"), make_player("bob")
    cheat = win_casual(alice, moves=2)
    win_casual(bob, moves=4)
    assert names_and_moves(anon_client.get(RECORDS).json()["entries"]) == [("alice", 2), ("bob", 4)]
    fairplay.reject(Game.objects.get(pk=cheat.pk))
    body = anon_client.get(RECORDS).json()
    assert names_and_moves(body["entries"]) == [("bob", 4)] and body["count"] == 1 and body["record"]["username"] == "bob"


def test_a_ladder_line_shows_at_once(committed, anon_client):
    alice, bob = make_player("alice"), make_player("bob")
    win_daily(alice)
    assert ladder(anon_client) == [(1, "alice", 100)]
    win_daily(bob, moves=2)
    assert ladder(anon_client) == [(1, "alice", 100), (2, "bob", 50)]


def test_a_streak_shows_at_once(committed, anon_client):
    alice, bob = make_player("alice"), make_player("bob")
    win_daily(alice)
    assert streaks(anon_client) == [(1, "alice", 1, 1)]
    win_daily(bob)
    assert streaks(anon_client) == [(1, "alice", 1, 1), (1, "bob", 1, 1)]
    committed.advance()
    make_test_daily(DAY + dt.timedelta(days=1))
    assert streaks(anon_client) == [(1, "alice", 1, 1), (1, "bob", 1, 1)]  # kept for the new day
    win_daily(bob)
    assert streaks(anon_client) == [(1, "bob", 2, 2), (2, "alice", 1, 1)]


def test_a_streak_page_is_the_days_without_any_change(committed, anon_client):
    """A streak is current through the day after its last win: two days on it reads 0, though nothing
    was written (a page is kept for its day)."""
    win_daily(make_player("alice"))
    assert streaks(anon_client) == [(1, "alice", 1, 1)]
    committed.advance(2)
    assert streaks(anon_client) == [(1, "alice", 0, 1)]


def test_a_closed_accounts_lines_show_its_new_name_at_once(committed, anon_client):
    alice = make_player("alice")
    win_daily(alice)
    assert ladder(anon_client) == [(1, "alice", 100)] and streaks(anon_client) == [(1, "alice", 1, 1)]
    close_account(alice)
    name = closed_name(alice)
    assert ladder(anon_client) == [(1, name, 100)] and streaks(anon_client) == [(1, name, 1, 1)]


def test_a_rebuild_shows_at_once_even_a_board_left_empty(committed, anon_client):
    won = win_casual(make_player("alice"), moves=5)
    assert names_and_moves(anon_client.get(RECORDS).json()["entries"]) == [("alice", 5)]
    Game.objects.filter(pk=won.pk).delete()  # a game removed by hand: its record goes with it, the tally stays
    call_command("rebuild_boards", stdout=open("/dev/null", "w"))
    body = anon_client.get(RECORDS).json()
    assert body["entries"] == [] and body["count"] == 0 and body["record"] is None


def test_a_rebuild_moves_each_top_on_without_asking(committed, monkeypatch, anon_client):
    """Asking after each change whether it landed in its board's top cost a rebuild a fifth to a third more
    time; the rebuild moves every board's version on anyway."""
    for name, moves in (("alice", 3), ("bob", 5), ("carol", 7)):
        win_casual(make_player(name), moves=moves)
    asked, real = [], boards.place_in_top

    def counted(*args):
        check = real(*args)
        return lambda: asked.append(args) or check()

    monkeypatch.setattr(boards, "place_in_top", counted)
    call_command("rebuild_boards", stdout=open("/dev/null", "w"))
    assert asked == []
    assert names_and_moves(anon_client.get(RECORDS).json()["entries"]) == [("alice", 3), ("bob", 5), ("carol", 7)]
    win_casual(make_player("dave"), moves=4)  # live play asks
    assert len(asked) == 1


# --- what is kept, and under what --------------------------------------------------------------------


def test_me_is_each_callers_own_on_a_kept_page(db, anon_client):
    alice, bob = make_player("alice"), make_player("bob")
    win_casual(alice, moves=3)
    win_casual(bob, moves=5)
    assert anon_client.get(RECORDS).json()["me"] is None
    assert client_for(alice).get(RECORDS).json()["me"]["username"] == "alice"
    mine = client_for(bob).get(RECORDS).json()
    assert mine["me"]["username"] == "bob" and mine["me"]["rank"] == 2
    assert anon_client.get(RECORDS).json()["me"] is None


@pytest.mark.parametrize("kept_with", ["top", "board"])
def test_a_forgotten_version_never_brings_back_a_page_kept_under_an_earlier_one(db, anon_client, monkeypatch, kept_with):
    """The cache may forget a board's version (evicted, expired): the next is one never given before,
    so a page kept at an earlier version is not taken for the board as it is now. A page within the
    board's first lines is kept with their version (the first top that holds it, here of 50 lines), any
    other with the board's."""
    if kept_with == "board":
        monkeypatch.setattr(boards, "TOPS", (1,))  # the page of 50 reaches past the top
    win_casual(make_player("alice"), moves=5)
    assert names_and_moves(anon_client.get(RECORDS).json()["entries"]) == [("alice", 5)]
    with transaction.atomic():  # a change whose version did not move on (the cache was away then)
        win_casual(make_player("bob"), moves=3)
    assert len(anon_client.get(RECORDS).json()["entries"]) == 1  # kept: the version did not move
    board = boards.records_board(CASUAL_DEAL, "safe", False)
    cache.delete(boards._version_key(boards.top_of(board, 50) if kept_with == "top" else board))
    assert names_and_moves(anon_client.get(RECORDS).json()["entries"]) == [("bob", 3), ("alice", 5)]


def test_the_boards_answer_from_the_database_while_the_cache_is_away(db, anon_client, monkeypatch, caplog):
    win_casual(make_player("alice"), moves=5)

    def away(*args, **kwargs):
        raise ConnectionError("the cache is away")

    monkeypatch.setattr(boards.cache, "get_many", away)
    body = anon_client.get(RECORDS).json()
    assert names_and_moves(body["entries"]) == [("alice", 5)] and body["count"] == 1
    assert "read without the cache" in caplog.text


# --- what a kept read costs ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "anonymous"),
    [
        # A seed: deal's board asks whether the deal is a daily's in play (its secrecy), every time.
        (f"{RECORDS}?page_size=100", 1),
        (f"{RECORDS}?page_size=1", 1),
        (f"{RECORDS}?page=2&page_size=1", 1),
        (f"{LADDER}?page_size=100", 0),
        (f"{STREAKS}?page_size=100", 0),
    ],
)
def test_a_kept_read_costs_no_query_but_the_callers_own(db, clock, url, anonymous, django_assert_num_queries):
    """The count, the page and the caller's own line are kept: a caller signed in adds the token, no more."""
    clock.set(DAY)
    make_test_daily(DAY)
    alice, bob = make_player("alice"), make_player("bob")
    for player in (alice, bob):
        win_casual(player, moves=3 if player is alice else 5)
        win_daily(player)
    anon, signed_in = client_for(), client_for(alice)
    assert anon.get(url).status_code == 200 and signed_in.get(url).status_code == 200  # read and kept; the token noted
    with django_assert_num_queries(anonymous):
        assert anon.get(url).json()["count"] == 2
    with django_assert_num_queries(anonymous + 1):
        assert signed_in.get(url).json()["me"]["username"] == "alice"


class CountingCache:
    """The boards' cache, with the reads they ask of it counted (the throttles' own are not among them)."""

    def __init__(self, real):
        self.real, self.reads = real, []

    def __getattr__(self, name):
        attr = getattr(self.real, name)
        if name not in ("get", "get_many"):
            return attr

        def read(*args, **kwargs):
            self.reads.append(name)
            return attr(*args, **kwargs)

        return read


@pytest.mark.parametrize(
    ("query", "reads"),
    [
        # The page asked by number comes with the board's version, the count and `me`.
        ("?page_size=1", ["get_many"]),
        ("?page=2&page_size=1", ["get_many"]),
        # The last page waits for the count, which says which page it is.
        ("?page=last&page_size=1", ["get_many", "get"]),
    ],
)
def test_a_kept_page_asked_by_number_costs_one_round_trip_to_the_cache(db, query, reads, monkeypatch):
    alice = make_player("alice")
    for player in (alice, make_player("bob")):
        win_casual(player, moves=3 if player is alice else 5)
    client = client_for(alice)
    first = client.get(RECORDS + query).json()  # read and kept
    counting = CountingCache(boards.cache)
    monkeypatch.setattr(boards, "cache", counting)
    assert client.get(RECORDS + query).json() == first
    assert counting.reads == reads


def test_a_kept_page_is_not_read_again_until_its_board_changes(db, anon_client, django_capture_on_commit_callbacks):
    win_casual(make_player("alice"), moves=5)
    anon_client.get(RECORDS)
    assert DealRecord.objects.filter(deal=CASUAL_DEAL).update(undos=1) == 1  # written behind the boards' back
    assert anon_client.get(RECORDS).json()["entries"][0]["undos"] == 0  # the page kept
    with django_capture_on_commit_callbacks(execute=True):
        win_casual(make_player("bob"), moves=7)
    assert [e["undos"] for e in anon_client.get(RECORDS).json()["entries"]] == [1, 0]


# --- a page within the board's first lines (services.TOPS) ------------------------------------------
# Kept with their version (the first top that holds it): a change that lands below them leaves it kept.
# The tests set the tops to one to three lines, and write a line behind the boards' back (its undos,
# played or longest) to see whether a page was read again.


@pytest.fixture
def top_of_two(monkeypatch):
    monkeypatch.setattr(boards, "TOPS", (2,))


def lines(client, query: str = "?page_size=2") -> list[tuple]:
    return [(e["username"], e["moves"], e["undos"]) for e in client.get(RECORDS + query).json()["entries"]]


def behind_the_boards_back(player) -> None:
    assert DealRecord.objects.filter(deal=CASUAL_DEAL, player=player).update(undos=9) == 1


def test_a_win_below_the_top_leaves_its_pages_kept_and_shows_in_the_count_me_and_later_pages(committed, top_of_two, anon_client):
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    win_casual(alice, moves=3)
    win_casual(bob, moves=5)
    assert lines(anon_client) == [("alice", 3, 0), ("bob", 5, 0)]
    behind_the_boards_back(alice)
    win_casual(carol, moves=7)  # third: below the top
    body = anon_client.get(f"{RECORDS}?page_size=2").json()
    assert [(e["username"], e["undos"]) for e in body["entries"]] == [("alice", 0), ("bob", 0)]  # kept
    assert body["count"] == 3 and body["next"] is not None
    assert lines(anon_client, "?page=2&page_size=2") == [("carol", 7, 0)]  # past the top: the board's version
    assert client_for(carol).get(f"{RECORDS}?page_size=2").json()["me"]["rank"] == 3
    # A page of one line within the top is kept alike; the game page's record with it.
    assert anon_client.get(f"{RECORDS}?page_size=1").json()["record"]["undos"] == 9  # read first now
    win_casual(make_player("dave"), moves=9)
    assert anon_client.get(f"{RECORDS}?page_size=1").json()["record"]["undos"] == 9


@pytest.mark.parametrize(
    ("moves", "seconds", "top"),
    [
        (4, 700, [("alice", 3, 9), ("dave", 4, 0)]),  # the second place, the top's last: read again
        (5, 500, [("alice", 3, 9), ("dave", 5, 0)]),  # bob's moves in less time: the second place too
        (5, 700, [("alice", 3, 0), ("bob", 5, 0)]),  # bob's moves in more time: the third, below the top
        (9, 700, [("alice", 3, 0), ("bob", 5, 0)]),
    ],
)
def test_a_win_at_the_tops_last_place_reads_it_again_and_one_just_below_does_not(committed, top_of_two, anon_client, moves, seconds, top):
    alice = make_player("alice")
    win_casual(alice, moves=3)
    win_casual(make_player("bob"), moves=5, seconds=600)
    win_casual(make_player("carol"), moves=8)
    assert lines(anon_client) == [("alice", 3, 0), ("bob", 5, 0)]
    behind_the_boards_back(alice)
    win_casual(make_player("dave"), moves=moves, seconds=seconds)
    assert lines(anon_client) == top


def test_a_line_taken_off_reads_the_top_again_when_it_was_in_it(committed, top_of_two, anon_client):
    alice, bob, carol, dave = (make_player(name) for name in ("alice", "bob", "carol", "dave"))
    win_casual(alice, moves=3)
    win_casual(bob, moves=5)
    win_casual(carol, moves=7)
    below = win_casual(dave, moves=9)
    assert lines(anon_client) == [("alice", 3, 0), ("bob", 5, 0)]
    behind_the_boards_back(alice)
    fairplay.reject(Game.objects.get(pk=below.pk))  # the fourth line: the top stays kept
    assert lines(anon_client) == [("alice", 3, 0), ("bob", 5, 0)]
    fairplay.reject(Game.objects.get(pk=DealRecord.objects.get(player=bob).game_id))  # the second: carol comes up
    assert lines(anon_client) == [("alice", 3, 9), ("carol", 7, 0)]


def test_a_better_game_from_below_the_top_into_it_reads_it_again(committed, top_of_two, anon_client):
    alice, carol = make_player("alice"), make_player("carol")
    win_casual(alice, moves=3)
    win_casual(make_player("bob"), moves=5)
    win_casual(carol, moves=9)
    assert lines(anon_client) == [("alice", 3, 0), ("bob", 5, 0)]
    behind_the_boards_back(alice)
    win_casual(carol, moves=8)  # better, still below
    assert lines(anon_client) == [("alice", 3, 0), ("bob", 5, 0)]
    win_casual(carol, moves=4)
    assert lines(anon_client) == [("alice", 3, 9), ("carol", 4, 0)]


def test_a_win_in_the_top_leaves_the_pages_ending_before_its_place_kept(committed, monkeypatch, anon_client):
    """Tops of one, two and three lines: a win at the third place reads the page of three again and
    leaves the pages of one and two kept; one at the second leaves the first line (the game page's)."""
    monkeypatch.setattr(boards, "TOPS", (1, 2, 3))
    alice = make_player("alice")
    win_casual(alice, moves=3)
    win_casual(make_player("bob"), moves=5)
    win_casual(make_player("carol"), moves=7)
    for size in (1, 2, 3):
        lines(anon_client, f"?page_size={size}")
    behind_the_boards_back(alice)
    win_casual(make_player("dave"), moves=6)
    assert lines(anon_client, "?page_size=1") == [("alice", 3, 0)]
    assert lines(anon_client, "?page_size=2") == [("alice", 3, 0), ("bob", 5, 0)]
    assert lines(anon_client, "?page_size=3") == [("alice", 3, 9), ("bob", 5, 0), ("dave", 6, 0)]
    win_casual(make_player("erin"), moves=4)
    assert lines(anon_client, "?page_size=1") == [("alice", 3, 0)]
    assert lines(anon_client, "?page_size=2") == [("alice", 3, 9), ("erin", 4, 0)]
    win_casual(make_player("fay"), moves=2)  # a new record: every top
    assert lines(anon_client, "?page_size=1") == [("fay", 2, 0)]


def test_a_lines_place_is_counted_within_the_smaller_tops_the_largest_ones_end_past_them_and_none_below(db, monkeypatch):
    monkeypatch.setattr(boards, "TOPS", (1, 2, 4))
    for name, moves in (("alice", 3), ("bob", 5), ("carol", 7), ("dave", 9), ("erin", 11)):
        win_casual(make_player(name), moves=moves)
    rows = DealRecord.objects.filter(deal=CASUAL_DEAL, autoplay="safe", bot=False)
    fields = [field.lstrip("-") for field in DealRecord.ORDER]
    places = [boards.place_in_top(DealRecord.ORDER, line, rows)() for line in rows.order_by(*DealRecord.ORDER).values_list(*fields)]
    assert places == [1, 2, 4, 4, None]
    bob = rows.values_list(*fields).get(player__username="bob")
    assert boards.place_in_top(DealRecord.ORDER, (4, *bob[1:]), rows)() == 2  # a line not on the board: where it would be
    assert boards.place_in_top(DealRecord.ORDER, (10, *bob[1:]), rows)() is None


def test_a_watchers_frame_after_a_change_below_its_top_reads_only_the_count_and_its_own_line(committed, monkeypatch, django_assert_num_queries):
    """The live board socket reads its top as the REST board does (games.boards.reading): kept, the
    frame costs no query; after a change below its top, the count (once for every watcher) and each
    watcher's own line; after a change in it, its lines too."""
    monkeypatch.setattr(boards, "TOPS", (2,))
    monkeypatch.setattr(live_board, "TOP", 2)
    alice, bob = make_player("alice"), make_player("bob")
    win_casual(alice, moves=3)
    win_casual(bob, moves=5)
    first = live_board.board_top(CASUAL_DEAL, "safe", alice)
    with django_assert_num_queries(0):
        assert live_board.board_top(CASUAL_DEAL, "safe", alice) == first
    behind_the_boards_back(alice)
    win_casual(make_player("carol"), moves=7)  # third: below the top
    with django_assert_num_queries(2):
        frame = live_board.board_top(CASUAL_DEAL, "safe", alice)
    assert frame["entries"] == first["entries"] and frame["count"] == 3 and frame["me"]["undos"] == 9
    with django_assert_num_queries(1):
        assert live_board.board_top(CASUAL_DEAL, "safe", bob)["me"]["rank"] == 2
    win_casual(make_player("dave"), moves=4)  # second: in the top
    frame = live_board.board_top(CASUAL_DEAL, "safe", alice)
    assert [(e["username"], e["undos"]) for e in frame["entries"]] == [("alice", 9), ("dave", 0)]
    assert frame["record"] == frame["entries"][0]


def ladder_lines(client) -> list[tuple]:
    return [(e["username"], e["points"], e["played"]) for e in client.get(f"{LADDER}?page_size=1").json()["entries"]]


def test_a_ladder_change_reads_the_top_again_only_when_it_lands_in_it(committed, monkeypatch, anon_client):
    """The ladder's top of one line: a player below it playing or winning leaves it kept; its own
    player playing again, or losing their win to a review, reads it again."""
    monkeypatch.setattr(boards, "TOPS", (1,))
    alice, bob = make_player("alice"), make_player("bob")
    won = win_daily(alice)
    assert ladder_lines(anon_client) == [("alice", 100, 1)]
    month = DAY.replace(day=1)
    assert LadderEntry.objects.filter(month=month, player=alice).update(played=5) == 1  # behind the boards' back
    boards.mark_played(bob.pk, DAY)  # bob starts the day's daily: 0 points, below alice
    win_daily(bob, moves=2)  # 50 points: still below
    assert ladder_lines(anon_client) == [("alice", 100, 1)]
    boards.mark_played(alice.pk, DAY - dt.timedelta(days=1))  # alice's own line changes
    assert ladder_lines(anon_client) == [("alice", 100, 6)]
    fairplay.reject(Game.objects.get(pk=won.pk))  # her win off: she drops below bob
    assert ladder_lines(anon_client) == [("bob", 50, 1)]


@pytest.mark.parametrize("seed", [1, 2])
def test_every_kept_page_agrees_with_the_board_after_any_change(committed, monkeypatch, seed):
    """Wins (first, better, worse) and games taken off, in a random order on tops of one and three
    lines: after each, every page of one to four lines answers as the database does."""
    monkeypatch.setattr(boards, "TOPS", (1, 3))
    rng = random.Random(seed)
    players = [make_player(f"p{i}") for i in range(6)]
    watcher = client_for(make_player("watcher"))  # signed in: the anonymous rate would stop the reads
    for _change in range(14):
        won = list(DealRecord.objects.filter(deal=CASUAL_DEAL).values_list("game_id", flat=True))
        if won and rng.random() < 0.2:
            fairplay.reject(Game.objects.get(pk=rng.choice(won)))
        else:
            win_casual(rng.choice(players), moves=rng.randint(1, 9), seconds=rng.choice([500, 600]))
        total = selectors.record_count(CASUAL_DEAL, "safe")
        for size in range(1, 5):
            for number in range(1, -(-total // size) + 1):
                stored = selectors.record_page(CASUAL_DEAL, "safe", offset=(number - 1) * size, limit=size)
                shown = watcher.get(f"{RECORDS}?page={number}&page_size={size}").json()
                assert [(e["username"], e["moves"], e["elapsed_ms"]) for e in shown["entries"]] == [
                    (line.username, line.moves, line.elapsed_ms) for line in stored
                ], (size, number)


def streak_lines(client) -> list[tuple]:
    return [(e["username"], e["current"], e["longest"]) for e in client.get(f"{STREAKS}?page_size=1").json()["entries"]]


def test_a_streak_change_reads_the_top_again_only_when_it_lands_in_it(committed, monkeypatch, anon_client):
    monkeypatch.setattr(boards, "TOPS", (1,))
    alice, bob = make_player("alice"), make_player("bob")
    win_daily(alice)
    assert streak_lines(anon_client) == [("alice", 1, 1)]
    assert Streak.objects.filter(player=alice).update(longest=7) == 1  # behind the boards' back
    win_daily(bob)  # 1 day, as alice: ranked after her
    assert streak_lines(anon_client) == [("alice", 1, 1)]  # kept
    committed.advance()
    make_test_daily(DAY + dt.timedelta(days=1))
    assert streak_lines(anon_client) == [("alice", 1, 7)]  # the new day's page
    assert Streak.objects.filter(player=alice).update(longest=8) == 1
    win_daily(bob)  # 2 days: first
    assert streak_lines(anon_client) == [("bob", 2, 2)]


@pytest.mark.parametrize("seed", [1, 2])
def test_every_kept_ladder_and_streak_page_agrees_with_the_board_after_any_change(committed, monkeypatch, seed):
    """Ranked wins over three days and wins taken off, in a random order on tops of one and two lines:
    after each, every page of one to three lines of the month's ladder and of the streaks answers as
    the database does."""
    monkeypatch.setattr(boards, "TOPS", (1, 2))
    rng = random.Random(seed)
    players = [make_player(f"p{i}") for i in range(5)]
    watcher = client_for(make_player("watcher"))  # signed in: the anonymous rate would stop the reads
    month = DAY.replace(day=1)
    boards_now = [
        (LADDER, lambda: selectors.ladder_count(month), lambda at: selectors.ladder_page(month, **at), ("username", "points", "played", "won")),
        (STREAKS, selectors.streak_count, lambda at: selectors.streak_page(**at), ("username", "current", "longest")),
    ]
    for day in range(3):
        if day:
            committed.advance()
            make_test_daily(DAY + dt.timedelta(days=day))
        for player in rng.sample(players, 4):
            won = win_daily(player, moves=rng.choice([1, 2, 3]))
            if rng.random() < 0.25:
                fairplay.reject(Game.objects.get(pk=won.pk))
            for url, count, page, fields in boards_now:
                total = count()
                for size in range(1, 4):
                    for number in range(1, -(-total // size) + 1):
                        stored = page({"offset": (number - 1) * size, "limit": size})
                        shown = watcher.get(f"{url}?page={number}&page_size={size}").json()["entries"]
                        assert [tuple(e[f] for f in fields) for e in shown] == [tuple(getattr(line, f) for f in fields) for line in stored], (url, size, number)


def in_a_thread_of_its_own(work):
    """`work()` on another thread, with a database connection of its own, committed there."""
    done = []

    def run():
        try:
            done.append(work())
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=60)
    assert done, "the thread's work failed"
    return done[0]


def test_a_line_its_own_transaction_put_below_the_top_is_in_it_once_a_removal_beside_it_shows(committed, top_of_two):
    """Carol's win is third in its own transaction's snapshot (alice, bob, carol, dave); bob's line is
    taken off and committed beside it, first. Asked inside its transaction, carol's win would leave the
    top as read between the two commits (alice, dave); asked after its commit, it is in it."""
    if connection.vendor != "postgresql":
        pytest.skip("two writers at once: SQLite takes one at a time")
    alice, bob, carol, dave = (make_player(name) for name in ("alice", "bob", "carol", "dave"))
    win_casual(alice, moves=3)
    taken_off = win_casual(bob, moves=5)
    win_casual(dave, moves=9)
    reader = client_for(make_player("watcher"))
    with transaction.atomic():
        win_casual(carol, moves=7)
        in_a_thread_of_its_own(lambda: fairplay.reject(Game.objects.get(pk=taken_off.pk)))
        assert in_a_thread_of_its_own(lambda: lines(reader)) == [("alice", 3, 0), ("dave", 9, 0)]  # kept, carol not yet committed
    assert lines(reader) == [("alice", 3, 0), ("carol", 7, 0)]


def versions_of(board: str) -> tuple:
    return tuple(cache.get(boards._version_key(name)) for name in (board, *(boards.top_of(board, end) for end in boards.TOPS)))


@pytest.mark.parametrize(
    ("place", "moved"),
    [
        (lambda: None, (True, False, False, False)),
        (lambda: 3, (True, False, True, True)),
        (lambda: 2, (True, False, True, True)),
        (lambda: 1, (True, True, True, True)),
        (None, (True, True, True, True)),
    ],
    ids=["below", "third", "second", "first", "not asked"],
)
def test_a_change_moves_its_boards_version_and_each_top_it_lands_in(db, monkeypatch, django_capture_on_commit_callbacks, place, moved):
    """Tops of one, three and five lines: a change at the second or third place is in the last two."""
    monkeypatch.setattr(boards, "TOPS", (1, 3, 5))
    board = boards.records_board(CASUAL_DEAL, "safe", False)
    boards.Kept(board, [])  # every version made
    before = versions_of(board)
    with django_capture_on_commit_callbacks(execute=True):
        boards.board_changed(board, place=place)
    after = versions_of(board)
    assert tuple(a != b for a, b in zip(after, before, strict=True)) == moved


def test_a_top_check_that_fails_moves_every_tops_version_on(db, django_capture_on_commit_callbacks, caplog):
    """The change is committed: its tops are read again rather than missed."""
    board = boards.records_board(CASUAL_DEAL, "safe", False)
    boards.Kept(board, [])
    before = versions_of(board)

    def check():
        raise OperationalError("the database went away")

    with django_capture_on_commit_callbacks(execute=True):
        boards.board_changed(board, place=check)
    after = versions_of(board)
    assert all(a != b for a, b in zip(after, before, strict=True))
    assert "top not checked" in caplog.text
