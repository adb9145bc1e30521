"""Every page of every board, read through the tallies (docs/boards.md, "Reading a page"), is the slice of
the board's plain order at that place, with exact ranks; `me` is ranked by the lines ahead of it; and a
board's answer costs a fixed, small number of queries whatever its page."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection, transaction
from django.utils import timezone

from games.boards import selectors
from games.boards import services as boards
from games.models import Deal, DealRecord, Game, LadderEntry, RecordSpanTally, Streak
from tests.support.boards import CASUAL_DEAL, win_casual
from tests.support.players import client_for, make_player

pytestmark = pytest.mark.usefixtures("solver_stand_in")  # dailies from the trivial deal (tests/support/daily.py)

RECORDS = f"/api/deals/{CASUAL_DEAL}/records/"
MONTH = dt.date(2026, 3, 1)
LADDER = f"/api/ladder/{MONTH:%Y-%m}/"
STREAKS = "/api/ladder/streaks/"
SIZES = (1, 2, 3, 5, 200)
User = get_user_model()


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


# --- a crowded move count, split by time ---------------------------------------------------------------


def record_rows() -> list[tuple]:
    """The deal's safe board of people: (player, moves, elapsed_ms, finished_at, game) of each line."""
    return list(DealRecord.objects.filter(deal=CASUAL_DEAL, autoplay="safe", bot=False).values_list("player_id", "moves", "elapsed_ms", "finished_at", "game_id"))


def spans_recounted(rows: list[tuple], split_from: int) -> dict:
    """The span tally the board's lines give: every move count with `split_from` lines or more, by span."""
    lines: dict[int, list[int]] = {}
    for _player, moves, elapsed, _finished, _game in rows:
        lines.setdefault(moves, []).append(elapsed // RecordSpanTally.SPAN_MS)
    counted: dict = {}
    for moves, spans in lines.items():
        if len(spans) >= split_from:
            for span in spans:
                counted[moves, span] = counted.get((moves, span), 0) + 1
    return counted


def assert_ranks_and_spans(players, split_from: int) -> None:
    """Every player's `me` is 1 + the lines ahead of theirs, and the span tally is the lines' own (a move
    count is split once it held `split_from` lines: these tests never shrink one below)."""
    rows = record_rows()
    kept = RecordSpanTally.objects.filter(deal=CASUAL_DEAL, autoplay="safe", bot=False, count__gt=0).values_list("moves", "span", "count")
    assert {(moves, span): count for moves, span, count in kept} == spans_recounted(rows, split_from)
    for player in players:
        mine = next(row for row in rows if row[0] == player.pk)
        ahead = sum(1 for row in rows if row[1:] < mine[1:])
        line = selectors.record_line_of(CASUAL_DEAL, "safe", player)
        assert (line.rank, line.game) == (ahead + 1, mine[4]), player.username


@pytest.fixture
def split_from(monkeypatch):
    """Move counts split from their third line (256 in production: the same code, on a board a test can hold)."""
    monkeypatch.setattr(RecordSpanTally, "SPLIT_FROM", 3)
    return 3


@pytest.fixture
def crowded_players(db, split_from):
    """Eleven players: five lines with 1 move (three of them in one span of time), two with 3 (too few
    to split), four with 5 in one span."""
    lines = [(1, 601), (1, 603), (1, 612), (1, 595), (1, 604.5), (3, 700), (3, 701), (5, 650), (5, 651), (5, 652), (5, 653)]
    players = []
    for i, (moves, seconds) in enumerate(lines):
        player = make_player(f"c{i}")
        win_casual(player, moves=moves, seconds=seconds)
        players.append(player)
    return players


def test_a_rank_inside_a_split_move_count_sums_its_earlier_spans_and_counts_its_own(crowded_players, split_from):
    assert RecordSpanTally.objects.filter(moves=1).count() == 3 and not RecordSpanTally.objects.filter(moves=3).exists()
    assert_ranks_and_spans(crowded_players, split_from)


def test_a_better_game_and_a_game_taken_off_move_the_spans_of_their_move_counts(crowded_players, split_from):
    win_casual(crowded_players[5], moves=1, seconds=602)  # 3 moves -> 1: into a split move count
    assert_ranks_and_spans(crowded_players, split_from)
    win_casual(crowded_players[2], moves=1, seconds=590)  # as many moves, faster: from one span to another
    assert_ranks_and_spans(crowded_players, split_from)
    win_casual(crowded_players[6], moves=5, seconds=640)  # 3 moves -> 5: a worse game changes nothing
    assert_ranks_and_spans(crowded_players, split_from)
    held = Game.objects.get(pk=DealRecord.objects.get(deal=CASUAL_DEAL, player=crowded_players[0]).game_id)
    assert boards.unrecord_game(held)  # held for review: off the board, with no other win of the player's
    assert_ranks_and_spans(crowded_players[1:], split_from)


def test_a_rebuild_splits_the_move_counts_the_live_updates_split(crowded_players, split_from):
    def spans() -> list[tuple]:
        return sorted(RecordSpanTally.objects.filter(count__gt=0).values_list("deal", "autoplay", "bot", "moves", "span", "count"))

    live = spans()
    assert live
    boards.rebuild()
    assert spans() == live
    assert_ranks_and_spans(crowded_players, split_from)


@pytest.fixture(params=[1, 20], ids=["one line a deal", "twenty lines a deal"])
def a_hot_deal_among_many(request, transactional_db):
    """A site's boards as PostgreSQL's statistics see them: one deal with 300 lines among 600 others
    with one line each, or 30 with twenty (vacuumed: the ranking index is read without the table).
    Rows written straight in: what is planned is the read, whatever the games."""
    per_deal = request.param
    users = User.objects.bulk_create(User(username=f"h{i}", password="!") for i in range(300))
    deals = Deal.objects.bulk_create(Deal(id=f"seed:{1000 + i}", columns=[]) for i in range(1 + 600 // per_deal))
    now = timezone.now()
    games = Game.objects.bulk_create(
        Game(deal=deals[0] if i < 300 else deals[1 + (i - 300) // per_deal], player=users[i % 300], state={}, status="won", ply=5, elapsed_ms=600_000 + i, finished_at=now)
        for i in range(900)
    )
    DealRecord.objects.bulk_create(
        DealRecord(deal=game.deal_id, autoplay="safe", player=game.player, game=game, moves=5 + i % 7, elapsed_ms=game.elapsed_ms, finished_at=now)
        for i, game in enumerate(games)
    )
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM ANALYZE {connection.ops.quote_name(DealRecord._meta.db_table)}")
    return deals[0].id, users[150]


def literal(value) -> str:
    """A value written into a statement (an EXECUTE's arguments are not bound): the test's own values."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


@pytest.mark.services
def test_a_players_line_is_read_by_its_key_even_in_a_plan_made_for_every_deal(a_hot_deal_among_many):
    """PostgreSQL plans a prepared statement once for any values after five runs: `me` must still read
    the player's row by their unique key, not the deal's whole board through the ranking index (45 ms on
    a deal of 200,000 lines). On a site where most deals have one line, the two cost the same to the
    planner unless the key leads with the player. (That `me` also reads the row's id, which the ranking
    index lacks, matters at a million lines: bench/boards.py shows it, a test's table is too small.)"""
    deal, player = a_hot_deal_among_many
    run = []

    def keep(execute, sql, params, many, context):
        run.append((sql, list(params)))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        assert selectors.record_line_of(deal, "safe", player) is not None
    ((sql, params),) = run
    numbered = sql
    for n in range(1, len(params) + 1):
        numbered = numbered.replace("%s", f"${n}", 1)
    with connection.cursor() as cursor:
        cursor.execute("SET plan_cache_mode = force_generic_plan")
        cursor.execute(f"PREPARE line_of AS {numbered}")
        try:
            cursor.execute(f"EXPLAIN EXECUTE line_of ({', '.join(map(literal, params))})")
            plan = cursor.fetchall()[0][0]
        finally:
            cursor.execute("DEALLOCATE line_of")
            cursor.execute("RESET plan_cache_mode")
    assert "deal_record_board" not in plan, plan


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
