"""A player's finished games with their lines: paginated JSON, or streamed NDJSON (`?format=ndjson`) or text
(`?format=text`: each game's board text, then its line), filtered by instant, ids, deal and result."""

from __future__ import annotations

import json

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.views import APIView

from accounts.guests import is_guest
from accounts.permissions import TokenScopes
from accounts.selectors import player_named
from freecell_site import filters
from freecell_site.errors import ServiceError
from freecell_site.pagination import PAGING, Pagination, paginated
from freecell_site.renderers import NDJSONRenderer, PlainTextRenderer
from games.engine import InvalidDeal, parse_deal
from games.play import selectors
from games.play.serializers import ErrorSerializer


class ExportRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    deal = serializers.CharField()
    status = serializers.ChoiceField(choices=["won", "resigned"])
    moves = serializers.IntegerField()
    undos = serializers.IntegerField()
    autoplay = serializers.ChoiceField(choices=["none", "safe"])
    elapsed_ms = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    line = serializers.CharField()


#: The most games `max` may ask for, and ids `ids` may name (lichess's export takes 300 ids too).
MAX_GAMES = 1_000_000
MAX_IDS = 300
#: How a game of the export may end.
RESULTS = ("won", "resigned")


def most(request) -> int | None:
    """`max`: a whole number from 1; None when absent; 400 `invalid_request` else."""
    raw = request.query_params.get("max")
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 7 and 1 <= int(raw) <= MAX_GAMES):
        raise ValidationError({"max": [f"max must be a whole number from 1 to {MAX_GAMES}"]})
    return int(raw)


def game_ids(request) -> list[int] | None:
    """`ids`: game ids separated by commas (at most MAX_IDS); None when absent; 400 `invalid_request` else."""
    raw = request.query_params.get("ids")
    if raw is None:
        return None
    parts = [part.strip() for part in raw.split(",")]
    if len(parts) > MAX_IDS or not all(part.isascii() and part.isdigit() and len(part) <= 18 for part in parts):
        raise ValidationError({"ids": [f"ids must be up to {MAX_IDS} game ids separated by commas (ids=12,15)"]})
    return [int(part) for part in parts]


def deal_of(request):
    """`deal`: a deal id (`ms:617`, `seed:42`, `daily:2026-12-01`); None when absent; 400 `invalid_request` else."""
    raw = request.query_params.get("deal")
    if raw is None:
        return None
    try:
        return parse_deal(raw)
    except InvalidDeal as error:
        raise ValidationError({"deal": [str(error)]}) from None


def result_of(request) -> str | None:
    raw = request.query_params.get("result")
    if raw is not None and raw not in RESULTS:
        raise ValidationError({"result": [f"result must be one of: {', '.join(RESULTS)}"]})
    return raw


class UserGamesExportView(filters.FilteredList, APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    renderer_classes = [JSONRenderer, NDJSONRenderer, PlainTextRenderer, BrowsableAPIRenderer]
    filter_params = ("since", "until", "order", "max", "ids", "deal", "result")
    scopes = {"GET": None}

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "format", OpenApiTypes.STR, enum=["json", "ndjson", "text", "api"],
                description="ndjson: one game a line; text: each game's board text, then its line; both streamed "
                "(not paged). `Accept: application/x-ndjson` or `text/plain` choose them too",
            ),
            *filters.SINCE_UNTIL,
            filters.ORDER,
            OpenApiParameter("max", OpenApiTypes.INT, description=f"at most this many games (1 to {MAX_GAMES}), the first in the order"),
            OpenApiParameter("ids", OpenApiTypes.STR, description=f"only these games: up to {MAX_IDS} ids separated by commas (`ids=12,15`)"),
            OpenApiParameter("deal", OpenApiTypes.STR, description="only games of this deal, as the rows name it: `ms:617`, `seed:42`, `daily:2026-12-01`"),
            OpenApiParameter("result", OpenApiTypes.STR, enum=list(RESULTS), description="only games that ended so"),
            *PAGING,
        ],
        responses={
            (200, "application/json"): paginated(ExportRowSerializer, "PaginatedExport"),
            (200, "application/x-ndjson"): OpenApiTypes.STR,
            (200, "text/plain"): OpenApiTypes.STR,
            (400, "application/json"): OpenApiResponse(
                ErrorSerializer,
                description="invalid_request: a bad page, page_size, since, until, order, max, ids, deal or result; "
                "bad_filter: an unknown query parameter",
            ),
            (404, "application/json"): OpenApiResponse(ErrorSerializer, description="not_found: no such player, or a page past the last"),
        },
        summary="A player's finished games with their lines",
        description=(
            "The player's finished games that you may see (another player's daily or race game shows once its day or "
            "race is over), newest first by creation (`order=oldest` for the oldest first), optionally created "
            "`since`/`until` an instant, only those of `ids`, of a `deal` or ending in a `result`, and at most `max` of "
            "them. JSON is paged; `format=ndjson` streams them all, one a line; `format=text` streams each game as the "
            "deal's board text (Freecell Solver's format, 10 lines), then its line of play for autoplay `none` on one "
            "line (no line when it had no move), then a blank line."
        ),
    )
    def get(self, request, username: str):
        player = player_named(username)
        if player is None or (is_guest(player) and player.pk != request.user.pk):  # a guest's are its own
            raise ServiceError("not_found", f"no player named {username!r}", status=404)
        chosen = {
            "since": filters.moment(request, "since"),
            "until": filters.moment(request, "until", until=True),
            "order": filters.choice(request, "order", ("newest", "oldest"), "newest"),
            "most": most(request),
            "ids": game_ids(request),
            "deal": deal_of(request),
            "result": result_of(request),
        }
        streamed = request.accepted_renderer.format
        if streamed == "ndjson":
            rows = selectors.export_rows(player, request.user, **chosen)
            return download(player, (json.dumps(row) + "\n" for row in rows), "application/x-ndjson", "ndjson")
        if streamed == "text":
            texts = selectors.export_texts(player, request.user, **chosen)
            return download(player, texts, "text/plain; charset=utf-8", "txt")
        paginator = Pagination()
        page = paginator.paginate_queryset(selectors.exported_games(player, request.user, **chosen), request, view=self)
        return paginator.get_paginated_response([selectors.export_row(game) for game in page])


def download(player, chunks, content_type: str, extension: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(chunks, content_type=content_type)
    response["Content-Disposition"] = f'inline; filename="{player.username}-games.{extension}"'
    return response
