"""Keeping the boards: deal records, the month's ladder and streaks, changed in the game's own transaction.

Each board follows a change of play, or a verdict on a result, inside the transaction that makes it
(games.play.follow_ups, in the order games/wiring.py gives), so a result and its lines on the boards
commit together. Every update is idempotent: a counter moves only when the row it counts
changes (a game already counted changes nothing), which makes a follow-up run twice harmless. Watchers
of a deal's board are told after commit (events.publish), best effort.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections.abc import Callable

from django.core.cache import cache
from django.db import DatabaseError, connection, transaction
from django.db.models import F

from accounts.guests import is_guest_id
from accounts.selectors import is_bot
from accounts.signals import account_closed
from games import events
from games.boards.models import (
    DealRecord,
    LadderDay,
    LadderEntry,
    LadderTally,
    LongestTally,
    RecordSpanTally,
    RecordTally,
    Streak,
    StreakTally,
)
from games.daily import services as daily
from games.daily.models import RANKED, DailyChallenge, DailyResult, ranked_day
from games.play.models import Game

HELD = Game.HELD_REVIEWS
logger = logging.getLogger(__name__)

#: The ladder's points rule, as the API and the page show it.
POINTS_RULE = (
    "A ranked daily won scores round(100 x par / moves), at most 100 and at least 1 (100 when the daily has no par); "
    "a daily missed, lost or held for review scores 0. Equal points share a rank."
)


def points_for(moves: int, par: int | None) -> int:
    """Ladder points of a ranked win in `moves` on a daily of `par` (POINTS_RULE); halves round up."""
    if not par:
        return 100
    return max(1, min(100, (200 * par + moves) // (2 * moves)))


def month_of(date: dt.date) -> dt.date:
    return date.replace(day=1)


def records_group(deal: str, autoplay: str) -> str:
    """The channel group of the sockets watching a deal's board (group names allow no colon)."""
    return f"records.{deal.replace(':', '-')}.{autoplay}"


# --- the boards' versions: what a part kept in the cache is kept with -------------------------------

#: The version every board's own is read with: moved on when every board changes at once (a rebuild,
#: a closed account's lines taking its new name).
EVERY_BOARD = "every"
#: How long a part of a board read is kept. A change moves its board's version on, so this bounds only
#: what a version change lost while the cache was away (a write goes on without it) could leave shown.
KEEP_S = 60
#: How long an unchanged board keeps its version (then it gets a new one: its pages are read again).
VERSION_KEEP_S = 24 * 3600


def records_board(deal: str, autoplay: str, bot: bool) -> str:
    """A deal's board of people or bots, as its version is named."""
    return f"records:{deal}:{autoplay}:{int(bot)}"


def ladder_board(month: dt.date, bot: bool) -> str:
    return f"ladder:{month:%Y-%m}:{int(bot)}"


def streaks_board(bot: bool) -> str:
    return f"streaks:{int(bot)}"


def _version_key(board: str) -> str:
    return f"boards:version:{board}"


def _new_versions(boards: list[str]) -> None:
    """Versions never given before (one round trip), so that no page kept at an earlier one (nor at one
    that the cache forgot and made again) is ever taken for one of these."""
    try:
        cache.set_many({_version_key(board): uuid.uuid4().hex for board in boards}, timeout=VERSION_KEEP_S)
    except Exception as exc:  # the cache backend's own errors: the change is committed, never fail it
        logger.warning("board %s: version not moved on, cache unavailable: %s: %s", boards[0], type(exc).__name__, exc)


#: The ends of a board's top pages: a page that ends at or before one of them (the first such) is kept
#: with that top's version, which a change landing below it leaves as it is, so the pages most read stay
#: kept while a crowded board changes below them. The game page reads the first line (the record), a
#: board page 50 lines by default or 100, the largest page 200 (freecell_site.pagination.MAX_PAGE_SIZE).
TOPS = (1, 10, 50, 100, 200)


def top_of(board: str, end: int) -> str:
    """A board's first `end` lines, as their version is named."""
    return f"{board}:top{end}"


def board_changed(board: str, *, place: Callable[[], int | None] | None = None) -> None:
    """After commit, the board has a new version: a read from then on reads what was committed. Moved
    on after the commit, not before: a read between the two would keep the board as it was under the
    new version. The version of each of its tops that ends at or after the change's place moves on
    too: every top when `place` is not given, none when `place()`, asked after the commit, says the
    change lands below them all (None). Asked after the commit, not inside it: a line that the change's
    own snapshot puts just below a top can be in it once a removal committed beside it shows. Asked
    after, the last change to alter a top finds its line (or its old place) still there, so the top's
    version moves on after every change of it."""

    def moved() -> None:
        at = 1 if place is None else _place_now(board, place)
        _new_versions([board, *(top_of(board, end) for end in TOPS if at is not None and at <= end)])

    transaction.on_commit(moved)


def _place_now(board: str, place: Callable[[], int | None]) -> int | None:
    try:
        return place()
    except DatabaseError as exc:  # the change is committed: its tops are read again rather than missed
        logger.warning("board %s: top not checked, database unavailable: %s: %s", board, type(exc).__name__, exc)
        return 1


def place_in_top(order: tuple[str, ...], values: tuple, *runs) -> Callable[[], int | None]:
    """Where a line with `values` (of `order`'s fields, as order_by takes them) is, or would be, among
    the first lines of a board: its place when it is within the smaller tops (TOPS but the largest),
    the largest top's end when it is past them but within that top, None below it (which costs one
    row read: the top's last line). The board is one run of rows (a queryset read in `order` from its
    ranking index), or several merged (the living streaks of yesterday and today, each from its own
    day's index)."""

    def key(row: tuple) -> tuple:
        return tuple(-value if field.startswith("-") else value for field, value in zip(order, row, strict=True))

    def check() -> int | None:
        last = TOPS[-1]
        read = [run.order_by(*order).values_list(*(field.lstrip("-") for field in order)) for run in runs]
        if len(read) == 1:
            edge = list(read[0][last - 1 : last])
            if edge and key(values) > key(edge[0]):
                return None
            # Within the top, as its last line says: the place is counted among the lines of the tops
            # below it, in a second read; past them (or should a change committed between the two
            # reads put it past them), the top's last place stands.
            below = TOPS[-2] if len(TOPS) > 1 else last
            ahead = sum(1 for row in read[0][:below] if key(row) < key(values))
            return ahead + 1 if ahead < below else last
        rows = sorted((row for rows in read for row in rows[:last]), key=key)[:last]
        ahead = sum(1 for row in rows if key(row) < key(values))
        return ahead + 1 if ahead < last else None

    return check


def _version_now(keys: list[str], found: dict) -> list[str]:
    """The versions of `keys` (from `found`, a read of the cache), each made when missing."""
    if any(key not in found for key in keys):
        for key in keys:
            if key not in found:
                cache.add(key, uuid.uuid4().hex, timeout=VERSION_KEEP_S)
        found = cache.get_many(keys)
    return [found[key] for key in keys]


class Kept:
    """Parts of one board as it is now (its count, a page, a caller's line), each kept in the cache with
    the board's version it was read at: a part kept at another version is read again, and kept anew.
    A page that ends within one of the board's tops (TOPS) is kept with that top's version instead,
    which a change landing below the top leaves as it is.

    The board's versions come in the same round trip as the parts named first (`parts`), so a part is
    never taken for a later version than the one read with it; a change committed after that read moves
    the version on, so what is kept at a version never misses a change made before it. When the cache
    is away, every part is read from the database."""

    def __init__(self, board: str, parts: list[str]):
        self.board, self.found, self.fresh = board, {}, {}
        versions = [_version_key(EVERY_BOARD), _version_key(board), *(_version_key(top_of(board, end)) for end in TOPS)]
        try:
            self.found = cache.get_many([*versions, *map(self._key, parts)])
            every, whole, *tops = _version_now(versions, self.found)
            self.version = f"{every}.{whole}"
            self.top_versions = {end: f"{every}.{top}" for end, top in zip(TOPS, tops, strict=True)}
        except Exception as exc:  # the cache backend's own errors: the database answers alone
            logger.warning("board %s read without the cache, unavailable: %s: %s", board, type(exc).__name__, exc)
            self.version, self.top_versions = None, {}

    def _key(self, part: str) -> str:
        return f"boards:{self.board}:{part}"

    def get(self, part: str, read: Callable[[], object], *, end: int | None = None) -> object:
        """The part as kept at the board's version (for a page whose last line is `end`, the version of
        the first top that holds it, if one does), else `read()` (kept by `keep`). A part not named
        first costs a round trip of its own."""
        top = next((top for top in TOPS if end is not None and end <= top), None)
        version = self.version if top is None else self.top_versions.get(top)
        if version is None:
            return read()
        key = self._key(part)
        try:
            kept = self.found[key] if key in self.found else cache.get(key)
        except Exception as exc:
            logger.warning("board %s read without the cache, unavailable: %s: %s", self.board, type(exc).__name__, exc)
            kept = None
        if kept is not None and kept[0] == version:
            return kept[1]
        value = read()
        self.fresh[key] = (version, value)
        return value

    def keep(self) -> None:
        """Keeps the parts read from the database (one round trip)."""
        if self.fresh:
            try:
                cache.set_many(self.fresh, timeout=KEEP_S)
            except Exception as exc:
                logger.warning("board %s not kept, cache unavailable: %s: %s", self.board, type(exc).__name__, exc)


def names_changed(sender, **kwargs) -> None:
    """A closed account's lines show its new name (accounts.closing.closed_name): every board is read
    again once the closing commits."""
    board_changed(EVERY_BOARD)


def connect() -> None:
    """The boards' receivers (games.wiring.install, once the apps are ready)."""
    account_closed.connect(names_changed, dispatch_uid="games.boards.names_changed")


# --- portable upserts -----------------------------------------------------------------------------


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _adapted(value):
    """A value for a raw statement, stored as the ORM stores it (SQLite keeps dates and times as text)."""
    if isinstance(value, dt.datetime):
        return connection.ops.adapt_datetimefield_value(value)
    if isinstance(value, dt.date):
        return connection.ops.adapt_datefield_value(value)
    return value


def _execute(sql: str, params: list) -> int:
    with connection.cursor() as cursor:
        cursor.execute(sql, [_adapted(value) for value in params])
        return cursor.rowcount


def _insert_new(model, values: dict, conflict: tuple[str, ...]) -> bool:
    """INSERT of a row unless its key exists (PostgreSQL, SQLite); True when it was inserted. A
    concurrent insert of the same key waits for the other transaction, then counts as existing."""
    columns = ", ".join(values)
    marks = ", ".join(["%s"] * len(values))
    sql = f"INSERT INTO {_table(model)} ({columns}) VALUES ({marks}) ON CONFLICT ({', '.join(conflict)}) DO NOTHING"
    return _execute(sql, list(values.values())) == 1


def _bump(model, key: dict, delta: int) -> int:
    """Adds `delta` to the `count` of a tally row, made on first use; gives its count after. Locks the
    row until the transaction ends, even for a `delta` of 0."""
    table = _table(model)
    columns = [*key, "count"]
    sql = (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))}) "
        f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET count = {table}.count + %s RETURNING count"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [_adapted(value) for value in [*key.values(), max(delta, 0), delta]])
        return cursor.fetchone()[0]


def _bumps(model, changes: list[tuple[dict, int]]) -> None:
    """Several tally changes in the key's order, so that two transactions never wait on each other's
    rows crosswise; changes that cancel out are skipped."""
    merged: dict[tuple, int] = {}
    for key, delta in changes:
        merged[tuple(key.items())] = merged.get(tuple(key.items()), 0) + delta
    for key, delta in sorted(merged.items(), key=lambda item: tuple(v for _k, v in item[0])):
        if delta:
            _bump(model, dict(key), delta)


# --- deal records ---------------------------------------------------------------------------------


def counts_as_record(game: Game) -> bool:
    return game.status == Game.Status.WON and game.elapsed_ms is not None and game.finished_at is not None and game.review not in HELD


def score(row) -> tuple:
    """The ranking key of a game or a record: fewest moves, then time, then finish, then id."""
    if isinstance(row, Game):
        return (row.ply, row.elapsed_ms, row.finished_at, row.pk)
    return (row.moves, row.elapsed_ms, row.finished_at, row.game_id)


#: A move count of a deal's board: the key of its RecordTally row.
MOVE_COUNT = ("deal", "autoplay", "bot", "moves")


def _tally_records(changes: list[tuple[tuple, int, int]]) -> None:
    """Moves the tallies of deals' boards by `changes` (a move count, as MOVE_COUNT's values; a line's
    elapsed time; +1 or -1), one move count at a time in the key's order: its RecordTally row first,
    which locks the move count (two writers of one take turns), then its spans if it is split
    (RecordSpanTally), or its split, read from its lines (this change's among them), once it holds
    SPLIT_FROM of them."""
    width = RecordSpanTally.SPAN_MS
    for move_count in sorted({move_count for move_count, _elapsed, _delta in changes}):
        lines = [(elapsed, delta) for other, elapsed, delta in changes if other == move_count]
        key = dict(zip(MOVE_COUNT, move_count, strict=True))
        count = _bump(RecordTally, key, sum(delta for _elapsed, delta in lines))
        if RecordSpanTally.objects.filter(**key).exists():
            _bumps(RecordSpanTally, [({**key, "span": elapsed // width}, delta) for elapsed, delta in lines])
        elif count >= RecordSpanTally.SPLIT_FROM:
            _execute(
                f"INSERT INTO {_table(RecordSpanTally)} (deal, autoplay, bot, moves, span, count) "
                f"SELECT deal, autoplay, bot, moves, elapsed_ms / {int(width)}, COUNT(*) FROM {_table(DealRecord)} "
                f"WHERE deal = %s AND autoplay = %s AND bot = %s AND moves = %s GROUP BY deal, autoplay, bot, moves, elapsed_ms / {int(width)}",
                list(move_count),
            )


def _record_key(game: Game) -> dict:
    return {"deal": game.deal_id, "autoplay": game.autoplay, "player_id": game.player_id}


def _records(deal: str, autoplay: str, bot: bool):
    return DealRecord.objects.filter(deal=deal, autoplay=autoplay, bot=bot)


def _best_score(deal: str, autoplay: str, bot: bool):
    best = _records(deal, autoplay, bot).order_by(*DealRecord.ORDER).first()
    return score(best) if best is not None else None


def _records_changed(deal: str, autoplay: str, bot: bool, line: tuple, *, ask: bool = True) -> None:
    """The deal's board changed at `line` (a score: the better of the line's old and new places), in
    its tops or below them; `ask=False` moves every top's version on without asking."""
    place = place_in_top(DealRecord.ORDER, line, _records(deal, autoplay, bot)) if ask else None
    board_changed(records_board(deal, autoplay, bot), place=place)


def record_game(game: Game, *, announce: bool = True, bot: bool | None = None) -> bool:
    """Puts a won game on its deal's board when it is its player's best there (inside the caller's
    transaction); False when nothing changed (not better, held for review, already counted, or a guest's).
    `announce`: tell the board's sockets after commit, and ask whether the change lands in the board's
    top (not during a rebuild: its top moves on with each change, and asking cost a rebuild a fifth to a third
    more time); `bot`: the player's kind, when the caller knows it (else read from their profile)."""
    if not counts_as_record(game) or is_guest_id(game.player_id):
        return False  # a guest's win is casual play: it counts once the guest signs up (games/guests.py)
    with transaction.atomic():
        bot = is_bot(game.player_id) if bot is None else bot
        key = _record_key(game)
        best = _best_score(game.deal_id, game.autoplay, bot)
        fields = {"game_id": game.pk, "moves": game.ply, "undos": game.undos, "elapsed_ms": game.elapsed_ms, "finished_at": game.finished_at}
        changes = [((game.deal_id, game.autoplay, bot, game.ply), game.elapsed_ms, +1)]
        row = DealRecord.objects.select_for_update().filter(**key).first()
        # A first win of the deal inserts; should another game of the player's insert first (two
        # tabs winning at once), this one is compared with it below instead of failing the move.
        if row is None and not _insert_new(DealRecord, {**key, **fields, "bot": bot}, ("deal", "autoplay", "player_id")):
            row = DealRecord.objects.select_for_update().get(**key)
        if row is not None:
            if row.game_id == game.pk or score(row) <= score(game):
                return False
            changes.append(((game.deal_id, game.autoplay, bot, row.moves), row.elapsed_ms, -1))
            DealRecord.objects.filter(pk=row.pk).update(**fields)
        _tally_records(changes)
        _records_changed(game.deal_id, game.autoplay, bot, score(game), ask=announce)  # a better game's old place is below
        if announce:
            _announce_board(game.deal_id, game.autoplay, bot, record_fell=best is None or score(game) < best)
    return True


def unrecord_game(game: Game) -> bool:
    """Takes a game off its deal's board (held for review after all) and puts its player's next best
    game there, if any; False when the game was not on the board."""
    with transaction.atomic():
        row = DealRecord.objects.select_for_update().filter(game_id=game.pk).first()
        if row is None:
            return False
        best = _best_score(row.deal, row.autoplay, row.bot)
        row.delete()
        _tally_records([((row.deal, row.autoplay, row.bot, row.moves), row.elapsed_ms, -1)])
        _records_changed(row.deal, row.autoplay, row.bot, score(row))
        following = (
            Game.objects.filter(player_id=row.player_id, deal_id=row.deal, autoplay=row.autoplay, status=Game.Status.WON)
            .exclude(pk=game.pk)
            .exclude(review__in=HELD)
            .exclude(elapsed_ms__isnull=True)
            .order_by("ply", "elapsed_ms", "finished_at", "pk")
            .first()
        )
        if following is not None:
            record_game(following, bot=row.bot)
        _announce_board(row.deal, row.autoplay, row.bot, record_fell=best == score(row))
    return True


def _announce_board(deal: str, autoplay: str, bot: bool, *, record_fell: bool) -> None:
    """After commit: tells the sockets on the deal's board that it changed (and whether its record did);
    `bot` says which of the deal's two boards, people's or bots'."""
    event = {"type": "records.changed", "deal": deal, "autoplay": autoplay, "bot": bot, "record_fell": record_fell}
    transaction.on_commit(lambda: events.publish(records_group(deal, autoplay), event))


# --- the month's ladder ---------------------------------------------------------------------------


def _change_entry(player_id: int, month: dt.date, bot: bool, *, points: int = 0, played: int = 0, won: int = 0) -> None:
    """Moves a player's line on a month's ladder (people's or bots', `bot`), and the tally of points with it."""
    changes = []
    new = {"month": month, "player_id": player_id, "bot": bot, "points": 0, "played": 0, "won": 0}
    if _insert_new(LadderEntry, new, ("month", "player_id")):
        changes.append(({"month": month, "bot": bot, "points": 0}, +1))
    entry = LadderEntry.objects.select_for_update().get(month=month, player_id=player_id)
    if points:
        changes += [
            ({"month": month, "bot": bot, "points": entry.points}, -1),
            ({"month": month, "bot": bot, "points": entry.points + points}, +1),
        ]
    LadderEntry.objects.filter(pk=entry.pk).update(points=entry.points + points, played=entry.played + played, won=entry.won + won)
    _bumps(LadderTally, changes)
    # In its top or below it: at the better of the line's old and new places (more points, then wins).
    points_won = max((entry.points, entry.won), (entry.points + points, entry.won + won))
    ladder = LadderEntry.objects.filter(month=month, bot=bot)
    board_changed(ladder_board(month, bot), place=place_in_top(LadderEntry.ORDER, (*points_won, player_id), ladder))


def mark_played(player_id: int, date: dt.date) -> bool:
    """Counts a ranked daily as played on its month's ladder; False when it was already counted."""
    with transaction.atomic():
        if not _insert_new(LadderDay, {"player_id": player_id, "date": date, "won": False, "points": 0}, ("player_id", "date")):
            return False
        _change_entry(player_id, month_of(date), is_bot(player_id), played=1)
    return True


def ladder_win(game: Game) -> bool:
    """A ranked win on its day's leaderboard: its points on the month's ladder and a day on the
    player's streak; False when it was already counted."""
    date = ranked_day(game)
    with transaction.atomic():
        mark_played(game.player_id, date)
        par = DailyChallenge.objects.filter(date=date).values_list("par", flat=True).first()
        points = points_for(game.ply, par)
        if not LadderDay.objects.filter(player_id=game.player_id, date=date, won=False).update(won=True, points=points):
            return False
        bot = is_bot(game.player_id)
        _change_entry(game.player_id, month_of(date), bot, points=points, won=1)
        _streak_won(game.player_id, date, bot)
    return True


def ladder_unwin(game: Game) -> bool:
    """A ranked win taken off its day's leaderboard (a review rejected): off the ladder and streaks too."""
    with transaction.atomic():
        day = LadderDay.objects.select_for_update().filter(player_id=game.player_id, date=ranked_day(game), won=True).first()
        if day is None:
            return False
        LadderDay.objects.filter(pk=day.pk).update(won=False, points=0)
        bot = is_bot(game.player_id)
        _change_entry(game.player_id, month_of(day.date), bot, points=-day.points, won=-1)
        _streak_recount(game.player_id, bot)
    return True


# --- streaks --------------------------------------------------------------------------------------


def _store_streak(player_id: int, bot: bool, old: Streak | None, new: tuple[dt.date, int, int] | None) -> None:
    """Writes a player's streak (None: no won day left) and moves both tallies of its board (people's or
    bots', `bot`) with it."""
    changes, longest = [], []
    if old is not None:
        changes.append(({"bot": bot, "last_day": old.last_day, "current": old.current, "longest": old.longest}, -1))
        longest.append(({"bot": bot, "longest": old.longest}, -1))
    if new is not None:
        last_day, current, best = new
        changes.append(({"bot": bot, "last_day": last_day, "current": current, "longest": best}, +1))
        longest.append(({"bot": bot, "longest": best}, +1))
        Streak.objects.update_or_create(
            player_id=player_id, defaults={"last_day": last_day, "current": current, "longest": best, "bot": bot}
        )
    elif old is not None:
        Streak.objects.filter(player_id=player_id).delete()
    _bumps(StreakTally, changes)
    _bumps(LongestTally, longest)
    was = None if old is None else (old.last_day, old.current, old.longest)
    board_changed(streaks_board(bot), place=_streak_place(player_id, bot, was, new))


def _streak_place(player_id: int, bot: bool, old: tuple | None, new: tuple | None) -> Callable[[], int | None]:
    """The place of a streak's change, from `old` to `new` (each (last day, current, longest), or None),
    among the board's top lines as of today (place_in_top): the better of its places while living; a
    streak no longer current comes after every living one, which is where it is counted (at its
    earliest, so its tops move on when it might be in them)."""

    def check() -> int | None:
        yesterday = today() - dt.timedelta(days=1)
        living = [(current, best) for last_day, current, best in filter(None, (old, new)) if last_day >= yesterday]
        current, best = max(living, default=(0, 0))
        days = [Streak.objects.filter(bot=bot, last_day=day) for day in (yesterday, yesterday + dt.timedelta(days=1))]
        return place_in_top(Streak.LIVING_ORDER, (current, best, player_id), *days)()

    return check


def runs(days: list[dt.date]) -> tuple[dt.date, int, int] | None:
    """(last day, the run of consecutive days ending on it, the longest run) of distinct sorted days."""
    if not days:
        return None
    run = longest = 1
    for before, after in zip(days, days[1:], strict=False):
        run = run + 1 if after - before == dt.timedelta(days=1) else 1
        longest = max(longest, run)
    return days[-1], run, longest


def _streak_recount(player_id: int, bot: bool) -> None:
    old = Streak.objects.select_for_update().filter(player_id=player_id).first()
    days = list(LadderDay.objects.filter(player_id=player_id, won=True).order_by("date").values_list("date", flat=True))
    _store_streak(player_id, bot, old, runs(days))


def _streak_won(player_id: int, date: dt.date, bot: bool) -> None:
    """A day won: the streak goes on (the day after its last), starts again (a gap), or, for a day
    before its last (a review cleared late), is counted again from the won days."""
    old = Streak.objects.select_for_update().filter(player_id=player_id).first()
    if old is None:
        _store_streak(player_id, bot, None, (date, 1, 1))
    elif date == old.last_day + dt.timedelta(days=1):
        _store_streak(player_id, bot, old, (date, old.current + 1, max(old.longest, old.current + 1)))
    elif date > old.last_day:
        _store_streak(player_id, bot, old, (date, 1, old.longest))
    elif date < old.last_day:
        _streak_recount(player_id, bot)


# --- following play and the verdicts (games/wiring.py calls these in their place) -------------------


def follows(game: Game) -> bool:
    """The changes the boards follow: a win, and a ranked game's first action or end. No query otherwise."""
    return game.status == Game.Status.WON or ((game.ply == 1 or game.status != Game.Status.PLAYING) and ranked_day(game) is not None)


def follow_game(game: Game) -> None:
    """After the daily ranked it (fair play's review may have held it first): a won game goes on its
    deal's board, a ranked win on the month's ladder and the player's streak; a ranked game counts as
    played from its first action (or its end, if it had none)."""
    if game.status == Game.Status.WON:
        record_game(game)
    date = ranked_day(game)
    if date is not None:
        mark_played(game.player_id, date)
        if daily.ranks(game):
            ladder_win(game)


def follow_verdict(game: Game) -> None:
    """A verdict on a result (games.fairplay): on or off the deal's board, the ladder and the streaks."""
    if counts_as_record(game):
        record_game(game)
    else:
        unrecord_game(game)
    if ranked_day(game) is not None:
        if daily.ranks(game):
            ladder_win(game)
        else:
            ladder_unwin(game)


# --- the rebuild ------------------------------------------------------------------------------------


def rebuild() -> dict[str, int]:
    """Builds every board again from the stored games and ranked results, through the same steps as
    the live updates (so the rebuild and the incremental boards agree); for a backfill or a manual fix."""
    with transaction.atomic():
        for model in (DealRecord, RecordTally, RecordSpanTally, LadderDay, LadderEntry, LadderTally, Streak, StreakTally, LongestTally):
            model.objects.all().delete()
        board_changed(EVERY_BOARD)  # boards left with no line are changed too
    started = Game.objects.filter(RANKED).exclude(ply=0, status=Game.Status.PLAYING)
    for player_id, date in started.order_by("daily_game__daily_id", "pk").values_list("player_id", "daily_game__daily_id").iterator(chunk_size=2000):
        mark_played(player_id, date)
    results = DailyResult.objects.select_related("game__daily_game").order_by("daily_id", "game_id")
    for result in results.iterator(chunk_size=2000):
        ladder_win(result.game)
    # Each game's player's kind read with it (people's and bots' boards), not once a game.
    won = Game.objects.filter(status=Game.Status.WON).annotate(player_bot=F("player__profile__bot")).order_by("pk")
    for game in won.iterator(chunk_size=2000):
        record_game(game, announce=False, bot=bool(game.player_bot))
    return {
        "records": DealRecord.objects.count(),
        "ladder_entries": LadderEntry.objects.count(),
        "streaks": Streak.objects.count(),
    }


def today() -> dt.date:
    """The boards' day: the daily's clock."""
    return daily.today()
