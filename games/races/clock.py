"""A race's times, pure functions of its row and "now": its settings, its end, its ghost's pace, and
when it is next due to change.

Nothing here writes: `advance` (games.races.services) stores what these say is due, and every read
shows it meanwhile (games.races.payloads.race_now).
"""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from games.play.integrity import replayed
from games.play.models import Game
from games.races.models import Race


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


def ends_at(race: Race) -> dt.datetime | None:
    if race.starts_at is None:
        return None
    return race.starts_at + dt.timedelta(seconds=race.time_limit_s)


def race_ms(race: Race, now: dt.datetime) -> float:
    """How long the race has run at `now`, in milliseconds: the ghost's recorded clock is read against it."""
    return (now - race.starts_at).total_seconds() * 1000


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


def ghost_of(race: Race) -> GhostTimeline | None:
    """The timeline of the recorded game a ghost race replays (None in a race of players only)."""
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
    return max(race.ghost_step, timeline.due(race_ms(race, min(now, ends_at(race)))))


def next_ghost_at(race: Race) -> dt.datetime | None:
    """When the ghost's next recorded action is due (None when it has no more or the race is not running)."""
    timeline = ghost_of(race)
    if timeline is None or race.status != Race.Status.RUNNING or race.ghost_step >= len(timeline.steps):
        return None
    return race.starts_at + dt.timedelta(milliseconds=timeline.steps[race.ghost_step].at_ms)


# --- when a race is due to change -------------------------------------------------------------


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


def late_joinable(race: Race, now: dt.datetime | None = None) -> bool:
    """Whether a public race in its countdown still takes racers (until a second before its start)."""
    return (
        race.public
        and race.status == Race.Status.COUNTDOWN
        and race.starts_at is not None
        and race.starts_at - (now or timezone.now()) > LATE_JOIN_MARGIN
    )


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
