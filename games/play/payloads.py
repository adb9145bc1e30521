"""The JSON shapes of play, each defined once as a serializer: REST answers, socket frames, pushes and
the OpenAPI schema all come from it."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.engine import Board
from games.play import policies
from games.play.models import Game


def iso(moment) -> str | None:
    """A UTC instant as the API writes it: ISO 8601 with a Z."""
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def deal_label(game: Game) -> str:
    """The deal id a player knows a game by: the one a domain above play shows it under (`daily:DATE` for
    a daily, ranked, or a past one asked for by that id: games.play.policies.label_of), else the deal's own."""
    return policies.label_of(game) or game.deal_id


def elapsed_ms(game: Game) -> int:
    """The game's time now (Game.clock_at): a casual game's play time, else the server's clock."""
    return game.clock_at(timezone.now())


#: A game's review as the API names it (Game.review stores "" for none).
REVIEW_STATES = ["none", "flagged", "cleared", "rejected"]


def review_state(game: Game) -> str:
    return game.review or "none"


class FoundationsSerializer(serializers.Serializer):
    C = serializers.IntegerField(min_value=0, max_value=13)
    D = serializers.IntegerField(min_value=0, max_value=13)
    H = serializers.IntegerField(min_value=0, max_value=13)
    S = serializers.IntegerField(min_value=0, max_value=13)


class StateSerializer(serializers.Serializer):
    columns = serializers.ListField(child=serializers.ListField(child=serializers.CharField()), min_length=8, max_length=8)
    cells = serializers.ListField(child=serializers.CharField(allow_null=True), min_length=4, max_length=4)
    foundations = FoundationsSerializer()


@extend_schema_field(StateSerializer)
class StateField(serializers.JSONField):
    """The position as stored (`Game.state`), written as it is: its shape is StateSerializer's."""


class ReviewReasonSerializer(serializers.Serializer):
    signal = serializers.CharField(help_text="the signal's name (GET /api/fair-play/)")
    value = serializers.FloatField(help_text="what the game measured")
    threshold = serializers.FloatField(help_text="the published threshold it crossed")


@extend_schema_field(ReviewReasonSerializer(many=True))
class ReviewReasonsField(serializers.JSONField):
    """The reasons as stored (`Game.review_reasons`), written as they are (every push carries them): their
    shape is ReviewReasonSerializer's."""


class RankedField(serializers.BooleanField):
    """Whether the game ranks (a ranked daily's), as the domain that ranks it says (games.play.policies)."""

    def to_representation(self, game: Game) -> bool:
        return policies.is_ranked(game)


class GameSerializer(serializers.Serializer):
    """The spec's game object: the one definition of its shape, for REST answers, socket frames and
    pushes alike, and the OpenAPI schema.

    A game whose time is up (a race's limit, a ranked daily's day) shows as resigned at its deadline
    before the sweeper has stored it so: a read shows what is true and writes nothing."""

    id = serializers.IntegerField()
    deal = serializers.SerializerMethodField()
    player = serializers.CharField(source="player.username")
    status = serializers.ChoiceField(choices=Game.Status.values, help_text="`abandoned`: a casual game left for the same deal dealt again (Restart), neither a win nor a loss")
    ply = serializers.IntegerField(help_text="player actions so far (moves and undos)")
    moves = serializers.IntegerField(source="ply", help_text="the score: player actions, undos included")
    undos = serializers.IntegerField()
    autoplay = serializers.ChoiceField(choices=["none", "safe"])
    ranked = RankedField(source="*")
    state = StateField()
    cards_home = serializers.IntegerField()
    stuck = serializers.BooleanField()
    version = serializers.IntegerField(help_text="bumped on every change; websocket clients resync on a gap")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    elapsed_ms = serializers.SerializerMethodField(
        help_text="the game's time: a casual game's play time (from its first action, while a page of its player "
        "has it open); a ranked daily's or a race's time on the server's clock, from the board's first showing"
    )
    review = serializers.SerializerMethodField(
        help_text="a won result's fair-play review (docs/fair-play.md): `none`; `flagged` when it crossed a published "
        "signal or a moderator holds it (off the people's boards, and hidden from others, until cleared); "
        "`cleared` (ranked) or `rejected` (never ranked) once a moderator looked"
    )
    review_reasons = ReviewReasonsField(
        help_text="the signals a flagged result crossed, as GET /api/fair-play/ publishes them; empty otherwise"
    )
    clock_running = serializers.SerializerMethodField(
        help_text="whether `elapsed_ms` is counting now: false before a casual game's first action, while no page "
        "of its player has it open, and once the game is over"
    )

    def get_deal(self, game: Game) -> str:
        return deal_label(game)

    @extend_schema_field(serializers.ChoiceField(choices=REVIEW_STATES))
    def get_review(self, game: Game) -> str:
        return review_state(game)

    def get_elapsed_ms(self, game: Game) -> int:
        return elapsed_ms(game)

    def get_clock_running(self, game: Game) -> bool:
        return game.clock_running_at(timezone.now())

    def to_representation(self, game: Game) -> dict:
        data = super().to_representation(game)
        up = policies.time_is_up(game)
        if up is not None:
            data["status"] = Game.Status.RESIGNED
            data["finished_at"] = iso(up.at)
            data["elapsed_ms"] = game.clock_at(up.at)
            data["clock_running"] = False
        return dict(data)


class ActionSerializer(serializers.Serializer):
    """One stored action, as history, acks and pushes give it."""

    index = serializers.IntegerField(help_text="0-based ply of the action")
    kind = serializers.ChoiceField(choices=["move", "undo"])
    move = serializers.CharField(source="notation", help_text="the move played, or for an undo the move taken back")
    autoplay = serializers.ListField(child=serializers.CharField(), help_text="foundation moves autoplay made (or that the undo took back)")
    at = serializers.DateTimeField(source="created_at", help_text="server time")
    clock_ms = serializers.IntegerField(
        allow_null=True,
        help_text="the game's clock at the action (its `elapsed_ms` then): a casual game's play time; null for actions stored before it was kept",
    )
    via = serializers.SerializerMethodField(
        help_text="how the action came: `web` (the site's own pages) or `api` (a token or an app); null for actions stored before it was kept"
    )

    @extend_schema_field(serializers.ChoiceField(choices=["web", "api"], allow_null=True))
    def get_via(self, action) -> str | None:
        return action.via or None

    def to_representation(self, action) -> dict:
        return dict(super().to_representation(action))


# One instance of each, written with again and again: a serializer's fields are copied for every new
# instance, which costs more than writing a game (docs/performance.md). Writing keeps no state.
_GAME = GameSerializer()
_ACTION = ActionSerializer()


def game_payload(game: Game) -> dict:
    """The spec's game object (GameSerializer)."""
    return _GAME.to_representation(game)


def game_detail(game: dict) -> dict:
    """A game object (game_payload's) as `GET /api/games/<id>/` and its stream show it: with the
    position as board text too, to paste into other FreeCell tools (spec 3). The sockets' pushes,
    which every move sends to every watcher, leave it out."""
    return {**game, "board": Board.from_state(game["state"]).to_text()}


def action_payload(action) -> dict:
    return _ACTION.to_representation(action)
