"""REST views for deals, games, moves, undo, history, verification and hints: thin, over services."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import permissions, status
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from freecell_site.errors import ServiceError
from freecell_site.pagination import PAGING, Pagination, paginated
from freecell_site.renderers import PlainTextRenderer
from freecell_site.throttling import ScopedRateThrottle
from games.daily import services as daily
from games.engine import Board, parse_deal, verify
from games.play import lines, selectors, services
from games.play import serializers as s
from games.play.models import Game
from games.play.payloads import action_payload, game_detail, game_payload

ERRORS = {
    400: OpenApiResponse(s.ErrorSerializer, description="bad input (bad_notation, invalid_deal, invalid_request)"),
    401: OpenApiResponse(s.ErrorSerializer, description="not signed in"),
    403: OpenApiResponse(s.ErrorSerializer, description="forbidden"),
    404: OpenApiResponse(s.ErrorSerializer, description="not_found (also a page past the last)"),
    409: OpenApiResponse(s.ErrorSerializer, description="ply_conflict (with the current game) or game_over"),
    422: OpenApiResponse(s.ErrorSerializer, description="illegal_move"),
    429: OpenApiResponse(s.ErrorSerializer, description="rate_limited"),
    503: OpenApiResponse(s.ErrorSerializer, description="hint_unavailable (the solver worker failed: ask again)"),
}


def errors(*codes: int) -> dict:
    return {code: ERRORS[code] for code in codes}


def visible_game(request, game_id: int) -> Game:
    game = selectors.visible_game(game_id, request.user)
    if game is None:
        # Hidden games are reported as missing, so their existence leaks nothing.
        raise ServiceError("not_found", f"no game {game_id}", status=404)
    return game


def deal_response(deal_text: str) -> dict:
    deal_id = parse_deal(deal_text)
    if deal_id.kind == "daily":
        if deal_id.value >= daily.today():
            raise ServiceError("not_found", f"the deal of daily:{deal_id.value.isoformat()} is shown once its day is over", status=404)
    deal = services.get_deal(str(deal_id))
    board = services.board_of_deal(deal)
    return {"deal": str(deal_id), "columns": deal.columns, "board": board.to_text()}


class PingSerializer(s.serializers.Serializer):
    ok = s.serializers.BooleanField()


class PingView(APIView):
    """Liveness for API clients: a trivial answer through the whole HTTP stack (also bench/api.py's baseline)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses={200: PingSerializer}, summary="Ping")
    def get(self, request):
        return Response({"ok": True})


class DealView(APIView):
    permission_classes = [permissions.AllowAny]
    throttle_scope = "verify"
    throttle_classes = [ScopedRateThrottle]

    @extend_schema(responses={200: s.DealSerializer, **errors(400, 404, 429)}, summary="A deal's layout")
    def get(self, request, deal: str):
        return Response(deal_response(deal))


class GameListView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[
            OpenApiParameter("status", OpenApiTypes.STR, enum=["playing", "won", "resigned"], description="only games in this status"),
            *PAGING,
        ],
        responses={200: paginated(s.GameSerializer, "PaginatedGames"), **errors(400, 401, 404)},
        summary="Your games, newest first",
        operation_id="games_list",
    )
    def get(self, request):
        wanted = request.query_params.get("status")
        if wanted and wanted not in Game.Status.values:
            raise ValidationError({"status": [f"status must be one of: {', '.join(Game.Status.values)}"]})
        games = selectors.games_of(request.user, status=wanted or None)
        paginator = Pagination()
        page = paginator.paginate_queryset(games, request, view=self)
        return paginator.get_paginated_response([game_payload(game) for game in page])

    @extend_schema(
        request=s.CreateGameSerializer,
        responses={201: s.GameSerializer, **errors(400, 401, 403, 404, 429)},
        summary="Start a casual game",
    )
    def post(self, request):
        body = s.CreateGameSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        deal_id = parse_deal(body.validated_data["deal"])
        if deal_id.kind == "daily":
            # Today's is ranked; a day to come is not out (get_deal answers 404), a past one is casual.
            if deal_id.value == daily.today():
                raise ServiceError("forbidden", "today's daily is played ranked: POST /api/daily/play/", status=403)
        game = services.create_game(player=request.user, deal=str(deal_id), autoplay=body.validated_data["autoplay"])
        return Response(game_payload(game), status=status.HTTP_201_CREATED)


class GameView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses={200: s.GameDetailSerializer, **errors(404)}, summary="A game")
    def get(self, request, game_id: int):
        return Response(game_detail(game_payload(visible_game(request, game_id))))


# A player's action over REST: the body read strictly, then play's service, then its answer. (A
# comment, not a docstring: drf-spectacular would make it every action's description.)
class _ActionView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    # Limited per account by the service (games/play/ratelimit.py), over REST and websockets together.
    throttle_classes: list = []
    body: type = s.UndoSerializer

    def act(self, **fields):
        raise NotImplementedError

    def post(self, request, game_id: int):
        body = self.body(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(self.act(game_id=game_id, user=request.user, **body.validated_data).payload())


ACTION_ERRORS = errors(400, 401, 403, 404, 409, 422, 429)


@extend_schema_view(post=extend_schema(request=s.MoveSerializer, responses={200: s.ActionResultSerializer, **ACTION_ERRORS}, summary="Play one move"))
class MoveView(_ActionView):
    body = s.MoveSerializer

    def act(self, **fields):
        return services.play_move(**fields)


@extend_schema_view(post=extend_schema(request=s.UndoSerializer, responses={200: s.ActionResultSerializer, **ACTION_ERRORS}, summary="Undo the last move"))
class UndoView(_ActionView):
    body = s.UndoSerializer

    def act(self, **fields):
        return services.undo(**fields)


class ResignView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: s.ActionResultSerializer, **errors(401, 403, 404, 409)}, summary="Resign")
    def post(self, request, game_id: int):
        return Response(services.resign(game_id=game_id, user=request.user).payload())


class HistoryView(APIView):
    permission_classes = [permissions.AllowAny]
    renderer_classes = [JSONRenderer, PlainTextRenderer, BrowsableAPIRenderer]

    @extend_schema(
        parameters=[OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "text", "api"], description="text: the line of play; api: the browsable page")],
        responses={
            (200, "application/json"): s.HistorySerializer,
            (200, "text/plain"): OpenApiTypes.STR,
            # errors are JSON whatever the format asked for
            (400, "application/json"): ERRORS[400],
            (404, "application/json"): ERRORS[404],
        },
        summary="A game's history",
    )
    def get(self, request, game_id: int):
        game = visible_game(request, game_id)
        line = selectors.line_text(game)
        if request.accepted_renderer.format == "text":
            # Not DRF's Response: it drops the Content-Type of an empty body (a game with no moves yet).
            return HttpResponse(line + "\n" if line else "", content_type="text/plain; charset=utf-8")
        actions = [action_payload(a) for a in selectors.actions_of(game)]
        prelude = lines.prelude(game.line)
        return Response(
            {"game": game.pk, "deal": game_payload(game)["deal"], "autoplay": game.autoplay, "prelude": prelude, "actions": actions, "line": line}
        )


class VerifyView(APIView):
    permission_classes = [permissions.AllowAny]
    authentication_classes = []  # public: no session, so no CSRF token needed either
    throttle_scope = "verify"
    throttle_classes = [ScopedRateThrottle]

    @extend_schema(request=s.VerifyRequestSerializer, responses={200: s.VerifyResultSerializer, **errors(400, 404, 429)}, summary="Check a solution")
    def post(self, request):
        body = s.VerifyRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if data.get("board") is not None:
            start = Board.from_text(data["board"])  # any position, pasted from another tool
        else:
            deal_id = parse_deal(data["deal"])
            if deal_id.kind == "daily":
                deal_response(str(deal_id))  # refuses a daily whose day is not over
            start = services.board_of_deal(services.get_deal(str(deal_id)))
        result = verify(start, data["moves"], autoplay=data["autoplay"])
        answer = {"valid": result.valid, "won": result.won, "moves": result.moves}
        if result.error:
            answer["error"] = result.error
        return Response(answer)


class HintView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "hint"
    throttle_classes = [ScopedRateThrottle]

    @extend_schema(responses={200: s.HintSerializer, **errors(401, 403, 404, 409, 429, 503)}, summary="A hint (casual games)")
    def get(self, request, game_id: int):
        return Response(services.hint_for(game_id=game_id, user=request.user))
