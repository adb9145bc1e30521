"""The three ndjson streams over HTTP (docs/streams.md): thin views that ask what a
request to `GET /api/games/<id>/` or `GET /api/races/<code>/` asks, then hold the answer open.

The checks are DRF's, as on every endpoint (the project's authentication classes, the error shape,
throttles), run in an HTTP worker thread like every request; the stream itself is an async iterator
that the server sends line by line from its event loop (freecell_site/wsgi_bridge.py), holding no
thread while it waits, and cancels when the client leaves.
"""

from __future__ import annotations

from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.authentication import get_authorization_header
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from accounts.permissions import TokenScopes
from accounts.scopes import READ
from freecell_site.renderers import NDJSONRenderer
from freecell_site.throttling import network_of
from freecell_site.wsgi_bridge import ASYNC_BODIES
from games.engine import Board
from games.play import views as play
from games.play.serializers import ErrorSerializer, GameDetailSerializer
from games.races.payloads import ChallengeSerializer, RaceSerializer
from games.races.selectors import get_race
from games.streams.feed import line, lines
from games.streams.sources import EventSource, GameSource, RaceSource

NDJSON = "application/x-ndjson"


def _errors(*codes: int) -> dict:
    answers = {
        401: "not_authenticated or authentication_failed",
        403: "missing_scope: the token lacks the `read` scope, and a visitor would be refused",
        404: "not_found (also a game the caller may not see now)",
    }
    return {
        (code, "application/json"): OpenApiResponse(ErrorSerializer, description=answers[code])
        for code in codes
    }


#: The types of the events stream's lines (docs/streams.md).
EVENT_TYPES = ["race_invitation", "race_starting", "race_started", "challenge", "friend_request", "friend_accepted"]


class EventSerializer(serializers.Serializer):
    """One line of the events stream (docs/streams.md)."""

    type = serializers.ChoiceField(choices=EVENT_TYPES)
    race = RaceSerializer(
        required=False, help_text="race_invitation, race_starting, race_started: the race as it was then"
    )
    invited_by = serializers.CharField(required=False, help_text="race_invitation: who invited the caller")
    challenge = ChallengeSerializer(
        required=False, help_text="challenge: a challenge to the caller (open, or cancelled), or the answer to one of theirs"
    )
    game = serializers.IntegerField(
        required=False, allow_null=True, help_text="race_started: the caller's own game in the race"
    )
    from_ = serializers.CharField(
        required=False, help_text="friend_request: who asks to be the caller's friend"
    )
    username = serializers.CharField(
        required=False, help_text="friend_accepted: who accepted the caller's request"
    )

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")  # a Python keyword
        return fields


def _game_example() -> dict:
    """A game of ms:1 after its first move, 5a (autoplay none), as a line shows it."""
    board = Board.from_deal("ms:1")
    board.play("5a")
    state = board.state()
    return {
        "id": 42,
        "deal": "ms:1",
        "player": "alice",
        "status": "playing",
        "ply": 1,
        "moves": 1,
        "undos": 0,
        "autoplay": "none",
        "ranked": False,
        "state": state,
        "cards_home": 0,
        "stuck": False,
        "version": 2,
        "created_at": "2026-01-01T10:00:00Z",
        "finished_at": None,
        "elapsed_ms": 5200,
        "clock_running": True,
        "board": board.to_text(),
    }


GAME_EXAMPLE = _game_example()

RACE_EXAMPLE = {
    "code": "K7M2QX",
    "link": "/races/K7M2QX/",
    "deal": "ms:1",
    "status": "running",
    "owner": "alice",
    "autoplay": "safe",
    "created_at": "2026-01-01T10:00:00Z",
    "starts_at": "2026-01-01T10:01:00Z",
    "ends_at": "2026-01-01T10:31:00Z",
    "finished_at": None,
    "time_limit_s": 1800,
    "version": 4,
    "racers": [
        {
            "username": "alice",
            "game": 42,
            "moves": 3,
            "cards_home": 1,
            "status": "playing",
            "rank": None,
            "elapsed_ms": None,
            "ghost": False,
            "out_of_time": False,
        },
    ],
    "invited": [],
    "ghost": None,
    "rematch": None,
    "rematch_of": None,
    "public": False,
}

COMMON = (
    "Newline-delimited JSON (`application/x-ndjson`), held open: one JSON object per line, and an empty "
    "line every 10 s (`STREAM_KEEPALIVE_S`) whatever else is sent; read it line by line and skip empty "
    "lines. It works across server processes (a change made through any of them is sent within a "
    "second). It ends when the sign-in it was opened with ends (a logout, a revoked token), after a last "
    'line `{"error": {"code": "authentication_failed", ...}}`. A token without the `read` scope streams what '
    "an anonymous visitor may see, and gets 403 `missing_scope` where a visitor is refused."
)


class _StreamView(APIView):
    renderer_classes = [NDJSONRenderer, JSONRenderer]
    scopes = {"GET": READ}
    # No HEAD: its answer would be held open with nothing in it.
    http_method_names = ["get", "options"]

    def stream(self, request, source) -> HttpResponse:
        if not request.META.get(ASYNC_BODIES):
            # Under a plain WSGI server (the test client) nothing is held open: it would read an endless
            # iterator to its end before sending a byte. The first lines, then the end.
            return HttpResponse(b"".join(line(body) for body in source.snapshot()), content_type=NDJSON)
        user = request.user
        sign_in = None
        if user.is_authenticated:
            if request.auth is None:
                sign_in = ("session", request.session.session_key, user.pk, None)
            else:
                # Only the key's digest is stored: the key to check again is the one this request sent.
                sign_in = ("token", get_authorization_header(request).split()[-1].decode(), user.pk, request.auth.expires_at)
        peer = request.META.get("REMOTE_ADDR")
        address = network_of(peer) if peer else None  # what a socket from there counts against
        response = StreamingHttpResponse(lines(source, sign_in, address), content_type=NDJSON)
        response["Cache-Control"] = "no-store"
        response["X-Accel-Buffering"] = "no"  # nginx sends each line on at once (also deploy/nginx)
        return response


class GameStreamView(_StreamView):
    permission_classes = [permissions.AllowAny, TokenScopes]

    @extend_schema(
        summary="Stream a game",
        description="The game as `GET /api/games/{game_id}/` shows it (with its `board` text), then the same "
        "object again after every change (a move, an undo, a resign, from any process), each with its higher "
        "`version`. Who may see it is what `GET /api/games/{game_id}/` says: a racer's game is hidden from "
        "everyone but its player until the race is over (404 until then: ask again once the race has "
        "finished), and a stream on a game that becomes hidden ends with a `not_found` error line. Once the game "
        'is over (won, resigned), the stream sends a last line `{"type": "end", "game": <id>, "status": <its '
        "status>}` after the game's last state, and closes. " + COMMON,
        responses={
            (200, NDJSON): OpenApiResponse(
                GameDetailSerializer,
                description="one game object per line",
                examples=[
                    OpenApiExample(
                        "A line",
                        value=GAME_EXAMPLE,
                    )
                ],
            ),
            **_errors(403, 404),
        },
    )
    def get(self, request, game_id: int):
        play.visible_game(request, game_id)  # 404 as GET /api/games/<id>/ answers it
        return self.stream(request, GameSource(game_id, request.user))


class RaceStreamView(_StreamView):
    permission_classes = [permissions.AllowAny, TokenScopes]

    @extend_schema(
        summary="Stream a race",
        description="The race as `GET /api/races/{code}/` shows it, then the same object again after every "
        "change: each new `version` (a join, an invitation, the countdown, the start, a finish, the end), and "
        "each racer's move (the race with that racer's new `moves` and `cards_home`; a move leaves the "
        "race's `version` as it was). Once the race is finished, the stream sends a last line "
        '`{"type": "end", "race": <code>, "status": "finished"}` after the finished race, and closes. ' + COMMON,
        responses={
            (200, NDJSON): OpenApiResponse(
                RaceSerializer,
                description="one race object per line",
                examples=[
                    OpenApiExample(
                        "A line",
                        value=RACE_EXAMPLE,
                    )
                ],
            ),
            **_errors(403, 404),
        },
    )
    def get(self, request, code: str):
        get_race(code)  # 404 as GET /api/races/<code>/ answers it
        return self.stream(request, RaceSource(code))


class EventStreamView(_StreamView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]

    @extend_schema(
        summary="Stream my events",
        description="The caller's events, one per line, each with a `type`: `race_invitation` (`race`, "
        "`invited_by`), `race_starting` (the owner started the countdown of a race the caller is in: `race`, "
        "whose `starts_at` says when the boards are shown), `race_started` (the boards are shown: `race`, "
        "`game`, the caller's own game), `challenge` (`challenge`: a challenge to the caller, open or cancelled, "
        "or the answer to one the caller sent, accepted with its race's `code`, or declined), `friend_request` "
        "(`from`), `friend_accepted` (`username`). It opens with what is pending (invitations to open races not "
        "joined, open challenges to the caller, the caller's races starting or running, friend requests "
        "awaiting an answer) and sends them again after the server lost its message bus for a "
        "while: a client may see an event twice. " + COMMON,
        responses={
            (200, NDJSON): OpenApiResponse(
                EventSerializer,
                description="one event per line",
                examples=[
                    OpenApiExample("A friend request", value={"type": "friend_request", "from": "bob"}),
                    OpenApiExample(
                        "A race started",
                        value={"type": "race_started", "race": RACE_EXAMPLE, "game": 42},
                    ),
                ],
            ),
            **_errors(401, 403),
        },
    )
    def get(self, request):
        return self.stream(request, EventSource(request.user))
