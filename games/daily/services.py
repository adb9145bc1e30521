"""Daily challenges: one solvable deal per UTC date, its seed derived from a server secret; ranked play.

The seed of a date is the first of a sequence derived from `settings.DAILY_SECRET` and the date
(HMAC-SHA256, 64 bits each) that the solver proves solvable; its par comes from the solver's par mode.
Dailies are made ahead: today's and tomorrow's by the sweeper (`make_ahead`, games/sweeper.py), the
coming week's by `manage.py daily --ensure`; one process solves a day under a lock (see `ensure_daily`).
Reads never write: a read of today's daily before it is made answers 503 `daily_pending` (`get_daily`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import logging
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from freecell_site.errors import ServiceError
from games.daily import leaderboard
from games.daily.models import RANKED, DailyChallenge, DailyGame, ranked_day, shown_day
from games.engine import parse_day, parse_deal, verify
from games.play import policies, services
from games.play.models import Deal, Game

logger = logging.getLogger(__name__)


# --- the clock ----------------------------------------------------------------------------------


def now() -> dt.datetime:
    """The server's clock for dailies (tests replace it to move between days)."""
    return timezone.now()


def today() -> dt.date:
    """The current UTC date: the daily that is being played."""
    return now().astimezone(dt.UTC).date()


def day_end(date: dt.date) -> dt.datetime:
    """The instant the daily of `date` ends (midnight UTC after it)."""
    return dt.datetime.combine(date + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)


def is_over(date: dt.date) -> bool:
    """Whether the daily of `date` has ended: its ranked play is closed."""
    return now() >= day_end(date)


# --- seeds and making a daily -------------------------------------------------------------------


def seed_for(date: dt.date, index: int = 0) -> int:
    """The `index`-th 64-bit seed of `date`'s sequence: unknowable without the server's secret."""
    secret = str(settings.DAILY_SECRET).encode()
    digest = hmac.new(secret, f"freecell-daily:{date.isoformat()}:{index}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class Proof:
    """What the solver found for one seed: solvable or not, and a winning line under safe autoplay."""

    solvable: bool
    line: list[str]


def prove(deal: Deal, budget: float) -> Proof | None:
    """Asks the solver whether `deal` can be won under safe autoplay, and for a short line (the par)
    in `budget` seconds.

    Returns None when the solver gave up (the seed is then skipped: a daily is only ever a deal
    proved solvable). Tests replace this function to avoid the solver's time budget.
    """
    try:
        from games.engine.solver import par_line  # loaded only when a daily is made
    except ImportError:
        raise ServiceError("daily_unavailable", "the solver is not installed: no daily can be made", status=503) from None

    args = (services.board_of_deal(deal).to_text(), budget, settings.DAILY_SOLVE_BUDGET)
    if settings.DAILY_SOLVE_IN_WORKER:
        # In a process of its own: in a server thread the pure-Python search holds the interpreter
        # lock for its whole budget, and every move of every game waits for it (measured in
        # docs/daily.md).
        # "spawn": forking a process that runs threads and an event loop is unsafe.
        with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as worker:
            result, line = worker.submit(par_line, *args).result()
    else:
        result, line = par_line(*args)
    if result == "unsolvable":
        return Proof(False, [])
    if result != "solved":
        return None
    return Proof(True, line)


def deal_for(date: dt.date, index: int) -> Deal:
    """The stored `seed:` deal of the `index`-th seed of `date` (the id never says it is a daily)."""
    return services.stored_deal(parse_deal(f"seed:{seed_for(date, index)}"))


def make_daily(date: dt.date, *, budget: float, before_each_seed=lambda: None) -> DailyChallenge:
    """Finds `date`'s daily (first seed proved solvable, its par) and stores it; slow (the solver
    searches `budget` seconds for the par). `before_each_seed()` is called before each seed's proof.

    Idempotent: when the row appeared meanwhile (another process), that row is returned; the row's
    `made_now` says whether this call stored it.
    """
    for index in range(settings.DAILY_MAX_SEEDS):
        before_each_seed()
        deal = deal_for(date, index)
        started = time.monotonic()
        proof = prove(deal, budget)
        if proof is None or not proof.solvable:
            logger.info("daily:%s seed index %s skipped (%s)", date, index, "gave up" if proof is None else "unsolvable")
            continue
        # Never publish a par the rules engine does not accept as a win.
        check = verify(services.board_of_deal(deal), proof.line, autoplay="safe")
        if not (check.valid and check.won):
            logger.error("daily:%s seed index %s: the solver's line does not win (%s)", date, index, check.error)
            continue
        daily, created = DailyChallenge.objects.get_or_create(
            date=date,
            defaults={"deal": deal, "seed_index": index, "par": len(proof.line), "par_line": " ".join(proof.line)},
        )
        if created:
            logger.info("daily:%s made: seed index %s, par %s (%.1f s)", date, index, daily.par, time.monotonic() - started)
        daily.made_now = created
        return daily
    raise ServiceError(
        "daily_unavailable", f"no solvable deal could be proved for daily:{date.isoformat()}", status=503
    )


def _lock_key(date: dt.date) -> str:
    return f"daily:make:{date.isoformat()}"


def ensure_daily(date: dt.date, *, wait: float | None = None, budget: float | None = None) -> DailyChallenge:
    """The daily of `date`, made now if missing (no check of the date: callers decide which days), for the
    sweeper (`make_ahead`) and `manage.py daily`; never for a request (reads never write: `get_daily`).

    One caller makes it under a cache lock (shared by every process when the cache is Redis); the
    others poll for the row for up to `wait` seconds (DAILY_WAIT_SECONDS when not given), then get a
    503 `daily_pending` with `retry_after`. The lock lasts one seed's proof and is renewed before each,
    so a maker that dies blocks the day for a minute at most. Should two makers ever run at once (the
    lock expired, a per-process cache, or the cache down), `get_or_create` keeps the first row and the
    seed sequence is deterministic anyway. `budget`: seconds of par search (DAILY_PAR_BUDGET when not
    given; the command may give more).
    """
    found = _stored(date)
    if found is not None:
        return found
    wait = settings.DAILY_WAIT_SECONDS if wait is None else wait
    budget = settings.DAILY_PAR_BUDGET if budget is None else budget
    key, lock_for = _lock_key(date), int(budget + settings.DAILY_SOLVE_BUDGET + 30)
    if _cache_call("add", key, "1", timeout=lock_for, failed=True):
        try:
            return make_daily(date, budget=budget, before_each_seed=lambda: _cache_call("touch", key, lock_for, failed=False))
        finally:
            _cache_call("delete", key, failed=None)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        time.sleep(0.05)
        found = _stored(date)
        if found is not None:
            return found
    raise _pending(date)


def _cache_call(method: str, *args, failed, **kwargs):
    """A call of the cache that answers `failed` when the cache (Redis) is down: the daily is then
    made without the shared lock, which `get_or_create` makes safe."""
    try:
        return getattr(cache, method)(*args, **kwargs)
    except Exception as exc:
        logger.warning("daily lock: cache.%s failed (%s: %s); going on without it", method, type(exc).__name__, exc)
        return failed


#: Seconds a client is told to wait (`retry_after`) before asking again for a daily being prepared.
PENDING_RETRY_AFTER_S = 2

#: The days the sweeper keeps made: today's and tomorrow's, so that the day turns with its daily ready.
DAYS_AHEAD = 2


def _stored(date: dt.date) -> DailyChallenge | None:
    return DailyChallenge.objects.select_related("deal").filter(date=date).first()


def _being_made(date: dt.date) -> bool:
    """Whether a maker (the sweeper, the command) holds the day's lock now."""
    return bool(_cache_call("get", _lock_key(date), failed=False))


def get_daily(date: dt.date) -> DailyChallenge:
    """The daily of `date` for players: a day that has begun (UTC) and whose daily is made. It only reads:
    the sweeper and the command make dailies ahead (`make_ahead`), never a request. Today's, when not
    made yet (the first seconds of a fresh server, or the solver still at work), is a 503 `daily_pending`
    with `retry_after`, after a short wait (`DAILY_WAIT_SECONDS`, polling the row) while a maker holds the
    day's lock; a missing past day is a 404."""
    current = today()
    if date > current:
        raise ServiceError("not_found", f"the daily of {date.isoformat()} has not begun", status=404)
    found = _stored(date)
    if found is not None:
        return found
    if date < current:
        raise ServiceError("not_found", f"there is no daily for {date.isoformat()}", status=404)
    deadline = time.monotonic() + settings.DAILY_WAIT_SECONDS
    while _being_made(date) and time.monotonic() < deadline:
        time.sleep(0.05)
        found = _stored(date)
        if found is not None:
            return found
    raise _pending(date)


def _pending(date: dt.date) -> ServiceError:
    return ServiceError(
        "daily_pending",
        f"the daily of {date.isoformat()} is being prepared: try again in a few seconds",
        status=503,
        extra={"retry_after": PENDING_RETRY_AFTER_S},
    )


def make_ahead(days: int = DAYS_AHEAD) -> list[DailyChallenge]:
    """For the sweeper: makes the missing dailies of today and the following days (`days` in all, today
    first), each under its day's lock; the dailies it made. A day whose lock another process holds is
    left to it (`ensure_daily` without a wait), and a day that cannot be made (no seed proved, the
    solver missing) is logged and tried again at the next call, after the days that follow it."""
    first = today()
    wanted = [first + dt.timedelta(days=i) for i in range(days)]
    have = set(DailyChallenge.objects.filter(date__in=wanted).values_list("date", flat=True))
    made = []
    for date in wanted:
        if date in have:
            continue
        try:
            row = ensure_daily(date, wait=0)
        except ServiceError as error:
            if error.code != "daily_pending":  # daily_pending: another process is making it
                logger.error("daily:%s could not be made: %s", date, error.message)
            continue
        if getattr(row, "made_now", False):
            made.append(row)
    return made


def parse_date(text: str) -> dt.date:
    """A `YYYY-MM-DD` path parameter; 400 when it is not a calendar date."""
    try:
        return parse_day(text)
    except ValueError:
        raise ServiceError("invalid_request", f"{text!r} is not a date: write it as YYYY-MM-DD") from None


def published(date: dt.date) -> DailyChallenge:
    """A daily that players may read about (leaderboard, histogram, share): begun and made, as
    `get_daily` finds it (today's not made yet: 503 `daily_pending`; a past day's: 404)."""
    return get_daily(date)


def past_dailies():
    """The dailies of days that are over, newest first (a query: the archive pages it)."""
    return DailyChallenge.objects.filter(date__lt=today()).order_by("-date")


def was_made(date: dt.date) -> bool:
    return DailyChallenge.objects.filter(date=date).exists()


def neighbours(date: dt.date) -> tuple[dt.date | None, dt.date | None]:
    """The nearest days before and after `date` that have a daily a page can show (past days that
    were made, and today, whose page says so while its daily is being prepared)."""
    current = today()
    made = DailyChallenge.objects.values_list("date", flat=True)
    before = made.filter(date__lt=date).order_by("-date").first()
    after = made.filter(date__gt=date, date__lt=current).order_by("date").first() or (current if date < current else None)
    return before, after


# --- ranked play --------------------------------------------------------------------------------


def ranked_game_of(user, date: dt.date) -> Game | None:
    return Game.objects.select_related("player", "deal", "daily_game").filter(daily_game__daily_id=date, daily_game__ranked=True, player=user).first()


def start_ranked_game(user) -> tuple[Game, bool]:
    """The caller's one ranked game of today's daily, created (safe autoplay, clock from now) on the
    first call: (game, created). A concurrent second call gets the same game, never a second one."""
    daily = get_daily(today())
    existing = ranked_game_of(user, daily.date)
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            game = services.create_game(
                player=user, deal=daily.deal, autoplay=Game.Autoplay.SAFE, server_clock=True, record=played_as(daily.date, ranked=True)
            )
            DailyChallenge.objects.filter(pk=daily.pk).update(players=F("players") + 1)
    except IntegrityError:
        # Another request of the same player created it first: the database's constraint decided.
        existing = ranked_game_of(user, daily.date)
        if existing is None:
            raise
        return existing, False
    return game, True


def played_as(date: dt.date, *, ranked: bool = False) -> policies.Recorder:
    """The daily's record of a new game played as the daily of `date`: its ranked game (the database
    holds one per player), or a casual one shown under `daily:DATE` (asked for by that id, or a race's)."""

    def record(game: Game) -> None:
        DailyGame.objects.create(game=game, daily_id=date, player_id=game.player_id, ranked=ranked)

    return record


def ranks(game: Game) -> bool:
    """Whether a won ranked game belongs on its day's leaderboard: not held by a review (games.fairplay)."""
    return game.status == Game.Status.WON and game.review in (Game.Review.NONE, Game.Review.CLEARED)


def is_ranked_win(game: Game) -> bool:
    """The changes the daily follows (games.play.follow_ups): a ranked game won. No query for the rest."""
    return game.status == Game.Status.WON and ranked_day(game) is not None


def rank_win(game: Game) -> None:
    """A ranked game won: on its day's leaderboard, unless fair play's review, which runs first, held it."""
    if ranks(game):
        leaderboard.add_result(game)


def is_ranked(game: Game) -> bool:
    """A ranked daily's game (read with it: no query)."""
    return ranked_day(game) is not None


def label(game: Game) -> str | None:
    """The id a game played as a daily is shown under (`daily:DATE`, ranked or not), else None."""
    day = shown_day(game)
    return f"daily:{day.isoformat()}" if day is not None else None


def games_shown_under(date: dt.date) -> Q:
    """The games shown under `daily:DATE`: its ranked games and the casual ones asked for by that id."""
    return Q(daily_game__daily_id=date)


def games_labelled() -> Q:
    return Q(daily_game__isnull=False)


def follow_verdict(game: Game) -> None:
    """A verdict on a ranked result (games.fairplay): on or off its day's leaderboard with its review state."""
    if ranks(game):
        leaderboard.add_result(game)
    else:
        leaderboard.remove_result(game)


# --- what the daily adds to every game (games.play.policies), and its end of day ---------------------------


# --- a daily's secrecy: one rule, one answer ---------------------------------------------------------------


def _kept_secret(what: str) -> ServiceError:
    return ServiceError(
        "forbidden", f"{what} is shown once its day is over (midnight UTC): it is played ranked, at /api/daily/play/", status=403
    )


def shown_daily(date: dt.date) -> DailyChallenge:
    """The one rule of a daily's secrecy, for its `daily:DATE` id: its deal is shown, dealt to casual
    play, solved, raced and ranked on boards only once its day is over. Before (today's or a later
    day's) every endpoint answers 403 `forbidden`, and `refuse_a_daily_in_play` answers the same for
    its `seed:` id; a past day without a daily is 404 `not_found`."""
    if date >= today():
        raise _kept_secret(f"the deal of daily:{date.isoformat()}")
    found = _stored(date)
    if found is None:
        raise ServiceError("not_found", f"there was no daily on {date.isoformat()}", status=404)
    return found


def refuse_a_daily_seed(deal_id: str) -> None:
    """The same rule for a daily's deal asked by its `seed:` id. Should its seed be known (a leaked or
    default secret makes it computable), it is still not dealt, shown or solved outside the ranked game
    until its day is over: a player would practise it, or ask hints on it, first."""
    if deal_id.startswith("seed:") and DailyChallenge.objects.filter(deal_id=deal_id, date__gte=today()).exists():
        raise _kept_secret("this deal, a daily's,")


def deal_of_day(deal_id) -> tuple[Deal, policies.Recorder]:
    """The deal of a `daily:DATE` id a player asks a casual game of (a day that is over), and the record
    that shows the game under that id."""
    found = shown_daily(deal_id.value)
    return found.deal, played_as(found.date)


def refuse_a_daily_in_play(deal: Deal) -> None:
    """Play's deal guard: a daily's deal is not dealt, shown or solved by its `seed:` id while its day is on."""
    refuse_a_daily_seed(deal.pk)


def day_deadline(game: Game) -> policies.Deadline | None:
    """A ranked game ends with its day (midnight UTC): the day's par line and replays are public then."""
    date = ranked_day(game)
    if date is None:
        return None
    reason = f"the daily of {date.isoformat()} is over: its ranked play ended at midnight UTC"
    return policies.Deadline(day_end(date), reason, clock=now)


def past_day_games() -> Q:
    """Ranked games of a day that is over."""
    return RANKED & Q(daily_game__daily_id__lt=today())


def hidden_ranked_games(viewer) -> Q:
    """Another player's ranked game stays hidden from everyone until its day is over. Winning that
    daily oneself once opened them: a throwaway account won it (a solver's line at a human pace), read
    the leader's line, and the main account played it for the same count in less time."""
    return RANKED & Q(daily_game__daily_id__gte=today())


def no_help_in_ranked_play(deal_id: str, player, game) -> None:
    """No hints in a ranked game, nor any help on the deal of a ranked daily the player has not finished."""
    if game is not None and is_ranked(game):
        raise ServiceError("forbidden", "no hints in ranked games", status=403)
    if getattr(player, "is_authenticated", False) and Game.objects.filter(
        RANKED, player=player, deal_id=deal_id, status=Game.Status.PLAYING
    ).exists():
        raise ServiceError("forbidden", "no help on the deal of your ranked daily while you play it", status=403)


#: Days back the sweeper looks for ranked games left playing, the first time it looks in a day.
CATCH_UP_DAYS = 7
_ENDED_THROUGH = "daily:ended-through"


def end_past_days() -> int:
    """For the sweeper: resigns every ranked game still playing after its day; how many it resigned.

    Once a day: after midnight the day's ranked games are looked through once (and the days before,
    up to CATCH_UP_DAYS, should a sweep have been missed), then the sweeps of the rest of the day
    look at none; no ranked game of a day that is over is made. The day looked through last is kept
    in the cache (shared by the processes with Redis; without it each process looks once a day)."""
    yesterday = today() - dt.timedelta(days=1)
    if _cache_call("get", _ENDED_THROUGH, failed=None) == yesterday.isoformat():
        return 0
    first = yesterday - dt.timedelta(days=CATCH_UP_DAYS - 1)
    ended = 0
    left = Game.objects.filter(RANKED, status=Game.Status.PLAYING, daily_game__daily_id__gte=first, daily_game__daily_id__lte=yesterday)
    for game_id in left.values_list("pk", flat=True):
        ended += services.end_time_up(game_id)
    _cache_call("set", _ENDED_THROUGH, yesterday.isoformat(), timeout=2 * 86400, failed=None)
    return ended


def connect() -> None:
    """Adds the daily's rules to play (games/apps.py calls it once the app is ready)."""
    policies.add_read_with("daily_game")
    policies.add_labels(policies.Labels("daily", label, is_ranked, games_shown_under, games_labelled))
    policies.add_deal_source("daily", deal_of_day)
    policies.add_deal_guard(refuse_a_daily_in_play)
    policies.add_deadline_rule(day_deadline)
    policies.add_expiry_rule(past_day_games)
    policies.add_hiding_rule(hidden_ranked_games)
    policies.add_help_guard(no_help_in_ranked_play)
