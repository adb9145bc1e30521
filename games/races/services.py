"""Race lifecycle: open -> countdown -> running -> finished, ghost opponents, and racers' progress.

Every change bumps `Race.version` and is published on the race's group after commit (best effort:
sockets resync from the database on a gap). Games are created only through `services.create_game`, at
the start instant decided by the server, and resigned only through `services.resign`.

Timed transitions (the countdown's end, a ghost's next recorded action, the time limit) are applied
by `advance()`, which the sweeper (games/sweeper.py) runs for every race that has one due and a race's
sockets run at the instant it is due. Each transition is idempotent under the race's row lock, so
several processes may try at once. A read never writes: `race_payload` shows a race past its time
limit as finished, and a ghost where its recorded pace has it, before anyone has stored it so.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections import OrderedDict
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.closing import lock_open_account
from accounts.selectors import friend_ids, player_named
from accounts.signals import account_closed, account_closing
from freecell_site.errors import ServiceError
from games import events
from games.daily import services as daily
from games.daily.models import DailyChallenge
from games.engine import parse_deal, random_deal
from games.play import policies, services
from games.play.integrity import replayed
from games.play.models import Deal, Game
from games.play.payloads import deal_label, review_state
from games.races.models import Race, RaceEntry, RaceInvite
from games.races.payloads import Ghost, RaceNow, Racer, race_object, racer_object

# No 0/O, 1/I/L: codes are read aloud and typed from phones.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6


def countdown_s() -> float:
    return float(settings.RACE_COUNTDOWN_S)


def max_racers() -> int:
    return int(settings.RACE_MAX_RACERS)


def default_time_limit_s() -> int:
    return int(settings.RACE_TIME_LIMIT_S)


def public_countdown_s() -> float:
    """The countdown of a race that starts by itself (a public race once two racers are in, an accepted
    challenge): long enough for a racer to come to the race's page, and for more to join a public one."""
    return float(settings.RACE_PUBLIC_COUNTDOWN_S)


def public_wait_s() -> float:
    """How long an open public race waits for a second racer before it is called off."""
    return float(settings.RACE_PUBLIC_WAIT_S)


#: A public race in its countdown takes late racers until this close to its start instant.
LATE_JOIN_MARGIN = dt.timedelta(seconds=1)


def join_link(code: str) -> str:
    return f"/races/{code}/"


def ends_at(race: Race) -> dt.datetime | None:
    if race.starts_at is None:
        return None
    return race.starts_at + dt.timedelta(seconds=race.time_limit_s)


def race_of_game(game: Game) -> Race | None:
    """The race `game` is played in (None outside races): its page links to it, and its time limit
    (`ends_at`) makes a resign from then on the limit's, which the page says rather than "You resigned"."""
    entry = RaceEntry.objects.select_related("race").filter(game=game).first()
    return entry.race if entry else None


# --- ghosts -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GhostStep:
    """The recorded game after one of its actions: when (ms after its start) and how far it was."""

    at_ms: int
    moves: int
    cards_home: int


@dataclass(frozen=True)
class GhostTimeline:
    game_id: int
    username: str
    start_cards_home: int
    steps: tuple[GhostStep, ...]
    won: bool
    elapsed_ms: int | None

    def due(self, race_ms: float) -> int:
        """How many recorded actions had happened `race_ms` after the start."""
        count = 0
        for step in self.steps:
            if step.at_ms > race_ms:
                break
            count += 1
        return count

    def finished_at_step(self, step: int) -> bool:
        return self.won and step >= len(self.steps)


_timelines: OrderedDict[tuple, GhostTimeline] = OrderedDict()
_TIMELINE_CACHE = 256


def ghost_timeline(game: Game) -> GhostTimeline:
    """The recorded progress of a finished game, action by action (cached: a finished game never
    changes, but its player's name does when they close their account: the name is in the key)."""
    key = (game.pk, game.created_at, game.finished_at, game.player.username)
    cached = _timelines.get(key)
    if cached is not None:
        _timelines.move_to_end(key)
        return cached
    start_home = 0
    steps = []
    for action, board, _line in replayed(game):
        if action is None:
            start_home = board.cards_home()
            continue
        # The game's clock at the action: a casual game's is its play time, which its elapsed_ms also is.
        at_ms = action.clock_ms if action.clock_ms is not None else max(0, int((action.created_at - game.created_at).total_seconds() * 1000))
        steps.append(GhostStep(at_ms=at_ms, moves=action.index + 1, cards_home=board.cards_home()))
    timeline = GhostTimeline(
        game_id=game.pk,
        username=game.player.username,
        start_cards_home=start_home,
        steps=tuple(steps),
        won=game.status == Game.Status.WON,
        elapsed_ms=game.elapsed_ms,
    )
    _timelines[key] = timeline
    while len(_timelines) > _TIMELINE_CACHE:
        _timelines.popitem(last=False)
    return timeline


def _ghost_of(race: Race) -> GhostTimeline | None:
    if race.ghost_of_id is None:
        return None
    ghost = race.ghost_of
    if ghost is None:  # the recorded game was deleted
        return None
    return ghost_timeline(ghost)


def ghost_step_at(race: Race, timeline: GhostTimeline, now: dt.datetime) -> int:
    """How many of the ghost's recorded actions have happened by `now` (none before the start; none
    after the time limit that had not happened by then)."""
    if race.starts_at is None or race.status in (Race.Status.OPEN, Race.Status.COUNTDOWN):
        return 0
    if race.status == Race.Status.FINISHED:
        return race.ghost_step
    return max(race.ghost_step, timeline.due(_race_ms(race, min(now, ends_at(race)))))


def next_ghost_at(race: Race) -> dt.datetime | None:
    """When the ghost's next recorded action is due (None when it has no more or the race is not running)."""
    timeline = _ghost_of(race)
    if timeline is None or race.status != Race.Status.RUNNING or race.ghost_step >= len(timeline.steps):
        return None
    return race.starts_at + dt.timedelta(milliseconds=timeline.steps[race.ghost_step].at_ms)


def timed_out(race: Race, now: dt.datetime | None = None) -> bool:
    """Whether a running race has reached its time limit (the sweeper then finishes it)."""
    return race.status == Race.Status.RUNNING and (now or timezone.now()) >= ends_at(race)


def waits_until(race: Race) -> dt.datetime | None:
    """When an open public race that nobody joined is called off (None for a race that waits for its owner)."""
    if not race.public or race.status != Race.Status.OPEN:
        return None
    return race.created_at + dt.timedelta(seconds=public_wait_s())


def waited_out(race: Race, now: dt.datetime | None = None) -> bool:
    """Whether an open public race has waited for a second racer as long as it may (the sweeper then calls it off)."""
    until = waits_until(race)
    return until is not None and (now or timezone.now()) >= until


def status_at(race: Race, now: dt.datetime | None = None) -> str:
    """The race's status as it truly is: a running race past its time limit is finished, and so is an
    open public race that waited out its time."""
    return Race.Status.FINISHED if timed_out(race, now) or waited_out(race, now) else race.status


# --- the race object --------------------------------------------------------------------------


def _racer(entry: RaceEntry, limit: dt.datetime | None, *, time_is_up: bool = False) -> Racer:
    game = entry.game
    status = game.status if game else "waiting"
    finished_at = game.finished_at if game else None
    elapsed = game.elapsed_ms if game else None
    if game and time_is_up and status == Game.Status.PLAYING:
        # Past the limit before the sweeper has resigned it: shown as the sweeper will store it.
        status, finished_at = Game.Status.RESIGNED, limit
        elapsed = max(0, int((limit - game.created_at).total_seconds() * 1000))
    # A result held by fair play shows neither its moves nor its time, to anyone, until it is cleared.
    held = bool(game and game.held)
    return Racer(
        username=entry.player.username,
        game=game.pk if game else None,
        moves=None if held else (game.ply if game else 0),
        cards_home=game.cards_home if game else 0,
        status=status,
        rank=entry.rank,
        elapsed_ms=None if held else elapsed,
        ghost=False,
        review=review_state(game) if game else "none",
        # resigned by the time limit, not by the player (the page says "out of time")
        out_of_time=bool(game and status == Game.Status.RESIGNED and limit and finished_at >= limit),
    )


def _ghost_racer(status: str, step: int, timeline: GhostTimeline, rank: int | None, out_of_time: bool) -> Racer:
    done = timeline.steps[step - 1] if step else None
    finished = timeline.finished_at_step(step) and status != Race.Status.OPEN
    return Racer(
        username=timeline.username,
        game=None,  # the recorded game (its whole line) stays out of sight while racing it
        moves=done.moves if done else 0,
        cards_home=done.cards_home if done else timeline.start_cards_home,
        status="won" if finished else _unfinished_ghost_status(status),
        rank=rank if finished else None,
        elapsed_ms=timeline.elapsed_ms if finished else None,
        ghost=True,
        review="none",
        out_of_time=bool(not finished and out_of_time),
    )


def _unfinished_ghost_status(status: str) -> str:
    """A ghost that has not won: waiting before the start, playing while the race runs, and resigned
    once the race is over without it (as the time limit resigns every racer still playing)."""
    if status in (Race.Status.OPEN, Race.Status.COUNTDOWN):
        return "waiting"
    return "resigned" if status == Race.Status.FINISHED else "playing"


_GAME_BODY = ("game__state", "game__line", "player__password")


def race_now(race: Race) -> RaceNow:
    """The race as it truly is now, whether or not its due transitions are stored yet (a read writes
    nothing): past its limit it is finished, its racers still playing resigned, its ghost where the
    recorded pace has it."""
    now = timezone.now()
    limit = ends_at(race)
    time_is_up = timed_out(race, now)
    status = status_at(race, now)
    finished_at = limit if time_is_up else waits_until(race) if waited_out(race, now) else race.finished_at
    # Sent on every racer's move: the racers' positions and lines (the big columns) are not needed.
    entries = list(race.entries.select_related("player", "game").defer(*_GAME_BODY).order_by("joined_at", "id"))
    racers = [_racer(entry, limit, time_is_up=time_is_up) for entry in entries]
    timeline = _ghost_of(race)
    if timeline is not None:
        step = ghost_step_at(race, timeline, now)
        out_of_time = bool(finished_at and limit and finished_at >= limit)
        racers.append(_ghost_racer(status, step, timeline, _ghost_rank(step, entries, timeline), out_of_time))
    invited: list[str] = []
    if status in (Race.Status.OPEN, Race.Status.COUNTDOWN):
        invited = list(race.invites.order_by("created_at", "id").values_list("invited__username", flat=True))
    rematch = None
    if status == Race.Status.FINISHED:
        rematch = Race.objects.filter(rematch_of=race).order_by("id").values_list("code", flat=True).first()
    ghost = None
    if timeline is not None:
        ghost = Ghost(timeline.username, timeline.steps[-1].moves if timeline.steps else 0, timeline.elapsed_ms)
    return RaceNow(
        code=race.code,
        link=join_link(race.code),
        deal=deal_label(race),
        status=status,
        owner=race.owner.username,
        autoplay=race.autoplay,
        created_at=race.created_at,
        starts_at=race.starts_at,
        ends_at=limit,
        finished_at=finished_at,
        time_limit_s=race.time_limit_s,
        version=race.version,
        racers=racers,
        invited=invited,
        ghost=ghost,
        rematch=rematch,
        rematch_of=race.rematch_of.code if race.rematch_of_id else None,
        public=race.public,
    )


def race_payload(race: Race) -> dict:
    """The spec's race object (games.races.payloads.RaceSerializer) of the race as it is now."""
    return race_object(race_now(race))


def _publish_after_commit(race: Race) -> dict:
    payload = race_payload(race)
    transaction.on_commit(lambda: events.publish_race(payload))
    return payload


def _bump(race: Race, *fields: str) -> None:
    race.version += 1
    race.save(update_fields=["version", *fields])


# --- reading ----------------------------------------------------------------------------------

_RELATED = ("owner", "deal", "rematch_of", "ghost_of__player")


def normalize_code(code) -> str:
    return str(code or "").strip().upper()[:16]


def _not_found(code: str) -> ServiceError:
    return ServiceError("not_found", f"no race {code!r}", status=404)


def is_code(code: str) -> bool:
    """Whether a (normalized) code could be a race's: no query is made for one that cannot."""
    return bool(code) and all(char in CODE_ALPHABET for char in code)


def get_race(code) -> Race:
    code = normalize_code(code)
    if not is_code(code):
        raise _not_found(code)
    race = Race.objects.select_related(*_RELATED).filter(code=code).first()
    if race is None:
        raise _not_found(code)
    return race


def _lock(code: str) -> Race:
    race = Race.objects.select_for_update(of=("self",)).select_related(*_RELATED).filter(code=normalize_code(code)).first()
    if race is None:
        raise _not_found(code)
    return race


def _entry_of(race: Race, user) -> RaceEntry | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return race.entries.filter(player=user).first()


def races_of(user) -> dict:
    """The caller's races that are not over, and open races a friend invited them to."""
    mine = (
        Race.objects.filter(entries__player=user)
        .exclude(status=Race.Status.FINISHED)
        .select_related(*_RELATED)
        .order_by("-created_at")[:50]
    )
    invites = (
        RaceInvite.objects.filter(invited=user, race__status=Race.Status.OPEN)
        .exclude(race__entries__player=user)
        .select_related("race", "invited_by")
        .order_by("-created_at")[:50]
    )
    return {
        "races": [race_payload(race) for race in mine],
        "invites": [{"code": i.race.code, "link": join_link(i.race.code), "invited_by": i.invited_by.username} for i in invites],
    }


# --- creating, joining, inviting --------------------------------------------------------------


def resolve_deal(deal: str | None) -> tuple[Deal, DailyChallenge | None]:
    """The Deal row for a race: any `ms:`/`seed:` deal, a past daily (with its challenge, which names
    the race), or a fresh seed when none is given."""
    deal_id = parse_deal(deal if deal else random_deal())  # InvalidDeal carries the spec's code
    if deal_id.kind == "daily":
        challenge = daily.shown_daily(deal_id.value)
        return challenge.deal, challenge
    return services.get_deal(str(deal_id)), None


def _new_race(**fields) -> Race:
    for _ in range(20):
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        try:
            with transaction.atomic():
                return Race.objects.create(code=code, version=1, **fields)
        except IntegrityError as exc:  # the code was taken: draw again
            if "quick" in str(exc):  # another quick race is open: quick play joins it instead
                raise
            continue
    raise ServiceError("server_busy", "could not find a free race code; try again", status=503)


@transaction.atomic
def create_race(
    *, owner, deal: str | None = None, autoplay: str = "safe", time_limit_s: int | None = None, public: bool = False
) -> Race:
    """An open race on `deal` (a fresh random seed when none), with its owner as the first racer. A
    public one is listed for anyone and starts by itself once a second racer is in."""
    if autoplay not in Game.Autoplay.values:
        raise ServiceError("invalid_request", "autoplay must be one of: none, safe")
    lock_open_account(owner)
    deal_row, past_daily = resolve_deal(deal)
    race = _new_race(
        deal=deal_row,
        past_daily=past_daily,
        owner=owner,
        autoplay=autoplay,
        time_limit_s=time_limit_s or default_time_limit_s(),
        public=public,
    )
    RaceEntry.objects.create(race=race, player=owner)
    _publish_after_commit(race)
    return race


@transaction.atomic
def create_ghost_race(*, owner, game_id, time_limit_s: int | None = None) -> Race:
    """A race against a recorded won game (the owner's own or a friend's), replayed at its recorded pace."""
    lock_open_account(owner)
    game = Game.objects.select_related("player", "deal").filter(pk=game_id).first() if isinstance(game_id, int) else None
    if game is None or not policies.can_view_game(owner, game):
        raise ServiceError("not_found", f"no game {game_id}", status=404)
    if game.player_id != owner.pk and game.player_id not in friend_ids(owner):
        raise ServiceError("forbidden", "you can race a ghost of your own games or of a friend's", status=403)
    if game.status != Game.Status.WON:
        raise ServiceError("game_not_won", "only a won game can be raced as a ghost", status=409)
    if game.daily_id is not None:
        daily.shown_daily(game.daily_id)
    race = _new_race(
        deal=game.deal,
        past_daily_id=game.daily_id or game.past_daily_id,  # raced under the id the game shows
        owner=owner,
        autoplay=game.autoplay,
        ghost_of=game,
        time_limit_s=time_limit_s or default_time_limit_s(),
    )
    RaceEntry.objects.create(race=race, player=owner)
    _publish_after_commit(race)
    return race


@transaction.atomic
def join(*, code, user) -> Race:
    """Adds the user to an open race (joining twice is harmless), or to a public race in its countdown."""
    lock_open_account(user)  # before the race's lock, as close_account takes them
    race = _lock(code)
    if _entry_of(race, user) is not None:
        return race
    if not late_joinable(race):
        _check_open(race)
    _enter(race, user)
    return race


def _enter(race: Race, user) -> None:
    """Adds a racer to a race that takes them (locked): a public race's second racer starts its
    countdown, and a racer who comes during the countdown is told the race is starting."""
    if race.entries.count() >= max_racers():
        raise ServiceError("race_full", f"a race has at most {max_racers()} racers", status=409)
    entry = RaceEntry.objects.create(race=race, player=user)
    if race.public and race.status == Race.Status.OPEN and race.entries.count() >= 2:
        _count_down(race, public_countdown_s())
        return
    _bump(race)
    payload = _publish_after_commit(race)
    if race.status == Race.Status.COUNTDOWN:
        event = start_event(payload, None)
        transaction.on_commit(lambda: events.publish_player_event(entry.player_id, event))


def late_joinable(race: Race, now: dt.datetime | None = None) -> bool:
    """Whether a public race in its countdown still takes racers (until a second before its start)."""
    return (
        race.public
        and race.status == Race.Status.COUNTDOWN
        and race.starts_at is not None
        and race.starts_at - (now or timezone.now()) > LATE_JOIN_MARGIN
    )


def _check_open(race: Race) -> None:
    """Joining and inviting are for open races: a finished one (run, cancelled, or a public one that
    waited out its time) is `race_over`."""
    if status_at(race) == Race.Status.FINISHED:
        raise ServiceError("race_over", "this race is over", status=409)
    if race.status != Race.Status.OPEN:
        raise ServiceError("race_started", "this race has already started", status=409)


@transaction.atomic
def invite(*, code, user, username: str) -> Race:
    """A racer invites one of their accepted friends to an open race."""
    lock_open_account(user)
    race = _lock(code)
    if _entry_of(race, user) is None:
        raise ServiceError("forbidden", "only a racer can invite to this race", status=403)
    other = player_named(username)
    if other is None:
        raise ServiceError("not_found", f"no player named {username!r}", status=404)
    if other.pk not in friend_ids(user):
        raise ServiceError("forbidden", f"{username} is not your friend", status=403)
    _check_open(race)
    _, created = RaceInvite.objects.get_or_create(race=race, invited=other, defaults={"invited_by": user})
    if created:
        _bump(race)
        event = invitation_event(_publish_after_commit(race), user.username)
        transaction.on_commit(lambda: events.publish_player_event(other.pk, event))
    return race


# --- public races and quick play ----------------------------------------------------------------


def _waiting_public(now: dt.datetime):
    """Public races one may still join, oldest first: open ones that have not waited out their time,
    and those in a countdown that takes late racers."""
    return (
        Race.objects.filter(public=True, created_at__gt=now - dt.timedelta(seconds=public_wait_s()))
        .filter(Q(status=Race.Status.OPEN) | Q(status=Race.Status.COUNTDOWN, starts_at__gt=now + LATE_JOIN_MARGIN))
        .order_by("created_at", "id")
    )


def open_public_races():
    """The public races a player may join now, oldest first (`GET /api/races/?status=open&public=1`).
    A query: the list pages it."""
    return _waiting_public(timezone.now()).select_related(*_RELATED)


def quick(*, user) -> tuple[Race, bool]:
    """Quick play: the oldest public race that takes the player, or a new public race on a fresh deal.

    Returns (race, created). Calls at once meet in one race: a candidate is joined under its row lock
    (and skipped when it no longer takes racers), and at most one race opened by quick play is open at
    a time (the constraint `one_open_quick_race`), so of two calls that found nothing, the second to
    insert waits for the first's commit, fails, and joins the first's race on its next try. A player
    already waiting in a public race gets that race back."""
    for _attempt in range(5):
        try:
            with transaction.atomic():
                return _quick(user)
        except IntegrityError as exc:
            if "quick" not in str(exc):
                raise
    raise ServiceError("server_busy", "quick play is busy; try again", status=503, extra={"retry_after": 1})


#: The key of PostgreSQL's advisory lock that quick calls take in turn (any number: only quick play uses it).
QUICK_PLAY_LOCK = 0x7175_6963


def _one_quick_call_at_a_time() -> None:
    """Quick calls take turns, each seeing the races the calls before it committed. Without it a call
    that looked before the first race was committed opened a second once the first had left `open` for
    its countdown (the constraint `one_open_quick_race` holds only open ones). On PostgreSQL a lock held
    to the transaction's end; SQLite runs one writer at a time, in one process."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [QUICK_PLAY_LOCK])


def _quick(user) -> tuple[Race, bool]:
    lock_open_account(user)
    _one_quick_call_at_a_time()
    now = timezone.now()
    waiting = _waiting_public(now)
    mine = waiting.filter(entries__player=user).select_related(*_RELATED).first()
    if mine is not None:
        return mine, False
    for code in waiting.values_list("code", flat=True)[:20]:
        race = _lock(code)
        if (race.status == Race.Status.OPEN and not waited_out(race)) or late_joinable(race):
            if race.entries.count() < max_racers():
                _enter(race, user)
                return race, False
    # A quick race stored open that waited out its time is called off first: it holds the constraint.
    for code in Race.objects.filter(quick=True, status=Race.Status.OPEN).values_list("code", flat=True):
        advance(code)
    race = _new_race(
        deal=resolve_deal(None)[0], owner=user, time_limit_s=default_time_limit_s(), public=True, quick=True
    )
    RaceEntry.objects.create(race=race, player=user)
    _publish_after_commit(race)
    return race, True


def race_of_two(owner, other, *, deal: Deal, past_daily: DailyChallenge | None, autoplay: str) -> Race:
    """An accepted challenge's race (in the caller's transaction): the two racers, its countdown begun
    at once (RACE_PUBLIC_COUNTDOWN_S), the start told on both players' event streams."""
    race = _new_race(deal=deal, past_daily=past_daily, owner=owner, autoplay=autoplay, time_limit_s=default_time_limit_s())
    RaceEntry.objects.create(race=race, player=owner)
    RaceEntry.objects.create(race=race, player=other)
    _count_down(race, public_countdown_s())
    return race


# --- starting and the start instant -----------------------------------------------------------


@transaction.atomic
def start(*, code, user) -> Race:
    """The owner starts the countdown; the server decides the start instant (now + RACE_COUNTDOWN_S)."""
    race = _lock(code)
    if race.owner_id != getattr(user, "pk", None):
        raise ServiceError("forbidden", "only the race's owner can start it", status=403)
    if status_at(race) == Race.Status.FINISHED:
        raise ServiceError("race_over", "this race is over", status=409)
    if race.public:
        raise ServiceError("forbidden", "a public race starts by itself once a second racer is in", status=403)
    if race.status == Race.Status.OPEN:
        _count_down(race, countdown_s())
    return race


def _count_down(race: Race, seconds: float) -> None:
    """Starts an open race's countdown (race locked): the server decides the start instant."""
    race.status = Race.Status.COUNTDOWN
    race.starts_at = timezone.now() + dt.timedelta(seconds=seconds)
    _bump(race, "status", "starts_at")
    if race.starts_at <= timezone.now():
        _reveal(race)
    else:
        _tell_racers(race, _publish_after_commit(race))


def _reveal(race: Race) -> None:
    """At the start instant: every racer's game, created with the clock at that instant (race locked)."""
    for entry in race.entries.select_related("player").order_by("joined_at", "id"):
        if entry.game_id is None:
            entry.game = services.create_game(
                player=entry.player, deal=race.deal, past_daily_id=race.past_daily_id, autoplay=race.autoplay, started_at=race.starts_at,
                by_player=False, server_clock=True, deadline=ends_at(race),
            )
            entry.save(update_fields=["game"])
    race.status = Race.Status.RUNNING
    _bump(race, "status")
    _tell_racers(race, _publish_after_commit(race))


# --- what a player's event stream is told (games.events.publish_player_event; docs/streams.md) ----------


def invitation_event(race: dict, invited_by: str) -> dict:
    return {"type": "race_invitation", "race": race, "invited_by": invited_by}


def start_event(race: dict, game_id: int | None) -> dict:
    """`race_starting` when the countdown begins (the race's `starts_at` says when the boards are
    shown), `race_started` once they are, with the player's own game."""
    if race["status"] == Race.Status.COUNTDOWN:
        return {"type": "race_starting", "race": race}
    return {"type": "race_started", "race": race, "game": game_id}


def _tell_racers(race: Race, payload: dict) -> None:
    """Each racer's event streams learn, after commit, that the race is starting or has started."""
    told = [(entry.player_id, start_event(payload, entry.game_id)) for entry in race.entries.order_by("joined_at", "id")]
    transaction.on_commit(lambda: [events.publish_player_event(player_id, event) for player_id, event in told])


def pending_events(user) -> list[dict]:
    """What a player's event stream opens with (and sends again after the bus was away): the open
    races they are invited to and have not joined, and their races that are starting or running."""
    invites = (
        RaceInvite.objects.filter(invited=user, race__status=Race.Status.OPEN)
        .exclude(race__entries__player=user)
        .select_related("invited_by", *(f"race__{name}" for name in _RELATED))
        .order_by("created_at", "id")[:50]
    )
    found = [invitation_event(race_payload(invite.race), invite.invited_by.username) for invite in invites]
    entries = (
        RaceEntry.objects.filter(player=user, race__status__in=(Race.Status.COUNTDOWN, Race.Status.RUNNING))
        .select_related(*(f"race__{name}" for name in _RELATED))
        .order_by("race__created_at", "race_id")[:50]
    )
    for entry in entries:
        race = race_payload(entry.race)
        if race["status"] != Race.Status.FINISHED:  # past its time limit, not yet stored so
            found.append(start_event(race, entry.game_id))
    return found


def advance(race: Race | str) -> Race:
    """Applies what is due (a write, for the sweeper and the race's sockets): the reveal at the start
    instant, the ghost's recorded actions, the time limit."""
    if not isinstance(race, Race):
        race = get_race(race)
    now = timezone.now()
    if waited_out(race, now):
        with transaction.atomic():
            race = _lock(race.code)
            if waited_out(race, now):
                _finish(race)
                race.finished_at = waits_until(race)
                _bump(race, "status", "finished_at")
                _publish_after_commit(race)
        return race
    if race.status == Race.Status.COUNTDOWN and race.starts_at and race.starts_at <= now:
        with transaction.atomic():
            race = _lock(race.code)
            if race.status == Race.Status.COUNTDOWN:
                _reveal(race)
    if race.status == Race.Status.RUNNING and race.ghost_of_id:
        timeline = _ghost_of(race)
        if timeline is not None and timeline.due(_race_ms(race, min(now, ends_at(race)))) > race.ghost_step:
            with transaction.atomic():
                race = _lock(race.code)
                _advance_ghost(race, timeline, now)
    if timed_out(race, now):
        race = _time_out(race)
    return race


def due_races() -> list[str]:
    """The codes of races with a transition due now (for the sweeper): a countdown over, a ghost's next
    action or its race's time limit, a public race that waited out its time. A race of players ends at
    its time limit through its games, which the sweeper reads by their deadline (services.end_due_games),
    so only ghost races, which are few, are looked at one by one."""
    now = timezone.now()
    countdowns = Race.objects.filter(status=Race.Status.COUNTDOWN, starts_at__lte=now)
    running = Race.objects.filter(status=Race.Status.RUNNING, ghost_of__isnull=False).select_related(*_RELATED)
    due = list(countdowns.values_list("code", flat=True))
    waited = Race.objects.filter(public=True, status=Race.Status.OPEN, created_at__lte=now - dt.timedelta(seconds=public_wait_s()))
    due += list(waited.values_list("code", flat=True)[:1000])
    for race in running[:1000]:
        ghost_due = next_ghost_at(race)
        if timed_out(race, now) or (ghost_due is not None and ghost_due <= now):
            due.append(race.code)
    return due


def _race_ms(race: Race, now: dt.datetime) -> float:
    return (now - race.starts_at).total_seconds() * 1000


def _advance_ghost(race: Race, timeline: GhostTimeline, now: dt.datetime) -> None:
    due = timeline.due(_race_ms(race, min(now, ends_at(race))))
    if race.status != Race.Status.RUNNING or due <= race.ghost_step:
        return
    race.ghost_step = due
    if timeline.finished_at_step(due):
        _rerank(race)
    _bump(race, "ghost_step")
    _publish_after_commit(race)


def _time_out(race: Race) -> Race:
    """Past the time limit: every racer still playing is resigned as of the limit; the last resign
    finishes the race."""
    for game_id in RaceEntry.objects.filter(race=race, game__status=Game.Status.PLAYING).values_list("game_id", flat=True):
        services.end_time_up(game_id)
    with transaction.atomic():
        race = _lock(race.code)
        if race.status == Race.Status.RUNNING:
            _finish(race)
            _bump(race, "status", "finished_at")
            _publish_after_commit(race)
    return race


# --- progress, ranks, the end -----------------------------------------------------------------


def _ghost_rank(step: int, entries: list[RaceEntry], timeline: GhostTimeline) -> int | None:
    if not timeline.finished_at_step(step) or timeline.elapsed_ms is None:
        return None
    faster = sum(1 for e in entries if e.game and e.game.status == Game.Status.WON and (e.game.elapsed_ms or 0) < timeline.elapsed_ms)
    return faster + 1


def _rerank(race: Race) -> None:
    """Finish order by server time to win (ties: who finished first, then who joined first)."""
    entries = list(race.entries.select_related("game"))
    timeline = _ghost_of(race)
    ghost_ms = timeline.elapsed_ms if timeline and timeline.finished_at_step(race.ghost_step) else None
    winners = sorted(
        (e for e in entries if e.game and e.game.status == Game.Status.WON),
        key=lambda e: (e.game.elapsed_ms or 0, e.game.finished_at, e.joined_at, e.pk),
    )
    for position, entry in enumerate(winners, start=1):
        # The ghost ranks before a racer only when it was strictly faster (a tie goes to the living).
        rank = position + (1 if ghost_ms is not None and ghost_ms < (entry.game.elapsed_ms or 0) else 0)
        if entry.rank != rank:
            entry.rank = rank
            entry.save(update_fields=["rank"])
    for entry in entries:
        if entry.rank is not None and entry not in winners:
            entry.rank = None
            entry.save(update_fields=["rank"])


def _finish(race: Race) -> None:
    race.status = Race.Status.FINISHED
    race.finished_at = timezone.now()


def in_a_race(game: Game) -> bool:
    """The changes races follow (games.play.follow_ups): a game dealt with a deadline, as a race deals its
    racers' (a casual or ranked game has none). No query: the deadline is read with the game."""
    return game.deadline is not None and game.daily_id is None


#: The race of each racer's game seen here, once its reading committed: (game id, when it was dealt) ->
#: the race's code, for games in a running race without a ghost. A game stays in its race for life,
#: and such a game still playing means its race still runs (the race ends only once every game has),
#: so a racer's move that does not end their game needs no read of races at all.
_running_race_of: OrderedDict[tuple, str] = OrderedDict()
_RUNNING_RACES_CACHE = 10_000


def follow_game(game: Game) -> None:
    """Inside the transaction of every change of a racer's game: pushes the racer's progress, ranks a
    finisher, and ends the race when every racer has finished or resigned."""
    key = (game.pk, game.created_at)
    if game.status == Game.Status.PLAYING and key in _running_race_of:
        _publish_progress(_running_race_of[key], game)
        return
    entry = RaceEntry.objects.select_related("race").filter(game_id=game.pk).first()
    if entry is None:
        return
    if game.status == Game.Status.PLAYING and entry.race.status == Race.Status.RUNNING and entry.race.ghost_of_id is None:
        transaction.on_commit(lambda: _remember_running_race(key, entry.race.code))
        _publish_progress(entry.race.code, game)
        return
    race = Race.objects.select_for_update(of=("self",)).select_related("owner", "rematch_of").get(pk=entry.race_id)
    fields = []
    timeline = _ghost_of(race)
    if timeline is not None and race.status == Race.Status.RUNNING:
        # The ghost catches up first, so a finish is ranked against where the ghost is now.
        due = timeline.due(_race_ms(race, min(timezone.now(), ends_at(race))))
        if due > race.ghost_step:
            race.ghost_step = due
            fields.append("ghost_step")
    if game.status != Game.Status.PLAYING:
        _running_race_of.pop(key, None)
        _rerank(race)
        unfinished = race.entries.filter(game__status=Game.Status.PLAYING).exists()
        if race.status == Race.Status.RUNNING and not unfinished:
            _finish(race)
            fields += ["status", "finished_at"]
    _bump(race, *fields)
    _publish_after_commit(race)


def _remember_running_race(key: tuple, code: str) -> None:
    _running_race_of[key] = code
    if len(_running_race_of) > _RUNNING_RACES_CACHE:
        _running_race_of.popitem(last=False)  # the oldest game seen: likely over


def _publish_progress(code: str, game: Game) -> None:
    """A racer's move or undo that does not end their game: only their progress changed.

    It goes out as a small `race.progress` event (docs/websocket.md), without locking the race, bumping
    its version or reading the other racers, which would be most of the cost of a racer's move. A racer's
    progress events are ordered by their `moves` (the game's ply, which only grows). A finish, a
    resign and everything else that changes the race still send the whole race with a new version.
    """
    # A racer still playing has no rank and is not out of time; the player is read with the game.
    entry = RaceEntry(player=game.player, game=game)
    progress = {"code": code, "racer": racer_object(_racer(entry, None))}
    transaction.on_commit(lambda: events.publish_race_progress(progress))


# --- leaving, resigning, rematch --------------------------------------------------------------


def resign(*, code, user) -> Race:
    """Resigns the racer's game. Before the start, a racer leaves instead (the owner's leaving cancels)."""
    race = get_race(code)
    entry = _entry_of(race, user)
    if entry is None:
        raise ServiceError("forbidden", "you are not racing in this race", status=403)
    if race.status == Race.Status.OPEN:
        with transaction.atomic():
            race = _lock(code)
            if race.status == Race.Status.OPEN:
                if race.owner_id == user.pk:
                    _finish(race)
                    _bump(race, "status", "finished_at")
                else:
                    RaceEntry.objects.filter(race=race, player=user).delete()
                    _bump(race)
                _publish_after_commit(race)
                return race
    if race.status == Race.Status.COUNTDOWN:
        raise ServiceError("race_not_started", "the race has not started yet: resign once the boards are shown", status=409)
    entry = _entry_of(race, user)
    if entry is not None and entry.game_id is not None:
        services.resign(game_id=entry.game_id, user=user)
    return get_race(code)


@transaction.atomic
def rematch(*, code, user) -> tuple[Race, bool]:
    """A new race for the same racers on a fresh seed; everyone asking for it lands in the same one.

    Returns (race, created)."""
    lock_open_account(user)
    race = _lock(code)
    if _entry_of(race, user) is None:
        raise ServiceError("forbidden", "only a racer can ask for a rematch", status=403)
    if race.status != Race.Status.FINISHED:
        raise ServiceError("race_not_over", "a rematch can follow a finished race only", status=409)
    existing = Race.objects.select_related(*_RELATED).filter(rematch_of=race).order_by("id").first()
    if existing is not None:
        return existing, False
    if race.ghost_of_id is not None:
        raise ServiceError("invalid_request", "a ghost race has no rematch on a new deal: race the ghost again")
    new = _new_race(
        deal=resolve_deal(None)[0],
        owner=user,
        autoplay=race.autoplay,
        time_limit_s=race.time_limit_s,
        rematch_of=race,
    )
    RaceEntry.objects.create(race=new, player=user)
    # Racers who closed their account since are left out.
    for entry in race.entries.exclude(player=user).filter(player__is_active=True).select_related("player").order_by("joined_at", "id"):
        RaceEntry.objects.create(race=new, player=entry.player)
    _publish_after_commit(new)
    _bump(race)  # the old race's sockets learn the rematch's code
    _publish_after_commit(race)
    return new, True


# --- for sockets ------------------------------------------------------------------------------


def racer_game_id(race: Race, user) -> int | None:
    entry = _entry_of(race, user)
    return entry.game_id if entry else None


def race_view(code: str, viewer) -> dict:
    """The race as a socket shows it: its object, the viewer's game, and when the next change is due. A
    read: the socket's timer applies what is due first (`advance`)."""
    race = get_race(code)
    wake = wakeup_at(race)
    return {"race": race_payload(race), "my_game": racer_game_id(race, viewer), "wake_at": wake.isoformat() if wake else None}


def wakeup_at(race: Race) -> dt.datetime | None:
    """The next instant at which `advance` has something to do for this race."""
    if race.status == Race.Status.OPEN:
        return waits_until(race)
    if race.status == Race.Status.COUNTDOWN:
        return race.starts_at
    if race.status == Race.Status.RUNNING:
        moments = [m for m in (next_ghost_at(race), ends_at(race)) if m is not None]
        return min(moments) if moments else None
    return None


# --- what races add to every game (games.play.policies), and to closing an account -----------------------


def past_limit_race_ids() -> list[int]:
    """Running races whose time limit has passed (the sweeper finishes them within SWEEP_EVERY_S: few,
    and read by their start alone, as each race has its own limit)."""
    now = timezone.now()
    running = Race.objects.filter(status=Race.Status.RUNNING, starts_at__lte=now)
    return [pk for pk, starts_at, limit_s in running.values_list("pk", "starts_at", "time_limit_s") if now >= starts_at + dt.timedelta(seconds=limit_s)]


def past_limit_games() -> Q:
    """Racers' games of running races whose time limit has passed."""
    return Q(race_entry__race_id__in=past_limit_race_ids())


def finished_races(player=None):
    """Races that are over (stored finished, or past their time limit before the sweeper has stored
    them so), newest first by creation; only those `player` raced in when given. A query: lists page it."""
    over = Race.objects.filter(Q(status=Race.Status.FINISHED) | Q(pk__in=past_limit_race_ids()))
    if player is not None:
        over = over.filter(pk__in=RaceEntry.objects.filter(player=player).values("race_id"))
    return over.select_related(*_RELATED).order_by("-created_at", "-id")


def hidden_racing_games(viewer) -> Q:
    """A racer's game is hidden from everyone but its player until the race is over: the other racers
    see progress (the spec's race), not boards, and a finished line could be copied move for move by
    anyone, signed in or not, while the race runs (docs/races.md)."""
    running = Q(race_entry__race__status=Race.Status.RUNNING) & ~past_limit_games()
    return Q(race_entry__race__status=Race.Status.COUNTDOWN) | running


def no_help_on_a_race_deal(deal_id: str, player, game) -> None:
    """No hints in a racer's game, and no help (hints, par line) on the deal of a race the player is in and
    that is not over: the same board, so its help would be the race's. A visitor may be a racer who left
    their token out: the par line of a deal is refused to visitors while a race on it is under way."""
    unfinished = ~Q(race__status=Race.Status.FINISHED)
    if not getattr(player, "is_authenticated", False):
        started = (Race.Status.COUNTDOWN, Race.Status.RUNNING)
        refused = game is None and Race.objects.filter(deal_id=deal_id, status__in=started).exists()
    else:
        racing = Q(player=player, race__deal_id=deal_id) & unfinished
        refused = RaceEntry.objects.filter(Q(game=game) | racing if game is not None else racing).exists()
    if refused:
        raise ServiceError("forbidden", "no help in races: every racer plays on their own", status=403)


def refuse_closing_in_countdown(sender, *, user, **kwargs) -> None:
    """Closing an account is refused during a countdown of one of its races: the game the start is about
    to deal would be left playing until the race's time limit; the countdown lasts seconds."""
    if RaceEntry.objects.filter(player=user, race__status=Race.Status.COUNTDOWN).exists():
        raise ServiceError(
            "race_not_started",
            "your race starts in a few seconds: close your account once its boards are shown",
            status=409,
        )


def leave_races_of_closed(sender, *, user, **kwargs) -> None:
    """A closed account leaves its open races (an owner's is called off) and its invitations go."""
    RaceInvite.objects.filter(Q(invited=user) | Q(invited_by=user)).delete()
    for code in RaceEntry.objects.filter(player=user, race__status=Race.Status.OPEN).values_list("race__code", flat=True):
        resign(code=code, user=user)


def connect() -> None:
    """Adds the races' rules to play and accounts (games/apps.py calls it once the app is ready)."""
    policies.add_expiry_rule(past_limit_games)
    policies.add_hiding_rule(hidden_racing_games)
    policies.add_help_guard(no_help_on_a_race_deal)
    account_closing.connect(refuse_closing_in_countdown, dispatch_uid="games.races.services.closing")
    account_closed.connect(leave_races_of_closed, dispatch_uid="games.races.services.closed")
    from games.races import challenges  # it builds on this module

    challenges.connect()
