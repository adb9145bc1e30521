"""REST views for sign-up, tokens, session login, passwords, profiles and friends: thin, over services."""

from __future__ import annotations

from django.contrib.auth import authenticate, login, logout, password_validation, update_session_auth_hash
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.mail import send_mail
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services, throttle
from accounts import serializers as s
from accounts.models import Profile
from freecell_site.errors import ServiceError
from freecell_site.throttling import AnonRateThrottle
from games.api.serializers import ErrorSerializer
from games.stats import player_statistics

ERR = OpenApiResponse(ErrorSerializer)


def client_address(request) -> str:
    return request.META.get("REMOTE_ADDR") or "unknown"


def check_credentials(request, username: str, password: str) -> User:
    """Authenticates, counting failures per account and address; 429 once either is over the limit."""
    keys = throttle.keys_for(username, client_address(request))
    if throttle.is_limited(keys):
        raise ServiceError(
            "rate_limited",
            "too many failed logins: wait a minute and try again",
            status=429,
            extra={"retry_after": throttle.seconds_left()},
        )
    user = authenticate(request, username=username, password=password)
    if user is None:
        throttle.record_failure(keys)
        raise ServiceError("authentication_failed", "wrong username or password", status=401)
    return user


def _validate_password(password: str, user: User) -> None:
    try:
        password_validation.validate_password(password, user)
    except DjangoValidationError as exc:
        raise ServiceError("invalid_request", " ".join(exc.messages), extra={"fields": {"new_password": exc.messages}}) from None


class RegisterView(APIView):
    permission_classes = [permissions.AllowAny]
    throttle_classes = [AnonRateThrottle]

    @extend_schema(request=s.RegisterSerializer, responses={201: s.RegisteredSerializer, 400: ERR, 429: ERR}, summary="Sign up")
    def post(self, request):
        body = s.RegisterSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user, token = services.register(**body.validated_data)
        return Response({"username": user.username, "token": token.key}, status=status.HTTP_201_CREATED)


class TokenView(APIView):
    permission_classes = [permissions.AllowAny]
    authentication_classes = []

    @extend_schema(request=s.CredentialsSerializer, responses={200: s.TokenSerializer, 400: ERR, 401: ERR, 429: ERR}, summary="Get an API token")
    def post(self, request):
        body = s.CredentialsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = check_credentials(request, **body.validated_data)
        from rest_framework.authtoken.models import Token

        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


class LoginView(APIView):
    """Session login for the web page (sets the session cookie)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(request=s.CredentialsSerializer, responses={200: s.UsernameSerializer, 400: ERR, 401: ERR, 403: ERR, 429: ERR}, summary="Session login")
    def post(self, request):
        # DRF checks CSRF only for signed-in users; a session login is checked too, so no other site
        # can sign a visitor in to an account of its choosing (login CSRF).
        SessionAuthentication().enforce_csrf(request)
        body = s.CredentialsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = check_credentials(request, **body.validated_data)
        login(request._request, user)
        return Response({"username": user.username})


class LogoutView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(request=None, responses={204: None, 403: ERR}, summary="Session logout")
    def post(self, request):
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordChangeView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.PasswordChangeSerializer, responses={204: None, 400: ERR, 401: ERR, 403: ERR}, summary="Change password")
    def post(self, request):
        body = s.PasswordChangeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = request.user
        if not user.check_password(body.validated_data["old_password"]):
            raise ServiceError("invalid_request", "the old password is wrong", extra={"fields": {"old_password": ["wrong password"]}})
        _validate_password(body.validated_data["new_password"], user)
        user.set_password(body.validated_data["new_password"])
        user.save(update_fields=["password"])
        update_session_auth_hash(request._request, user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordResetView(APIView):
    permission_classes = [permissions.AllowAny]
    authentication_classes = []
    throttle_classes = [AnonRateThrottle]

    @extend_schema(request=s.PasswordResetSerializer, responses={202: None, 400: ERR, 429: ERR}, summary="Email a password reset link")
    def post(self, request):
        body = s.PasswordResetSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        # The same answer whether or not the address is known, so it reveals no accounts.
        for user in User.objects.filter(email__iexact=body.validated_data["email"], is_active=True):
            uid = urlsafe_base64_encode(force_bytes(user.pk))
            token = default_token_generator.make_token(user)
            link = request.build_absolute_uri(f"/reset/{uid}/{token}/")
            send_mail(
                "FreeCell Online password reset",
                f"Hello {user.username},\n\nTo choose a new password, open {link}\n"
                f"or POST uid={uid} token={token} to /api/auth/password/reset/confirm/.\n",
                None,
                [user.email],
            )
        return Response(status=status.HTTP_202_ACCEPTED)


class PasswordResetConfirmView(APIView):
    permission_classes = [permissions.AllowAny]
    authentication_classes = []

    @extend_schema(request=s.PasswordResetConfirmSerializer, responses={204: None, 400: ERR}, summary="Set a new password with a reset token")
    def post(self, request):
        body = s.PasswordResetConfirmSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            user = User.objects.get(pk=int(force_str(urlsafe_base64_decode(data["uid"]))))
        except (ValueError, TypeError, OverflowError, User.DoesNotExist):
            user = None
        if user is None or not default_token_generator.check_token(user, data["token"]):
            raise ServiceError("invalid_request", "the reset link is invalid or has expired")
        _validate_password(data["new_password"], user)
        user.set_password(data["new_password"])
        user.save(update_fields=["password"])
        return Response(status=status.HTTP_204_NO_CONTENT)


def profile_of(user: User) -> dict:
    profile, _ = Profile.objects.get_or_create(user=user)
    return {
        "username": user.username,
        "email": user.email,
        "display_name": profile.display_name,
        "bio": profile.bio,
        "date_joined": user.date_joined,
    }


class MeView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: s.ProfileSerializer, 401: ERR}, summary="Your profile")
    def get(self, request):
        return Response(s.ProfileSerializer(profile_of(request.user)).data)

    @extend_schema(request=s.ProfileSerializer, responses={200: s.ProfileSerializer, 400: ERR, 401: ERR, 403: ERR}, summary="Edit your profile")
    def patch(self, request):
        body = s.ProfileSerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        user = request.user
        profile, _ = Profile.objects.get_or_create(user=user)
        if "email" in body.validated_data:
            user.email = body.validated_data["email"]
            user.save(update_fields=["email"])
        for field in ("display_name", "bio"):
            if field in body.validated_data:
                setattr(profile, field, body.validated_data[field])
        profile.save()
        return Response(s.ProfileSerializer(profile_of(user)).data)


class UserView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses={200: s.PublicProfileSerializer, 404: ERR}, summary="A player's public profile and statistics")
    def get(self, request, username: str):
        user = User.objects.filter(username=username, is_active=True).first()
        if user is None:
            raise ServiceError("not_found", f"no player named {username!r}", status=404)
        profile, _ = Profile.objects.get_or_create(user=user)
        return Response(
            {
                "username": user.username,
                "display_name": profile.display_name,
                "bio": profile.bio,
                "date_joined": user.date_joined,
                "is_friend": selectors.are_friends(request.user, user),
                "stats": player_statistics(user),
            }
        )


class FriendsView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: s.FriendsSerializer, 401: ERR}, summary="Your friends and pending requests")
    def get(self, request):
        return Response(s.FriendsSerializer(selectors.friends_overview(request.user)).data)


class FriendRequestView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.UsernameSerializer, responses={201: s.FriendsSerializer, 400: ERR, 401: ERR, 403: ERR, 404: ERR}, summary="Ask a player to be friends")
    def post(self, request):
        body = s.UsernameSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        services.request_friend(user=request.user, username=body.validated_data["username"])
        return Response(s.FriendsSerializer(selectors.friends_overview(request.user)).data, status=status.HTTP_201_CREATED)


class FriendAnswerView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    accept = True

    @extend_schema(request=None, responses={200: s.FriendsSerializer, 401: ERR, 403: ERR, 404: ERR}, summary="Answer a friend request")
    def post(self, request, username: str):
        services.answer_request(user=request.user, username=username, accept=self.accept)
        return Response(s.FriendsSerializer(selectors.friends_overview(request.user)).data)


class FriendView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={204: None, 401: ERR, 403: ERR, 404: ERR}, summary="Remove a friend (or withdraw a request)")
    def delete(self, request, username: str):
        services.remove_friend(user=request.user, username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)
