"""REST views of challenges: send, list, read, accept, decline, cancel. Thin: games/races/challenges.py
holds the rules."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenScopes
from accounts.scopes import RACE, READ
from freecell_site.fields import StrictCharField, StrictChoiceField
from games.play import views
from games.play.serializers import ErrorSerializer
from games.races import challenges
from games.races.payloads import ChallengeSerializer
from games.races.views import RaceDealField


def errors(*codes: int) -> dict:
    """The API's error responses, with the challenges' own 409 codes (docs/races.md)."""
    answers = views.errors(*codes)
    if 409 in answers:
        answers[409] = OpenApiResponse(
            ErrorSerializer, description="challenge_pending (one is open to that player already) or challenge_over (answered, cancelled or expired)"
        )
    return answers


class SendChallengeSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150, help_text="the player challenged")
    deal = RaceDealField(required=False, allow_blank=True, help_text="ms:N, seed:S or a past daily:DATE; a fresh random seed when left out")
    autoplay = StrictChoiceField(choices=["none", "safe"], default="safe")


class ChallengeListSerializer(serializers.Serializer):
    received = ChallengeSerializer(many=True, help_text="challenges to you, newest first: open ones and those settled in the last day")
    sent = ChallengeSerializer(many=True, help_text="your challenges, newest first: open ones and those settled in the last day")


class ChallengeListView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"GET": READ, "POST": RACE}

    @extend_schema(
        responses={200: ChallengeListSerializer, **errors(401, 403)},
        summary="My challenges",
        description="The challenges you received and sent, newest first: the open ones and those settled in the last day.",
    )
    def get(self, request):
        return Response(challenges.challenges_of(request.user))

    @extend_schema(
        request=SendChallengeSerializer,
        responses={201: ChallengeSerializer, **errors(400, 401, 403, 404, 409)},
        summary="Challenge a player to a race",
        description=(
            "Challenges a player (a person or a bot; not a guest) to a race on a deal (left out: a fresh `seed:` "
            "deal). They learn of it on their events stream (`challenge`) and answer it with accept or decline; "
            "unanswered, it expires after `CHALLENGE_EXPIRY_S` (10 minutes). One open challenge to a player at a "
            "time: another is 409 `challenge_pending`."
        ),
    )
    def post(self, request):
        body = SendChallengeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        challenge = challenges.send(user=request.user, username=data["username"], deal=data.get("deal") or None, autoplay=data["autoplay"])
        return Response(challenges.challenge_object(challenge), status=status.HTTP_201_CREATED)


class ChallengeView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"GET": READ}

    @extend_schema(
        responses={200: ChallengeSerializer, **errors(401, 403, 404)},
        summary="A challenge",
        description="A challenge you sent or received (anyone else: 404).",
        operation_id="challenge_retrieve",
    )
    def get(self, request, challenge_id: int):
        return Response(challenges.challenge_object(challenges.get_challenge(challenge_id, request.user)))


class _ChallengeAction(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": RACE}
    act = None

    def post(self, request, challenge_id: int):
        challenge = type(self).act(user=request.user, challenge_id=challenge_id)
        return Response(challenges.challenge_object(challenge))


class ChallengeAcceptView(_ChallengeAction):
    act = staticmethod(challenges.accept)

    @extend_schema(
        request=None,
        responses={200: ChallengeSerializer, **errors(401, 403, 404, 409)},
        summary="Accept a challenge",
        description=(
            "The player challenged accepts: a race of the two on the challenge's deal, owned by the challenger, "
            "its countdown begun at once (`RACE_PUBLIC_COUNTDOWN_S`, 10 s). The answer is the challenge with the "
            "race's `code` and `link`; both players' events streams get `race_starting`, the challenger's also "
            "the `challenge`, accepted."
        ),
    )
    def post(self, request, challenge_id: int):
        return super().post(request, challenge_id)


class ChallengeDeclineView(_ChallengeAction):
    act = staticmethod(challenges.decline)

    @extend_schema(
        request=None,
        responses={200: ChallengeSerializer, **errors(401, 403, 404, 409)},
        summary="Decline a challenge",
        description="The player challenged declines; the challenger's events stream is told (`challenge`, declined).",
    )
    def post(self, request, challenge_id: int):
        return super().post(request, challenge_id)


class ChallengeCancelView(_ChallengeAction):
    act = staticmethod(challenges.cancel)

    @extend_schema(
        request=None,
        responses={200: ChallengeSerializer, **errors(401, 403, 404, 409)},
        summary="Cancel a challenge you sent",
        description="The challenger takes an open challenge back; the challenged player's events stream is told (`challenge`, cancelled).",
    )
    def post(self, request, challenge_id: int):
        return super().post(request, challenge_id)
