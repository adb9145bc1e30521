"""Reading the boards: pages, a player's own line and rank, friends boards. Reads never write.

A rank is never a count over every better row (O(n) on a million players): it is a sum over a tally
of a few hundred rows plus, for the deal records, a count inside the player's own move count.

- Deal records: one place each, by fewest moves, then time, then finish (then the game id).
- The ladder: by points; equal points share a rank (listed by wins, then by who joined first).
- Streaks: by current streak, then longest; equal pairs share a rank. A current streak is alive while
  its last won day is today or yesterday; older, it reads as 0 (nothing is stored for that).

Every board is people's, or with `bots=True` bots' (docs/fair-play.md): each read filters on the rows' `bot`,
which comes right after the board's own key in its tallies and ranking index, and ranks count only
their own board's rows.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Sum

from accounts.selectors import friend_ids
from freecell_site.errors import ServiceError
from games.boards.models import (
    DealRecord,
    LadderEntry,
    LadderTally,
    LongestTally,
    RecordTally,
    Streak,
    StreakTally,
)
from games.boards.services import today
from games.daily.models import DailyChallenge
from games.engine import parse_deal

AUTOPLAYS = ("none", "safe")
User = get_user_model()


@dataclass(frozen=True)
class RecordLine:
    rank: int
    username: str
    moves: int
    undos: int
    elapsed_ms: int
    finished_at: dt.datetime
    game: int
    bot: bool


@dataclass(frozen=True)
class LadderLine:
    rank: int
    username: str
    points: int
    played: int
    won: int
    bot: bool


@dataclass(frozen=True)
class StreakLine:
    rank: int
    username: str
    current: int
    longest: int
    bot: bool


def _signed_in(user) -> bool:
    return getattr(user, "is_authenticated", False)


def _circle(user) -> set[int]:
    """The user and their accepted friends: a friends board's players."""
    return friend_ids(user) | {user.pk}


def _shared_ranks(rows: list, key, first_rank: int, position: int) -> list[int]:
    """Ranks of consecutive board rows where equal keys share a rank: the first row's is given, each
    other row's is its place on the board (`position` is the first row's place) unless it ties the row
    before it."""
    ranks: list[int] = []
    for i, row in enumerate(rows):
        if i == 0:
            ranks.append(first_rank)
        elif key(row) == key(rows[i - 1]):
            ranks.append(ranks[-1])
        else:
            ranks.append(position + i)
    return ranks


# --- deal records -------------------------------------------------------------------------------


def board_deal(text: str) -> str:
    """The deal whose board a player asks for, by its canonical id: `ms:N`, `seed:S`, or `daily:DATE`
    (its seed: deal) once that day is over; `daily:DATE` is not_found while its day is on and its
    `seed:` id forbidden, as the deal's layout and facts answer them (`GET /api/deals/<deal>/`).
    Raises the engine's invalid_deal for a malformed id."""
    deal_id = parse_deal(text)
    current = today()
    if deal_id.kind == "daily":
        found = DailyChallenge.objects.filter(date=deal_id.value, date__lt=current).values_list("deal_id", flat=True).first()
        if found is None:
            raise ServiceError("not_found", f"the board of {deal_id} is shown once its day is over", status=404)
        return found
    deal = str(deal_id)
    if DailyChallenge.objects.filter(deal_id=deal, date__gte=current).exists():
        # The code the deal's layout and facts answer (games.daily.services.refuse_a_daily_in_play):
        # one answer for a daily's seed whatever is asked of it (it was 404 here, 403 there).
        raise ServiceError("forbidden", "this deal is a daily's whose day is not over: it is played ranked, at /api/daily/play/", status=403)
    return deal


RECORD_ORDER = ("moves", "elapsed_ms", "finished_at", "game_id")
RECORD_FIELDS = ("player__username", "moves", "undos", "elapsed_ms", "finished_at", "game_id", "bot")


def _records(deal: str, autoplay: str, bots: bool):
    return DealRecord.objects.filter(deal=deal, autoplay=autoplay, bot=bots).order_by(*RECORD_ORDER)


def record_count(deal: str, autoplay: str, *, bots: bool = False) -> int:
    return RecordTally.objects.filter(deal=deal, autoplay=autoplay, bot=bots).aggregate(n=Sum("count"))["n"] or 0


def record_page(deal: str, autoplay: str, *, offset: int, limit: int, bots: bool = False) -> list[RecordLine]:
    rows = _records(deal, autoplay, bots).values_list(*RECORD_FIELDS)[offset : offset + limit]
    return [RecordLine(offset + 1 + i, *row) for i, row in enumerate(rows)]


def record_of(deal: str, autoplay: str, *, bots: bool = False) -> RecordLine | None:
    """The deal's record among people (or bots): the first line of that board."""
    page = record_page(deal, autoplay, offset=0, limit=1, bots=bots)
    return page[0] if page else None


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _record_rank(deal: str, autoplay: str, bots: bool, moves: int, elapsed: int, finished: dt.datetime, game: int) -> int:
    """1 + the lines ahead: the tally of fewer moves, then a range of the ranking index inside the
    line's own move count (a row comparison: PostgreSQL and SQLite read it as one index range)."""
    board = "deal = %s AND autoplay = %s AND bot = %s"
    sql = f"""
SELECT COALESCE((SELECT SUM(count) FROM {_table(RecordTally)} WHERE {board} AND moves < %s), 0)
     + (SELECT COUNT(*) FROM {_table(DealRecord)} WHERE {board} AND moves = %s
        AND (elapsed_ms, finished_at, game_id) < (%s, %s, %s))
"""
    finished = connection.ops.adapt_datetimefield_value(finished)
    with connection.cursor() as cursor:
        cursor.execute(sql, [deal, autoplay, bots, moves, deal, autoplay, bots, moves, elapsed, finished, game])
        return int(cursor.fetchone()[0]) + 1


def record_line_of(deal: str, autoplay: str, user, *, bots: bool = False) -> RecordLine | None:
    """The user's best on the deal's board of people (or bots) with its rank, or None (a player of the
    other kind has no line there)."""
    if not _signed_in(user):
        return None
    row = DealRecord.objects.filter(deal=deal, autoplay=autoplay, bot=bots, player=user).values_list(*RECORD_FIELDS).first()
    if row is None:
        return None
    _name, moves, _undos, elapsed, finished, game, _bot = row
    return RecordLine(_record_rank(deal, autoplay, bots, moves, elapsed, finished, game), *row)


def record_friends(deal: str, autoplay: str, user, *, bots: bool = False) -> list[RecordLine]:
    rows = _records(deal, autoplay, bots).filter(player_id__in=_circle(user)).values_list(*RECORD_FIELDS)
    return [RecordLine(1 + i, *row) for i, row in enumerate(rows)]


# --- the month's ladder ---------------------------------------------------------------------------

LADDER_ORDER = ("-points", "-won", "player_id")
LADDER_FIELDS = ("player__username", "points", "played", "won", "bot")


def parse_month(text: str) -> dt.date:
    """A `YYYY-MM` path parameter as the month's first day; 400 invalid_request otherwise."""
    try:
        if not text.isascii() or len(text) != 7 or text[4] != "-" or not (text[:4].isdigit() and text[5:].isdigit()):
            raise ValueError
        return dt.date(int(text[:4]), int(text[5:]), 1)
    except ValueError:
        raise ServiceError("invalid_request", f"{text!r} is not a month: write it as YYYY-MM") from None


def _ladder(month: dt.date, bots: bool):
    return LadderEntry.objects.filter(month=month, bot=bots).order_by(*LADDER_ORDER)


def _points_above(month: dt.date, bots: bool, points: int) -> int:
    return LadderTally.objects.filter(month=month, bot=bots, points__gt=points).aggregate(n=Sum("count"))["n"] or 0


def ladder_count(month: dt.date, *, bots: bool = False) -> int:
    return LadderTally.objects.filter(month=month, bot=bots).aggregate(n=Sum("count"))["n"] or 0


def _ladder_lines(rows: list[tuple], first_rank: int, position: int) -> list[LadderLine]:
    ranks = _shared_ranks(rows, lambda row: row[1], first_rank, position)
    return [LadderLine(rank, *row) for rank, row in zip(ranks, rows, strict=True)]


def ladder_page(month: dt.date, *, offset: int, limit: int, bots: bool = False) -> list[LadderLine]:
    rows = list(_ladder(month, bots).values_list(*LADDER_FIELDS)[offset : offset + limit])
    if not rows:
        return []
    first_rank = 1 if offset == 0 else _points_above(month, bots, rows[0][1]) + 1
    return _ladder_lines(rows, first_rank, offset + 1)


def ladder_line_of(month: dt.date, user, *, bots: bool = False) -> LadderLine | None:
    if not _signed_in(user):
        return None
    row = LadderEntry.objects.filter(month=month, bot=bots, player=user).values_list(*LADDER_FIELDS).first()
    if row is None:
        return None
    return LadderLine(_points_above(month, bots, row[1]) + 1, *row)


def ladder_friends(month: dt.date, user, *, bots: bool = False) -> list[LadderLine]:
    rows = list(_ladder(month, bots).filter(player_id__in=_circle(user)).values_list(*LADDER_FIELDS))
    return _ladder_lines(rows, 1, 1)


# --- streaks --------------------------------------------------------------------------------------

STREAK_FIELDS = ("player__username", "current", "longest", "last_day", "player_id", "bot")


def _alive_days() -> tuple[dt.date, dt.date]:
    """The last won days whose streak is still current: yesterday's lives until today is over."""
    current = today()
    return current - dt.timedelta(days=1), current


def _effective(row) -> tuple[int, int]:
    """(current as of now, longest) of a Streak row read with STREAK_FIELDS."""
    _name, current, longest, last_day, _player, _bot = row
    return (current if last_day >= _alive_days()[0] else 0, longest)


def _sum(model, where: str) -> str:
    return f"(SELECT COALESCE(SUM(count), 0) FROM {_table(model)} WHERE {where})"


def _streak_rank(bots: bool, current: int, longest: int) -> int:
    """1 + the players of the board ahead of (current, longest), in one statement over the tallies
    only: a living streak is behind the living ones with more current days (or as many and a longer
    best); a stale one behind every living streak and the stale ones with a longer best."""
    alive = "bot = %s AND last_day IN (%s, %s)"
    living = [bots, *(connection.ops.adapt_datefield_value(day) for day in _alive_days())]
    if current > 0:
        sql = "SELECT " + _sum(StreakTally, f"{alive} AND (current > %s OR (current = %s AND longest > %s))")
        params = [*living, current, current, longest]
    else:
        longer = _sum(LongestTally, "bot = %s AND longest > %s")
        sql = f"SELECT {_sum(StreakTally, alive)} + {longer} - {_sum(StreakTally, f'{alive} AND longest > %s')}"
        params = [*living, bots, longest, *living, longest]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.fetchone()[0]) + 1


def streak_count(*, bots: bool = False) -> int:
    return LongestTally.objects.filter(bot=bots).aggregate(n=Sum("count"))["n"] or 0


def _streak_lines(rows: list[tuple], first_rank: int, position: int) -> list[StreakLine]:
    ranks = _shared_ranks(rows, _effective, first_rank, position)
    return [StreakLine(rank, row[0], *_effective(row), bool(row[5])) for rank, row in zip(ranks, rows, strict=True)]


def _living_sql() -> str:
    """The best `n` living streaks from `offset`: each living day's best read from its own index, merged."""
    table, users = _table(Streak), _table(User)
    best_of_day = (
        f"SELECT * FROM (SELECT player_id, current, longest, last_day, bot FROM {table} WHERE bot = %s AND last_day = %s "
        "ORDER BY current DESC, longest DESC, player_id LIMIT %s) d"
    )
    return f"""
SELECT u.username, a.current, a.longest, a.last_day, a.player_id, a.bot
FROM ({best_of_day}1 UNION ALL {best_of_day}2) a JOIN {users} u ON u.id = a.player_id
ORDER BY a.current DESC, a.longest DESC, a.player_id LIMIT %s OFFSET %s
"""


def _as_date(value) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(value)  # SQLite answers text


def streak_page(*, offset: int, limit: int, bots: bool = False) -> list[StreakLine]:
    """Living streaks first, then every other player by longest streak."""
    yesterday, current = (connection.ops.adapt_datefield_value(day) for day in _alive_days())
    with connection.cursor() as cursor:
        cursor.execute(_living_sql(), [bots, yesterday, offset + limit, bots, current, offset + limit, limit, offset])
        rows = [(name, now, best, _as_date(day), player, bot) for name, now, best, day, player, bot in cursor.fetchall()]
    if len(rows) < limit:
        living = _sum_living(bots)
        stale = Streak.objects.filter(bot=bots, last_day__lt=_alive_days()[0]).order_by("-longest", "player_id")
        skip = max(0, offset - living)
        rows += list(stale.values_list(*STREAK_FIELDS)[skip : skip + limit - len(rows)])
    if not rows:
        return []
    return _streak_lines(rows, 1 if offset == 0 else _streak_rank(bots, *_effective(rows[0])), offset + 1)


def _sum_living(bots: bool) -> int:
    return StreakTally.objects.filter(bot=bots, last_day__in=_alive_days()).aggregate(n=Sum("count"))["n"] or 0


def streak_line_of(user, *, bots: bool = False) -> StreakLine | None:
    if not _signed_in(user):
        return None
    row = Streak.objects.filter(bot=bots, player=user).values_list(*STREAK_FIELDS).first()
    if row is None:
        return None
    return _streak_lines([row], _streak_rank(bots, *_effective(row)), 1)[0]


def streak_friends(user, *, bots: bool = False) -> list[StreakLine]:
    rows = list(Streak.objects.filter(bot=bots, player_id__in=_circle(user)).values_list(*STREAK_FIELDS))
    rows.sort(key=lambda row: (-_effective(row)[0], -row[2], row[4]))
    return _streak_lines(rows, 1, 1)
