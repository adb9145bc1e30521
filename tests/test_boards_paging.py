"""Every page of every board, read through the tallies (docs/boards.md, "Reading a page"), is the slice of
the board's plain order at that place, with exact ranks; `me` is ranked by the lines ahead of it; and a
board's answer costs a fixed, small number of queries whatever its page."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.cache import cache
from django.db import transaction

from games.boards import selectors
from games.boards import services as boards
from games.models import DealRecord, LadderEntry, Streak
from tests.support.boards import CASUAL_DEAL, win_casual
from tests.support.players import client_for, make_player

pytestmark = pytest.mark.usefixtures("solver_stand_in")  # dailies from the trivial deal (tests/support/daily.py)

RECORDS = f"/api/deals/{CASUAL_DEAL}/records/"
MONTH = dt.date(2026, 3, 1)
LADDER = f"/api/ladder/{MONTH:%Y-%m}/"
STREAKS = "/api/ladder/streaks/"
SIZES = (1, 2, 3, 5, 200)


def pages(client, url: str, size: int) -> list[dict]:
    """Every page of a board at `size` lines a page, then its `page=last`, checked against the pages."""
    sep = "&" if "?" in url else "?"
    first = client.get(f"{url}{sep}page_size={size}").json()
    count = first["count"]
    bodies = [first] + [client.get(f"{url}{sep}page={n}&page_size={size}").json() for n in range(2, -(-count // size) + 1)]
    last = client.get(f"{url}{sep}page=last&page_size={size}").json()
    assert last["entries"] == bodies[-1]["entries"] and last["page"] == len(bodies)
    return bodies


def entries_of(bodies: list[dict]) -> list[dict]:
    return [entry for body in bodies for entry in body["entries"]]


def shared_ranks(keys: list) -> list[int]:
    """Each line's rank where equal keys share one: 1 + the lines with a better key (keys best first)."""
    return [1 + sum(1 for other in keys if other < key) for key in keys]


@pytest.fixture
def record_players(db):
    """Twelve players on one deal's board, in runs of equal move counts (the tally's groups) of 1 to 4."""
    moves = [1, 1, 1, 3, 3, 5, 5, 5, 5, 7, 9, 9]
    players = []
    for i, count in enumerate(moves):
        player = make_player(f"r{i}")
        win_casual(player, moves=count, seconds=600 - 7 * ((i * 5) % 12))
        players.append(player)
    return players


def test_every_page_of_a_deal_board_is_its_plain_order_sliced(record_players, anon_client):
    plain = list(
        DealRecord.objects.filter(deal=CASUAL_DEAL, autoplay="safe", bot=False)
        .order_by("moves", "elapsed_ms", "finished_at", "game_id")
        .values_list("player__username", "moves", "game_id")
    )
    assert len(plain) == 12
    for size in SIZES:
        entries = entries_of(pages(anon_client, RECORDS, size))
        assert [(e["username"], e["moves"], e["game"]) for e in entries] == plain, size
        assert [e["rank"] for e in entries] == list(range(1, 13))


def test_a_players_rank_on_a_deal_board_is_one_plus_the_lines_ahead(record_players):
    rows = list(DealRecord.objects.filter(deal=CASUAL_DEAL, autoplay="safe").values_list("player_id", "moves", "elapsed_ms", "finished_at", "game_id"))
    for player in record_players:
        mine = next(row for row in rows if row[0] == player.pk)
        ahead = sum(1 for row in rows if row[1:] < mine[1:])
        body = client_for(player).get(f"{RECORDS}?page_size=1").json()
        assert body["me"]["rank"] == ahead + 1 and body["me"]["username"] == player.username
        assert body["record"] == body["entries"][0]


@pytest.fixture
def ladder_players(db):
    """Fourteen players of a month: runs of equal points, the longest of them (0 points) seven long."""
    points = [300, 250, 250, 100, 100, 100, 0, 0, 0, 0, 0, 0, 0, 50]
    players = []
    for i, total in enumerate(points):
        player = make_player(f"l{i}")
        with transaction.atomic():
            boards._change_entry(player.pk, MONTH, False, points=total, played=3, won=(i % 3) if total else 0)
        players.append(player)
    return players


def test_every_page_of_the_ladder_is_its_plain_order_sliced_with_shared_ranks(ladder_players, anon_client):
    plain = list(LadderEntry.objects.filter(month=MONTH, bot=False).order_by("-points", "-won", "player_id").values_list("player__username", "points"))
    ranks = shared_ranks([-points for _name, points in plain])
    for size in SIZES:
        entries = entries_of(pages(anon_client, LADDER, size))
        assert [(e["username"], e["points"]) for e in entries] == plain, size
        assert [e["rank"] for e in entries] == ranks, size
    for player in ladder_players:
        me = client_for(player).get(f"{LADDER}?page_size=1").json()["me"]
        assert me["rank"] == ranks[[name for name, _ in plain].index(player.username)]


@pytest.fixture
def streak_players(db):
    """Sixteen streaks: living ones (won today or yesterday) with equal (current, longest) pairs, and
    stale ones (shown as 0) in runs of equal longest streaks."""
    today = boards.today()
    yesterday, old = today - dt.timedelta(days=1), today - dt.timedelta(days=9)
    streaks = [
        (today, 3, 5), (yesterday, 3, 5), (today, 3, 5), (yesterday, 4, 4), (today, 1, 7), (yesterday, 1, 7),
        (yesterday, 2, 2), (today, 2, 9),
        (old, 4, 6), (old, 1, 6), (old, 2, 6), (old, 3, 3), (old, 1, 8), (old, 5, 6), (old, 1, 1), (old, 2, 3),
    ]  # fmt: skip
    players = []
    for i, streak in enumerate(streaks):
        player = make_player(f"s{i}")
        with transaction.atomic():
            boards._store_streak(player.pk, False, None, streak)
        players.append(player)
    return players


def test_every_page_of_the_streaks_is_living_then_stale_sliced_with_shared_ranks(streak_players, anon_client):
    alive = boards.today() - dt.timedelta(days=1)
    rows = [
        (current if last_day >= alive else 0, longest, player, name)
        for name, player, last_day, current, longest in Streak.objects.filter(bot=False).values_list(
            "player__username", "player_id", "last_day", "current", "longest"
        )
    ]
    rows.sort(key=lambda row: (-row[0], -row[1], row[2]))
    plain = [(name, current, longest) for current, longest, _player, name in rows]
    ranks = shared_ranks([(-current, -longest) for current, longest, _player, _name in rows])
    for size in SIZES:
        entries = entries_of(pages(anon_client, STREAKS, size))
        assert [(e["username"], e["current"], e["longest"]) for e in entries] == plain, size
        assert [e["rank"] for e in entries] == ranks, size
    for player in streak_players:
        me = client_for(player).get(f"{STREAKS}?page_size=1").json()["me"]
        assert me["rank"] == ranks[[name for name, _c, _l in plain].index(player.username)], player.username


def test_a_page_is_read_from_the_index_even_when_the_page_starts_inside_a_run(record_players):
    """Straight from the selectors, every offset and size, against the plain order: a page beginning or
    ending inside a run of equal moves, or both, reads forward or backward inside that run."""
    plain = list(
        DealRecord.objects.filter(deal=CASUAL_DEAL, autoplay="safe").order_by("moves", "elapsed_ms", "finished_at", "game_id").values_list("game_id", flat=True)
    )
    for offset in range(len(plain)):
        for limit in range(1, 6):
            page = selectors.record_page(CASUAL_DEAL, "safe", offset=offset, limit=limit)
            assert [line.game for line in page] == plain[offset : offset + limit], (offset, limit)
            assert [line.rank for line in page] == list(range(offset + 1, offset + 1 + len(page)))
    assert selectors.record_page(CASUAL_DEAL, "safe", offset=len(plain), limit=3) == []


# --- what an answer costs ----------------------------------------------------------------------------


def queries_of(client, url: str, django_assert_max_num_queries, most: int) -> None:
    """A read from the database: what a read costs once its board changed (a kept read costs less:
    tests/test_boards_cache.py)."""
    client.get(url)  # the token's first use of the minute notes it (accounts.tokens.note_use)
    cache.clear()  # nothing kept: every part read again
    with django_assert_max_num_queries(most):
        assert client.get(url).status_code == 200


@pytest.mark.parametrize(
    ("url", "most"),
    [
        # The token, whether the deal is a daily's in play, the count, the page (whose first line is the
        # record), `me` with its rank.
        (f"{RECORDS}?page_size=1", 5),
        (f"{RECORDS}?page_size=100", 5),
        # A later page: its groups from the tally, and the record read apart.
        (f"{RECORDS}?page=last&page_size=5", 7),
        # The token, the count, the page, `me` with its rank.
        (f"{LADDER}?page_size=1", 4),
        (f"{LADDER}?page=last&page_size=5", 5),
        (f"{STREAKS}?page_size=1", 4),
        # The living count, then the living groups and page, then the stale groups and page.
        (f"{STREAKS}?page=2&page_size=5", 8),
    ],
)
def test_a_board_answer_costs_a_few_queries_whatever_its_page(record_players, ladder_players, streak_players, url, most, django_assert_max_num_queries):
    player = next(p for p in record_players if p.username == "r4")
    for someone in (player, ladder_players[0], streak_players[0]):
        queries_of(client_for(someone), url, django_assert_max_num_queries, most)
