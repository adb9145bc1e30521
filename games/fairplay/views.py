"""REST views of fair play: the published policy, reports, bot accounts, and the moderators' queue and verdicts."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenScopes
from accounts.scopes import ACCOUNT, PLAY, READ
from accounts.selectors import player_named
from freecell_site.errors import ServiceError
from freecell_site.fields import StrictCharField, StrictChoiceField
from freecell_site.throttling import ScopedRateThrottle
from games.fairplay import selectors, services
from games.play import policies
from games.play.payloads import REVIEW_STATES, ReviewReasonSerializer
from games.play.serializers import ErrorSerializer

POLICY = (
    "The boards rank people. Programs are welcome as bot accounts (POST /api/account/bot/), which rank among bots "
    "only. Every result that ranks on a board is measured, when it is won, against the published signals below, "
    "from its stored moves and their server times; a result that crosses one is flagged: it leaves the people's "
    "boards, and others see neither its moves nor its time, until a moderator looks. A moderator clears it (it "
    "ranks again) or rejects it (it never ranks), with a note its player can read, and may mark an account whose "
    "results then leave every board. Any signed-in player may report a result on a board; a report sends it to the "
    "moderators and changes nothing on the board by itself. The solver gives no help where it would rank: no hints "
    "in ranked games, and no hints or par line on the deal of a race or a ranked daily you have not finished."
)


#: A case of the queue, as the examples show it.
CASE = {
    "game": 4512, "player": "bob", "deal": "daily:2026-12-04", "daily": "2026-12-04", "review": "flagged",
    "reasons": [{"signal": "steadiness", "value": 0.04, "threshold": 0.3}], "reports": 1,
    "opened_at": "2026-12-04T09:12:00Z", "moves": 27, "undos": 0, "elapsed_ms": 4512,
}


def _error(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=description)


# --- shapes ---------------------------------------------------------------------------------------


class SignalSerializer(serializers.Serializer):
    signal = serializers.CharField()
    threshold = serializers.FloatField()
    flags_when = serializers.ChoiceField(choices=["below", "at_or_below", "above"], help_text="the side of the threshold that flags a result")
    words = serializers.CharField(help_text="what the signal measures, for a player")


class PolicySerializer(serializers.Serializer):
    policy = serializers.CharField()
    review = serializers.BooleanField(help_text="whether this server flags results automatically (FAIR_PLAY_REVIEW)")
    signals = SignalSerializer(many=True)
    review_states = serializers.ListField(child=serializers.CharField())
    report_limit = serializers.CharField(help_text="how many reports a player may send (THROTTLE_REPORT)")


class ReportRequestSerializer(serializers.Serializer):
    reason = StrictCharField(max_length=500, help_text="what looks wrong, for the moderators")


class ReportSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    reported = serializers.BooleanField()
    message = serializers.CharField()


class BotSerializer(serializers.Serializer):
    username = serializers.CharField()
    bot = serializers.BooleanField()


class VerdictRequestSerializer(serializers.Serializer):
    verdict = StrictChoiceField(choices=["clear", "reject"])
    note = StrictCharField(max_length=500, required=False, allow_blank=True, default="")


class MarkRequestSerializer(serializers.Serializer):
    note = StrictCharField(max_length=500, required=False, allow_blank=True, default="")


class MarkSerializer(serializers.Serializer):
    username = serializers.CharField()
    marked = serializers.BooleanField()
    results = serializers.IntegerField(help_text="results the mark took off the boards (or gave back)")


class CaseSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    player = serializers.CharField()
    deal = serializers.CharField()
    daily = serializers.DateField(allow_null=True)
    review = serializers.CharField()
    reasons = ReviewReasonSerializer(many=True)
    reports = serializers.IntegerField()
    opened_at = serializers.DateTimeField()
    moves = serializers.IntegerField()
    undos = serializers.IntegerField()
    elapsed_ms = serializers.IntegerField(allow_null=True)


class QueueSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    cases = CaseSerializer(many=True)


# --- views ----------------------------------------------------------------------------------------


class PolicyView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": None}

    @extend_schema(
        responses={200: PolicySerializer},
        summary="The fair-play policy, its signals and their thresholds",
        description="What the service does to keep its boards for people (docs/fair-play.md), with every signal a result is "
        "measured against when it is won, its threshold and the side of it that flags.",
        examples=[
            OpenApiExample(
                "the policy",
                value={"policy": POLICY[:80] + "...", "review": True, "review_states": ["none", "flagged", "cleared", "rejected"],
                       "report_limit": "10/hour",
                       "signals": [{"signal": "first_move_ms", "threshold": 1000.0, "flags_when": "below",
                                    "words": "Milliseconds from the moment the board is shown to your first move. ..."}]},
                response_only=True,
            )
        ],
    )
    def get(self, request):
        return Response(PolicySerializer(selectors.policy(POLICY)).data)


class ReportView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": PLAY}
    guests = False  # a guest plays casual deals only (accounts/guests.py)
    throttle_scope = "report"
    throttle_classes = [ScopedRateThrottle]

    @extend_schema(
        request=ReportRequestSerializer,
        responses={
            202: ReportSerializer,
            400: _error("invalid_request: no reason, or your own result"),
            401: _error("not_authenticated"),
            404: _error("not_found: no such won game on a board"),
            409: _error("already_reported: one report per player and result"),
            429: _error("rate_limited (THROTTLE_REPORT)"),
        },
        summary="Report a result on a board",
        description="Sends a won game that ranks on a board (the daily's leaderboard, a deal's records) to the moderators. "
        "One report per player and result, a few an hour. The board does not change until a moderator's verdict.",
        examples=[
            OpenApiExample("a report", value={"reason": "27 moves at an even 150 ms a move"}, request_only=True),
            OpenApiExample(
                "sent", value={"game": 4512, "reported": True, "message": "thank you: the moderators will look at this result"},
                response_only=True, status_codes=["202"],
            ),
        ],
    )
    def post(self, request, game_id: int):
        services.reportable(game_id, request.user)  # an id that names no result is 404 whatever the body
        body = ReportRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.report(game_id=game_id, reporter=request.user, reason=body.validated_data["reason"])
        answer = {"game": game_id, "reported": True, "message": "thank you: the moderators will look at this result"}
        return Response(ReportSerializer(answer).data, status=status.HTTP_202_ACCEPTED)


class BotView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": ACCOUNT}

    @extend_schema(
        request=None,
        responses={200: BotSerializer, 401: _error("not_authenticated"), 409: _error("has_results: the account has a ranked result")},
        summary="Make your account a bot",
        description="Turns the caller's account into a bot account, for good: its results rank on the bots' boards "
        "(`?players=bots`) and never on the people's. Refused (409 `has_results`) once the account has a ranked daily or a won game.",
        examples=[OpenApiExample("a bot", value={"username": "solverbot", "bot": True}, response_only=True)],
    )
    def post(self, request):
        services.become_bot(request.user)
        return Response(BotSerializer({"username": request.user.username, "bot": True}).data)


class StaffOnly(permissions.BasePermission):
    message = "only moderators (staff) may do this"

    def has_permission(self, request, view):
        return bool(request.user and request.user.is_staff)


class QueueView(APIView):
    permission_classes = [permissions.IsAuthenticated, StaffOnly, TokenScopes]
    scopes = {"GET": ACCOUNT}

    @extend_schema(
        responses={200: QueueSerializer, 401: _error("not_authenticated"), 403: _error("forbidden: moderators only")},
        summary="The moderators' review queue",
        description="Open review cases, oldest first: results flagged by a signal or reported by players (staff only).",
        examples=[OpenApiExample("one case", value={"count": 1, "cases": [CASE]}, response_only=True)],
    )
    def get(self, request):
        return Response(QueueSerializer(selectors.queue()).data)


class ReviewStateSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    review = serializers.ChoiceField(choices=REVIEW_STATES)
    reasons = ReviewReasonSerializer(many=True)
    note = serializers.CharField(help_text="the moderator's note, once decided")
    decided_at = serializers.DateTimeField(allow_null=True)
    in_queue = serializers.BooleanField(help_text="whether a moderator has still to look (flagged or reported)")


class VerdictView(APIView):
    # Reads are the player's and the moderators'; verdicts the moderators' (checked in post, after the id).
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"GET": READ, "POST": ACCOUNT}

    @extend_schema(
        responses={200: ReviewStateSerializer, 401: _error("not_authenticated"), 404: _error("not_found: not your game")},
        summary="Your result's review",
        description="The review state of one of your results: the signals it crossed, whether a moderator has still to look, "
        "and the moderator's note once decided. Moderators read any result's.",
        examples=[OpenApiExample("flagged", value={"game": 4512, "review": "flagged", "in_queue": True, "note": "", "decided_at": None,
                                                   "reasons": [{"signal": "steadiness", "value": 0.04, "threshold": 0.3}]}, response_only=True)],
    )
    def get(self, request, game_id: int):
        found = selectors.review_of(game_id, request.user)
        if found is None:
            raise ServiceError("not_found", f"no game {game_id} of yours", status=404)
        return Response(ReviewStateSerializer(found).data)

    @extend_schema(
        request=VerdictRequestSerializer,
        responses={200: CaseSerializer, 400: _error("invalid_request"), 403: _error("forbidden: moderators only"), 404: _error("not_found")},
        summary="Clear or reject a result",
        description="A moderator's verdict with a note the player reads: `clear` ranks the result on every board it belongs "
        "to; `reject` keeps it off them for good (staff only).",
        examples=[
            OpenApiExample("reject", value={"verdict": "reject", "note": "a solver's line at an even pace"}, request_only=True),
            OpenApiExample("rejected", value={**CASE, "review": "rejected"}, response_only=True),
        ],
    )
    def post(self, request, game_id: int):
        game = services.game_or_404(game_id)
        if not request.user.is_staff:
            # As a move on another's game: a game hidden from the caller does not exist for them.
            if not policies.can_view_game(request.user, game):
                raise ServiceError("not_found", f"no game {game_id}", status=404)
            raise ServiceError("forbidden", StaffOnly.message, status=403)
        body = VerdictRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        decide = services.clear if body.validated_data["verdict"] == "clear" else services.reject
        game = decide(game_id, moderator=request.user, note=body.validated_data["note"])
        return Response(CaseSerializer(selectors.case_line(game)).data)


class MarkView(APIView):
    permission_classes = [permissions.IsAuthenticated, StaffOnly, TokenScopes]
    scopes = {"POST": ACCOUNT, "DELETE": ACCOUNT}

    def _player(self, username: str):
        player = player_named(username)
        if player is None:
            raise ServiceError("not_found", f"no player {username}", status=404)
        return player

    @extend_schema(
        request=MarkRequestSerializer,
        responses={200: MarkSerializer, 403: _error("forbidden: moderators only"), 404: _error("not_found")},
        summary="Mark an account",
        description="Every result of the account leaves every board (rejected), and so will its results to come; its "
        "profile says it is marked (staff only).",
        examples=[
            OpenApiExample("mark", value={"note": "solver lines on three dailies"}, request_only=True),
            OpenApiExample("marked", value={"username": "bob", "marked": True, "results": 3}, response_only=True),
        ],
    )
    def post(self, request, username: str):
        body = MarkRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = self._player(username)
        taken = services.mark_account(player, moderator=request.user, note=body.validated_data["note"])
        return Response(MarkSerializer({"username": player.username, "marked": True, "results": taken}).data)

    @extend_schema(
        request=None,
        responses={200: MarkSerializer, 403: _error("forbidden: moderators only"), 404: _error("not_found")},
        summary="Lift an account's mark",
        description="The results the mark rejected rank again (staff only).",
        examples=[OpenApiExample("lifted", value={"username": "bob", "marked": False, "results": 3}, response_only=True)],
    )
    def delete(self, request, username: str):
        player = self._player(username)
        given = services.unmark_account(player, moderator=request.user)
        return Response(MarkSerializer({"username": player.username, "marked": False, "results": given}).data)
