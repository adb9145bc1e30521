"""REST views of races: create (on a deal, a fresh seed or a ghost), read, join, invite, start, resign,
rematch. Thin: the lifecycle lives in games/races/services.py, the reads in games/races/selectors.py."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import NotAuthenticated, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TokenScopes
from accounts.scopes import RACE, READ
from accounts.selectors import player_named
from freecell_site import filters
from freecell_site.errors import ServiceError
from freecell_site.fields import StrictBooleanField, StrictCharField, StrictChoiceField, StrictIntegerField
from freecell_site.pagination import PAGING, Pagination, paginated
from games.play import views
from games.play.serializers import DEAL_PATTERN, ErrorSerializer
from games.races import services as races
from games.races.payloads import RaceSerializer, race_payload
from games.races.selectors import finished_races, get_race, open_public_races, races_of


def errors(*codes: int) -> dict:
    """The API's error responses, with the race's own 409 codes (docs/races.md)."""
    answers = views.errors(*codes)
    if 409 in answers:
        answers[409] = OpenApiResponse(
            ErrorSerializer, description="race_started, race_full, race_over, race_not_started, race_not_over or game_not_won"
        )
    return answers


# --- shapes -----------------------------------------------------------------------------------


class InviteSerializer(serializers.Serializer):
    code = serializers.CharField()
    link = serializers.CharField()
    invited_by = serializers.CharField()


class RaceListSerializer(serializers.Serializer):
    races = RaceSerializer(many=True, help_text="the caller's races that are not over")
    invites = InviteSerializer(many=True, help_text="open races a friend invited the caller to")


@extend_schema_field({"type": "string", "pattern": DEAL_PATTERN + "|^$", "maxLength": 64})
class RaceDealField(StrictCharField):
    """A race's deal id, or blank for a fresh random seed."""


class CreateRaceSerializer(serializers.Serializer):
    deal = RaceDealField(required=False, allow_blank=True, help_text="ms:N, seed:S or a past daily:DATE; a fresh random seed when left out")
    autoplay = StrictChoiceField(choices=["none", "safe"], default="safe")
    time_limit_s = StrictIntegerField(min_value=30, max_value=86400, required=False, help_text="default 1800")
    public = StrictBooleanField(
        default=False, help_text="listed for anyone to join (GET /api/races/?status=open&public=1); starts by itself once a second racer is in"
    )


class CreateGhostRaceSerializer(serializers.Serializer):
    game = StrictIntegerField(min_value=1, max_value=2**63 - 1, help_text="a won game of yours or of a friend")
    time_limit_s = StrictIntegerField(min_value=30, max_value=86400, required=False)


class RaceInviteRequestSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150)


# --- views ------------------------------------------------------------------------------------


class RaceListView(filters.FilteredList, APIView):
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, TokenScopes]
    filter_params = ("status", "player", "public")
    scopes = {"GET": READ, "POST": RACE}

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "status",
                OpenApiTypes.STR,
                enum=["finished", "open"],
                description="finished: the history of races that are over, paged; open (with public=1): the public races one may join now",
            ),
            OpenApiParameter("player", OpenApiTypes.STR, description="with status=finished: the races this player raced in (default: yours)"),
            OpenApiParameter("public", OpenApiTypes.STR, enum=["1"], description="with status=open: public races, oldest first"),
            *PAGING,
        ],
        responses={
            200: PolymorphicProxySerializer(
                component_name="RacesOrHistory",
                serializers=[RaceListSerializer, paginated(RaceSerializer, "PaginatedRaces")],
                resource_type_field_name=None,
            ),
            **errors(400, 401, 404),
        },
        summary="My races and invitations, or finished races",
        description=(
            "Without `status`: the caller's races that are not over and open races friends invited them to "
            "(`{races, invites}`, sign-in needed). With `status=finished`: races that are over, newest first by "
            "creation, paged (`{count, next, previous, results}`): the caller's, or with `player=<username>` "
            "that player's (public, as every race is). With `status=open&public=1`: the public races one may "
            "join now (open, or in a countdown that still takes racers), oldest first, paged, for anyone. "
            "Any other query parameter is 400 `bad_filter`."
        ),
        operation_id="races_mine",
        examples=[
            OpenApiExample("status=finished", value={"count": 0, "next": None, "previous": None, "results": []}, response_only=True),
            OpenApiExample("without status", value={"races": [], "invites": [{"code": "K7QX2M", "link": "/races/K7QX2M/", "invited_by": "bob"}]}, response_only=True),
        ],
    )
    def get(self, request):
        wanted = request.query_params.get("status")
        named = request.query_params.get("player")
        public = request.query_params.get("public")
        if wanted is None and named is None and public is None:
            if not request.user.is_authenticated:
                raise NotAuthenticated()
            return Response(races_of(request.user))
        if public is not None or wanted == "open":
            if public not in ("1", "true") or wanted not in (None, "open") or named is not None:
                raise ValidationError({"public": ["the public races are listed with status=open&public=1"]})
            return self._page(request, open_public_races())
        if wanted != "finished":
            raise ValidationError({"status": ["status must be finished or open (the races not over are the list without it)"]})
        if named:
            player = player_named(named)
            if player is None:
                raise ServiceError("not_found", f"no player named {named!r}", status=404)
        elif request.user.is_authenticated:
            player = request.user
        else:
            raise ServiceError("not_authenticated", "sign in, or name the player with ?player=", status=401)
        return self._page(request, finished_races(player))

    def _page(self, request, found):
        paginator = Pagination()
        page = paginator.paginate_queryset(found, request, view=self)
        return paginator.get_paginated_response([race_payload(race) for race in page])

    @extend_schema(
        request=CreateRaceSerializer,
        responses={201: RaceSerializer, **errors(400, 401, 403, 404)},
        summary="Open a race",
    )
    def post(self, request):
        body = CreateRaceSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        race = races.create_race(
            owner=request.user,
            deal=data.get("deal") or None,
            autoplay=data["autoplay"],
            time_limit_s=data.get("time_limit_s"),
            public=data["public"],
        )
        return Response(race_payload(race), status=status.HTTP_201_CREATED)


class QuickRaceView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": RACE}

    @extend_schema(
        request=None,
        responses={
            201: OpenApiResponse(RaceSerializer, description="a new public race on a fresh deal, with the caller its first racer"),
            200: OpenApiResponse(RaceSerializer, description="the public race the caller joined (or was already waiting in)"),
            **errors(401, 403),
        },
        summary="Quick race: join the oldest public race with room, or open one",
        description=(
            "Puts the caller in the oldest public race that takes racers (open, or in a countdown more than a "
            "second from its start) and answers it (200), or opens a public race on a fresh `seed:` deal (201). "
            "A public race starts by itself: its countdown (`RACE_PUBLIC_COUNTDOWN_S`, 10 s) begins when a "
            "second racer is in. Calls at once land in the same race. A caller already waiting in a public "
            "race gets that race back."
        ),
    )
    def post(self, request):
        race, created = races.quick(user=request.user)
        return Response(race_payload(race), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class GhostRaceView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": RACE}

    @extend_schema(
        request=CreateGhostRaceSerializer,
        responses={201: RaceSerializer, **errors(400, 401, 403, 404, 409)},
        summary="Open a race against a recorded game (a ghost)",
    )
    def post(self, request):
        body = CreateGhostRaceSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        race = races.create_ghost_race(owner=request.user, game_id=body.validated_data["game"], time_limit_s=body.validated_data.get("time_limit_s"))
        return Response(race_payload(race), status=status.HTTP_201_CREATED)


class RaceView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": READ}

    @extend_schema(responses={200: RaceSerializer, **errors(404)}, summary="A race", operation_id="race_retrieve")
    def get(self, request, code: str):
        return Response(race_payload(get_race(code)))


class _RaceAction(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": RACE}

    def respond(self, race):
        return Response(race_payload(race))


class RaceJoinView(_RaceAction):
    @extend_schema(request=None, responses={200: RaceSerializer, **errors(401, 404, 409)}, summary="Join a race by its code")
    def post(self, request, code: str):
        return self.respond(races.join(code=code, user=request.user))


class RaceStartView(_RaceAction):
    @extend_schema(request=None, responses={200: RaceSerializer, **errors(401, 403, 404, 409)}, summary="Start the countdown (owner only)")
    def post(self, request, code: str):
        return self.respond(races.start(code=code, user=request.user))


class RaceInviteView(_RaceAction):
    @extend_schema(
        request=RaceInviteRequestSerializer,
        responses={200: RaceSerializer, **errors(400, 401, 403, 404, 409)},
        summary="Invite a friend",
    )
    def post(self, request, code: str):
        body = RaceInviteRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return self.respond(races.invite(code=code, user=request.user, username=body.validated_data["username"]))


class RaceResignView(_RaceAction):
    @extend_schema(
        request=None,
        responses={200: RaceSerializer, **errors(401, 403, 404, 409)},
        summary="Resign your game (before the start: leave the race)",
    )
    def post(self, request, code: str):
        return self.respond(races.resign(code=code, user=request.user))


class RaceRematchView(_RaceAction):
    @extend_schema(
        request=None,
        responses={
            201: RaceSerializer,
            200: OpenApiResponse(RaceSerializer, description="the rematch another racer already asked for"),
            **errors(400, 401, 403, 404, 409),
        },
        summary="Rematch: same racers, a new deal",
    )
    def post(self, request, code: str):
        race, created = races.rematch(code=code, user=request.user)
        return Response(race_payload(race), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

