"""Reads of races: what a view, a socket or a stream shows, and the rules races add to play's reads.

None writes, locks or publishes: games.races.services does. A race past its time limit, or a public
race that waited out its time, reads as finished (games.races.clock) before `advance` stores it so.
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Q
from django.utils import timezone

from freecell_site.errors import ServiceError
from games.play.models import Game
from games.races.clock import LATE_JOIN_MARGIN, next_ghost_at, public_wait_s, timed_out, wakeup_at
from games.races.models import Race, RaceEntry, RaceInvite
from games.races.payloads import invitation_event, join_link, race_payload, start_event

# No 0/O, 1/I/L: codes are read aloud and typed from phones.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

#: What is read with a race: its object names them.
RELATED = ("owner", "deal", "rematch_of", "ghost_of__player")


def normalize_code(code) -> str:
    return str(code or "").strip().upper()[:16]


def not_found(code: str) -> ServiceError:
    return ServiceError("not_found", f"no race {code!r}", status=404)


def is_code(code: str) -> bool:
    """Whether a (normalized) code could be a race's: no query is made for one that cannot."""
    return bool(code) and all(char in CODE_ALPHABET for char in code)


def get_race(code) -> Race:
    code = normalize_code(code)
    if not is_code(code):
        raise not_found(code)
    race = Race.objects.select_related(*RELATED).filter(code=code).first()
    if race is None:
        raise not_found(code)
    return race


def entry_of(race: Race, user) -> RaceEntry | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return race.entries.filter(player=user).first()


def race_of_game(game: Game) -> Race | None:
    """The race `game` is played in (None outside races): its page links to it, and its time limit
    (`ends_at`) makes a resign from then on the limit's, which the page says rather than "You resigned"."""
    entry = RaceEntry.objects.select_related("race").filter(game=game).first()
    return entry.race if entry else None


def races_of(user) -> dict:
    """The caller's races that are not over, and open races a friend invited them to."""
    mine = (
        Race.objects.filter(entries__player=user)
        .exclude(status=Race.Status.FINISHED)
        .select_related(*RELATED)
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


# --- public races -------------------------------------------------------------------------------


def waiting_public(now: dt.datetime):
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
    return waiting_public(timezone.now()).select_related(*RELATED)


# --- for sockets and streams ------------------------------------------------------------------


def racer_game_id(race: Race, user) -> int | None:
    entry = entry_of(race, user)
    return entry.game_id if entry else None


def race_view(code: str, viewer) -> dict:
    """The race as a socket shows it: its object, the viewer's game, and when the next change is due. A
    read: the socket's timer applies what is due first (`advance`)."""
    race = get_race(code)
    wake = wakeup_at(race)
    return {"race": race_payload(race), "my_game": racer_game_id(race, viewer), "wake_at": wake.isoformat() if wake else None}


def pending_events(user) -> list[dict]:
    """What a player's event stream opens with (and sends again after the bus was away): the open
    races they are invited to and have not joined, and their races that are starting or running."""
    invites = (
        RaceInvite.objects.filter(invited=user, race__status=Race.Status.OPEN)
        .exclude(race__entries__player=user)
        .select_related("invited_by", *(f"race__{name}" for name in RELATED))
        .order_by("created_at", "id")[:50]
    )
    found = [invitation_event(race_payload(invite.race), invite.invited_by.username) for invite in invites]
    entries = (
        RaceEntry.objects.filter(player=user, race__status__in=(Race.Status.COUNTDOWN, Race.Status.RUNNING))
        .select_related(*(f"race__{name}" for name in RELATED))
        .order_by("race__created_at", "race_id")[:50]
    )
    for entry in entries:
        race = race_payload(entry.race)
        if race["status"] != Race.Status.FINISHED:  # past its time limit, not yet stored so
            found.append(start_event(race, entry.game_id))
    return found


# --- for the sweeper --------------------------------------------------------------------------


def due_races() -> list[str]:
    """The codes of races with a transition due now (for the sweeper): a countdown over, a ghost's next
    action or its race's time limit, a public race that waited out its time. A race of players ends at
    its time limit through its games, which the sweeper reads by their deadline (services.end_due_games),
    so only ghost races, which are few, are looked at one by one."""
    now = timezone.now()
    countdowns = Race.objects.filter(status=Race.Status.COUNTDOWN, starts_at__lte=now)
    running = Race.objects.filter(status=Race.Status.RUNNING, ghost_of__isnull=False).select_related(*RELATED)
    due = list(countdowns.values_list("code", flat=True))
    waited = Race.objects.filter(public=True, status=Race.Status.OPEN, created_at__lte=now - dt.timedelta(seconds=public_wait_s()))
    due += list(waited.values_list("code", flat=True)[:1000])
    for race in running[:1000]:
        ghost_due = next_ghost_at(race)
        if timed_out(race, now) or (ghost_due is not None and ghost_due <= now):
            due.append(race.code)
    return due


# --- what races add to play's reads (games.play.policies), and the lists of races over ---------


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
    return over.select_related(*RELATED).order_by("-created_at", "-id")


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
