"""REST views for deals, games, moves, undo, history, verification and hints: thin, over services."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_view,
)
from rest_framework import permissions, status
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenScopes
from accounts.scopes import PLAY, READ
from freecell_site import filters, metrics
from freecell_site.errors import ServiceError
from freecell_site.pagination import PAGING, Pagination, paginated
from freecell_site.renderers import PlainTextRenderer
from freecell_site.throttling import ScopedRateThrottle, network_of
from games.daily import services as daily
from games.engine import Board, parse_deal, random_deal, verify
from games.play import lines, policies, ratelimit, selectors, services
from games.play import serializers as s
from games.play.facts import solver_facts
from games.play.models import Action, Game
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


#: A deal id in a URL path.
DEAL_PATH = OpenApiParameter("deal", s.DEAL_SCHEMA, OpenApiParameter.PATH, description="ms:N, seed:S or daily:YYYY-MM-DD")


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
        board = services.board_of_deal(daily.shown_daily(deal_id.value).deal)
    else:
        board = selectors.board_of_deal_id(deal_id)  # a read stores nothing (a deal is stored when a game is dealt)
    return {"deal": str(deal_id), "columns": board.state()["columns"], "board": board.to_text()}


class PingSerializer(s.serializers.Serializer):
    ok = s.serializers.BooleanField()


class PingView(APIView):
    """Liveness for API clients: a trivial answer through the whole HTTP stack (also bench/api.py's baseline)."""

    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": None}

    @extend_schema(responses={200: PingSerializer}, summary="Ping")
    def get(self, request):
        return Response({"ok": True})


class DealView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": None}
    throttle_scope = "verify"
    throttle_classes = [ScopedRateThrottle]

    @extend_schema(parameters=[DEAL_PATH], responses={200: s.DealSerializer, **errors(400, 403, 404, 429)}, summary="A deal's layout")
    def get(self, request, deal: str):
        return Response(deal_response(deal))


class DealFactsView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    throttle_scope = "verify"
    throttle_classes = [ScopedRateThrottle]
    scopes = {"GET": None}

    @extend_schema(
        parameters=[DEAL_PATH],
        responses={200: s.DealFactsSerializer, **errors(400, 403, 404, 429, 503)},
        summary="What the solver knows of a deal: solvable, par",
        description=(
            "Whether the deal can be won and its par (the move count of the best line the solver found, under safe "
            "autoplay, as ranked games count), for `ms:N` and `seed:S` deals and past dailies. A daily's deal is "
            "secret during its day (404, as `GET /api/deals/{deal}/`). No help where it would rank: 403 `forbidden` "
            "to a player in a race on the deal that is not over, and to a visitor while a race on it is under way. The solver has a budget "
            "(`DEAL_FACTS_BUDGET` seconds, twice): past it the answer is `solvable: null` with a `reason`, "
            "and is tried again a few minutes later. Answers are cached; 429 when the solver is busy."
        ),
        examples=[
            OpenApiExample(
                "the famous lost deal",
                value={"deal": "ms:11982", "autoplay": "safe", "solvable": False, "par": None, "par_line": None,
                       "result": "unsolvable", "reason": None, "source": "solver"},
                response_only=True,
            ),
            OpenApiExample(
                "a deal won",
                value={"deal": "ms:1", "autoplay": "safe", "solvable": True, "par": 40,
                       "par_line": "7a 4b 74 7c 32 63 47v2 87 18 63 24v2 82v2 84 14 8h 1d 1h 61 56 dh 5d 8h 58 56 36v2 bh 15v2 31 "
                       "15v2 23v3 28 2h 21 2b 6h 72v4 4h 46v4 41 47",
                       "result": "solved", "reason": None, "source": "solver"},
                response_only=True,
            ),
        ],
    )
    def get(self, request, deal: str):
        deal_id = parse_deal(deal)
        if deal_id.kind == "daily":
            found = daily.shown_daily(deal_id.value)
            # a daily is proven solvable before anyone sees it; its par was found then
            facts = {"solvable": True, "par": found.par, "par_line": found.par_line or None, "result": "solved", "reason": None, "source": "daily"}
        else:
            # No help where it would rank (docs/fair-play.md): not to a racer on this deal, nor to a visitor while a race on it runs.
            policies.guard_help(str(deal_id), request.user)
            asker = request.user.pk if request.user.is_authenticated else f"net:{network_of(request.META.get('REMOTE_ADDR', ''))}"
            facts = {**solver_facts(str(deal_id), selectors.board_of_deal_id(deal_id), asker), "source": "solver"}
        return Response(s.DealFactsSerializer({"deal": str(deal_id), "autoplay": "safe", **facts}).data)


class GameListView(filters.FilteredList, APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    filter_params = ("status", "since", "until", "order")
    scopes = {"GET": READ, "POST": PLAY}

    @extend_schema(
        parameters=[
            OpenApiParameter("status", OpenApiTypes.STR, enum=Game.Status.values, description="only games in this status"),
            *filters.SINCE_UNTIL,
            filters.ORDER,
            *PAGING,
        ],
        responses={200: paginated(s.GameSerializer, "PaginatedGames"), **errors(400, 401, 404)},
        summary="Your games, newest first",
        description=(
            "The caller's games, newest first by creation (`order=oldest` for the oldest first), optionally only those "
            "in one `status` or created `since`/`until` an instant (an ISO datetime, or a date for its whole UTC day). "
            "Any other query parameter is 400 `bad_filter`."
        ),
        operation_id="games_list",
    )
    def get(self, request):
        wanted = request.query_params.get("status")
        if wanted and wanted not in Game.Status.values:
            raise ValidationError({"status": [f"status must be one of: {', '.join(Game.Status.values)}"]})
        games = selectors.games_of(
            request.user,
            status=wanted or None,
            since=filters.moment(request, "since"),
            until=filters.moment(request, "until", until=True),
            order=filters.choice(request, "order", tuple(selectors.ORDERS), "newest"),
        )
        paginator = Pagination()
        page = paginator.paginate_queryset(games, request, view=self)
        return paginator.get_paginated_response([game_payload(game) for game in page])

    @extend_schema(
        request=s.CreateGameSerializer,
        responses={201: s.GameSerializer, **errors(400, 401, 403, 404, 429)},
        summary="Start a casual game",
        description=(
            "A casual game of `deal` (`ms:N`, `seed:S`, a past `daily:YYYY-MM-DD`, or `random`: a fresh `seed:` deal "
            "nobody has seen), with `autoplay` `safe` (the default) or `none`. Today's daily is played ranked instead: "
            "`POST /api/daily/play/`."
        ),
        examples=[
            OpenApiExample("a Microsoft deal", value={"deal": "ms:11982", "autoplay": "safe"}, request_only=True),
            OpenApiExample("a fresh random deal", value={"deal": "random"}, request_only=True),
        ],
    )
    def post(self, request):
        body = s.CreateGameSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        asked = body.validated_data["deal"]
        deal_id = parse_deal(random_deal() if asked == s.RANDOM_DEAL else asked)
        # A past daily is a casual game; today's and a day to come are refused (games.daily.services.shown_daily).
        game = services.create_game(player=request.user, deal=str(deal_id), autoplay=body.validated_data["autoplay"])
        return Response(game_payload(game), status=status.HTTP_201_CREATED)


class GameView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": READ}

    @extend_schema(responses={200: s.GameDetailSerializer, **errors(404)}, summary="A game")
    def get(self, request, game_id: int):
        return Response(game_detail(game_payload(visible_game(request, game_id))))


class LegalMovesView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": READ}

    @extend_schema(
        responses={200: s.LegalMovesSerializer, **errors(404)},
        summary="The legal moves of a game's position",
        description=(
            "Every legal move at the game's current position, in the notation `POST /api/games/{id}/moves/` takes: "
            "from a column, a free cell, to a free cell, a column or the foundation (`h`). A run moved to an empty "
            "column is listed once for each length that may move (`24`, `24v2`, `24v3`), as the free cells and empty "
            "columns allow; a run onto a card has one length, written with its count when above one (`57v3`), as "
            "the history writes it. None once the game is over. Seen by whoever may see the game "
            "(`GET /api/games/{id}/`). Undo is not a move and is not listed."
        ),
        examples=[
            OpenApiExample(
                "ms:1 at its start",
                value={"game": 42, "ply": 0, "status": "playing", "moves": [f"{column}{cell}" for column in "12345678" for cell in "abcd"]},
                response_only=True,
            )
        ],
    )
    def get(self, request, game_id: int):
        return Response(s.LegalMovesSerializer(selectors.legal_moves(visible_game(request, game_id))).data)


def via_of(request) -> str:
    """How an action came (docs/fair-play.md): `api` with a token (DRF's `request.auth`), `web` on the site's session."""
    return Action.Via.API if request.auth is not None else Action.Via.WEB


# A player's action over REST: the body read strictly, then play's service, then its answer. (A
# comment, not a docstring: drf-spectacular would make it every action's description.)
class _ActionView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": PLAY}
    # Limited per account by the service (games/play/ratelimit.py), over REST and websockets together.
    throttle_classes: list = []
    body: type = s.UndoSerializer
    kind = "undo"  # the action's label in freecell_site.metrics

    def act(self, **fields):
        raise NotImplementedError

    def post(self, request, game_id: int):
        body = self.body(data=request.data)
        body.is_valid(raise_exception=True)
        via = via_of(request)
        with metrics.action(via=via, transport="rest", kind=self.kind) as noted:
            outcome = self.act(game_id=game_id, user=request.user, via=via, **body.validated_data)
            noted.repeated(outcome)
        return Response(outcome.payload())

    def finalize_response(self, request, response, *args, **kwargs):
        """Every answer to a signed-in player, errors included, says the account's action budget in
        the `RateLimit-*` headers other throttled endpoints send (docs/api.md, "Rate limits")."""
        response = super().finalize_response(request, response, *args, **kwargs)
        user = getattr(request, "user", None)
        found = ratelimit.budget(user.pk) if user is not None and user.is_authenticated else None
        if found is not None:
            limit, remaining, reset = found
            response["RateLimit-Limit"], response["RateLimit-Remaining"] = str(limit), str(remaining)
            response["RateLimit-Reset"] = str(reset)
        return response


ACTION_ERRORS = errors(400, 401, 403, 404, 409, 422, 429)


@extend_schema_view(post=extend_schema(request=s.MoveSerializer, responses={200: s.ActionResultSerializer, **ACTION_ERRORS}, summary="Play one move"))
class MoveView(_ActionView):
    body = s.MoveSerializer
    kind = "move"

    def act(self, **fields):
        return services.play_move(**fields)


@extend_schema_view(post=extend_schema(request=s.UndoSerializer, responses={200: s.ActionResultSerializer, **ACTION_ERRORS}, summary="Undo the last move"))
class UndoView(_ActionView):
    body = s.UndoSerializer

    def act(self, **fields):
        return services.undo(**fields)


class ResignView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": PLAY}

    @extend_schema(request=None, responses={200: s.ActionResultSerializer, **errors(401, 403, 404, 409)}, summary="Resign")
    def post(self, request, game_id: int):
        return Response(services.resign(game_id=game_id, user=request.user).payload())


class HistoryView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": READ}
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
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"POST": None}
    authentication_classes = []  # public: no session, so no CSRF token needed either
    throttle_scope = "verify"
    throttle_classes = [ScopedRateThrottle]

    @extend_schema(
        request=PolymorphicProxySerializer(
            component_name="Verify",
            serializers=[s.VerifyDealRequestSerializer, s.VerifyBoardRequestSerializer],
            resource_type_field_name=None,
        ),
        responses={200: s.VerifyResultSerializer, **errors(400, 404, 429)},
        summary="Check a solution",
        description=(
            "Replays `moves` (one string separated by white space, or a list) from a `deal` or from any position given "
            "as `board` text (one of the two), under `autoplay` (`none` by default). No account needed. `valid` is false "
            "at the first move that does not parse or is illegal, with its 0-based `index`."
        ),
        examples=[
            OpenApiExample("from a deal", value={"deal": "ms:1", "moves": "3a 32 1h", "autoplay": "none"}, request_only=True),
            OpenApiExample(
                "a bad move",
                value={"valid": False, "won": False, "moves": 1,
                       "error": {"index": 1, "move": "3h", "code": "illegal_move", "message": "the 2S cannot go to the foundation before the AS"}},
                response_only=True,
            ),
        ],
    )
    def post(self, request):
        body = s.VerifyRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if data.get("board") is not None:
            start = Board.from_text(data["board"])  # any position, pasted from another tool
        else:
            deal_id = parse_deal(data["deal"])
            start = services.board_of_deal(services.get_deal(str(deal_id)))  # a daily's: once its day is over
        result = verify(start, data["moves"], autoplay=data["autoplay"])
        answer = {"valid": result.valid, "won": result.won, "moves": result.moves}
        if result.error:
            answer["error"] = result.error
        return Response(answer)


class HintView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"GET": PLAY}
    throttle_scope = "hint"
    throttle_classes = [ScopedRateThrottle]

    @extend_schema(responses={200: s.HintSerializer, **errors(401, 403, 404, 409, 429, 503)}, summary="A hint (casual games)")
    def get(self, request, game_id: int):
        return Response(services.hint_for(game_id=game_id, user=request.user))
