"""A player's finished games with their lines: paginated JSON, or streamed NDJSON (`?format=ndjson`)."""

from __future__ import annotations

import json

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.views import APIView

from accounts.guests import is_guest
from accounts.permissions import TokenScopes
from accounts.scopes import READ
from accounts.selectors import player_named
from freecell_site import filters
from freecell_site.errors import ServiceError
from freecell_site.pagination import PAGING, Pagination, paginated
from freecell_site.renderers import NDJSONRenderer
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


class UserGamesExportView(filters.FilteredList, APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": READ}
    renderer_classes = [JSONRenderer, NDJSONRenderer, BrowsableAPIRenderer]
    filter_params = ("since", "until", "order")
    scopes = {"GET": None}

    @extend_schema(
        parameters=[
            OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "ndjson", "api"], description="ndjson: one game a line, streamed (not paged)"),
            *filters.SINCE_UNTIL,
            filters.ORDER,
            *PAGING,
        ],
        responses={
            (200, "application/json"): paginated(ExportRowSerializer, "PaginatedExport"),
            (200, "application/x-ndjson"): OpenApiTypes.STR,
            (400, "application/json"): OpenApiResponse(
                ErrorSerializer, description="invalid_request: a bad page, page_size, since, until or order; bad_filter: an unknown query parameter"
            ),
            (404, "application/json"): OpenApiResponse(ErrorSerializer, description="not_found: no such player, or a page past the last"),
        },
        summary="A player's finished games with their lines",
        description=(
            "The player's finished games that you may see (another player's daily or race game shows once its day or "
            "race is over), newest first by creation (`order=oldest` for the oldest first), optionally created "
            "`since`/`until` an instant. JSON is paged; `format=ndjson` streams them all, one a line."
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
        }
        if request.accepted_renderer.format == "ndjson":
            rows = selectors.export_rows(player, request.user, **chosen)
            response = StreamingHttpResponse((json.dumps(row) + "\n" for row in rows), content_type="application/x-ndjson")
            response["Content-Disposition"] = f'inline; filename="{player.username}-games.ndjson"'
            return response
        paginator = Pagination()
        page = paginator.paginate_queryset(selectors.exported_games(player, request.user, **chosen), request, view=self)
        return paginator.get_paginated_response([selectors.export_row(game) for game in page])
