"""The JSON shapes of races and challenges, each defined once as a serializer over the race as it is
now (`race_now`, here, its times from games.races.clock): REST answers, socket frames, pushes and the
OpenAPI schema; and the events a player's stream is told of races."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone
from rest_framework import serializers

from games.play.models import Game
from games.play.payloads import REVIEW_STATES, review_state
from games.races.clock import (
    GhostTimeline,
    ends_at,
    ghost_of,
    ghost_step_at,
    status_at,
    timed_out,
    waited_out,
    waits_until,
)
from games.races.models import Race, RaceEntry


@dataclass(frozen=True)
class Racer:
    """One racer as the race shows it: a player with their game, or the ghost of a recorded game."""

    username: str
    game: int | None
    moves: int | None  # None for a result held by fair play
    cards_home: int
    status: str
    rank: int | None
    elapsed_ms: int | None
    ghost: bool
    out_of_time: bool
    review: str


@dataclass(frozen=True)
class Ghost:
    username: str
    moves: int
    elapsed_ms: int | None


@dataclass(frozen=True)
class RaceNow:
    """A race as it truly is now, whether or not its due transitions are stored yet."""

    code: str
    link: str
    deal: str
    status: str
    owner: str
    autoplay: str
    created_at: dt.datetime
    starts_at: dt.datetime | None
    ends_at: dt.datetime | None
    finished_at: dt.datetime | None
    time_limit_s: int
    version: int
    racers: list[Racer]
    invited: list[str]
    ghost: Ghost | None
    rematch: str | None
    rematch_of: str | None
    public: bool


def deal_label(race) -> str:
    """The deal id a race (or a challenge) is known by: `daily:DATE` when it was asked for by a past
    daily's id, else the deal's own id."""
    return f"daily:{race.past_daily_id.isoformat()}" if race.past_daily_id is not None else race.deal_id


class RacerSerializer(serializers.Serializer):
    username = serializers.CharField()
    game = serializers.IntegerField(allow_null=True, help_text="the racer's game; null until the start instant (always null for a ghost)")
    moves = serializers.IntegerField(
        allow_null=True, help_text="player actions so far, undos included; null for a win held for review (`review` flagged or rejected)"
    )
    cards_home = serializers.IntegerField(min_value=0, max_value=52)
    status = serializers.ChoiceField(choices=["waiting", "playing", "won", "resigned"])
    rank = serializers.IntegerField(allow_null=True, help_text="finish position by server time to win; null until won")
    elapsed_ms = serializers.IntegerField(allow_null=True, help_text="time to win (or to resign) from the start instant")
    ghost = serializers.BooleanField(help_text="a recorded game replayed at its recorded pace")
    out_of_time = serializers.BooleanField(help_text="resigned by the race's time limit rather than by the racer")
    review = serializers.ChoiceField(choices=REVIEW_STATES, help_text="the racer's result's fair-play review (docs/fair-play.md)")


class GhostSerializer(serializers.Serializer):
    username = serializers.CharField(help_text="whose recorded game is raced")
    moves = serializers.IntegerField(help_text="the recorded game's final move count")
    elapsed_ms = serializers.IntegerField(allow_null=True, help_text="the recorded game's time to win")


class RaceSerializer(serializers.Serializer):
    """The spec's race object: {code, deal, status, owner, racers}, and more for the page."""

    code = serializers.CharField(help_text="short join code")
    link = serializers.CharField(help_text="the page to join by")
    deal = serializers.CharField()
    status = serializers.ChoiceField(choices=["open", "countdown", "running", "finished"])
    owner = serializers.CharField()
    autoplay = serializers.ChoiceField(choices=["none", "safe"])
    created_at = serializers.DateTimeField()
    starts_at = serializers.DateTimeField(allow_null=True, help_text="the start instant chosen by the server (set when the countdown begins)")
    ends_at = serializers.DateTimeField(allow_null=True, help_text="the time limit: racers still playing then are resigned")
    finished_at = serializers.DateTimeField(allow_null=True)
    time_limit_s = serializers.IntegerField()
    version = serializers.IntegerField(help_text="bumped on every change; websocket clients resync on a gap")
    racers = RacerSerializer(many=True)
    invited = serializers.ListField(child=serializers.CharField(), help_text="friends invited while the race is open")
    ghost = GhostSerializer(allow_null=True)
    rematch = serializers.CharField(allow_null=True, help_text="code of the rematch, once someone asked for it")
    rematch_of = serializers.CharField(allow_null=True)
    public = serializers.BooleanField(help_text="listed for anyone to join; starts by itself once a second racer is in (docs/races.md)")


class ChallengeSerializer(serializers.Serializer):
    """The spec's challenge: {id, challenger, challenged, deal, status}, and the race once accepted."""

    id = serializers.IntegerField()
    challenger = serializers.CharField()
    challenged = serializers.CharField()
    deal = serializers.CharField()
    autoplay = serializers.ChoiceField(choices=["none", "safe"])
    status = serializers.ChoiceField(choices=["open", "accepted", "declined", "cancelled", "expired"])
    code = serializers.CharField(allow_null=True, help_text="the race of the two once accepted (null before)")
    link = serializers.CharField(allow_null=True, help_text="the race's page once accepted")
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(help_text="an open challenge not answered by then is expired (CHALLENGE_EXPIRY_S, 10 minutes)")
    answered_at = serializers.DateTimeField(allow_null=True, help_text="when it was accepted, declined or cancelled")


# One instance of each, written with again and again (a serializer copies its fields per instance).
_RACE = RaceSerializer()
_RACER = RacerSerializer()
_CHALLENGE = ChallengeSerializer()


def race_object(race: RaceNow) -> dict:
    return dict(_RACE.to_representation(race))


def racer_object(racer: Racer) -> dict:
    return dict(_RACER.to_representation(racer))


def challenge_json(challenge: dict) -> dict:
    return dict(_CHALLENGE.to_representation(challenge))


def join_link(code: str) -> str:
    return f"/races/{code}/"


# --- the race object --------------------------------------------------------------------------


def racer_now(entry: RaceEntry, limit: dt.datetime | None, *, time_is_up: bool = False) -> Racer:
    """The racer of `entry` as the race shows them (`time_is_up`: the race is past its time limit, `limit`)."""
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


def _ghost_rank(step: int, entries: list[RaceEntry], timeline: GhostTimeline) -> int | None:
    if not timeline.finished_at_step(step) or timeline.elapsed_ms is None:
        return None
    faster = sum(1 for e in entries if e.game and e.game.status == Game.Status.WON and (e.game.elapsed_ms or 0) < timeline.elapsed_ms)
    return faster + 1


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
    racers = [racer_now(entry, limit, time_is_up=time_is_up) for entry in entries]
    timeline = ghost_of(race)
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
    """The spec's race object (RaceSerializer) of the race as it is now."""
    return race_object(race_now(race))


# --- what a player's event stream is told (games.events.publish_player_event; docs/streams.md) ----------


def invitation_event(race: dict, invited_by: str) -> dict:
    return {"type": "race_invitation", "race": race, "invited_by": invited_by}


def start_event(race: dict, game_id: int | None) -> dict:
    """`race_starting` when the countdown begins (the race's `starts_at` says when the boards are
    shown), `race_started` once they are, with the player's own game."""
    if race["status"] == Race.Status.COUNTDOWN:
        return {"type": "race_starting", "race": race}
    return {"type": "race_started", "race": race, "game": game_id}
