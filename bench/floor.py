"""The floor of a durable action: its three statements in one transaction, over REST and websockets.

`store_an_action` runs what every action runs (games.play.store: read the game by its key, write it
under a version check, append an action) in one transaction, with no rules, no validation, no JSON of
the game and no follow-ups. bench/echo.py's `/ws/floor/` socket runs it before each ack;
`POST /bench/floor/<game>/` (this module's URLconf) runs it behind the service's own HTTP stack (its
middleware, the token and scope check of a move, the body parsed as a move's is), answered
`{"ok": true}`. What a move costs above the floor is the body's validation, the rules, the game's JSON,
the follow-ups and the push.
"""

from __future__ import annotations

from django.core.handlers.wsgi import WSGIHandler, WSGIRequest
from django.db import transaction
from django.urls import path
from rest_framework import permissions
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenScopes
from accounts.scopes import PLAY
from games.play import store
from games.play.models import Action


def store_an_action(game_id: int) -> None:
    """An action's three statements in one transaction: the game read, its version moved on, an
    action appended at the next index (a bench game's history: it is never replayed)."""
    with transaction.atomic():
        game = store.read_game(game_id)
        read_version = game.version
        game.version += 1
        store.write_game(game, ("version",), read_version)
        store.insert_action(Action(game=game, index=read_version, kind="move", notation="5a", via="api"))


class FloorView(APIView):
    """`POST /bench/floor/<game>/`: the floor of a REST action, let in as a move is (MoveView)."""

    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": PLAY}
    throttle_classes: list = []

    def post(self, request, game: int):
        request.data  # noqa: B018 (the body parsed, as a move's is before its validation)
        store_an_action(game)
        return Response({"ok": True})


urlpatterns = [path("bench/floor/<int:game>/", FloorView.as_view())]


class FloorRequest(WSGIRequest):
    urlconf = __name__


class FloorHandler(WSGIHandler):
    """Django's WSGI handler, the service's middleware and all, resolving this module's URLconf."""

    request_class = FloorRequest
