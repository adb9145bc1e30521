"""Race lifecycle: open -> countdown -> running -> finished, ghost opponents, and racers' progress.

The only code that changes a race. Every change bumps `Race.version` and is published on the race's
group after commit (best effort: sockets resync from the database on a gap). Games are created only
through `services.create_game`, at the start instant decided by the server, and resigned only
through `services.resign`.

Timed transitions (the countdown's end, a ghost's next recorded action, the time limit) are applied
by `advance()`, which the sweeper (games/sweeper.py) runs for every race that has one due and a race's
sockets run at the instant it is due. Each transition is idempotent under the race's row lock, so
several processes may try at once. A read never writes: the race's times are games.races.clock, its
reads games.races.selectors, and its object (games.races.payloads.race_payload) shows a race past its
time limit as finished, and a ghost where its recorded pace has it, before anyone has stored it so.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections import OrderedDict

from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.closing import lock_open_account
from accounts.selectors import friend_ids, player_named
from accounts.signals import account_closed, account_closing
from freecell_site.errors import ServiceError
from games import events
from games.daily import services as daily
from games.daily.models import DailyChallenge, ranked_day, shown_day
from games.engine import parse_deal, random_deal
from games.play import policies, services
from games.play.models import Deal, Game
from games.races import clock, selectors
from games.races.models import Race, RaceEntry, RaceInvite
from games.races.payloads import invitation_event, race_payload, racer_now, racer_object, start_event

CODE_LENGTH = 6


def _publish_after_commit(race: Race) -> dict:
    payload = race_payload(race)
    transaction.on_commit(lambda: events.publish_race(payload))
    return payload


def _bump(race: Race, *fields: str) -> None:
    race.version += 1
    race.save(update_fields=["version", *fields])


def _lock(code: str) -> Race:
    race = Race.objects.select_for_update(of=("self",)).select_related(*selectors.RELATED).filter(code=selectors.normalize_code(code)).first()
    if race is None:
        raise selectors.not_found(code)
    return race


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
        code = "".join(secrets.choice(selectors.CODE_ALPHABET) for _ in range(CODE_LENGTH))
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
        time_limit_s=time_limit_s or clock.default_time_limit_s(),
        public=public,
    )
    RaceEntry.objects.create(race=race, player=owner)
    _publish_after_commit(race)
    return race


@transaction.atomic
def create_ghost_race(*, owner, game_id, time_limit_s: int | None = None) -> Race:
    """A race against a recorded won game (the owner's own or a friend's), replayed at its recorded pace."""
    lock_open_account(owner)
    game = Game.objects.select_related("player", "deal", "daily_game").filter(pk=game_id).first() if isinstance(game_id, int) else None
    if game is None or not policies.can_view_game(owner, game):
        raise ServiceError("not_found", f"no game {game_id}", status=404)
    if game.player_id != owner.pk and game.player_id not in friend_ids(owner):
        raise ServiceError("forbidden", "you can race a ghost of your own games or of a friend's", status=403)
    if game.status != Game.Status.WON:
        raise ServiceError("game_not_won", "only a won game can be raced as a ghost", status=409)
    if (ranked := ranked_day(game)) is not None:
        daily.shown_daily(ranked)
    race = _new_race(
        deal=game.deal,
        past_daily_id=shown_day(game),  # raced under the id the game shows
        owner=owner,
        autoplay=game.autoplay,
        ghost_of=game,
        time_limit_s=time_limit_s or clock.default_time_limit_s(),
    )
    RaceEntry.objects.create(race=race, player=owner)
    _publish_after_commit(race)
    return race


@transaction.atomic
def join(*, code, user) -> Race:
    """Adds the user to an open race (joining twice is harmless), or to a public race in its countdown."""
    lock_open_account(user)  # before the race's lock, as close_account takes them
    race = _lock(code)
    if selectors.entry_of(race, user) is not None:
        return race
    if not clock.late_joinable(race):
        _check_open(race)
    _enter(race, user)
    return race


def _enter(race: Race, user) -> None:
    """Adds a racer to a race that takes them (locked): a public race's second racer starts its
    countdown, and a racer who comes during the countdown is told the race is starting."""
    if race.entries.count() >= clock.max_racers():
        raise ServiceError("race_full", f"a race has at most {clock.max_racers()} racers", status=409)
    entry = RaceEntry.objects.create(race=race, player=user)
    if race.public and race.status == Race.Status.OPEN and race.entries.count() >= 2:
        _count_down(race, clock.public_countdown_s())
        return
    _bump(race)
    payload = _publish_after_commit(race)
    if race.status == Race.Status.COUNTDOWN:
        event = start_event(payload, None)
        transaction.on_commit(lambda: events.publish_player_event(entry.player_id, event))


def _check_open(race: Race) -> None:
    """Joining and inviting are for open races: a finished one (run, cancelled, or a public one that
    waited out its time) is `race_over`."""
    if clock.status_at(race) == Race.Status.FINISHED:
        raise ServiceError("race_over", "this race is over", status=409)
    if race.status != Race.Status.OPEN:
        raise ServiceError("race_started", "this race has already started", status=409)


@transaction.atomic
def invite(*, code, user, username: str) -> Race:
    """A racer invites one of their accepted friends to an open race."""
    lock_open_account(user)
    race = _lock(code)
    if selectors.entry_of(race, user) is None:
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
    waiting = selectors.waiting_public(now)
    mine = waiting.filter(entries__player=user).select_related(*selectors.RELATED).first()
    if mine is not None:
        return mine, False
    for code in waiting.values_list("code", flat=True)[:20]:
        race = _lock(code)
        if (race.status == Race.Status.OPEN and not clock.waited_out(race)) or clock.late_joinable(race):
            if race.entries.count() < clock.max_racers():
                _enter(race, user)
                return race, False
    # A quick race stored open that waited out its time is called off first: it holds the constraint.
    for code in Race.objects.filter(quick=True, status=Race.Status.OPEN).values_list("code", flat=True):
        advance(code)
    race = _new_race(
        deal=resolve_deal(None)[0], owner=user, time_limit_s=clock.default_time_limit_s(), public=True, quick=True
    )
    RaceEntry.objects.create(race=race, player=user)
    _publish_after_commit(race)
    return race, True


def race_of_two(owner, other, *, deal: Deal, past_daily: DailyChallenge | None, autoplay: str) -> Race:
    """An accepted challenge's race (in the caller's transaction): the two racers, its countdown begun
    at once (RACE_PUBLIC_COUNTDOWN_S), the start told on both players' event streams."""
    race = _new_race(deal=deal, past_daily=past_daily, owner=owner, autoplay=autoplay, time_limit_s=clock.default_time_limit_s())
    RaceEntry.objects.create(race=race, player=owner)
    RaceEntry.objects.create(race=race, player=other)
    _count_down(race, clock.public_countdown_s())
    return race


# --- starting and the start instant -----------------------------------------------------------


@transaction.atomic
def start(*, code, user) -> Race:
    """The owner starts the countdown; the server decides the start instant (now + RACE_COUNTDOWN_S)."""
    race = _lock(code)
    if race.owner_id != getattr(user, "pk", None):
        raise ServiceError("forbidden", "only the race's owner can start it", status=403)
    if clock.status_at(race) == Race.Status.FINISHED:
        raise ServiceError("race_over", "this race is over", status=409)
    if race.public:
        raise ServiceError("forbidden", "a public race starts by itself once a second racer is in", status=403)
    if race.status == Race.Status.OPEN:
        _count_down(race, clock.countdown_s())
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
                player=entry.player, deal=race.deal, autoplay=race.autoplay, started_at=race.starts_at,
                record=daily.played_as(race.past_daily_id) if race.past_daily_id is not None else None,
                by_player=False, server_clock=True, deadline=clock.ends_at(race),
            )
            entry.save(update_fields=["game"])
    race.status = Race.Status.RUNNING
    _bump(race, "status")
    _tell_racers(race, _publish_after_commit(race))


def _tell_racers(race: Race, payload: dict) -> None:
    """Each racer's event streams learn, after commit, that the race is starting or has started."""
    told = [(entry.player_id, start_event(payload, entry.game_id)) for entry in race.entries.order_by("joined_at", "id")]
    transaction.on_commit(lambda: [events.publish_player_event(player_id, event) for player_id, event in told])


# --- what time decides: the start instant, the ghost's pace, the time limit ----------------------


def advance(race: Race | str) -> Race:
    """Applies what is due (a write, for the sweeper and the race's sockets): the reveal at the start
    instant, the ghost's recorded actions, the time limit."""
    if not isinstance(race, Race):
        race = selectors.get_race(race)
    now = timezone.now()
    if clock.waited_out(race, now):
        with transaction.atomic():
            race = _lock(race.code)
            if clock.waited_out(race, now):
                _finish(race)
                race.finished_at = clock.waits_until(race)
                _bump(race, "status", "finished_at")
                _publish_after_commit(race)
        return race
    if race.status == Race.Status.COUNTDOWN and race.starts_at and race.starts_at <= now:
        with transaction.atomic():
            race = _lock(race.code)
            if race.status == Race.Status.COUNTDOWN:
                _reveal(race)
    if race.status == Race.Status.RUNNING and race.ghost_of_id:
        timeline = clock.ghost_of(race)
        if timeline is not None and timeline.due(clock.race_ms(race, min(now, clock.ends_at(race)))) > race.ghost_step:
            with transaction.atomic():
                race = _lock(race.code)
                _advance_ghost(race, timeline, now)
    if clock.timed_out(race, now):
        race = _time_out(race)
    return race


def _advance_ghost(race: Race, timeline: clock.GhostTimeline, now: dt.datetime) -> None:
    due = timeline.due(clock.race_ms(race, min(now, clock.ends_at(race))))
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


def _rerank(race: Race) -> None:
    """Finish order by server time to win (ties: who finished first, then who joined first)."""
    entries = list(race.entries.select_related("game"))
    timeline = clock.ghost_of(race)
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
    return game.deadline is not None and not daily.is_ranked(game)


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
    timeline = clock.ghost_of(race)
    if timeline is not None and race.status == Race.Status.RUNNING:
        # The ghost catches up first, so a finish is ranked against where the ghost is now.
        due = timeline.due(clock.race_ms(race, min(timezone.now(), clock.ends_at(race))))
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
    progress = {"code": code, "racer": racer_object(racer_now(entry, None))}
    transaction.on_commit(lambda: events.publish_race_progress(progress))


# --- leaving, resigning, rematch --------------------------------------------------------------


def resign(*, code, user) -> Race:
    """Resigns the racer's game. Before the start, a racer leaves instead (the owner's leaving cancels)."""
    race = selectors.get_race(code)
    entry = selectors.entry_of(race, user)
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
    entry = selectors.entry_of(race, user)
    if entry is not None and entry.game_id is not None:
        services.resign(game_id=entry.game_id, user=user)
    return selectors.get_race(code)


@transaction.atomic
def rematch(*, code, user) -> tuple[Race, bool]:
    """A new race for the same racers on a fresh seed; everyone asking for it lands in the same one.

    Returns (race, created)."""
    lock_open_account(user)
    race = _lock(code)
    if selectors.entry_of(race, user) is None:
        raise ServiceError("forbidden", "only a racer can ask for a rematch", status=403)
    if race.status != Race.Status.FINISHED:
        raise ServiceError("race_not_over", "a rematch can follow a finished race only", status=409)
    existing = Race.objects.select_related(*selectors.RELATED).filter(rematch_of=race).order_by("id").first()
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


# --- closing an account, and the rules races add to play (games.play.policies; their reads: selectors) ---


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
    policies.add_expiry_rule(selectors.past_limit_games)
    policies.add_hiding_rule(selectors.hidden_racing_games)
    policies.add_help_guard(selectors.no_help_on_a_race_deal)
    account_closing.connect(refuse_closing_in_countdown, dispatch_uid="games.races.services.closing")
    account_closed.connect(leave_races_of_closed, dispatch_uid="games.races.services.closed")
    from games.races import challenges  # it builds on this module

    challenges.connect()
