"""Daily leaderboards: ranked results, ranks from tallies, pages, friends boards, the moves histogram.

Ranking (the spec): fewest moves, then shortest elapsed time, then earliest finish (then the game id,
so that every result has exactly one place). Results live in the narrow DailyResult table with an
index in that order. A rank is never a count over every better row (O(n) on a million results): it is

    rank = (results with fewer moves)                       -- DailyMovesTally, a few hundred rows
         + (same moves, an earlier span of elapsed time)     -- DailySpanTally, a few hundred rows
         + (same moves, same span, better (time, finish, id)) -- an index range of a few rows
         + 1

The tallies are kept in the same transaction as the result they count (`add_result`,
`remove_result`), and `rebuild` recomputes a day's from its results.

A day has two boards, people's and bots' (docs/fair-play.md): each result and tally row carries its player's
`bot` right after the day in its key, every read takes `bots` (people's board by default), and a rank
counts only the rows of its own board.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import F, Sum

from accounts.models import Friendship
from accounts.selectors import is_bot
from games.daily.models import RANKED, DailyMovesTally, DailyResult, DailySpanTally, ranked_day
from games.play.models import Game
from games.play.payloads import review_state

ORDER = ("moves", "elapsed_ms", "finished_at", "game_id")
#: The two boards of every board (docs/fair-play.md), as `?players=` names them: people's (the default) and bots'.
PLAYERS = ("people", "bots")
User = get_user_model()


def span_ms() -> int:
    """Width of a span of elapsed time in the second-level tally."""
    return settings.DAILY_SPAN_MS


@dataclass(frozen=True)
class Entry:
    """One line of a leaderboard."""

    rank: int
    username: str
    moves: int
    undos: int
    elapsed_ms: int
    finished_at: dt.datetime
    game: int
    bot: bool


# The columns of a board line, read as tuples: no model instances on the hot paths.
FIELDS = ("player__username", "moves", "undos", "elapsed_ms", "finished_at", "game_id", "bot")


def _entries(first_rank: int, rows) -> list[Entry]:
    return [Entry(first_rank + i, *row) for i, row in enumerate(rows)]


# --- keeping results and tallies --------------------------------------------------------------


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _bump(date: dt.date, bot: bool, moves: int, span: int, delta: int) -> None:
    """Adds `delta` to the tallies of (moves) and (moves, span) of the day's board of people or bots
    (`bot`); portable upserts (PostgreSQL, SQLite). Always in this order, so two winners never wait on
    each other's rows crosswise."""
    day = connection.ops.adapt_datefield_value(date)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_table(DailyMovesTally)} (daily_id, bot, moves, count) VALUES (%s, %s, %s, %s) "
            f"ON CONFLICT (daily_id, bot, moves) DO UPDATE SET count = {_table(DailyMovesTally)}.count + %s",
            [day, bot, moves, max(delta, 0), delta],
        )
        cursor.execute(
            f"INSERT INTO {_table(DailySpanTally)} (daily_id, bot, moves, span, count) VALUES (%s, %s, %s, %s, %s) "
            f"ON CONFLICT (daily_id, bot, moves, span) DO UPDATE SET count = {_table(DailySpanTally)}.count + %s",
            [day, bot, moves, span, max(delta, 0), delta],
        )


def add_result(game: Game) -> bool:
    """Puts a won ranked game on its day's leaderboard (inside the caller's transaction); False when
    it already is there. The score comes from the game's validated history only (ply, undos)."""
    with transaction.atomic():
        if DailyResult.objects.filter(game_id=game.pk).exists():
            return False
        bot = is_bot(game.player_id)
        date = ranked_day(game)
        DailyResult.objects.create(
            game_id=game.pk,
            daily_id=date,
            player_id=game.player_id,
            moves=game.ply,
            undos=game.undos,
            elapsed_ms=game.elapsed_ms,
            finished_at=game.finished_at,
            bot=bot,
        )
        _bump(date, bot, game.ply, game.elapsed_ms // span_ms(), +1)
    return True


def remove_result(game: Game) -> bool:
    """Takes a game off its day's leaderboard (a rejected review); False when it was not on it."""
    with transaction.atomic():
        row = DailyResult.objects.select_for_update().filter(game_id=game.pk).first()
        if row is None:
            return False
        row.delete()
        _bump(row.daily_id, row.bot, row.moves, row.elapsed_ms // span_ms(), -1)
    return True


@transaction.atomic
def rebuild(date: dt.date) -> int:
    """Recomputes a day's results and tallies from its games (after a manual fix); returns the count."""
    eligible = Game.objects.filter(
        RANKED, daily_game__daily_id=date, status=Game.Status.WON, review__in=[Game.Review.NONE, Game.Review.CLEARED]
    ).exclude(elapsed_ms__isnull=True)
    DailyResult.objects.filter(daily_id=date).exclude(game__in=eligible).delete()
    have = set(DailyResult.objects.filter(daily_id=date).values_list("game_id", flat=True))
    missing = eligible.exclude(pk__in=have).only("pk", "player_id", "ply", "undos", "elapsed_ms", "finished_at")
    DailyResult.objects.bulk_create(
        DailyResult(
            game_id=g.pk, daily_id=date, player_id=g.player_id, moves=g.ply, undos=g.undos,
            elapsed_ms=g.elapsed_ms, finished_at=g.finished_at, bot=bool(g.player_bot),
        )
        for g in missing.annotate(player_bot=F("player__profile__bot"))
    )
    DailyMovesTally.objects.filter(daily_id=date).delete()
    DailySpanTally.objects.filter(daily_id=date).delete()
    width = span_ms()
    moves: dict[tuple[bool, int], int] = {}
    spans: dict[tuple[bool, int, int], int] = {}
    rows = DailyResult.objects.filter(daily_id=date).values_list("bot", "moves", "elapsed_ms")
    for bot, m, elapsed in rows.iterator(chunk_size=5000):
        moves[bot, m] = moves.get((bot, m), 0) + 1
        spans[bot, m, elapsed // width] = spans.get((bot, m, elapsed // width), 0) + 1
    DailyMovesTally.objects.bulk_create(DailyMovesTally(daily_id=date, bot=b, moves=m, count=n) for (b, m), n in moves.items())
    DailySpanTally.objects.bulk_create(
        DailySpanTally(daily_id=date, bot=b, moves=m, span=s, count=n) for (b, m, s), n in spans.items()
    )
    return sum(moves.values())


# --- reading ----------------------------------------------------------------------------------


def count(date: dt.date, *, bots: bool = False) -> int:
    """Ranked results of the day on its board of people (or of bots)."""
    return DailyMovesTally.objects.filter(daily_id=date, bot=bots).aggregate(n=Sum("count"))["n"] or 0


def _ranks_sql(where: str) -> str:
    """The lines (username, moves, undos, elapsed_ms, finished_at, game_id, bot, daily_id, rank) of the
    results `r` matching `where`, each ranked on its own board (people's or bots'); the rank costs
    three small index reads per result."""
    width = span_ms()
    return f"""
SELECT u.username, r.moves, r.undos, r.elapsed_ms, r.finished_at, r.game_id, r.bot, r.daily_id,
  COALESCE((SELECT SUM(t.count) FROM {_table(DailyMovesTally)} t
            WHERE t.daily_id = r.daily_id AND t.bot = r.bot AND t.moves < r.moves), 0)
+ COALESCE((SELECT SUM(s.count) FROM {_table(DailySpanTally)} s
            WHERE s.daily_id = r.daily_id AND s.bot = r.bot AND s.moves = r.moves AND s.span < r.elapsed_ms / {width}), 0)
+ (SELECT COUNT(*) FROM {_table(DailyResult)} o
   WHERE o.daily_id = r.daily_id AND o.bot = r.bot AND o.moves = r.moves
     AND o.elapsed_ms >= (r.elapsed_ms / {width}) * {width} AND o.elapsed_ms <= r.elapsed_ms
     AND (o.elapsed_ms < r.elapsed_ms OR (o.elapsed_ms = r.elapsed_ms AND (o.finished_at < r.finished_at
          OR (o.finished_at = r.finished_at AND o.game_id < r.game_id)))))
+ 1
FROM {_table(DailyResult)} r JOIN {_table(User)} u ON u.id = r.player_id
WHERE {where}
"""


def _ranked_lines(where: str, params: list) -> list[tuple[dt.date, Entry]]:
    with connection.cursor() as cursor:
        cursor.execute(_ranks_sql(where), params)
        rows = cursor.fetchall()
    lines = []
    for username, moves, undos, elapsed, finished, game, bot, day, rank in rows:
        # SQLite hands dates and times back as text, or as naive datetimes (stored in UTC).
        if not isinstance(day, dt.date):
            day = dt.date.fromisoformat(day)
        if not isinstance(finished, dt.datetime):
            finished = dt.datetime.fromisoformat(finished)
        if finished.tzinfo is None:
            finished = finished.replace(tzinfo=dt.UTC)
        lines.append((day, Entry(int(rank), username, moves, undos, elapsed, finished, game, bool(bot))))
    return lines


def rank_of(result: DailyResult) -> int:
    """The result's place on its day's board of its kind (1 = best), in one round trip."""
    lines = _ranked_lines("r.game_id = %s", [result.game_id])
    return lines[0][1].rank if lines else 0


def ranks_of_player(user) -> dict[dt.date, int]:
    """Rank of each of the player's ranked results, by day (for statistics), in one round trip."""
    return {day: entry.rank for day, entry in _ranked_lines("r.player_id = %s", [user.pk])}


def ranks_of_games(game_ids: list[int]) -> dict[int, int]:
    """The rank of each of these games that is on its day's board (the others are left out), in one round trip."""
    if not game_ids:
        return {}
    marks = ", ".join(["%s"] * len(game_ids))
    return {entry.game: entry.rank for _day, entry in _ranked_lines(f"r.game_id IN ({marks})", list(game_ids))}


def result_of(date: dt.date, user) -> DailyResult | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return DailyResult.objects.filter(daily_id=date, player=user).first()


def entry_of(date: dt.date, user, *, bots: bool = False) -> Entry | None:
    """The user's own line on the day's board of people (or of bots) with their rank (the `me` of a
    leaderboard), or None; one round trip."""
    if not getattr(user, "is_authenticated", False):
        return None
    day = connection.ops.adapt_datefield_value(date)
    lines = _ranked_lines("r.daily_id = %s AND r.bot = %s AND r.player_id = %s", [day, bots, user.pk])
    return lines[0][1] if lines else None


def my_line(date: dt.date, user, entry: Entry | None, *, bots: bool = False) -> dict | None:
    """The `me` of a leaderboard of people (or of bots): the user's line with its rank and the game's
    review state; a won ranked game held for review or rejected shows too, without a rank, so that its
    player learns why it is not on the board. None for anyone else (a visitor, a player of the other kind)."""
    if not getattr(user, "is_authenticated", False):
        return None
    game = Game.objects.filter(RANKED, daily_game__daily_id=date, player=user).only("pk", "status", "review", "ply", "undos", "elapsed_ms", "finished_at").first()
    if entry is not None:
        return {**asdict(entry), "review": review_state(game) if game is not None else "none"}
    if game is None or game.status != Game.Status.WON or not game.held:
        return None
    if is_bot(user.pk) != bots:
        return None
    return {
        "rank": None,
        "username": user.username,
        "moves": game.ply,
        "undos": game.undos,
        "elapsed_ms": game.elapsed_ms,
        "finished_at": game.finished_at,
        "game": game.pk,
        "bot": bots,
        "review": review_state(game),
    }


def _ordered(date: dt.date, bots: bool):
    return DailyResult.objects.filter(daily_id=date, bot=bots).order_by(*ORDER).values_list(*FIELDS)


# Below this offset a plain OFFSET over the ranking index is as fast as seeking with the tallies.
SEEK_FROM = 2000


def _seek_sql() -> str:
    """Running sums over the two tallies (window functions: PostgreSQL, SQLite >= 3.25)."""
    return f"""
WITH m AS (
  SELECT moves, count, SUM(count) OVER (ORDER BY moves) - count AS before
  FROM {_table(DailyMovesTally)} WHERE daily_id = %s AND bot = %s AND count > 0
), pick AS (
  SELECT moves, before FROM m WHERE before <= %s AND before + count > %s
), s AS (
  SELECT span, count, SUM(count) OVER (ORDER BY span) - count + (SELECT before FROM pick) AS before
  FROM {_table(DailySpanTally)} WHERE daily_id = %s AND bot = %s AND moves = (SELECT moves FROM pick) AND count > 0
)
SELECT (SELECT moves FROM pick), span, before FROM s WHERE before <= %s AND before + count > %s
"""


def _seek(date: dt.date, bots: bool, offset: int) -> tuple[int, int, int] | None:
    """Where the `offset`-th result (0-based) sits: (moves, first elapsed_ms of its span, results of
    that (moves, span) before it); None past the end. Reads only tallies, in one round trip."""
    day = connection.ops.adapt_datefield_value(date)
    with connection.cursor() as cursor:
        cursor.execute(_seek_sql(), [day, bots, offset, offset, day, bots, offset, offset])
        row = cursor.fetchone()
    if row is None or row[0] is None:
        return None
    moves, span, before = row
    return int(moves), int(span) * span_ms(), offset - int(before)


def page(date: dt.date, *, offset: int, limit: int, bots: bool = False) -> list[Entry]:
    """`limit` entries of the day's board of people (or of bots) from the 0-based `offset`, best first."""
    results = DailyResult.objects.filter(daily_id=date, bot=bots)
    skip = offset
    if offset >= SEEK_FROM:
        seek = _seek(date, bots, offset)
        if seek is None:
            return []
        moves, elapsed_from, skip = seek
        # A row comparison is a single range on the ranking index (PostgreSQL, SQLite >= 3.15).
        results = results.extra(where=["(moves, elapsed_ms) >= (%s, %s)"], params=[moves, elapsed_from])
    if skip == 0:  # the page starts at the first row of `results`: the board's, or the sought group's
        return _entries(offset + 1, results.order_by(*ORDER).values_list(*FIELDS)[:limit])
    # The rows skipped are walked on the index alone; only the page's own rows meet the players.
    wanted = results.order_by(*ORDER).values("game_id")[skip : skip + limit]
    return _entries(offset + 1, _ordered(date, bots).filter(game_id__in=wanted))


def friends_board(date: dt.date, user, *, bots: bool = False) -> list[Entry]:
    """The day's board of people (or of bots) among the user and their accepted friends, ranked among themselves.

    One query: the friends are selected inside it (the same rule as accounts.selectors.friend_ids:
    an accepted request in either direction), rather than sent over as a list of ids.
    """
    friendship = _table(Friendship)
    accepted = Friendship.Status.ACCEPTED
    circle = (
        f"SELECT to_user_id FROM {friendship} WHERE from_user_id = %s AND status = %s "
        f"UNION ALL SELECT from_user_id FROM {friendship} WHERE to_user_id = %s AND status = %s "
        "UNION ALL SELECT %s"
    )
    rows = _ordered(date, bots).extra(where=[f"player_id IN ({circle})"], params=[user.pk, accepted, user.pk, accepted, user.pk])
    return _entries(1, rows)


def histogram(date: dt.date, *, bots: bool = False) -> list[tuple[int, int]]:
    """(moves, ranked results with that many moves) on the day's board of people (or of bots), fewest moves first."""
    return list(
        DailyMovesTally.objects.filter(daily_id=date, bot=bots, count__gt=0).order_by("moves").values_list("moves", "count")
    )


def winners(dates: list[dt.date], *, bots: bool = False) -> dict[dt.date, Entry]:
    """The best result of each of `dates` among people (or bots); days with no such result are left out."""
    found: dict[dt.date, Entry] = {}
    for date in dates:
        row = _ordered(date, bots).first()
        if row is not None:
            found[date] = Entry(1, *row)
    return found
