"""`POST /api/games/<id>/restart/`: the same deal again for its player (games.play.restart)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenScopes
from accounts.scopes import PLAY
from games.play import serializers as s
from games.play.payloads import game_payload
from games.play.restart import restart
from games.play.views import errors


class RestartView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": PLAY}

    @extend_schema(
        request=None,
        responses={201: s.GameSerializer, **errors(401, 403, 404)},
        summary="Restart: the same deal again",
        description=(
            "Deals the game's deal again, with the same autoplay, as a new casual game of the caller's (201 the "
            "new game). The game left is not resigned: it stays `playing`, its clock stopped, to come back to, "
            "and it counts neither as a win nor as a loss. A ranked daily or a race's game cannot be restarted "
            "(403 `forbidden`); another player's game is 403, one the caller may not see 404."
        ),
    )
    def post(self, request, game_id: int):
        game = restart(game_id=game_id, user=request.user)
        return Response(game_payload(game), status=status.HTTP_201_CREATED)
