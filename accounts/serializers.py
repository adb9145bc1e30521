"""Request validation and response shapes of the accounts API."""

from __future__ import annotations

from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers


class CredentialsSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=256, trim_whitespace=False, style={"input_type": "password"})


class RegisterSerializer(CredentialsSerializer):
    username = serializers.CharField(max_length=30, validators=[UnicodeUsernameValidator()])
    email = serializers.EmailField(required=False, allow_blank=True, default="")

    def validate_username(self, value: str) -> str:
        if User.objects.filter(username__iexact=value).exists():
            raise serializers.ValidationError("that username is taken")
        return value

    def validate(self, attrs):
        candidate = User(username=attrs["username"], email=attrs.get("email", ""))
        try:
            password_validation.validate_password(attrs["password"], candidate)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"password": list(exc.messages)}) from None
        return attrs


class RegisteredSerializer(serializers.Serializer):
    username = serializers.CharField()
    token = serializers.CharField()


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


class UsernameSerializer(serializers.Serializer):
    username = serializers.CharField()


class PasswordChangeSerializer(serializers.Serializer):
    old_password = serializers.CharField(max_length=256, trim_whitespace=False)
    new_password = serializers.CharField(max_length=256, trim_whitespace=False)


class PasswordResetSerializer(serializers.Serializer):
    email = serializers.EmailField()


class PasswordResetConfirmSerializer(serializers.Serializer):
    uid = serializers.CharField(max_length=64)
    token = serializers.CharField(max_length=128)
    new_password = serializers.CharField(max_length=256, trim_whitespace=False)


class ProfileSerializer(serializers.Serializer):
    username = serializers.CharField(read_only=True)
    email = serializers.EmailField(required=False, allow_blank=True)
    display_name = serializers.CharField(max_length=40, required=False, allow_blank=True)
    bio = serializers.CharField(max_length=280, required=False, allow_blank=True)
    date_joined = serializers.DateTimeField(read_only=True)


class FriendSerializer(serializers.Serializer):
    username = serializers.CharField()
    since = serializers.DateTimeField(allow_null=True)


class FriendsSerializer(serializers.Serializer):
    friends = FriendSerializer(many=True)
    incoming = FriendSerializer(many=True, help_text="requests waiting for your answer")
    outgoing = FriendSerializer(many=True, help_text="your requests not yet answered")


class StatsSerializer(serializers.Serializer):
    games_played = serializers.IntegerField()
    games_won = serializers.IntegerField()
    dailies_played = serializers.IntegerField()
    dailies_won = serializers.IntegerField()
    daily_win_rate = serializers.FloatField(allow_null=True)
    mean_moves_over_par = serializers.FloatField(allow_null=True)
    best_rank = serializers.IntegerField(allow_null=True)
    current_streak = serializers.IntegerField()
    best_streak = serializers.IntegerField()


class PublicProfileSerializer(serializers.Serializer):
    username = serializers.CharField()
    display_name = serializers.CharField()
    bio = serializers.CharField()
    date_joined = serializers.DateTimeField()
    is_friend = serializers.BooleanField()
    stats = StatsSerializer()
