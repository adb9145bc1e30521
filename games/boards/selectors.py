"""Reading the boards: pages, a player's own line and rank, friends boards. Reads never write.

A rank is never a count over every better row (O(n) on a million players): it is a sum over a tally
of a few hundred rows plus, for the deal records, a count inside the player's own move count.

A page is never an OFFSET over the whole board either. The tally says which group of the board's
leading sort key (a move count, a number of points, a streak) holds the page's first line and how many
lines come before that group; the page is read from the ranking index from that group on, skipping
only the lines inside it that come before the page, and only the page's lines are joined to their
players' names. One way serves every page, the first and the last alike.

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

from accounts.selectors import friend_ids
from freecell_site.errors import ServiceError
from games.boards.models import (
    DealRecord,
    LadderEntry,
    LadderTally,
    LongestTally,
    RecordSpanTally,
    RecordTally,
    Streak,
    StreakTally,
)
from games.boards.services import today
from games.daily import services as daily
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


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _sum(model, where: str) -> str:
    return f"(SELECT COALESCE(SUM(t.count), 0) FROM {_table(model)} t WHERE {where})"


# A board's count and a caller's own line are statements written as SQL, as its pages are: the ORM's
# aggregate or annotated query, compiled again on every read, cost twice what running them does.


def _total(tally, where: str, params: list) -> int:
    """A board's number of lines: its tally's counts summed (a few hundred rows), in one statement."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(SUM(count), 0) FROM {_table(tally)} WHERE {where}", params)
        return int(cursor.fetchone()[0])


def _line_of(model, fields: tuple[str, ...], where: str, params: list, ahead: str, ahead_params: list) -> tuple | None:
    """A player's own row of a board (`where`, on the row as `r`: the board and the player, one row at
    most) as `fields`, then the number of lines ahead of it (`ahead`, naming the row's columns as
    `r.<column>`: sums over the tallies), in one statement; None when the player has no line there.

    The row's key is read too, unused: a plan made once for every deal (a prepared statement's) would
    otherwise read the row from the board's ranking index alone (it holds every other column, so the
    planner prices it below the player's unique key and a visit of the table), and on a hot deal that
    reads its whole board (45 ms on 200,000 lines) instead of one row."""
    key = connection.ops.quote_name(model._meta.pk.column)
    sql = f"SELECT r.{key}, {', '.join(f'r.{name}' for name in fields)}, {ahead} FROM {_table(model)} r WHERE {where}"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*ahead_params, *params])
        row = cursor.fetchone()
    if row is None:
        return None
    _key, *line, ahead_count = _from_db(model, fields, [row])[0]
    return (*line, int(ahead_count))


@dataclass(frozen=True)
class Group:
    """A run of a board's lines with one value of its leading sort key (`key`), `n` lines long, with
    `ahead` lines before it."""

    key: tuple
    ahead: int
    n: int


def _span(groups: str, params: list, order: str, first: int, last: int) -> list[Group]:
    """The groups holding the board's lines at places `first` to `last` (0-based), in the board's order.
    `groups` is a statement giving each group's key columns and its number of lines `n`, from a tally
    (a few hundred to a few thousand rows, whatever the board's size); `order` orders them as the board
    does (an ORDER BY list of the key columns)."""
    columns = ", ".join(part.split()[0] for part in order.split(","))
    sql = f"""
SELECT {columns}, ahead, n FROM (
  SELECT {columns}, n, SUM(n) OVER (ORDER BY {order} ROWS UNBOUNDED PRECEDING) - n AS ahead FROM ({groups}) g WHERE n > 0
) c WHERE ahead <= %s AND ahead + n > %s ORDER BY ahead"""
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, last, first])
        return [Group(tuple(row[:-2]), int(row[-2]), int(row[-1])) for row in cursor.fetchall()]


@dataclass(frozen=True)
class Board:
    """One board as its page reader sees it: the rows of `model` where `where` (with `params`) holds, in
    `order` (ORDER BY terms the ranking index follows; the first names the column the tally groups by),
    each page line read as `columns` (the index's own columns, or constants: an index-only read;
    `player_id` among them), then given as its player's name and `fields` (named among the columns)."""

    model: type
    where: str
    params: list
    order: tuple[str, ...]
    columns: tuple[str, ...]
    fields: tuple[str, ...]

    def read(self, span: list[Group], offset: int, limit: int) -> list[tuple]:
        """The page's rows: read from the ranking index alone, from the group holding its first line
        forward or from the group holding its last line backward, whichever skips fewer lines inside its
        group; then only those rows joined to their players' names. With no span (the first page), from
        the board's start. LIMIT and OFFSET are written into the statement, so that a plan the server
        keeps for it (a prepared statement's) is made for them."""
        order, bound, params, skip, take = self.order, "", [], 0, limit
        if span:
            first, last = span[0], span[-1]
            end = min(offset + limit, last.ahead + last.n)
            forward, backward = offset - first.ahead, last.ahead + last.n - end
            column, descending = self.order[0].split()[0], self.order[0].endswith(" DESC")
            if forward <= backward:
                bound, params, skip = f" AND {column} {'<=' if descending else '>='} %s", [first.key[0]], forward
            else:
                order = tuple(_reversed(term) for term in self.order)
                bound, params, skip, take = f" AND {column} {'>=' if descending else '<='} %s", [last.key[0]], backward, end - offset
        page = (
            f"SELECT {', '.join(self.columns)} FROM {_table(self.model)} WHERE {self.where}{bound} "
            f"ORDER BY {', '.join(order)} LIMIT {int(take)} OFFSET {int(skip)}"
        )
        sql = (
            f"SELECT u.username, {', '.join(f'r.{name}' for name in self.fields)} FROM ({page}) r "
            f"JOIN {_table(User)} u ON u.id = r.player_id ORDER BY {', '.join(f'r.{term}' for term in self.order)}"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [*self.params, *params])
            rows = cursor.fetchall()
        return _from_db(self.model, self.fields, rows)


def _reversed(term: str) -> str:
    return term[: -len(" DESC")] if term.endswith(" DESC") else f"{term} DESC"


def _from_db(model, fields: tuple[str, ...], rows: list[tuple]) -> list[tuple]:
    """Raw rows (one column, a name or a key, then `fields` of `model`) with their values as the ORM reads
    them (SQLite gives dates and times as text, booleans as 0/1; PostgreSQL needs nothing done)."""
    columns = [model._meta.get_field(name).get_col(model._meta.db_table) for name in fields]
    converters = [
        (i, converter, column)
        for i, column in enumerate(columns, start=1)
        for converter in [*connection.ops.get_db_converters(column), *column.get_db_converters(connection)]
    ]
    if not converters:
        return rows
    rows = [list(row) for row in rows]
    for row in rows:
        for i, converter, column in converters:
            row[i] = converter(row[i], column, connection)
    return [tuple(row) for row in rows]


# --- deal records -------------------------------------------------------------------------------


def board_deal(text: str) -> str:
    """The deal whose board a player asks for, by its canonical id: `ms:N`, `seed:S`, or `daily:DATE`
    (its seed: deal). A daily's is shown once its day is over, by either id: the daily's one rule of
    secrecy (games.daily.services.shown_daily, refuse_a_daily_seed), 403 `forbidden` before, as its
    layout and facts answer. Raises the engine's invalid_deal for a malformed id."""
    deal_id = parse_deal(text)
    if deal_id.kind == "daily":
        return daily.shown_daily(deal_id.value).deal_id
    deal = str(deal_id)
    daily.refuse_a_daily_seed(deal)
    return deal


RECORD_ORDER = DealRecord.ORDER
RECORD_FIELDS = ("player__username", "moves", "undos", "elapsed_ms", "finished_at", "game_id", "bot")
RECORD_INDEX_ORDER = ("moves", "elapsed_ms", "finished_at", "game_id")
RECORD_COLUMNS = ("moves", "undos", "elapsed_ms", "finished_at", "game_id", "bot", "player_id")


def _records(deal: str, autoplay: str, bots: bool):
    return DealRecord.objects.filter(deal=deal, autoplay=autoplay, bot=bots).order_by(*RECORD_ORDER)


def record_count(deal: str, autoplay: str, *, bots: bool = False) -> int:
    return _total(RecordTally, "deal = %s AND autoplay = %s AND bot = %s", [deal, autoplay, bots])


def record_page(deal: str, autoplay: str, *, offset: int, limit: int, bots: bool = False) -> list[RecordLine]:
    """The lines from `offset`, found from the tally of move counts (Board.read)."""
    span = []
    if offset:
        groups = f"SELECT moves, count AS n FROM {_table(RecordTally)} WHERE deal = %s AND autoplay = %s AND bot = %s"
        span = _span(groups, [deal, autoplay, bots], "moves", offset, offset + limit - 1)
        if not span:
            return []
    # A game is on one board only: its id finds its row whole.
    board = Board(DealRecord, "deal = %s AND autoplay = %s AND bot = %s", [deal, autoplay, bots], RECORD_INDEX_ORDER, RECORD_COLUMNS, RECORD_FIELDS[1:])
    return [RecordLine(offset + 1 + i, *row) for i, row in enumerate(board.read(span, offset, limit))]


def record_of(deal: str, autoplay: str, *, bots: bool = False) -> RecordLine | None:
    """The deal's record among people (or bots): the first line of that board."""
    page = record_page(deal, autoplay, offset=0, limit=1, bots=bots)
    return page[0] if page else None


def _record_ahead() -> str:
    """The lines ahead of a DealRecord row: the tally of fewer moves; then, inside the row's own move
    count, the spans of time before its own when the move count is split (RecordSpanTally), and a range
    of the ranking index (a row comparison: PostgreSQL and SQLite read it as one index range) from the
    start of the row's span, or of its move count when it is not split."""
    board = "t.deal = r.deal AND t.autoplay = r.autoplay AND t.bot = r.bot"
    move_count = f"{board} AND t.moves = r.moves"
    width = int(RecordSpanTally.SPAN_MS)
    split = f"EXISTS (SELECT 1 FROM {_table(RecordSpanTally)} t WHERE {move_count})"
    since = f"CASE WHEN {split} THEN r.elapsed_ms / {width} * {width} ELSE 0 END"
    same_span = (
        f"(SELECT COUNT(*) FROM {_table(DealRecord)} t WHERE {move_count} AND t.elapsed_ms >= {since} AND "
        "(t.elapsed_ms, t.finished_at, t.game_id) < (r.elapsed_ms, r.finished_at, r.game_id))"
    )
    earlier_spans = _sum(RecordSpanTally, f"{move_count} AND t.span < r.elapsed_ms / {width}")
    return f"{_sum(RecordTally, f'{board} AND t.moves < r.moves')} + {earlier_spans} + {same_span}"


def record_line_of(deal: str, autoplay: str, user, *, bots: bool = False) -> RecordLine | None:
    """The user's best on the deal's board of people (or bots) with its rank, in one statement, or None
    (a player of the other kind has no line there)."""
    if not _signed_in(user):
        return None
    mine = "r.deal = %s AND r.autoplay = %s AND r.bot = %s AND r.player_id = %s"
    row = _line_of(DealRecord, RECORD_FIELDS[1:], mine, [deal, autoplay, bots, user.pk], _record_ahead(), [])
    if row is None:
        return None
    return RecordLine(row[-1] + 1, user.username, *row[:-1])


def record_friends(deal: str, autoplay: str, user, *, bots: bool = False) -> list[RecordLine]:
    rows = _records(deal, autoplay, bots).filter(player_id__in=_circle(user)).values_list(*RECORD_FIELDS)
    return [RecordLine(1 + i, *row) for i, row in enumerate(rows)]


# --- the month's ladder ---------------------------------------------------------------------------

LADDER_ORDER = LadderEntry.ORDER
LADDER_FIELDS = ("player__username", "points", "played", "won", "bot")
LADDER_INDEX_ORDER = ("points DESC", "won DESC", "player_id")
LADDER_COLUMNS = ("points", "played", "won", "bot", "player_id")


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


def ladder_count(month: dt.date, *, bots: bool = False) -> int:
    return _total(LadderTally, "month = %s AND bot = %s", [connection.ops.adapt_datefield_value(month), bots])


def _ladder_lines(rows: list[tuple], first_rank: int, position: int) -> list[LadderLine]:
    ranks = _shared_ranks(rows, lambda row: row[1], first_rank, position)
    return [LadderLine(rank, *row) for rank, row in zip(ranks, rows, strict=True)]


def ladder_page(month: dt.date, *, offset: int, limit: int, bots: bool = False) -> list[LadderLine]:
    """The lines from `offset`, found from the tally of points (Board.read), which also says how many
    players have more points than the first line: its rank."""
    span = []
    if offset:
        groups = f"SELECT points, count AS n FROM {_table(LadderTally)} WHERE month = %s AND bot = %s"
        span = _span(groups, [connection.ops.adapt_datefield_value(month), bots], "points DESC", offset, offset + limit - 1)
        if not span:
            return []
    board = Board(LadderEntry, "month = %s AND bot = %s", [connection.ops.adapt_datefield_value(month), bots], LADDER_INDEX_ORDER, LADDER_COLUMNS, LADDER_FIELDS[1:])
    rows = board.read(span, offset, limit)
    return _ladder_lines(rows, span[0].ahead + 1 if span else 1, offset + 1) if rows else []


def ladder_line_of(month: dt.date, user, *, bots: bool = False) -> LadderLine | None:
    """The user's line with its rank (1 + the players with more points, from the tally), in one statement."""
    if not _signed_in(user):
        return None
    above = _sum(LadderTally, "t.month = r.month AND t.bot = r.bot AND t.points > r.points")
    mine = "r.month = %s AND r.bot = %s AND r.player_id = %s"
    row = _line_of(LadderEntry, LADDER_FIELDS[1:], mine, [connection.ops.adapt_datefield_value(month), bots, user.pk], above, [])
    if row is None:
        return None
    return LadderLine(row[-1] + 1, user.username, *row[:-1])


def ladder_friends(month: dt.date, user, *, bots: bool = False) -> list[LadderLine]:
    rows = list(_ladder(month, bots).filter(player_id__in=_circle(user)).values_list(*LADDER_FIELDS))
    return _ladder_lines(rows, 1, 1)


# --- streaks --------------------------------------------------------------------------------------

STREAK_FIELDS = ("player__username", "current", "longest", "last_day", "player_id", "bot")
STALE_ORDER = ("-longest", "player_id")


def _alive_days() -> tuple[dt.date, dt.date]:
    """The last won days whose streak is still current: yesterday's lives until today is over."""
    current = today()
    return current - dt.timedelta(days=1), current


def _effective(row) -> tuple[int, int]:
    """(current as of now, longest) of a Streak row read with STREAK_FIELDS."""
    _name, current, longest, last_day, _player, _bot = row
    return (current if last_day >= _alive_days()[0] else 0, longest)


def streak_count(*, bots: bool = False) -> int:
    return _total(LongestTally, "bot = %s", [bots])


def _streak_lines(rows: list[tuple], first_rank: int, position: int) -> list[StreakLine]:
    ranks = _shared_ranks(rows, _effective, first_rank, position)
    return [StreakLine(rank, row[0], *_effective(row), bool(row[5])) for rank, row in zip(ranks, rows, strict=True)]


def _living_sql(bounded: bool, skip: int, limit: int) -> str:
    """`limit` living streaks after skipping `skip`, from (current, longest) at most the bound's when
    `bounded`: each living day's best read from its own index, merged, and only the page's rows joined
    to names (LIMIT and OFFSET written in, as Board.read's)."""
    table, users = _table(Streak), _table(User)
    bound = " AND (current, longest) <= (%s, %s)" if bounded else ""
    best_of_day = (
        f"SELECT * FROM (SELECT player_id, current, longest, last_day, bot FROM {table} WHERE bot = %s AND last_day = %s{bound} "
        f"ORDER BY current DESC, longest DESC, player_id LIMIT {int(skip + limit)}) d"
    )
    return f"""
SELECT u.username, a.current, a.longest, a.last_day, a.player_id, a.bot
FROM (SELECT * FROM ({best_of_day}1 UNION ALL {best_of_day}2) m ORDER BY current DESC, longest DESC, player_id LIMIT {int(limit)} OFFSET {int(skip)}) a
JOIN {users} u ON u.id = a.player_id ORDER BY a.current DESC, a.longest DESC, a.player_id
"""


def _as_date(value) -> dt.date:
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(value)  # SQLite answers text


def _living_params(bots: bool) -> list:
    return [bots, *(connection.ops.adapt_datefield_value(day) for day in _alive_days())]


def _living_page(bots: bool, offset: int, limit: int) -> tuple[list[tuple], int]:
    """The living streaks from `offset` (those of yesterday and today, merged), and the first one's rank:
    from the (current, longest) group holding that place, found from the tally, skipping inside it
    (forward only: a living group is a few thousand players on a million, where the ladder's
    and the stale streaks' groups are larger)."""
    bots_, yesterday, current = _living_params(bots)
    bound, skip, ahead = [], offset, 0
    if offset:
        groups = (
            f"SELECT current, longest, SUM(count) AS n FROM {_table(StreakTally)} "
            "WHERE bot = %s AND last_day IN (%s, %s) GROUP BY current, longest"
        )
        span = _span(groups, [bots_, yesterday, current], "current DESC, longest DESC", offset, offset)
        if not span:
            return [], 0
        bound, ahead = list(span[0].key), span[0].ahead
        skip = offset - ahead
    params = [bots_, yesterday, *bound, bots_, current, *bound]
    with connection.cursor() as cursor:
        cursor.execute(_living_sql(bool(bound), skip, limit), params)
        rows = [(name, now, best, _as_date(day), player, bot) for name, now, best, day, player, bot in cursor.fetchall()]
    return rows, ahead + 1


def _stale_page(bots: bool, offset: int, limit: int) -> tuple[list[tuple], int]:
    """The streaks no longer current from `offset` among them, by longest, and the rank of the first
    among them (counted from the first stale streak: the caller adds the living ones). Their groups
    are the players by longest (LongestTally) less the living ones."""
    span = []
    if offset:
        bots_, yesterday, current = _living_params(bots)
        groups = (
            f"SELECT longest, SUM(n) AS n FROM (SELECT longest, count AS n FROM {_table(LongestTally)} WHERE bot = %s "
            f"UNION ALL SELECT longest, -count AS n FROM {_table(StreakTally)} WHERE bot = %s AND last_day IN (%s, %s)) s GROUP BY longest"
        )
        span = _span(groups, [bots_, bots_, yesterday, current], "longest DESC", offset, offset + limit - 1)
        if not span:
            return [], 0
    # A stale streak's current reads 0 (_effective): the index holds no current, nor needs to.
    columns = ("0 AS current", "longest", "last_day", "player_id", "bot")
    alive = connection.ops.adapt_datefield_value(_alive_days()[0])
    board = Board(Streak, "bot = %s AND last_day < %s", [bots, alive], ("longest DESC", "player_id"), columns, STREAK_FIELDS[1:])
    return board.read(span, offset, limit), (span[0].ahead if span else 0) + 1


def _living_count(bots: bool) -> int:
    return _total(StreakTally, "bot = %s AND last_day IN (%s, %s)", _living_params(bots))


def streak_page(*, offset: int, limit: int, bots: bool = False) -> list[StreakLine]:
    """Living streaks first, then every other player by longest streak."""
    living = _living_count(bots) if offset else None
    rows, first_rank = ([], 0) if living is not None and offset >= living else _living_page(bots, offset, limit)
    if len(rows) < limit:
        # The stale part, from its start when the page began among the living.
        stale_offset = max(0, offset - living) if living is not None else 0
        stale, stale_rank = _stale_page(bots, stale_offset, limit - len(rows))
        if not rows:
            first_rank = (living or 0) + stale_rank
        rows += stale
    if not rows:
        return []
    return _streak_lines(rows, first_rank, offset + 1)


def _streak_ahead() -> tuple[str, list]:
    """The players ahead of a Streak row on its board, over the tallies only: a living streak is behind
    the living ones with more current days (or as many and a longer best); a stale one behind every
    living streak and the stale ones with a longer best."""
    alive = "t.bot = r.bot AND t.last_day IN (%s, %s)"
    days = [connection.ops.adapt_datefield_value(day) for day in _alive_days()]
    living = _sum(StreakTally, f"{alive} AND (t.current > r.current OR (t.current = r.current AND t.longest > r.longest))")
    longer = _sum(LongestTally, "t.bot = r.bot AND t.longest > r.longest")
    stale = f"{_sum(StreakTally, alive)} + {longer} - {_sum(StreakTally, f'{alive} AND t.longest > r.longest')}"
    sql = f"CASE WHEN r.last_day >= %s THEN {living} ELSE {stale} END"
    return sql, [days[0], *days, *days, *days]


def streak_line_of(user, *, bots: bool = False) -> StreakLine | None:
    """The user's streak with its rank, in one statement."""
    if not _signed_in(user):
        return None
    ahead, params = _streak_ahead()
    row = _line_of(Streak, STREAK_FIELDS[1:], "r.bot = %s AND r.player_id = %s", [bots, user.pk], ahead, params)
    if row is None:
        return None
    return _streak_lines([(user.username, *row[:-1])], row[-1] + 1, 1)[0]


def streak_friends(user, *, bots: bool = False) -> list[StreakLine]:
    rows = list(Streak.objects.filter(bot=bots, player_id__in=_circle(user)).values_list(*STREAK_FIELDS))
    rows.sort(key=lambda row: (-_effective(row)[0], -row[2], row[4]))
    return _streak_lines(rows, 1, 1)
