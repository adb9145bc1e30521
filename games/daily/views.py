"""REST views of the daily challenge: today's daily, ranked play, leaderboards, archive, histogram, share."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenScopes
from accounts.scopes import PLAY, READ, allows
from accounts.selectors import player_named
from freecell_site import filters
from freecell_site.errors import ServiceError
from freecell_site.pagination import (
    PAGING,
    Pagination,
    page_bounds,
    page_links,
    paginated,
)
from games.daily import history, leaderboard, sharing
from games.daily import services as daily
from games.daily.models import DailyChallenge
from games.play import serializers as s
from games.play.payloads import REVIEW_STATES, game_payload


def _err(description: str) -> OpenApiResponse:
    return OpenApiResponse(s.ErrorSerializer, description=description)


E400 = {400: _err("invalid_request: a malformed date, page, page_size, scope or players; bad_filter: an unknown query parameter of a list")}
E401 = {401: _err("not signed in")}
E403 = {403: _err("forbidden (for a session: a missing CSRF token)")}
E404 = {404: _err("not_found: no such daily, a day that has not begun, or no such result")}
E409 = {409: _err("game_not_finished: the daily game is still being played")}
E503 = {
    503: _err(
        "daily_pending: today's daily is not made yet (the server makes it ahead; on a fresh server within "
        "seconds): nothing is stored, try again after `retry_after` seconds; daily_unavailable: no deal could be proved"
    )
}

DATE = OpenApiParameter("date", OpenApiTypes.DATE, OpenApiParameter.PATH, description="a UTC date, YYYY-MM-DD")
#: Which board of two (docs/fair-play.md), on every board: the daily's and those beyond the day (games/boards/views.py).
PLAYERS = OpenApiParameter(
    "players", OpenApiTypes.STR, enum=list(leaderboard.PLAYERS),
    description="whose board: people's (the default) or bots' (bot accounts rank only among bots)",
)


def players_asked(request) -> str:
    """`?players=people|bots` of a board (default people); any other value is 400 invalid_request."""
    return filters.choice(request, "players", leaderboard.PLAYERS, "people")


# --- shapes -------------------------------------------------------------------------------------


class DailySerializer(serializers.Serializer):
    date = serializers.DateField()
    deal = serializers.CharField(help_text="daily:YYYY-MM-DD")
    par = serializers.IntegerField(allow_null=True, help_text="moves of the best solution the solver found (not proven optimal)")
    players = serializers.IntegerField(help_text="ranked games started")
    ends_at = serializers.DateTimeField(help_text="when the day (UTC) and its ranked play end")
    game = serializers.IntegerField(allow_null=True, help_text="the caller's ranked game of this daily, if any")
    ranking_floor_ms_per_move = serializers.IntegerField(
        help_text="the ranking floor: a ranked win faster than this many milliseconds per move on average is held for "
        "review (the game's `review` is `flagged`) and not ranked until cleared"
    )


class DailyDetailSerializer(DailySerializer):
    par_line = serializers.CharField(allow_null=True, help_text="the solver's line (safe autoplay), once the day is over")
    results = serializers.IntegerField(help_text="ranked results")


class EntrySerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    moves = serializers.IntegerField(help_text="player actions, undos included")
    undos = serializers.IntegerField()
    elapsed_ms = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    game = serializers.IntegerField(help_text="the game's id (its replay: /replay/<id>/)")
    bot = serializers.BooleanField(help_text="a bot account's result (on the bots' board only)")


class MyEntrySerializer(EntrySerializer):
    rank = serializers.IntegerField(allow_null=True, help_text="null while the win is held for review, or once rejected")
    review = serializers.ChoiceField(
        choices=REVIEW_STATES, help_text="the game's review: flagged (won faster than the ranking floor: held), cleared, rejected, or none"
    )


class LeaderboardSerializer(serializers.Serializer):
    date = serializers.DateField()
    scope = serializers.ChoiceField(choices=["all", "friends"])
    players = serializers.ChoiceField(choices=list(leaderboard.PLAYERS), help_text="whose board this is: people's or bots'")
    par = serializers.IntegerField(allow_null=True)
    count = serializers.IntegerField(help_text="ranked results in this scope")
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    entries = EntrySerializer(many=True)
    me = MyEntrySerializer(
        allow_null=True,
        help_text="the caller's entry and rank in this scope, with its review state (a win held for review shows without "
        "a rank); null if none",
    )


class WinnerSerializer(serializers.Serializer):
    username = serializers.CharField()
    moves = serializers.IntegerField()
    undos = serializers.IntegerField()
    elapsed_ms = serializers.IntegerField()
    game = serializers.IntegerField()


class ArchiveDailySerializer(serializers.Serializer):
    date = serializers.DateField()
    deal = serializers.CharField()
    par = serializers.IntegerField(allow_null=True)
    players = serializers.IntegerField()
    winner = WinnerSerializer(allow_null=True)


class ArchiveSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    dailies = ArchiveDailySerializer(many=True, help_text="past dailies, newest first")


class BucketSerializer(serializers.Serializer):
    moves = serializers.IntegerField()
    count = serializers.IntegerField()


class HistogramSerializer(serializers.Serializer):
    date = serializers.DateField()
    players = serializers.ChoiceField(choices=list(leaderboard.PLAYERS), help_text="whose wins: people's or bots'")
    par = serializers.IntegerField(allow_null=True)
    total = serializers.IntegerField(help_text="ranked wins")
    buckets = BucketSerializer(many=True, help_text="winning move counts, fewest first")
    me = serializers.IntegerField(allow_null=True, help_text="the caller's winning moves, if ranked among these players")


class ShareSerializer(serializers.Serializer):
    date = serializers.DateField()
    username = serializers.CharField()
    status = serializers.ChoiceField(choices=["won", "resigned"])
    moves = serializers.IntegerField()
    undos = serializers.IntegerField()
    par = serializers.IntegerField(allow_null=True)
    elapsed_ms = serializers.IntegerField()
    rank = serializers.IntegerField(allow_null=True, help_text="null unless on the leaderboard")
    review = serializers.ChoiceField(
        choices=REVIEW_STATES, help_text="flagged: won faster than the ranking floor, held for review (not ranked meanwhile)"
    )
    game = serializers.IntegerField()
    result_url = serializers.URLField(help_text="the result's page: works at once, spoils nothing, leads to the replay after the day")
    replay_url = serializers.URLField(help_text="the game's replay: hidden from others until the day is over")
    replay_open = serializers.BooleanField(help_text="whether you may watch the replay now")
    text = serializers.CharField(help_text="a short text to paste anywhere, linking to the result's page")


class DailyResultSerializer(serializers.Serializer):
    date = serializers.DateField()
    deal = serializers.CharField(help_text="daily:YYYY-MM-DD")
    game = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["playing", "won", "resigned"], help_text="playing: only in your own list")
    moves = serializers.IntegerField(help_text="player actions, undos included")
    undos = serializers.IntegerField()
    elapsed_ms = serializers.IntegerField()
    finished_at = serializers.DateTimeField(allow_null=True)
    rank = serializers.IntegerField(allow_null=True, help_text="the place on the day's leaderboard; null when not on it")
    review = serializers.ChoiceField(choices=REVIEW_STATES, help_text="flagged: won faster than the ranking floor, held for review")


# --- helpers ------------------------------------------------------------------------------------


def _daily_body(found: DailyChallenge, user) -> dict:
    game = daily.ranked_game_of(user, found.date) if getattr(user, "is_authenticated", False) else None
    return {
        "date": found.date,
        "deal": f"daily:{found.date.isoformat()}",
        "par": found.par,
        "players": found.players,
        "ends_at": daily.day_end(found.date),
        "game": game.pk if game else None,
        "ranking_floor_ms_per_move": settings.DAILY_MIN_MS_PER_MOVE,
    }


# --- views --------------------------------------------------------------------------------------


class DailyTodayView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": READ}

    @extend_schema(responses={200: DailySerializer, **E503}, summary="Today's daily challenge", operation_id="daily_today")
    def get(self, request):
        found = daily.get_daily(daily.today())
        return Response(DailySerializer(_daily_body(found, request.user)).data)


class DailyPlayView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": PLAY}
    guests = False  # a guest plays casual deals only (accounts/guests.py)

    @extend_schema(
        request=None,
        responses={
            201: OpenApiResponse(s.GameSerializer, description="the ranked game, created now"),
            200: OpenApiResponse(s.GameSerializer, description="the ranked game created before"),
            **E401,
            **E403,
            **E503,
        },
        summary="Play today's daily (your one ranked game)", operation_id="daily_play",
    )
    def post(self, request):
        game, created = daily.start_ranked_game(request.user)
        return Response(game_payload(game), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class DailyArchiveView(filters.FilteredList, APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": None}

    @extend_schema(parameters=PAGING, responses={200: ArchiveSerializer, **E400, **E404}, summary="Past dailies", operation_id="daily_archive")
    def get(self, request):
        past = daily.past_dailies()
        total = past.count()
        page, size = page_bounds(request, total)
        rows = list(past[(page - 1) * size : page * size])
        best = leaderboard.winners([row.date for row in rows])
        items = []
        for row in rows:
            winner = best.get(row.date)
            items.append(
                {
                    "date": row.date,
                    "deal": f"daily:{row.date.isoformat()}",
                    "par": row.par,
                    "players": row.players,
                    "winner": None
                    if winner is None
                    else {k: getattr(winner, k) for k in ("username", "moves", "undos", "elapsed_ms", "game")},
                }
            )
        nxt, prev = page_links(request, page, size, total)
        body = {"count": total, "page": page, "page_size": size, "next": nxt, "previous": prev, "dailies": items}
        return Response(ArchiveSerializer(body).data)


class DailyDetailView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": READ}

    @extend_schema(parameters=[DATE], responses={200: DailyDetailSerializer, **E400, **E404, **E503}, summary="A daily", operation_id="daily_detail")
    def get(self, request, date: str):
        found = daily.published(daily.parse_date(date))
        body = _daily_body(found, request.user)
        body["par_line"] = found.par_line if found.date < daily.today() else None
        body["results"] = leaderboard.count(found.date)
        return Response(DailyDetailSerializer(body).data)


class LeaderboardView(filters.FilteredList, APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    filter_params = ("scope", "players")
    scopes = {"GET": READ}

    @extend_schema(
        parameters=[
            DATE,
            OpenApiParameter("scope", OpenApiTypes.STR, enum=["all", "friends"], description="friends: you and your friends"),
            PLAYERS,
            *PAGING,
        ],
        responses={
            200: LeaderboardSerializer, **E400,
            401: _err("not_authenticated: only `scope=friends` asked without a sign-in (anyone reads the whole board)"),
            **E404, **E503,
        },
        summary="A daily's leaderboard", operation_id="daily_leaderboard",
    )
    def get(self, request, date: str):
        found = daily.published(daily.parse_date(date))
        scope = request.query_params.get("scope") or "all"
        if scope not in ("all", "friends"):
            raise ValidationError({"scope": ["scope must be all or friends"]})
        players = players_asked(request)
        bots = players == "bots"
        if scope == "friends":
            if not request.user.is_authenticated:
                raise ServiceError("not_authenticated", "sign in to see your friends' board", status=401)
            board = leaderboard.friends_board(found.date, request.user, bots=bots)
            total = len(board)
            page, size = page_bounds(request, total)
            entries = board[(page - 1) * size : page * size]
            mine = next((e for e in board if e.username == request.user.username), None)
        else:
            total = leaderboard.count(found.date, bots=bots)
            page, size = page_bounds(request, total)
            entries = leaderboard.page(found.date, offset=(page - 1) * size, limit=size, bots=bots) if total else []
            mine = leaderboard.entry_of(found.date, request.user, bots=bots)
        me = leaderboard.my_line(found.date, request.user, mine, bots=bots)
        nxt, prev = page_links(request, page, size, total)
        body = {
            "date": found.date,
            "scope": scope,
            "players": players,
            "par": found.par,
            "count": total,
            "page": page,
            "page_size": size,
            "next": nxt,
            "previous": prev,
            "entries": entries,  # Entry lines, written by EntrySerializer
            "me": me,
        }
        return Response(LeaderboardSerializer(body).data)


class HistogramView(filters.FilteredList, APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    filter_params = ("players",)
    scopes = {"GET": READ}

    @extend_schema(
        parameters=[DATE, PLAYERS], responses={200: HistogramSerializer, **E400, **E404, **E503},
        summary="Winning move counts of a daily", operation_id="daily_histogram",
    )
    def get(self, request, date: str):
        found = daily.published(daily.parse_date(date))
        players = players_asked(request)
        bots = players == "bots"
        buckets = leaderboard.histogram(found.date, bots=bots)
        mine = leaderboard.result_of(found.date, request.user)
        body = {
            "date": found.date,
            "players": players,
            "par": found.par,
            "total": sum(n for _m, n in buckets),
            "buckets": [{"moves": m, "count": n} for m, n in buckets],
            "me": mine.moves if mine is not None and mine.bot == bots else None,
        }
        return Response(HistogramSerializer(body).data)


class ShareView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": READ}

    @extend_schema(
        parameters=[DATE, OpenApiParameter("user", OpenApiTypes.STR, description="whose result (default: yours)")],
        responses={
            200: ShareSerializer, **E400,
            401: _err("not_authenticated: no `?user=` asked without a sign-in (whose result?)"),
            **E404, **E409, **E503,
        },
        summary="A shareable result of a finished daily", operation_id="daily_share",
        description=(
            "A finished ranked game's result (moves, undos, time, rank), anyone's, at once: the leaderboard shows "
            "the same numbers. Its text links to the result's page, which spoils nothing of the deal and leads to "
            "the replay once the day is over (`replay_url` answers 404 to others until then)."
        ),
    )
    def get(self, request, date: str):
        day = daily.parse_date(date)
        username = request.query_params.get("user")
        if username:
            player = player_named(username)
            if player is None:
                raise ServiceError("not_found", f"no player named {username!r}", status=404)
        elif request.user.is_authenticated:
            player = request.user
        else:
            raise ServiceError("not_authenticated", "sign in, or name the player with ?user=", status=401)
        result = sharing.shared_result(day, player, request.user)
        link = request.build_absolute_uri(sharing.result_path(result.date, result.username))
        body = {
            "date": result.date,
            "username": result.username,
            "status": result.status,
            "moves": result.moves,
            "undos": result.undos,
            "par": result.par,
            "elapsed_ms": result.elapsed_ms,
            "rank": result.rank,
            "review": result.review,
            "game": result.game_id,
            "result_url": link,
            "replay_url": request.build_absolute_uri(f"/replay/{result.game_id}/"),
            "replay_open": result.replay_visible,
            "text": sharing.share_text(result, link),
        }
        return Response(ShareSerializer(body).data)


class PlayerDailyResultsView(filters.FilteredList, APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    filter_params = ("since", "until")
    scopes = {"GET": None}

    @extend_schema(
        parameters=[
            OpenApiParameter("since", OpenApiTypes.DATE, description="only days from this date on (YYYY-MM-DD, included)"),
            OpenApiParameter("until", OpenApiTypes.DATE, description="only days up to this date (YYYY-MM-DD, included)"),
            *PAGING,
        ],
        responses={200: paginated(DailyResultSerializer, "PaginatedDailyResults"), **E400, 404: _err("not_found: no such player, or a page past the last")},
        summary="A player's daily results over time",
        description=(
            "The player's ranked dailies, newest day first: date, deal, moves, undos, time, rank on the day's board "
            "and review state. Public: the results on a leaderboard of days that are over. Your own list (signed in "
            "as the player) holds every ranked game of yours, today's and those held for review included. "
            "`since`/`until` bound the days (both included); any other query parameter is 400 `bad_filter`."
        ),
        operation_id="user_daily_results",
    )
    def get(self, request, username: str):
        player = player_named(username)
        if player is None:
            raise ServiceError("not_found", f"no player named {username!r}", status=404)
        # One's own unfinished and held results are private data: a token without the `read` scope sees the public list.
        viewer = request.user if allows(request.auth, READ) else None
        games = history.results_of(player, viewer, since=filters.day(request, "since"), until=filters.day(request, "until"))
        paginator = Pagination()
        page = paginator.paginate_queryset(games, request, view=self)
        return paginator.get_paginated_response(DailyResultSerializer(history.rows(page), many=True).data)
