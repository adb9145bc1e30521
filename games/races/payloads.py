"""The JSON shapes of races and challenges, each defined once as a serializer over the race as it is
now (its values computed by games.races.services): REST answers, socket frames, pushes and the
OpenAPI schema."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from rest_framework import serializers

from games.play.payloads import REVIEW_STATES


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
