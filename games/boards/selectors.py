"""Reading the boards: pages, a player's own line and rank, friends boards. Reads never write.

A rank is never a count over every better row (O(n) on a million players): it is a sum over a tally
of a few hundred rows plus, for the deal records, a count inside the player's own move count.

- Deal records: one place each, by fewest moves, then time, then finish (then the game id).
- The ladder: by points; equal points share a rank (listed by wins, then by who joined first).
- Streaks: by current streak, then longest; equal pairs share a rank. A current streak is alive while
  its last won day is today or yesterday; older, it reads as 0 (nothing is stored for that).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Q, Sum

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


@dataclass(frozen=True)
class RecordLine:
    rank: int
    username: str
    moves: int
    undos: int
    elapsed_ms: int
    finished_at: dt.datetime
    game: int


@dataclass(frozen=True)
class LadderLine:
    rank: int
    username: str
    points: int
    played: int
    won: int


@dataclass(frozen=True)
class StreakLine:
    rank: int
    username: str
    current: int
    longest: int


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
    (its seed: deal) once that day is over; a daily's deal is not_found while its day is on, as its
    layout is (`GET /api/deals/<deal>/`). Raises the engine's invalid_deal for a malformed id."""
    deal_id = parse_deal(text)
    current = today()
    if deal_id.kind == "daily":
        found = DailyChallenge.objects.filter(date=deal_id.value, date__lt=current).values_list("deal_id", flat=True).first()
        if found is None:
            raise ServiceError("not_found", f"the board of {deal_id} is shown once its day is over", status=404)
        return found
    deal = str(deal_id)
    if DailyChallenge.objects.filter(deal_id=deal, date__gte=current).exists():
        raise ServiceError("not_found", f"no board for {deal}", status=404)
    return deal


RECORD_ORDER = ("moves", "elapsed_ms", "finished_at", "game_id")
RECORD_FIELDS = ("player__username", "moves", "undos", "elapsed_ms", "finished_at", "game_id")


def _records(deal: str, autoplay: str):
    return DealRecord.objects.filter(deal=deal, autoplay=autoplay).order_by(*RECORD_ORDER)


def record_count(deal: str, autoplay: str) -> int:
    return RecordTally.objects.filter(deal=deal, autoplay=autoplay).aggregate(n=Sum("count"))["n"] or 0


def record_page(deal: str, autoplay: str, *, offset: int, limit: int) -> list[RecordLine]:
    rows = _records(deal, autoplay).values_list(*RECORD_FIELDS)[offset : offset + limit]
    return [RecordLine(offset + 1 + i, *row) for i, row in enumerate(rows)]


def record_of(deal: str, autoplay: str) -> RecordLine | None:
    """The deal's record: the first line of its board."""
    page = record_page(deal, autoplay, offset=0, limit=1)
    return page[0] if page else None


def record_line_of(deal: str, autoplay: str, user) -> RecordLine | None:
    """The user's best on the deal's board with its rank, or None."""
    if not _signed_in(user):
        return None
    row = DealRecord.objects.filter(deal=deal, autoplay=autoplay, player=user).values_list(*RECORD_FIELDS).first()
    if row is None:
        return None
    _name, moves, _undos, elapsed, finished, game = row
    fewer = RecordTally.objects.filter(deal=deal, autoplay=autoplay, moves__lt=moves).aggregate(n=Sum("count"))["n"] or 0
    same = _records(deal, autoplay).filter(
        Q(elapsed_ms__lt=elapsed) | Q(elapsed_ms=elapsed, finished_at__lt=finished) | Q(elapsed_ms=elapsed, finished_at=finished, game_id__lt=game),
        moves=moves,
    )
    return RecordLine(fewer + same.count() + 1, *row)


def record_friends(deal: str, autoplay: str, user) -> list[RecordLine]:
    rows = _records(deal, autoplay).filter(player_id__in=_circle(user)).values_list(*RECORD_FIELDS)
    return [RecordLine(1 + i, *row) for i, row in enumerate(rows)]


# --- the month's ladder ---------------------------------------------------------------------------

LADDER_ORDER = ("-points", "-won", "player_id")
LADDER_FIELDS = ("player__username", "points", "played", "won")


def parse_month(text: str) -> dt.date:
    """A `YYYY-MM` path parameter as the month's first day; 400 invalid_request otherwise."""
    try:
        if not text.isascii() or len(text) != 7 or text[4] != "-" or not (text[:4].isdigit() and text[5:].isdigit()):
            raise ValueError
        return dt.date(int(text[:4]), int(text[5:]), 1)
    except ValueError:
        raise ServiceError("invalid_request", f"{text!r} is not a month: write it as YYYY-MM") from None


def _ladder(month: dt.date):
    return LadderEntry.objects.filter(month=month).order_by(*LADDER_ORDER)


def _points_above(month: dt.date, points: int) -> int:
    return LadderTally.objects.filter(month=month, points__gt=points).aggregate(n=Sum("count"))["n"] or 0


def ladder_count(month: dt.date) -> int:
    return LadderTally.objects.filter(month=month).aggregate(n=Sum("count"))["n"] or 0


def _ladder_lines(rows: list[tuple], first_rank: int, position: int) -> list[LadderLine]:
    ranks = _shared_ranks(rows, lambda row: row[1], first_rank, position)
    return [LadderLine(rank, *row) for rank, row in zip(ranks, rows, strict=True)]


def ladder_page(month: dt.date, *, offset: int, limit: int) -> list[LadderLine]:
    rows = list(_ladder(month).values_list(*LADDER_FIELDS)[offset : offset + limit])
    if not rows:
        return []
    return _ladder_lines(rows, _points_above(month, rows[0][1]) + 1, offset + 1)


def ladder_line_of(month: dt.date, user) -> LadderLine | None:
    if not _signed_in(user):
        return None
    row = LadderEntry.objects.filter(month=month, player=user).values_list(*LADDER_FIELDS).first()
    if row is None:
        return None
    return LadderLine(_points_above(month, row[1]) + 1, *row)


def ladder_friends(month: dt.date, user) -> list[LadderLine]:
    rows = list(_ladder(month).filter(player_id__in=_circle(user)).values_list(*LADDER_FIELDS))
    return _ladder_lines(rows, 1, 1)


# --- streaks --------------------------------------------------------------------------------------

STREAK_FIELDS = ("player__username", "current", "longest", "last_day", "player_id")


def _alive_days() -> tuple[dt.date, dt.date]:
    """The last won days whose streak is still current: yesterday's lives until today is over."""
    current = today()
    return current - dt.timedelta(days=1), current


def _effective(row) -> tuple[int, int]:
    """(current as of now, longest) of a Streak row read with STREAK_FIELDS."""
    _name, current, longest, last_day, _player = row
    return (current if last_day >= _alive_days()[0] else 0, longest)


def _tally_sum(**filters) -> int:
    return StreakTally.objects.filter(last_day__in=_alive_days(), **filters).aggregate(n=Sum("count"))["n"] or 0


def _streak_rank(current: int, longest: int) -> int:
    """1 + the players ahead of (current, longest): tallies only."""
    if current > 0:
        return 1 + _tally_sum(current__gt=current) + _tally_sum(current=current, longest__gt=longest)
    every_longer = LongestTally.objects.filter(longest__gt=longest).aggregate(n=Sum("count"))["n"] or 0
    return 1 + _tally_sum() + every_longer - _tally_sum(longest__gt=longest)


def streak_count() -> int:
    return LongestTally.objects.aggregate(n=Sum("count"))["n"] or 0


def _streak_lines(rows: list[tuple], first_rank: int, position: int) -> list[StreakLine]:
    ranks = _shared_ranks(rows, _effective, first_rank, position)
    return [StreakLine(rank, row[0], *_effective(row)) for rank, row in zip(ranks, rows, strict=True)]


def streak_page(*, offset: int, limit: int) -> list[StreakLine]:
    """Living streaks first (each of the two days read from its own index, then merged), then every
    other player by longest streak."""
    alive = []
    for day in _alive_days():
        alive += Streak.objects.filter(last_day=day).order_by("-current", "-longest", "player_id").values_list(*STREAK_FIELDS)[: offset + limit]
    alive.sort(key=lambda row: (-row[1], -row[2], row[4]))
    rows = alive[offset : offset + limit]
    if len(rows) < limit:
        skip = max(0, offset - len(alive))  # the living streaks are all read: fewer than offset + limit
        stale = Streak.objects.filter(last_day__lt=_alive_days()[0]).order_by("-longest", "player_id").values_list(*STREAK_FIELDS)
        rows += list(stale[skip : skip + limit - len(rows)])
    if not rows:
        return []
    return _streak_lines(rows, _streak_rank(*_effective(rows[0])), offset + 1)


def streak_line_of(user) -> StreakLine | None:
    if not _signed_in(user):
        return None
    row = Streak.objects.filter(player=user).values_list(*STREAK_FIELDS).first()
    if row is None:
        return None
    return StreakLine(_streak_rank(*_effective(row)), row[0], *_effective(row))


def streak_friends(user) -> list[StreakLine]:
    rows = list(Streak.objects.filter(player_id__in=_circle(user)).values_list(*STREAK_FIELDS))
    rows.sort(key=lambda row: (-_effective(row)[0], -row[2], row[4]))
    return _streak_lines(rows, 1, 1)
