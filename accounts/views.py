"""REST views for sign-up, personal access tokens, session login, passwords, profiles and friends: thin, over services."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import authenticate, login, logout, update_session_auth_hash
from django.contrib.auth.models import User
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import devices, selectors, services, throttle
from accounts import serializers as s
from accounts.closing import close_account
from accounts.guests import is_guest, sign_in_over_guest
from accounts.models import AccessToken, Profile
from accounts.permissions import TokenScopes
from accounts.scopes import ACCOUNT, READ
from freecell_site.errors import ServiceError
from freecell_site.filters import FilteredList
from freecell_site.pagination import PAGING, Pagination, paginated
from freecell_site.throttling import AnonRateThrottle, SignUpRateThrottle
from games.daily.stats import player_statistics
from games.play.serializers import ErrorSerializer
from games.statistics import player_statistics as statistics_of

ERR = OpenApiResponse(ErrorSerializer)


def client_address(request) -> str:
    return request.META.get("REMOTE_ADDR") or "unknown"


def check_credentials(request, username: str, password: str) -> User:
    """Authenticates, counting failures per device, or else per account and network (accounts/throttle.py);
    429 once one is over its limit. A browser whose device cookie names the account (it signed in
    before: accounts/devices.py) is judged by its own failures only, so a guesser cannot lock it out.
    The caller gives a successful sign-in's answer a device cookie (`devices.remember`).

    The name is taken in any case (`alice` signs in `Alice`), as the failures are counted.
    """
    # Failures are counted under the account's own name when the name finds one, so no spelling of
    # it escapes the count.
    # An unknown name goes on as typed: it fails in authenticate after the same password hashing, so the
    # time taken does not tell which names exist.
    player = selectors.player_named(username)
    name = player.username if player else username
    keys = throttle.keys_for(name, client_address(request), devices.device_of(request, player.pk if player else None))
    throttle.refuse_if_limited(keys, "too many failed logins: wait a few minutes and try again")
    user = authenticate(request, username=name, password=password)
    if user is None:
        throttle.record_failure(keys)
        raise ServiceError("authentication_failed", "wrong username or password", status=401)
    return user


def check_own_password(request, password: str, field: str) -> None:
    """The signed-in player's current password, given to confirm a change; wrong ones are counted and
    refused like failed logins (a stolen session must not guess it at will)."""
    keys = throttle.keys_for(request.user.username, client_address(request), devices.device_of(request, request.user.pk))
    throttle.refuse_if_limited(keys, "too many wrong passwords: wait a few minutes and try again")
    if not password or not request.user.check_password(password):
        throttle.record_failure(keys)
        message = "your current password is needed" if not password else "wrong password"
        raise ServiceError("invalid_request", f"{field}: {message}", extra={"fields": {field: [message]}})


class RegisterView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"POST": None}
    throttle_classes = [SignUpRateThrottle]

    @extend_schema(request=s.RegisterSerializer, responses={201: s.RegisteredSerializer, 400: ERR, 429: ERR}, summary="Sign up")
    def post(self, request):
        body = s.RegisterSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user, token = services.register(**body.validated_data)
        return Response({"username": user.username, "token": token.key}, status=status.HTTP_201_CREATED)


class TokenView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"POST": None}
    authentication_classes = []

    @extend_schema(
        request=s.CredentialsSerializer,
        responses={200: s.TokenSerializer, 400: ERR, 401: ERR, 429: ERR},
        summary="Get an API token",
        description=(
            "Signs in with the password and answers the key of your password sign-in token, of every "
            f"scope, named `{services.PASSWORD_TOKEN}` in your list of tokens (`GET /api/tokens/`). There is "
            "one such token per account: keys are stored hashed, so each call gives it a new key and the "
            "key an earlier call answered stops working. For a program of its own, make a personal access "
            "token (`POST /api/tokens/`) or use OAuth (`/oauth/authorize/`)."
        ),
    )
    def post(self, request):
        body = s.CredentialsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = check_credentials(request, **body.validated_data)
        response = Response({"token": services.token_for(user).key})
        devices.remember(response, request, user)
        return response


class LoginView(APIView):
    """Session login for the web page (sets the session cookie)."""

    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"POST": None}

    @extend_schema(request=s.CredentialsSerializer, responses={200: s.UsernameSerializer, 400: ERR, 401: ERR, 403: ERR, 429: ERR}, summary="Session login")
    def post(self, request):
        # DRF checks CSRF only for signed-in users; a session login is checked too, so no other site
        # can sign a visitor in to an account of its choosing (login CSRF).
        SessionAuthentication().enforce_csrf(request)
        body = s.CredentialsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = check_credentials(request, **body.validated_data)
        guest = request.user if is_guest(request.user) else None
        login(request, user)
        if guest is not None:
            sign_in_over_guest(guest, user)  # a guest's browser: its games are the player's now
        response = Response({"username": user.username})
        devices.remember(response, request, user)
        return response


def signed_in_with_token(request) -> bool:
    """Whether the request was authenticated by an API token (request.auth), not by the session."""
    return isinstance(request.auth, AccessToken)


class LogoutView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"POST": None}

    @extend_schema(
        request=None,
        responses={204: None, 401: ERR, 403: ERR},
        summary="Log out: end the session, or revoke the API token the request is made with",
    )
    def post(self, request):
        user = request.user
        if signed_in_with_token(request):
            AccessToken.objects.filter(pk=request.auth.pk).delete()
        logout(request)
        if user.is_authenticated:
            services.sign_ins_changed(user)  # after the session is flushed: its sockets close
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordChangeView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": ACCOUNT}

    @extend_schema(
        request=s.PasswordChangeSerializer,
        responses={
            200: OpenApiResponse(s.TokenSerializer, description="made with an API token: the new token (the old one is revoked)"),
            204: OpenApiResponse(description="made with the session: the session goes on"),
            400: ERR,
            401: ERR,
            403: ERR,
        },
        summary="Change password",
    )
    def post(self, request):
        body = s.PasswordChangeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = request.user
        check_own_password(request, body.validated_data["old_password"], "old_password")
        # The token is revoked; a client that asked with it gets a new one, to keep working.
        token = services.change_password(user, body.validated_data["new_password"], new_token=signed_in_with_token(request))
        if token is not None:
            return Response({"token": token.key})
        # This session stays signed in under a new key (its sockets close, and reconnect); others end.
        update_session_auth_hash(request, user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def reset_link(request, uid: str, token: str) -> str:
    """The absolute URL of the page a reset e-mail links to: on the configured SITE_URL, never on the
    request's Host header (a client writes that, and any port of an allowed host passed)."""
    return settings.SITE_URL + reverse("page-password-reset", kwargs={"uid": uid, "token": token})


class PasswordResetView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"POST": None}
    authentication_classes = []
    throttle_classes = [AnonRateThrottle]

    @extend_schema(request=s.PasswordResetSerializer, responses={202: None, 400: ERR, 429: ERR}, summary="Email a password reset link")
    def post(self, request):
        body = s.PasswordResetSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.send_reset_links(body.validated_data["email"], lambda uid, token: reset_link(request, uid, token))
        return Response(status=status.HTTP_202_ACCEPTED)


class PasswordResetConfirmView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"POST": None}
    authentication_classes = []

    @extend_schema(
        request=s.PasswordResetConfirmSerializer,
        responses={204: None, 400: ERR},
        summary="Set a new password with a reset token (revokes the API token)",
    )
    def post(self, request):
        body = s.PasswordResetConfirmSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.reset_password(**body.validated_data)
        return Response(status=status.HTTP_204_NO_CONTENT)


def profile_or_default(user: User) -> Profile:
    """The player's profile, or an unsaved default for an account made without one (a read writes nothing)."""
    return Profile.objects.filter(user=user).first() or Profile(user=user)


def profile_of(user: User) -> dict:
    profile = profile_or_default(user)
    return {
        "username": user.username,
        "email": user.email,
        "display_name": profile.display_name,
        "bio": profile.bio,
        "settings": selectors.settings_of(profile.settings),
        "date_joined": user.date_joined,
        "bot": profile.bot,
        "marked": profile.marked,
    }


class MeView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"GET": READ, "PATCH": ACCOUNT}

    @extend_schema(responses={200: s.ProfileSerializer, 401: ERR}, summary="Your profile")
    def get(self, request):
        return Response(s.ProfileSerializer(profile_of(request.user)).data)

    @extend_schema(request=s.ProfileSerializer, responses={200: s.ProfileSerializer, 400: ERR, 401: ERR, 403: ERR}, summary="Edit your profile")
    def patch(self, request):
        body = s.ProfileSerializer(data=request.data, partial=True, context={"user": request.user})
        # A field the profile does not take is refused, not dropped: a client that misspells `bio`
        # would otherwise read 200 and believe it saved.
        writable = {name for name, found in body.fields.items() if not found.read_only}
        unknown = sorted(set(request.data) - writable) if isinstance(request.data, dict) else []
        if unknown:
            raise ValidationError({name: [f"not a field of the profile: it takes {', '.join(sorted(writable))}"] for name in unknown})
        body.is_valid(raise_exception=True)
        user = request.user
        profile, _ = Profile.objects.get_or_create(user=user)
        email = body.validated_data.get("email")
        if email is not None and (email != user.email or "password" in body.validated_data):
            # Resets are mailed there: with a stolen session or token alone, the address is not theirs to
            # move. A password given with the same address is checked too: a wrong one was "changed".
            check_own_password(request, body.validated_data.get("password", ""), "password")
            user.email = body.validated_data["email"]
            user.save(update_fields=["email"])
        for field in ("display_name", "bio"):
            if field in body.validated_data:
                setattr(profile, field, body.validated_data[field])
        profile.save(update_fields=["display_name", "bio"])
        if "settings" in body.validated_data:
            services.change_settings(user, body.validated_data["settings"])
        return Response(s.ProfileSerializer(profile_of(user)).data)


class CloseAccountView(APIView):
    """A POST with the password in its body, not a DELETE of /api/me/: OpenAPI 3.0 gives a DELETE no
    request body, and some clients and proxies drop it."""

    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": ACCOUNT}

    @extend_schema(
        request=s.CloseAccountSerializer,
        responses={204: OpenApiResponse(description="closed: signed out everywhere"), 400: ERR, 401: ERR, 403: ERR, 409: ERR, 429: ERR},
        summary="Close your account",
        description=(
            "Closes the caller's account for good, confirmed by the current password. Open races are "
            "left (an owner's is called off) and games still playing are resigned; finished games stay "
            "in leaderboards, races and replays under the name `closed account <id>`. The e-mail address, "
            "profile, friends and invitations are deleted, the token and sessions end, and the username is "
            "free for a new sign-up. 409 `race_not_started` during a race's countdown (seconds)."
        ),
    )
    def post(self, request):
        body = s.CloseAccountSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        check_own_password(request, body.validated_data["password"], "password")
        close_account(request.user)
        if not signed_in_with_token(request):
            logout(request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class UserSearchView(FilteredList, APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    filter_params = ("q",)
    scopes = {"GET": None}

    @extend_schema(
        parameters=[
            OpenApiParameter("q", OpenApiTypes.STR, required=True, description=f"the start of a username, any case, at least {selectors.SEARCH_MIN_CHARS} characters"),
            *PAGING,
        ],
        responses={200: paginated(s.PlayerFoundSerializer, "PaginatedPlayers"), 400: ERR, 404: ERR},
        summary="Find players by the start of their name",
        description=(
            "Players whose username starts with `q` (in any case), by name, paged; closed accounts are left out. "
            f"`q` shorter than {selectors.SEARCH_MIN_CHARS} characters is 400 `invalid_request`; any other query "
            "parameter is 400 `bad_filter`."
        ),
        examples=[
            OpenApiExample(
                "q=al",
                value={"count": 1, "next": None, "previous": None,
                       "results": [{"username": "alice", "display_name": "Alice", "date_joined": "2026-11-30T09:12:00Z"}]},
                response_only=True,
            )
        ],
        operation_id="users_search",
    )
    def get(self, request):
        prefix = request.query_params.get("q", "").strip()
        if len(prefix) < selectors.SEARCH_MIN_CHARS or len(prefix) > 150:
            raise ValidationError({"q": [f"q must hold {selectors.SEARCH_MIN_CHARS} to 150 characters: the start of a username"]})
        paginator = Pagination()
        page = paginator.paginate_queryset(selectors.players_starting_with(prefix), request, view=self)
        found = [{"username": p.username, "display_name": _display_name(p), "date_joined": p.date_joined} for p in page]
        return paginator.get_paginated_response(s.PlayerFoundSerializer(found, many=True).data)


def _display_name(user: User) -> str:
    try:
        return user.profile.display_name
    except Profile.DoesNotExist:
        return ""


class UserView(APIView):
    permission_classes = [permissions.AllowAny, TokenScopes]
    scopes = {"GET": READ}

    @extend_schema(responses={200: s.PublicProfileSerializer, 404: ERR}, summary="A player's public profile and statistics")
    def get(self, request, username: str):
        user = selectors.player_named(username)
        if user is None or (is_guest(user) and user.pk != request.user.pk):  # a guest is seen by itself only
            raise ServiceError("not_found", f"no player named {username!r}", status=404)
        profile = profile_or_default(user)
        friendship = selectors.friendship_between(request.user, user)
        return Response(
            {
                "username": user.username,
                "display_name": profile.display_name,
                "bio": profile.bio,
                "date_joined": user.date_joined,
                "bot": profile.bot,
                "marked": profile.marked,
                "is_friend": friendship == "friends",
                "friendship": friendship,
                "stats": player_statistics(user),
                "statistics": statistics_of(user),
            }
        )


class FriendsView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"GET": READ}

    @extend_schema(responses={200: s.FriendsSerializer, 401: ERR}, summary="Your friends and pending requests")
    def get(self, request):
        return Response(s.FriendsSerializer(selectors.friends_overview(request.user)).data)


class FriendRequestView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": ACCOUNT}

    @extend_schema(
        request=s.UsernameSerializer,
        responses={
            201: OpenApiResponse(s.FriendsSerializer, description="a new request was sent"),
            200: OpenApiResponse(s.FriendsSerializer, description="no new request: theirs to you was accepted, or you were already friends or had asked"),
            400: ERR,
            401: ERR,
            403: ERR,
            404: ERR,
        },
        summary="Ask a player to be friends",
    )
    def post(self, request):
        body = s.UsernameSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        _, created = services.request_friend(user=request.user, username=body.validated_data["username"])
        # 201 only when a request was created, so a client can tell a resend (nothing new) from a send.
        answer = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(s.FriendsSerializer(selectors.friends_overview(request.user)).data, status=answer)


class FriendAnswerView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"POST": ACCOUNT}
    accept = True

    @extend_schema(request=None, responses={200: s.FriendsSerializer, 401: ERR, 403: ERR, 404: ERR}, summary="Answer a friend request")
    def post(self, request, username: str):
        services.answer_request(user=request.user, username=username, accept=self.accept)
        return Response(s.FriendsSerializer(selectors.friends_overview(request.user)).data)


class FriendView(APIView):
    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"DELETE": ACCOUNT}

    @extend_schema(responses={204: None, 401: ERR, 403: ERR, 404: ERR}, summary="Remove a friend (or withdraw a request)")
    def delete(self, request, username: str):
        services.remove_friend(user=request.user, username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokensView(APIView):
    """The player's personal access tokens: list them, make one."""

    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"GET": ACCOUNT, "POST": ACCOUNT}

    @extend_schema(
        responses={200: s.AccessTokenSerializer(many=True), 401: ERR, 403: ERR},
        summary="Your personal access tokens",
        description="Newest first. The keys are not shown: they are stored hashed, and shown once, when made.",
    )
    def get(self, request):
        return Response(s.AccessTokenSerializer(selectors.tokens_of(request.user), many=True).data)

    @extend_schema(
        request=s.NewAccessTokenSerializer,
        responses={201: s.IssuedAccessTokenSerializer, 400: ERR, 401: ERR, 403: ERR, 409: ERR},
        summary="Make a personal access token",
        description=(
            "Answers the token with its key (`token`), the only time the key is shown. Send it as "
            "`Authorization: Bearer <token>` (or `Token <token>`), or in a socket's auth frame. Scopes: "
            "`read` (reads, your own private data included), `play` (games, moves, undo, resign, hints, "
            "the daily), `race` (open, join, start, invite, rematch), `account` (profile, friends, tokens). "
            "A token (which needs `account` here) makes only tokens within its own scopes: asking for more "
            f"is 403 `missing_scope`. A player holds at most {services.MAX_TOKENS} tokens: one more is 409 "
            "`too_many_tokens` (revoke one first)."
        ),
    )
    def post(self, request):
        body = s.NewAccessTokenSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.check_scopes_within(request.auth, body.validated_data["scopes"])
        token = services.issue_token(request.user, **body.validated_data)
        return Response(s.IssuedAccessTokenSerializer(token).data, status=status.HTTP_201_CREATED)


class AccessTokenView(APIView):
    """One of the player's tokens: revoke it."""

    permission_classes = [permissions.IsAuthenticated, TokenScopes]
    scopes = {"DELETE": ACCOUNT}

    @extend_schema(
        responses={204: None, 401: ERR, 403: ERR, 404: ERR},
        summary="Revoke a personal access token",
        description="From now on the token gets 401 everywhere, and sockets signed in with it close (code 4401).",
    )
    def delete(self, request, token_id: int):
        services.revoke_token(request.user, token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
