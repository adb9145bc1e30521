"""Boards benchmark: 1,000,000 players and 10,000,000 won games' records in PostgreSQL; each board's top 100
and one player's rank, beside a primary-key read measured in the same run.

Run: python bench/boards.py [--players 1000000] [--records 10000000] [--samples 1000] [--reuse] [--keep]
(PostgreSQL at BENCH_PG, default postgres://postgres@127.0.0.1:5432). The script (re)creates its own
database `freecell_h_boards_bench`, migrates it and loads the rows the boards read with INSERT ... SELECT
generate_series: the users, one DealRecord per (player, deal) best (one deal, ms:1, is won by a fifth
of the players; the others spread over 500,000 deals), a month's ladder line for every player, a streak
for every player, and every tally, exactly as games.boards.services keeps them. Games themselves are
not loaded (the boards never read them): the boards' foreign keys to games are dropped in this database
only. --reuse keeps a database loaded by an earlier run (migrated to this tree's models); without --keep the database is dropped at the end.
Figures are end-to-end calls of the boards' selectors through Django (warm cache, one connection), the
best p99 of 3 rounds; these are figures to read, never assertions in the test suite.

--http times the answers over HTTP instead: one Daphne process on the same database (bench/_server.py),
kept-alive connections, `GET /api/ping/` (the baseline; and signed in, the floor of a read with `me`:
the stack and the token's lookup) interleaved with every board's top 100, its one-row read
(`?page_size=1`, as the game page asks), its top 100 with the caller's `me` (a signed-in token with the
read scope), a page at offset ~200,000, its last page, and the ladder's worst page (the middle of its
largest run of equal points). --samples calls of each (--deep-samples of the deep pages). The database
does not change during the run, so those answers come from the cache after the first
(games.boards.services.Kept). Then, apart, "after a change" moves the board's version on before each
call (services.board_changed, from this process, which shares the server's Redis under --http: a round
trip to it inside the time), as a win on the board would: "in the top" every top's version too (a page
of the top 100 is read from the database), "below the top" the board's alone (the count and `me` are),
and for the game page's one line, a change "in the top below it" (second: the tops of 10 lines and more).
Beside them, "a change's top check" times what a change asks after its commit: below the top, and at
its 50th line (its place counted).
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import random
import sys
import time
from functools import partial
from pathlib import Path

from django.core.management import call_command

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import REDIS, daphne, server_env  # noqa: E402 (after the path is set)
from bench.leaderboard import ROUNDS, interleaved, pct  # noqa: E402

DB = "freecell_h_boards_bench"
MONTH = "2026-11-01"
HOT_DEAL = "ms:1"
TABLES = ("games_dealrecord", "games_ladderentry", "games_streak")


def pg_url(db: str) -> str:
    return os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432").rstrip("/") + "/" + db


def create_database(reuse: bool) -> bool:
    """(Re)creates the bench database; True when it must be loaded."""
    import psycopg

    with psycopg.connect(pg_url("postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DB]).fetchone()
        if exists and reuse:
            return False
        if exists:
            conn.execute(f"DROP DATABASE {DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB}")
    return True


def drop_database() -> None:
    import psycopg

    with psycopg.connect(pg_url("postgres"), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")


def setup_django(http: bool) -> None:
    """Django on the bench database; under --http with the server's Redis as its cache (to move a
    board's version on), else without Redis."""
    os.environ["DATABASE_URL"] = pg_url(DB)
    if http:
        os.environ["REDIS_URL"] = REDIS
    else:
        os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DB_POOL_SIZE", "0")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "freecell_site.settings")
    import django

    django.setup()


def step(what: str, started: float) -> None:
    print(f"  {what} ({time.perf_counter() - started:.0f} s)", flush=True)


def load(players: int, records: int) -> None:
    """Loads the boards' rows; their indexes are dropped first and built again after (much faster than
    keeping them up to date row by row), the foreign keys to games are dropped for good."""
    import psycopg

    from games.models import RecordSpanTally

    started = time.perf_counter()
    with psycopg.connect(pg_url(DB), autocommit=True) as conn:
        conn.execute("SELECT setseed(0.42)")
        rebuild = []
        for table in TABLES:
            for name, kind, definition in conn.execute(
                "SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s::regclass AND contype IN ('u', 'f')",
                [table],
            ).fetchall():
                conn.execute(f"ALTER TABLE {table} DROP CONSTRAINT {name}")
                if kind == "u":
                    rebuild.append(f"ALTER TABLE {table} ADD CONSTRAINT {name} {definition}")
            for name, definition in conn.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s AND indexname NOT LIKE '%%_pkey'", [table]
            ).fetchall():
                conn.execute(f"DROP INDEX {name}")
                rebuild.append(definition)
        conn.execute(
            "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, email, is_staff, is_active, date_joined) "
            "SELECT '!', false, 'p' || i, '', '', '', false, true, now() FROM generate_series(1, %s) i",
            [players],
        )
        step(f"{players:,} players", started)
        # Row g: player 1 + g mod P, its k-th deal (k = g div P); a fifth of the players' first deal is the hot one.
        conn.execute(
            f"""
INSERT INTO games_dealrecord (deal, autoplay, player_id, game_id, moves, undos, elapsed_ms, finished_at)
SELECT CASE WHEN k = 0 AND p %% 5 = 0 THEN '{HOT_DEAL}' ELSE 'ms:' || (2 + (p::bigint * 7919 + k * 50021) %% 500000) END,
       CASE WHEN k %% 4 = 3 THEN 'none' ELSE 'safe' END, p, g,
       80 + floor(-ln(1 - random()) * 20)::int, floor(random() * 4)::int,
       greatest(20000, floor(exp(ln(600000) + 0.6 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))))::bigint,
       TIMESTAMPTZ '2026-01-01 00:00:00+00' + make_interval(secs => random() * 28000000)
FROM (SELECT g, 1 + g %% %s AS p, g / %s AS k FROM generate_series(0, %s - 1) g) s
""",
            [players, players, records],
        )
        step(f"{records:,} deal records", started)
        conn.execute(
            "INSERT INTO games_recordtally (deal, autoplay, moves, count) SELECT deal, autoplay, moves, count(*) "
            "FROM games_dealrecord GROUP BY 1, 2, 3"
        )
        # The crowded move counts split by time, as games.boards.services splits them.
        conn.execute(
            "INSERT INTO games_recordspantally (deal, autoplay, moves, span, count) "
            "SELECT r.deal, r.autoplay, r.moves, r.elapsed_ms / %s, count(*) FROM games_dealrecord r "
            "JOIN games_recordtally t ON t.deal = r.deal AND t.autoplay = r.autoplay AND t.moves = r.moves "
            "WHERE t.count >= %s GROUP BY 1, 2, 3, 4",
            [RecordSpanTally.SPAN_MS, RecordSpanTally.SPLIT_FROM],
        )
        step("record tallies", started)
        # A month of dailies: played 1-30, won up to played, points up to 100 a win (most near 70).
        conn.execute(
            f"""
INSERT INTO games_ladderentry (month, player_id, points, played, won)
SELECT DATE '{MONTH}', p, (won * (50 + floor(random() * 51)))::int, played, won
FROM (SELECT p, played, floor(random() * (played + 1))::int AS won
      FROM (SELECT p, 1 + floor(random() * 30)::int AS played FROM generate_series(1, %s) p) a) b
""",
            [players],
        )
        conn.execute("INSERT INTO games_laddertally (month, points, count) SELECT month, points, count(*) FROM games_ladderentry GROUP BY 1, 2")
        step(f"{players:,} ladder lines and their tally", started)
        # Streaks: 30 % won today, 30 % yesterday (alive), the rest before; current 1-60, longest >= current.
        conn.execute(
            """
INSERT INTO games_streak (player_id, last_day, current, longest)
SELECT p, CURRENT_DATE - CASE WHEN r < 0.3 THEN 0 WHEN r < 0.6 THEN 1 ELSE 2 + floor(random() * 300)::int END,
       c, c + floor(-ln(1 - random()) * 10)::int
FROM (SELECT p, random() AS r, 1 + floor(-ln(1 - random()) * 8)::int AS c FROM generate_series(1, %s) p) s
""",
            [players],
        )
        conn.execute(
            "INSERT INTO games_streaktally (last_day, current, longest, count) SELECT last_day, current, longest, count(*) FROM games_streak GROUP BY 1, 2, 3"
        )
        conn.execute("INSERT INTO games_longesttally (longest, count) SELECT longest, count(*) FROM games_streak GROUP BY 1")
        step(f"{players:,} streaks and their tallies", started)
        for statement in rebuild:
            conn.execute(statement)
        step("indexes and unique constraints built", started)
        conn.execute("VACUUM ANALYZE")
        step("vacuumed", started)


def run(samples: int) -> None:

    from django.contrib.auth.models import User
    from django.db import connection

    from games.boards import selectors
    from games.models import DealRecord, LadderEntry

    month = dt.date.fromisoformat(MONTH)
    players = User.objects.order_by("-pk").values_list("pk", flat=True).first()
    hot = selectors.record_count(HOT_DEAL, "safe")
    total_records = DealRecord.objects.count()
    print(
        f"\n{players:,} players, {total_records:,} deal records ({hot:,} on {HOT_DEAL}'s safe board), "
        f"{selectors.ladder_count(month):,} ladder lines, {selectors.streak_count():,} streaks; "
        f"PostgreSQL {connection.cursor().connection.info.server_version}"
    )
    rng = random.Random(1)
    hot_players = [User(pk=pk) for pk in rng.sample(list(DealRecord.objects.filter(deal=HOT_DEAL, autoplay="safe").values_list("player_id", flat=True)), samples)]
    anyone = [User(pk=rng.randrange(1, players + 1)) for _ in range(samples)]

    # Correctness first: ranks from tallies equal a count over the better rows on this data.
    for user in hot_players[:5]:
        line = selectors.record_line_of(HOT_DEAL, "safe", user)
        mine = DealRecord.objects.get(deal=HOT_DEAL, autoplay="safe", player=user)
        better = DealRecord.objects.filter(deal=HOT_DEAL, autoplay="safe").extra(
            where=["(moves, elapsed_ms, finished_at, game_id) < (%s, %s, %s, %s)"], params=[mine.moves, mine.elapsed_ms, mine.finished_at, mine.game_id]
        )
        assert line.rank == better.count() + 1
    for user in anyone[:5]:
        entry = LadderEntry.objects.get(month=month, player=user)
        assert selectors.ladder_line_of(month, user).rank == LadderEntry.objects.filter(month=month, points__gt=entry.points).count() + 1
    assert [line.rank for line in selectors.streak_page(offset=0, limit=100)][0] == 1

    def primary_key(pk):
        return User.objects.filter(pk=pk).values_list("username", flat=True).first()

    cases = {
        ("plain read", "User by primary key"): (primary_key, [u.pk for u in anyone]),
        ("records top 100", f"{HOT_DEAL} safe board"): (lambda _: selectors.record_page(HOT_DEAL, "safe", offset=0, limit=100), [0] * samples),
        ("records own rank", f"{HOT_DEAL} safe board"): (lambda u: selectors.record_line_of(HOT_DEAL, "safe", u), hot_players),
        ("ladder top 100", f"month {MONTH[:7]}"): (lambda _: selectors.ladder_page(month, offset=0, limit=100), [0] * samples),
        ("ladder own rank", f"month {MONTH[:7]}"): (lambda u: selectors.ladder_line_of(month, u), anyone),
        ("streaks top 100", "current, then longest"): (lambda _: selectors.streak_page(offset=0, limit=100), [0] * samples),
        ("streaks own rank", "current, then longest"): (selectors.streak_line_of, anyone),
    }
    load_avg = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\nmeasuring (warm cache, one connection, end-to-end through Django, calls interleaved; best p99 of {ROUNDS} rounds; load average {load_avg} on {os.cpu_count()} cores):")
    times = interleaved(cases, ROUNDS)
    for (what, how), values in times.items():
        p50, p99 = pct(values, 50), pct(values, 99)
        met = "" if what == "plain read" else ("met" if p99 < 10 else "NOT met")
        print(f"  {what:<18} {how:<24} n={len(values):<5} p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  {met}", flush=True)


def http_run(samples: int, deep_samples: int, rounds: int) -> None:
    """Every board read over HTTP on one Daphne beside /api/ping/ in the same run (see the module's doc)."""
    from django.db.models import Sum

    from accounts.models import AccessToken
    from accounts.tokens import digest, new_key
    from games.boards import services
    from games.models import DealRecord, LadderEntry, LadderTally, LongestTally

    players = LadderEntry.objects.filter(month=MONTH).count()
    hot = DealRecord.objects.filter(deal=HOT_DEAL, autoplay="safe", bot=False).count()
    streaks = LongestTally.objects.filter(bot=False).aggregate(n=Sum("count"))["n"]
    # The caller: a player in the middle of the hot deal's board (ids divisible by 5 are on it).
    me = DealRecord.objects.filter(deal=HOT_DEAL, autoplay="safe").order_by("player_id").values_list("player_id", flat=True)[hot // 2]
    key = new_key()
    AccessToken.objects.filter(name="bench boards").delete()
    AccessToken.objects.create(user_id=me, name="bench boards", scopes=["read"], key_digest=digest(key), prefix=key[:8])
    zeros = LadderTally.objects.filter(month=MONTH, bot=False, points=0).aggregate(n=Sum("count"))["n"] or 0
    size = 100
    boards = {
        "records": (f"/api/deals/{HOT_DEAL}/records/?autoplay=safe&", hot),
        "ladder": (f"/api/ladder/{MONTH[:7]}/?", players),
        "streaks": ("/api/ladder/streaks/?", streaks),
    }
    # Each board's version, as a change of it moves it on.
    versions = {
        "records": services.records_board(HOT_DEAL, "safe", False),
        "ladder": services.ladder_board(dt.date.fromisoformat(MONTH), False),
        "streaks": services.streaks_board(False),
    }
    print(
        f"\nover HTTP: one Daphne on {DB}; {hot:,} lines on {HOT_DEAL}'s safe board, {players:,} on the ladder "
        f"({zeros:,} with 0 points), {streaks:,} streaks; `me` is player {me}"
    )

    reconnects = [0]

    class Client:
        def __init__(self, port: int, token: str | None = None):
            self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            self.headers = {"Authorization": f"Token {token}"} if token else {}

        def get(self, path: str) -> dict:
            try:
                self.conn.request("GET", path, headers=self.headers)
                response = self.conn.getresponse()
            except (http.client.RemoteDisconnected, ConnectionError):
                # The server closed a kept-alive connection that sat idle: once more on a new one (counted).
                reconnects[0] += 1
                self.conn.close()
                self.conn.request("GET", path, headers=self.headers)
                response = self.conn.getresponse()
            body = response.read()
            assert response.status == 200, (path, response.status, body[:300])
            return json.loads(body)

    env = server_env(pg_url(DB))
    env.pop("DB_POOL_SIZE", None)  # the server as deployed, with its pool (this process's one connection needs none)
    with daphne(env) as (ports, _procs):
        anon, signed = Client(ports[0]), Client(ports[0], key)
        cases = {
            ("GET /api/ping/", "baseline"): (lambda _: anon.get("/api/ping/"), [0] * samples),
            # The floor of a read with `me`: the stack and the token's lookup, nothing of the boards.
            ("GET /api/ping/", "signed in"): (lambda _: signed.get("/api/ping/"), [0] * samples),
        }
        for name, (url, count) in boards.items():
            deep = min(200_000 // size + 1, (count - 1) // size)  # offset 200,000, or the page before the last
            pages = {
                "top 100": (anon, f"page_size={size}", samples),
                "page_size=1, me": (signed, "page_size=1", samples),
                "top 100, me": (signed, f"page_size={size}", samples),
                f"offset {(deep - 1) * size:,}": (anon, f"page={deep}&page_size={size}", deep_samples),
                "page=last": (anon, f"page=last&page_size={size}", deep_samples),
            }
            if name == "ladder" and zeros > 2 * size:
                middle = (count - zeros // 2) // size + 1
                pages[f"offset {(middle - 1) * size:,} (mid 0 points)"] = (anon, f"page={middle}&page_size={size}", deep_samples)
            for what, (client, query, n) in pages.items():
                body = client.get(url + query)
                assert body["count"] == count and body["entries"], (name, what)
                assert (body["me"] is not None) == (client is signed), (name, what)
                cases[(name, what)] = (lambda _, client=client, path=url + query: client.get(path), [0] * n)

        def changed_then_read(client: Client, board: str, place, path: str) -> dict:
            # No transaction here: moved on at once. Below the top (a place of None), the board's version alone moves on.
            services.board_changed(board, place=place)
            return client.get(path)

        # Apart, after: a change moves every kept page of its board on, the others' reads among them would miss too.
        changed = {key: cases[key] for key in [("GET /api/ping/", "baseline"), ("GET /api/ping/", "signed in")]}
        for name, (url, _count) in boards.items():
            for where, place in (("in the top", None), ("below the top", lambda: None)):
                for what, client in ((f"top 100 after a change {where}", anon), (f"top 100, me after a change {where}", signed)):
                    read = partial(changed_then_read, client, versions[name], place, f"{url}page_size={size}")
                    changed[(name, what)] = (lambda _, read=read: read(), [0] * samples)
            # The game page's one line (the record), after a win that lands second: in the top, below the record.
            read = partial(changed_then_read, signed, versions[name], lambda: 2, f"{url}page_size=1")
            changed[(name, "one line, me after a change in the top below it")] = (lambda _, read=read: read(), [0] * samples)
        # What a change asks after its commit (the writer's cost): its line's place in the board's top 200,
        # if it is there. `me`'s line, in the middle of each board, is not; the 50th line is.
        ranked = {
            "records": (DealRecord.objects.filter(deal=HOT_DEAL, autoplay="safe", bot=False), DealRecord.ORDER),
            "ladder": (LadderEntry.objects.filter(month=MONTH, bot=False), LadderEntry.ORDER),
        }
        for name, (rows, order) in ranked.items():
            fields = [field.lstrip("-") for field in order]
            for what, line, place in (
                ("a change's top check", rows.values_list(*fields).get(player_id=me), None),
                ("a change's top check, 50th line", rows.order_by(*order).values_list(*fields)[49], 50),
            ):
                check = services.place_in_top(order, line, rows)
                assert check() == place, (name, what)
                changed[(name, what)] = (lambda _, check=check: check(), [0] * samples)
        load_avg = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"measuring (calls interleaved, best p99 of {rounds} rounds; load average {load_avg} on {os.cpu_count()} cores):")
        times = interleaved(cases, rounds)
        print(f"  (load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}); then the reads after a change:")
        after_change = interleaved(changed, rounds)
        print(f"  (load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    for title, measured in (("kept reads", times), ("reads after a change", after_change)):
        ping50, ping99 = pct(measured[("GET /api/ping/", "baseline")], 50), pct(measured[("GET /api/ping/", "baseline")], 99)
        print(f"\n{title}:\n| board | read | n | p50 ms | p99 ms | p99 / ping p99 |")
        print("|---|---|---|---|---|---|")
        for (board, what), values in measured.items():
            p50, p99 = pct(values, 50), pct(values, 99)
            print(f"| {board} | {what} | {len(values)} | {p50:.2f} | {p99:.2f} | {p99 / ping99:.2f} |", flush=True)
        print(f"(ping p50 {ping50:.2f} ms, p99 {ping99:.2f} ms)")
    print(f"({reconnects[0]} calls reconnected after the server closed an idle connection)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1_000_000)
    parser.add_argument("--records", type=int, default=10_000_000)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--deep-samples", type=int, default=None, help="--http: calls of each deep page (default --samples)")
    parser.add_argument("--rounds", type=int, default=3, help="--http: rounds; each read keeps its best p99")
    parser.add_argument("--http", action="store_true", help="time the answers over HTTP on one Daphne, beside /api/ping/")
    parser.add_argument("--reuse", action="store_true", help="keep a database loaded by an earlier run")
    parser.add_argument("--keep", action="store_true", help="keep the database at the end (for --reuse)")
    args = parser.parse_args()
    must_load = create_database(args.reuse)
    setup_django(args.http)
    # A new database gets its tables; one loaded by an earlier tree, what this tree's migrations add.
    call_command("migrate", verbosity=0)
    if must_load:
        print(f"loading {args.players:,} players and {args.records:,} deal records into {DB}:", flush=True)
        load(args.players, args.records)
    try:
        if args.http:
            http_run(args.samples, args.deep_samples or args.samples, args.rounds)
        else:
            run(args.samples)
    finally:
        if not args.keep:
            from django.db import connections

            connections.close_all()
            drop_database()


if __name__ == "__main__":
    main()
