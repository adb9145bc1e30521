"""REST views of the boards: a deal's records, the month's ladder, streaks (public reads, `me` for the caller)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenScopes
from accounts.scopes import READ
from freecell_site.errors import ServiceError
from freecell_site.filters import FilteredList
from freecell_site.pagination import PAGING, page_asked, page_bounds, page_links
from games.boards import selectors, services
from games.boards.reading import read_board
from games.boards.serializers import (
    LADDER,
    RECORDS,
    STREAKS,
    LadderSerializer,
    PageSerializer,
    RecordsSerializer,
    StreaksSerializer,
)
from games.boards.services import POINTS_RULE
from games.daily.views import PLAYERS, players_asked
from games.play.serializers import ErrorSerializer

STREAK_ORDER = (
    "Ranked by current streak, then longest streak; equal pairs share a rank. A streak counts consecutive UTC days "
    "with a ranked daily won; it stays current through today until today is over, and reads 0 after a day missed."
)

SCOPE = OpenApiParameter("scope", OpenApiTypes.STR, enum=["all", "friends"], description="friends: you and your accepted friends (sign-in needed)")
ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="invalid_request (a bad page, page_size, scope, players, autoplay or month), invalid_deal, or bad_filter (a query parameter the board does not take)"),
    401: OpenApiResponse(ErrorSerializer, description="not_authenticated: the friends scope needs a sign-in"),
    403: OpenApiResponse(ErrorSerializer, description="forbidden: a daily's deal (daily:DATE or its seed:) while its day is on"),
    404: OpenApiResponse(ErrorSerializer, description="not_found: a page past the last, or a past daily:DATE that had no daily"),
}


def _scope(request) -> str:
    scope = request.query_params.get("scope") or "all"
    if scope not in ("all", "friends"):
        raise ValidationError({"scope": ["scope must be all or friends"]})
    if scope == "friends" and not request.user.is_authenticated:
        raise ServiceError("not_authenticated", "sign in to see your friends' board", status=401)
    return scope


def _board(request, shape: PageSerializer, board, *, friends, count, page, mine, record=None, as_of: str = "") -> dict:
    """The answer of a board of people or bots (`?players=`): each reader takes `bots`, `board(bots)`
    names the board's version (games.boards.services). The friends board is ranked among its players
    (a short list, read whole). The whole board is read one page at a time with ranks from its
    tallies, through the cache (games.boards.reading.read_board): a change of the board is read from
    the database at once, and a board that did not change is not. `record(bots=...)`: the board's
    first line (the deal's record), whatever the scope and page; `as_of`: what else a page and `me`
    depend on (the streaks' day)."""
    scope, players = _scope(request), players_asked(request)
    bots = players == "bots"
    if scope == "friends":
        lines = friends(bots=bots)
        total = len(lines)
        number, size = page_bounds(request, total)
        parts = {"entries": lines[(number - 1) * size : number * size]}
        if record is not None:
            parts["record"] = record(bots=bots)
        me = next((line for line in lines if line.username == request.user.username), None)
        written = shape.write(**parts, me=me)
    else:
        total, number, size, written = read_board(
            board(bots),
            shape,
            request.user,
            asked=page_asked(request),
            bounds=lambda total: page_bounds(request, total),
            count=lambda: count(bots=bots),
            page=lambda **at: page(**at, bots=bots),
            mine=lambda: mine(bots=bots),
            record=None if record is None else lambda: record(bots=bots),
            as_of=as_of,
        )
    nxt, prev = page_links(request, number, size, total)
    return {
        "scope": scope, "players": players, "count": total, "page": number, "page_size": size,
        "next": nxt, "previous": prev, shape.WRITTEN: written,
    }


class DealRecordsView(FilteredList, APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    filter_params = ("autoplay", "scope", "players")
    scopes = {"GET": READ}

    @extend_schema(
        parameters=[
            OpenApiParameter("deal", OpenApiTypes.STR, OpenApiParameter.PATH, description="ms:N, seed:S, or daily:YYYY-MM-DD once its day is over"),
            OpenApiParameter("autoplay", OpenApiTypes.STR, enum=["none", "safe"], description="which board: games played with this autoplay (default safe)"),
            SCOPE,
            PLAYERS,
            *PAGING,
        ],
        responses={200: RecordsSerializer, **ERRORS},
        summary="A deal's records",
        description=(
            "Each player's best won game of the deal, one line each, ranked by the score (moves, undos included), then "
            "elapsed time, then finish. `record` is the board's first line (the record to beat), whatever the scope and "
            "page; `me` is the caller's best with its rank. Games held for review are not counted. Separate boards per "
            "autoplay mode, and for people (the default) and bots (`?players=bots`). Live: `/ws/deals/<deal>/records/`."
        ),
        operation_id="deal_records",
    )
    def get(self, request, deal: str):
        board = selectors.board_deal(deal)
        autoplay = request.query_params.get("autoplay") or "safe"
        if autoplay not in selectors.AUTOPLAYS:
            raise ValidationError({"autoplay": ["autoplay must be none or safe"]})
        body = _board(
            request,
            RECORDS,
            lambda bots: services.records_board(board, autoplay, bots),
            friends=lambda **kind: selectors.record_friends(board, autoplay, request.user, **kind),
            count=lambda **kind: selectors.record_count(board, autoplay, **kind),
            page=lambda **at: selectors.record_page(board, autoplay, **at),
            mine=lambda **kind: selectors.record_line_of(board, autoplay, request.user, **kind),
            record=lambda **kind: selectors.record_of(board, autoplay, **kind),
        )
        body.update(deal=deal.strip(), autoplay=autoplay)
        return Response(RECORDS.to_representation(body))


class LadderView(FilteredList, APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    filter_params = ("scope", "players")
    scopes = {"GET": READ}

    @extend_schema(
        parameters=[OpenApiParameter("month", OpenApiTypes.STR, OpenApiParameter.PATH, description="a UTC month, YYYY-MM"), SCOPE, PLAYERS, *PAGING],
        responses={200: LadderSerializer, **ERRORS},
        summary="The month's ladder",
        description=(
            "Players ranked over the month's dailies by points. " + POINTS_RULE + " `played` counts the ranked dailies "
            "of the month started (from the first action), `won` those won. Listed by points, then wins. People rank "
            "among people (the default), bots among bots (`?players=bots`)."
        ),
        operation_id="ladder_month",
    )
    def get(self, request, month: str):
        first = selectors.parse_month(month)
        body = _board(
            request,
            LADDER,
            lambda bots: services.ladder_board(first, bots),
            friends=lambda **kind: selectors.ladder_friends(first, request.user, **kind),
            count=lambda **kind: selectors.ladder_count(first, **kind),
            page=lambda **at: selectors.ladder_page(first, **at),
            mine=lambda **kind: selectors.ladder_line_of(first, request.user, **kind),
        )
        body.update(month=first.strftime("%Y-%m"), points_rule=POINTS_RULE)
        return Response(LADDER.to_representation(body))


class StreaksView(FilteredList, APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    filter_params = ("scope", "players")
    scopes = {"GET": READ}

    @extend_schema(
        parameters=[SCOPE, PLAYERS, *PAGING],
        responses={200: StreaksSerializer, **ERRORS},
        summary="Daily streaks",
        description=(
            "Current and longest daily streaks of every player who has won a ranked daily: people's (the default) or "
            "bots' (`?players=bots`). " + STREAK_ORDER
        ),
        operation_id="ladder_streaks",
    )
    def get(self, request):
        body = _board(
            request,
            STREAKS,
            services.streaks_board,
            friends=lambda **kind: selectors.streak_friends(request.user, **kind),
            count=selectors.streak_count,
            page=selectors.streak_page,
            mine=lambda **kind: selectors.streak_line_of(request.user, **kind),
            # A streak stays current through today (and yesterday's until today is over): a page is the day's.
            as_of=services.today().isoformat(),
        )
        body["order"] = STREAK_ORDER
        return Response(STREAKS.to_representation(body))
