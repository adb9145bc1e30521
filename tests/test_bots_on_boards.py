"""Bots on boards (docs/fair-play.md): every board ranks people by default and bots with `?players=bots`.

A bot here plays better than the people (fewer moves, more points, a longer streak), so that a board
that let it in would show it first and push the best person down to rank 2.
"""

from __future__ import annotations

import datetime as dt

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command

from accounts.models import Profile
from games.daily import leaderboard
from games.models import (
    DailyMovesTally,
    DailyResult,
    DailySpanTally,
    DealRecord,
    Game,
    LadderEntry,
    LadderTally,
    LongestTally,
    RecordTally,
    Streak,
    StreakTally,
)
from tests.support.boards import CASUAL_DEAL, win_casual
from tests.support.daily import make_test_daily, win_daily
from tests.support.players import befriend, client_for, code_of, make_player
from tests.support.sockets import next_of, open_socket, run
from tests.test_boards import board_tables

pytestmark = pytest.mark.usefixtures("solver_stand_in")  # dailies from the trivial deal (tests/support/daily.py)

DAY = dt.date(2026, 3, 10)
RECORDS = f"/api/deals/{CASUAL_DEAL}/records/"
LADDER = f"/api/ladder/{DAY:%Y-%m}/"
STREAKS = "/api/ladder/streaks/"


def make_bot(username: str):
    """An account made a bot before it has any result (accounts.services' rule, set here directly)."""
    user = make_player(username)
    Profile.objects.filter(user=user).update(bot=True)
    return user


@pytest.fixture
def robo(db):
    return make_bot("robo")


def lines(body: dict, *fields: str) -> list[tuple]:
    return [(e["rank"], e["username"], *(e[f] for f in fields), e["bot"]) for e in body["entries"]]


def leaderboard_url(date: dt.date, **query) -> str:
    return f"/api/daily/{date}/leaderboard/" + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


# --- the daily's leaderboard ------------------------------------------------------------------------


def test_a_bots_daily_win_ranks_only_on_the_bots_board(alice, charlie, robo, today_daily, anon_client):
    win_daily(robo, moves=1)
    win_daily(charlie, moves=2)
    win_daily(alice, moves=3)
    date = today_daily.date
    people = anon_client.get(leaderboard_url(date)).json()
    assert lines(people, "moves") == [(1, "charlie", 2, False), (2, "alice", 3, False)]
    assert people["players"] == "people" and people["count"] == 2
    assert anon_client.get(leaderboard_url(date, players="people")).json() == people
    bots = anon_client.get(leaderboard_url(date, players="bots")).json()
    assert lines(bots, "moves") == [(1, "robo", 1, True)] and bots["players"] == "bots" and bots["count"] == 1
    # Each kind's rank counts only its own board: the tallies hold the two apart.
    assert sorted(DailyMovesTally.objects.filter(daily=today_daily).values_list("bot", "moves", "count")) == [
        (False, 2, 1), (False, 3, 1), (True, 1, 1)
    ]
    assert DailySpanTally.objects.filter(daily=today_daily, bot=True).count() == 1
    assert DailyResult.objects.get(player=robo).bot and not DailyResult.objects.get(player=alice).bot


def test_me_is_the_callers_line_on_the_board_of_their_kind(alice, charlie, robo, today_daily):
    win_daily(robo, moves=1)
    win_daily(charlie, moves=2)
    win_daily(alice, moves=3)
    date = today_daily.date
    mine = client_for(alice).get(leaderboard_url(date)).json()["me"]
    assert (mine["rank"], mine["username"], mine["bot"], mine["review"]) == (2, "alice", False, "none")
    assert client_for(alice).get(leaderboard_url(date, players="bots")).json()["me"] is None
    robos = client_for(robo).get(leaderboard_url(date, players="bots")).json()["me"]
    assert (robos["rank"], robos["username"], robos["bot"]) == (1, "robo", True)
    assert client_for(robo).get(leaderboard_url(date)).json()["me"] is None
    # The same ranks wherever a result's rank is read: statistics, shares, a player's daily list.
    result = DailyResult.objects.get(player=charlie)
    assert leaderboard.rank_of(result) == 1 and leaderboard.rank_of(DailyResult.objects.get(player=robo)) == 1


def test_a_held_win_shows_in_me_only_on_the_board_of_its_players_kind(alice, today_daily):
    game = win_daily(alice, moves=2)
    leaderboard.remove_result(game)
    Game.objects.filter(pk=game.pk).update(review=Game.Review.FLAGGED)
    date = today_daily.date
    held = client_for(alice).get(leaderboard_url(date)).json()["me"]
    assert (held["rank"], held["review"], held["bot"]) == (None, "flagged", False)
    assert client_for(alice).get(leaderboard_url(date, players="bots")).json()["me"] is None


def test_the_friends_board_of_bots_holds_the_callers_bot_friends(alice, charlie, robo, today_daily):
    other = make_bot("stranger_bot")
    befriend(alice, robo)
    for player, moves in ((other, 1), (robo, 2), (charlie, 3), (alice, 4)):
        win_daily(player, moves=moves)
    date = today_daily.date
    bots = client_for(alice).get(leaderboard_url(date, scope="friends", players="bots")).json()
    assert lines(bots, "moves") == [(1, "robo", 2, True)] and bots["count"] == 1 and bots["me"] is None
    people = client_for(alice).get(leaderboard_url(date, scope="friends")).json()
    assert lines(people, "moves") == [(1, "alice", 4, False)] and people["me"]["rank"] == 1
    robos = client_for(robo).get(leaderboard_url(date, scope="friends", players="bots")).json()
    assert robos["me"]["rank"] == 1 and robos["me"]["bot"] is True


def test_the_histogram_counts_the_wins_of_the_kind_asked(alice, robo, today_daily):
    win_daily(robo, moves=1)
    win_daily(alice, moves=3)
    url = f"/api/daily/{today_daily.date}/histogram/"
    people = client_for(alice).get(url).json()
    assert (people["players"], people["buckets"], people["total"], people["me"]) == ("people", [{"moves": 3, "count": 1}], 1, 3)
    bots = client_for(alice).get(url + "?players=bots").json()
    assert (bots["players"], bots["buckets"], bots["total"], bots["me"]) == ("bots", [{"moves": 1, "count": 1}], 1, None)
    assert client_for(robo).get(url + "?players=bots").json()["me"] == 1


def test_a_deep_page_of_the_bots_board_is_sought_among_bots(monkeypatch, alice, today_daily, anon_client):
    monkeypatch.setattr(leaderboard, "SEEK_FROM", 1)  # seek with the tallies from the second line on
    win_daily(alice, moves=1)  # ahead of every bot: were she in the bots' tallies, the seek would land a line early
    for i in range(3):
        win_daily(make_bot(f"bot{i}"), moves=2 + 2 * i)
    page = anon_client.get(leaderboard_url(today_daily.date, players="bots", page=2, page_size=1)).json()
    assert lines(page, "moves") == [(2, "bot1", 4, True)]
    assert [e.username for e in leaderboard.page(today_daily.date, offset=1, limit=5, bots=True)] == ["bot1", "bot2"]


def test_the_archive_names_the_best_person_as_the_winner(db, alice, robo, clock, anon_client):
    clock.set(DAY)
    make_test_daily(DAY)
    win_daily(robo, moves=1)
    win_daily(alice, moves=2)
    clock.advance()
    winner = anon_client.get("/api/daily/archive/").json()["dailies"][0]["winner"]
    assert (winner["username"], winner["moves"]) == ("alice", 2)
    assert leaderboard.winners([DAY], bots=True)[DAY].username == "robo"


def test_a_days_rebuild_keeps_people_and_bots_apart(alice, robo, today_daily):
    win_daily(robo, moves=1)
    win_daily(alice, moves=3)

    def tallies():
        return (
            sorted(DailyMovesTally.objects.filter(count__gt=0).values_list("bot", "moves", "count")),
            sorted(DailySpanTally.objects.filter(count__gt=0).values_list("bot", "moves", "span", "count")),
            sorted(DailyResult.objects.values_list("player__username", "bot")),
        )

    live = tallies()
    DailyResult.objects.filter(player=robo).delete()  # a result lost: the rebuild puts it back, a bot's
    assert leaderboard.rebuild(today_daily.date) == 2
    assert tallies() == live and live[2] == [("alice", False), ("robo", True)]


# --- deal records -----------------------------------------------------------------------------------


def test_a_bots_deal_record_is_on_the_bots_board_only(alice, bob, robo, anon_client):
    win_casual(robo, moves=1)
    win_casual(bob, moves=3)
    win_casual(alice, moves=5)
    people = anon_client.get(RECORDS).json()
    assert lines(people, "moves") == [(1, "bob", 3, False), (2, "alice", 5, False)]
    assert people["record"]["username"] == "bob" and people["record"]["bot"] is False and people["count"] == 2
    bots = anon_client.get(RECORDS + "?players=bots").json()
    assert lines(bots, "moves") == [(1, "robo", 1, True)] and bots["players"] == "bots"
    assert bots["record"]["username"] == "robo" and bots["count"] == 1
    assert sorted(RecordTally.objects.filter(count__gt=0).values_list("bot", "moves")) == [(False, 3), (False, 5), (True, 1)]
    # `me` on the board of each kind
    assert client_for(alice).get(RECORDS).json()["me"]["rank"] == 2
    assert client_for(alice).get(RECORDS + "?players=bots").json()["me"] is None
    assert client_for(robo).get(RECORDS + "?players=bots").json()["me"]["rank"] == 1
    assert client_for(robo).get(RECORDS).json()["me"] is None
    friends = client_for(alice).get(RECORDS + "?scope=friends&players=bots").json()
    assert friends["entries"] == [] and friends["me"] is None and friends["record"]["username"] == "robo"


def test_a_bots_better_game_replaces_its_own_line_only(robo, alice, anon_client):
    win_casual(robo, moves=5)
    win_casual(alice, moves=4)
    win_casual(robo, moves=2)
    assert lines(anon_client.get(RECORDS + "?players=bots").json(), "moves") == [(1, "robo", 2, True)]
    assert sorted(RecordTally.objects.filter(count__gt=0).values_list("bot", "moves", "count")) == [(False, 4, 1), (True, 2, 1)]


# --- the month's ladder and streaks ----------------------------------------------------------------


def test_a_bots_points_are_on_the_bots_ladder_only(db, alice, bob, robo, clock, anon_client):
    clock.set(DAY)
    make_test_daily(DAY, par=2)
    win_daily(robo, moves=2)  # 100 points
    win_daily(alice, moves=3)  # 67
    win_daily(bob, moves=4)  # 50
    people = anon_client.get(LADDER).json()
    assert lines(people, "points") == [(1, "alice", 67, False), (2, "bob", 50, False)] and people["count"] == 2
    bots = anon_client.get(LADDER + "?players=bots").json()
    assert lines(bots, "points") == [(1, "robo", 100, True)] and bots["count"] == 1
    assert client_for(bob).get(LADDER).json()["me"]["rank"] == 2  # behind alice alone: the bot is not counted
    assert client_for(bob).get(LADDER + "?players=bots").json()["me"] is None
    assert client_for(robo).get(LADDER + "?players=bots").json()["me"]["bot"] is True
    assert sorted(LadderTally.objects.filter(count__gt=0).values_list("bot", "points")) == [(False, 50), (False, 67), (True, 100)]
    page = anon_client.get(LADDER + "?page=2&page_size=1").json()  # a later page's first rank, from the people's tally
    assert lines(page, "points") == [(2, "bob", 50, False)]
    friends = client_for(bob).get(LADDER + "?scope=friends&players=bots").json()  # bob and alice are friends, no bot
    assert friends["entries"] == [] and friends["players"] == "bots"


def test_a_bots_streak_is_on_the_bots_board_only(db, alice, charlie, robo, clock, anon_client):
    days = [DAY + dt.timedelta(days=i) for i in range(3)]
    for day in days:
        clock.set(day)
        make_test_daily(day)
        win_daily(robo)
    win_daily(alice)
    clock.set(days[0])
    win_daily(charlie)  # a stale streak of one, behind alice's living one among people
    clock.set(days[2])
    people = anon_client.get(STREAKS).json()
    assert lines(people, "current", "longest") == [(1, "alice", 1, 1, False), (2, "charlie", 0, 1, False)]
    bots = anon_client.get(STREAKS + "?players=bots").json()
    assert lines(bots, "current", "longest") == [(1, "robo", 3, 3, True)] and bots["count"] == 1
    assert client_for(charlie).get(STREAKS).json()["me"]["rank"] == 2  # the bot's living streak is not ahead
    assert client_for(alice).get(STREAKS + "?players=bots").json()["me"] is None
    assert client_for(robo).get(STREAKS + "?players=bots").json()["me"] == {"rank": 1, "username": "robo", "current": 3, "longest": 3, "bot": True}
    assert sorted(StreakTally.objects.filter(bot=True, count__gt=0).values_list("current", "longest")) == [(3, 3)]
    assert sorted(LongestTally.objects.filter(count__gt=0).values_list("bot", "longest", "count")) == [(False, 1, 2), (True, 3, 1)]
    page = anon_client.get(STREAKS + "?page=2&page_size=1").json()  # the stale streaks after the living ones
    assert lines(page, "current", "longest") == [(2, "charlie", 0, 1, False)]
    befriend(alice, robo)
    friends = client_for(alice).get(STREAKS + "?scope=friends&players=bots").json()
    assert lines(friends, "current", "longest") == [(1, "robo", 3, 3, True)] and friends["me"] is None


def test_a_rebuild_gives_bots_their_own_boards_again(db, alice, robo, clock):
    for i in range(2):
        clock.set(DAY + dt.timedelta(days=i))
        make_test_daily(DAY + dt.timedelta(days=i), par=2)
        win_daily(robo, moves=2)
        win_daily(alice, moves=3)
    win_casual(robo, moves=2)
    win_casual(alice, moves=4)

    def kinds() -> dict:
        """Every board row with its kind (board_tables leaves `bot` out)."""
        return {
            "records": sorted(DealRecord.objects.values_list("deal", "player__username", "bot")),
            "entries": sorted(LadderEntry.objects.values_list("player__username", "bot")),
            "streaks": sorted(Streak.objects.values_list("player__username", "bot")),
            "tallies": (
                sorted(RecordTally.objects.filter(count__gt=0).values_list("deal", "bot", "moves", "count")),
                sorted(LadderTally.objects.filter(count__gt=0).values_list("bot", "points", "count")),
                sorted(StreakTally.objects.filter(count__gt=0).values_list("bot", "current", "longest", "count")),
                sorted(LongestTally.objects.filter(count__gt=0).values_list("bot", "longest", "count")),
            ),
        }

    live, live_kinds = board_tables(), kinds()
    assert ("robo", True) in live_kinds["entries"] and ("alice", False) in live_kinds["streaks"]
    call_command("rebuild_boards", stdout=open("/dev/null", "w"))
    assert board_tables() == live and kinds() == live_kinds


# --- bad input, the live board ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [RECORDS, LADDER, STREAKS, "/api/daily/{today}/leaderboard/", "/api/daily/{today}/histogram/"],
)
def test_a_players_value_other_than_people_or_bots_is_invalid_request(path, anon_client, today_daily):
    answer = anon_client.get(path.format(today=today_daily.date) + "?players=robots")
    assert (answer.status_code, code_of(answer)) == (400, "invalid_request")
    assert answer.json()["error"]["fields"] == {"players": ["players must be one of: people, bots"]}


@pytest.fixture
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.WS_HEARTBEAT_S = 30
    settings.WS_IDLE_TIMEOUT_S = 60


@pytest.mark.django_db(transaction=True)
def test_the_records_socket_shows_the_bots_board_with_players_bots(_in_memory_layer):
    robo, alice = make_bot("robo"), make_player("alice")
    win_casual(robo, moves=5)
    win_casual(alice, moves=3)

    async def scenario():
        socket = await open_socket(f"/ws/deals/{CASUAL_DEAL}/records/?players=bots")
        first = await next_of(socket, "records")
        assert first["players"] == "bots" and first["count"] == 1
        assert (first["record"]["username"], first["record"]["bot"]) == ("robo", True)
        people = await open_socket(f"/ws/deals/{CASUAL_DEAL}/records/")
        shown = await next_of(people, "records")
        assert shown["players"] == "people" and [e["username"] for e in shown["entries"]] == ["alice"]
        # A person's better game changes the people's board only: the bots' socket hears of the bot's next win first.
        await sync_to_async(win_casual)(alice, moves=2)
        assert (await next_of(people, "records"))["record"]["moves"] == 2
        # A new record of the bots' board, though not better than the people's: the record that fell is the bots'.
        await sync_to_async(win_casual)(robo, moves=4)
        pushed = await next_of(socket, "records")
        assert pushed["record_fell"] is True and (pushed["record"]["username"], pushed["record"]["moves"]) == ("robo", 4)
        bad = await open_socket(f"/ws/deals/{CASUAL_DEAL}/records/?players=robots")
        refused = await next_of(bad, "error")
        assert refused["code"] == "invalid_request"
        for open_one in (socket, people):
            await open_one.disconnect()

    run(scenario)
