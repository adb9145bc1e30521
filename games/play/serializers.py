"""Request validation and response shapes of the games API (also what the OpenAPI schema shows)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.scopes import SCOPES
from freecell_site.fields import StrictCharField, StrictChoiceField, StrictIntegerField
from games.play.models import Game
from games.play.payloads import ActionSerializer, GameSerializer, StateSerializer  # noqa: F401 (the shapes the views answer with)

#: The longest line /api/solutions/verify/ takes: as one string, and as a list of moves. A game's
#: own line (services.MAX_ACTIONS moves, with its autoplay written out: at most 52 more, each move at
#: most 6 characters with its space) always fits, so every game's text history can be verified.
MAX_LINE_MOVES = 5100
MAX_LINE_CHARS = 32000


#: The spec's deal ids (section 4), as the schema states them: `ms:N`, `seed:S`, `daily:YYYY-MM-DD`. The
#: server also takes surrounding white space and refuses numbers out of range (400 `invalid_deal`).
DEAL_PATTERN = r"^(ms|seed):[0-9]{1,25}$|^daily:[0-9]{4}-[0-9]{2}-[0-9]{2}$"
DEAL_SCHEMA = {"type": "string", "pattern": DEAL_PATTERN, "example": "ms:11982"}


@extend_schema_field({**DEAL_SCHEMA, "maxLength": 64})
class DealField(StrictCharField):
    """A deal id in a request body."""


@extend_schema_field({"type": "string", "pattern": DEAL_PATTERN[:-1] + "$|^random$", "maxLength": 64, "example": "random"})
class DealOrRandomField(StrictCharField):
    """A deal id, or `random` for a fresh `seed:` deal."""


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="bad_notation, illegal_move, ply_conflict, game_over, invalid_deal, not_found, forbidden, rate_limited, ...")
    message = serializers.CharField()
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="invalid_request: the messages for each field of the body or query at fault",
    )
    retry_after = serializers.IntegerField(required=False, help_text="rate_limited and the 503s: seconds to wait before trying again")
    retry_after_ms = serializers.IntegerField(
        required=False, help_text="rate_limited by the per-account move limit: the same wait in milliseconds (it is under a second)"
    )
    game = serializers.DictField(
        required=False, help_text="ply_conflict, game_over and too_many_actions: the game as it now is (the game object)"
    )
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=SCOPES),
        required=False,
        help_text="missing_scope: the scopes the token lacks for this request (docs/tokens.md)",
    )


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


class GameDetailSerializer(GameSerializer):
    board = serializers.CharField(help_text="the position as board text (Freecell Solver's format)")


class ActionResultSerializer(GameSerializer):
    action = ActionSerializer(required=False)
    repeated = serializers.BooleanField(help_text="true when this answers a resend of the last accepted action")


#: What POST /api/games/ takes for a fresh `seed:` deal.
RANDOM_DEAL = "random"


class CreateGameSerializer(serializers.Serializer):
    deal = DealOrRandomField(help_text="ms:N, seed:S, daily:YYYY-MM-DD (a past day), or `random` for a fresh seed: deal")
    autoplay = StrictChoiceField(choices=["none", "safe"], default="safe")


class MoveSerializer(serializers.Serializer):
    # Any string reaches the engine, so one that does not parse (even "") is the spec's bad_notation.
    move = StrictCharField(allow_blank=True, trim_whitespace=False, help_text="the spec's notation: 3a, 57, 24v3, ah ...")
    ply = StrictIntegerField(min_value=0, max_value=2**31 - 1, help_text="player actions the client has seen")
    client_id = StrictCharField(max_length=64, required=False, default="", allow_blank=True)


class UndoSerializer(serializers.Serializer):
    ply = StrictIntegerField(min_value=0, max_value=2**31 - 1)
    client_id = StrictCharField(max_length=64, required=False, default="", allow_blank=True)


class HistorySerializer(serializers.Serializer):
    game = serializers.IntegerField()
    deal = serializers.CharField()
    autoplay = serializers.ChoiceField(choices=["none", "safe"])
    prelude = serializers.ListField(child=serializers.CharField(), help_text="foundation moves safe autoplay made on the deal before the first action")
    actions = ActionSerializer(many=True)
    line = serializers.CharField(help_text="the line of play for autoplay none: autoplay written out, undone moves left out")


class DealSerializer(serializers.Serializer):
    deal = serializers.CharField()
    columns = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    board = serializers.CharField(help_text="Freecell Solver board text")


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "maxLength": MAX_LINE_CHARS, "description": "moves separated by white space"},
            {"type": "array", "maxItems": MAX_LINE_MOVES, "items": {"type": "string", "maxLength": 16}},
        ],
        "example": "3a 32 1h",
    }
)
class LineField(serializers.Field):
    """A line of moves as API users write it: one string (``"3a 32"``, as history's text format gives)
    or a list of moves (``["3a", "32"]``). A list is passed on as it is, so the index of a bad move
    in the answer is its index in the list."""

    default_error_messages = {
        "type": "give the moves as one string separated by spaces or as a list of strings, not {kind}",
        "long": "at most {n} moves",
        "chars": "at most {n} characters",
        "item": "move {index} is not a string of at most 16 characters",
    }

    def to_internal_value(self, data):
        if isinstance(data, str):
            if len(data) > MAX_LINE_CHARS:
                self.fail("chars", n=MAX_LINE_CHARS)
            return data
        if not isinstance(data, list):
            self.fail("type", kind=type(data).__name__)
        if len(data) > MAX_LINE_MOVES:
            self.fail("long", n=MAX_LINE_MOVES)
        for index, item in enumerate(data):
            if not isinstance(item, str) or len(item) > 16:
                self.fail("item", index=index)
        return list(data)

    def to_representation(self, value):
        return value


class VerifyRequestSerializer(serializers.Serializer):
    deal = DealField(required=False, help_text="the deal the moves start from; or give `board`")
    board = StrictCharField(
        required=False, trim_whitespace=False, max_length=4000,
        help_text="instead of `deal`: any position as board text (Freecell Solver's format)",
    )
    moves = LineField(help_text="moves separated by white space, or a list of moves")
    autoplay = StrictChoiceField(choices=["none", "safe"], default="none")

    def validate(self, data):
        if ("deal" in data) == ("board" in data):
            raise serializers.ValidationError({"deal": ["give a deal or a board, not both"] if "deal" in data else ["give a deal or a board"]})
        return data


# The two forms of the body, for the schema's oneOf; the view reads both with VerifyRequestSerializer.
class VerifyDealRequestSerializer(VerifyRequestSerializer):
    """The moves start from a deal."""

    deal = DealField(help_text="the deal the moves start from")
    board = None


class VerifyBoardRequestSerializer(VerifyRequestSerializer):
    """The moves start from a position given as board text."""

    deal = None
    board = StrictCharField(trim_whitespace=False, max_length=4000, help_text="any position as board text (Freecell Solver's format)")


class VerifyErrorSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    move = serializers.CharField()
    code = serializers.ChoiceField(choices=["bad_notation", "illegal_move"])
    message = serializers.CharField()


class VerifyResultSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    won = serializers.BooleanField()
    moves = serializers.IntegerField(help_text="moves replayed")
    error = VerifyErrorSerializer(required=False)


class HintSerializer(serializers.Serializer):
    move = serializers.CharField(allow_null=True, help_text="null when the solver found no winning line")
    result = serializers.ChoiceField(choices=["solved", "unsolvable", "gave_up"])


class LegalMovesSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    ply = serializers.IntegerField(help_text="player actions so far: the `ply` a move sent now must carry")
    status = serializers.ChoiceField(choices=Game.Status.values)
    moves = serializers.ListField(
        child=serializers.CharField(),
        help_text="every legal move in the spec's notation, each playable as it is; a run to an empty column once for "
        "each length that may move (`24`, `24v2`, `24v3`); empty once the game is over",
    )


class DealFactsSerializer(serializers.Serializer):
    deal = serializers.CharField()
    autoplay = serializers.CharField(help_text="always `safe`: the facts are those of play under safe autoplay, as ranked games play")
    solvable = serializers.BooleanField(
        allow_null=True, help_text="true: a winning line was found; false: proven lost; null: the solver's budget ran out first"
    )
    par = serializers.IntegerField(allow_null=True, help_text="moves of the best line the solver found (not proven optimal)")
    par_line = serializers.CharField(allow_null=True, help_text="that line, playable under safe autoplay")
    result = serializers.ChoiceField(choices=["solved", "unsolvable", "gave_up"])
    reason = serializers.CharField(allow_null=True, help_text="why `solvable` is null")
    source = serializers.ChoiceField(choices=["solver", "daily"], help_text="daily: the par published with the daily")
