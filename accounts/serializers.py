"""Request validation and response shapes of the accounts API."""

from __future__ import annotations

from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.contrib.auth.validators import ASCIIUsernameValidator
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import AccessToken, Profile
from accounts.scopes import SCOPES
from freecell_site.fields import StrictCharField, StrictChoiceField, StrictChoiceListField, StrictEmailField

# The width of auth_user.email: a longer address is refused here, not by the database (a 500 on
# PostgreSQL, silently stored on SQLite).
EMAIL_MAX = 254


@extend_schema_field({"anyOf": [{"type": "string", "format": "email", "maxLength": EMAIL_MAX}, {"type": "string", "maxLength": 0}]})
class OptionalEmailField(StrictEmailField):
    """An e-mail address, or "" for none. Its schema is anyOf: drf-spectacular's oneOf refused "" in
    any validator that does not check formats ("" then matches both branches)."""

    def __init__(self, **kwargs):
        super().__init__(allow_blank=True, max_length=EMAIL_MAX, **kwargs)


class CredentialsSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=256, trim_whitespace=False, style={"input_type": "password"})


class RegisterSerializer(CredentialsSerializer):
    # ASCII only: other players read and type these names, so no look-alike letters (a Cyrillic "а"
    # in "аlice"), and the case-insensitive check below is exact on every database (SQLite folds the
    # case of ASCII letters only). People's real names go in the free-text display_name.
    username = StrictCharField(max_length=30, validators=[ASCIIUsernameValidator()])
    email = OptionalEmailField(required=False, default="")

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


class AccessTokenSerializer(serializers.ModelSerializer):
    """A personal access token as its list shows it (never its key)."""

    scopes = serializers.ListField(child=serializers.ChoiceField(choices=SCOPES))

    class Meta:
        model = AccessToken
        fields = ["id", "name", "scopes", "created_at", "last_used_at", "expires_at"]


class IssuedAccessTokenSerializer(serializers.ModelSerializer):
    """A token just made, with its key (`token`), shown this once."""

    scopes = serializers.ListField(child=serializers.ChoiceField(choices=SCOPES))
    token = serializers.CharField(source="key", help_text="the key: shown only now")

    class Meta:
        model = AccessToken
        fields = ["id", "name", "scopes", "token", "created_at", "expires_at"]


@extend_schema_field(
    {"type": "array", "items": {"type": "string", "enum": list(SCOPES)}, "minItems": 1, "maxItems": len(SCOPES), "uniqueItems": True}
)
class ScopesField(StrictChoiceListField):
    """A token's scopes: one or more of accounts.scopes.SCOPES, each once."""

    def __init__(self, **kwargs):
        super().__init__(choices=SCOPES, **kwargs)


class NewAccessTokenSerializer(serializers.Serializer):
    name = StrictCharField(max_length=60, help_text="what the token is for, to recognise it in your list")
    scopes = ScopesField(help_text="what the token may do: one or more of read, play, race, account, each once")


class UsernameSerializer(serializers.Serializer):
    username = StrictCharField()


class PasswordChangeSerializer(serializers.Serializer):
    old_password = StrictCharField(max_length=256, trim_whitespace=False)
    new_password = StrictCharField(max_length=256, trim_whitespace=False)


class PasswordResetSerializer(serializers.Serializer):
    email = StrictEmailField(max_length=EMAIL_MAX)


class PasswordResetConfirmSerializer(serializers.Serializer):
    uid = StrictCharField(max_length=64)
    token = StrictCharField(max_length=128)
    new_password = StrictCharField(max_length=256, trim_whitespace=False)


class TableSettingsSerializer(serializers.Serializer):
    """The table's look and sound, kept with the account so that every device has them. A PATCH names the
    settings it changes; a name that is not a setting is refused, not dropped."""

    deck = StrictChoiceField(choices=Profile.Deck.values, required=False, help_text="the card style")
    felt = StrictChoiceField(choices=Profile.Felt.values, required=False, help_text="the table colour")
    sound = StrictChoiceField(choices=Profile.Sound.values, required=False, help_text="the table's sounds: `on` or `off`")

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(str(name) for name in data if name not in self.fields)
            if unknown:
                known = ", ".join(self.fields)
                raise serializers.ValidationError({name: [f"not a setting: the settings are {known}"] for name in unknown})
        return super().to_internal_value(data)


@extend_schema_field(TableSettingsSerializer)
class TableSettingsField(serializers.Field):
    """`settings` of the profile: an object checked by TableSettingsSerializer, whose faults are given
    as messages of the one field `settings` ("felt: ..."), as the error shape lists each field's."""

    #: The serializer that reads the object (tests/test_strict_bodies.py checks its fields are strict).
    checked_by = TableSettingsSerializer

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError("must be an object such as {\"deck\": \"four\"}")
        checked = self.checked_by(data=data)
        if not checked.is_valid():
            raise serializers.ValidationError(
                [f"{name}: {message}" for name, messages in checked.errors.items() for message in messages]
            )
        return checked.validated_data

    def to_representation(self, value):
        return dict(value)


class ProfileSerializer(serializers.Serializer):
    username = StrictCharField(read_only=True)
    email = OptionalEmailField(required=False)
    password = StrictCharField(
        write_only=True, required=False, max_length=256, trim_whitespace=False,
        help_text="your current password: needed to change `email` (where password resets are sent)",
    )
    display_name = StrictCharField(
        max_length=40, required=False, allow_blank=True,
        help_text="free text; not another player's username (in any case), which would pass for them",
    )
    bio = StrictCharField(max_length=280, required=False, allow_blank=True)
    settings = TableSettingsField(required=False, help_text="the table's look; a PATCH changes the settings it names")
    date_joined = serializers.DateTimeField(read_only=True)
    bot = serializers.BooleanField(read_only=True, help_text="a bot account (POST /api/account/bot/ makes one, for good)")
    marked = serializers.BooleanField(read_only=True, help_text="marked by a moderator: your results are off the boards")

    def validate_display_name(self, value: str) -> str:
        # The profile shows the display name in large type under the username: "alice" there would
        # pass for alice. One's own username is fine. (Usernames are ASCII; a look-alike letter in
        # a display name is not caught here.)
        own = getattr(self.context.get("user"), "username", "")
        name = value.strip()
        if name and name.casefold() != own.casefold() and User.objects.filter(username__iexact=name).exists():
            raise serializers.ValidationError("that is another player's username: choose a name that is yours")
        return value


class CloseAccountSerializer(serializers.Serializer):
    password = StrictCharField(max_length=256, trim_whitespace=False, help_text="your current password")


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


class StreakSerializer(serializers.Serializer):
    current = serializers.IntegerField()
    best = serializers.IntegerField()


class BestAndMeanSerializer(serializers.Serializer):
    best = serializers.IntegerField(allow_null=True, help_text="over wins; null before the first")
    mean = serializers.FloatField(allow_null=True, help_text="over wins; null before the first")


class DayResultsSerializer(serializers.Serializer):
    date = serializers.DateField(help_text="a UTC day")
    won = serializers.IntegerField()
    lost = serializers.IntegerField()


class DealRecordShortSerializer(serializers.Serializer):
    username = serializers.CharField()
    moves = serializers.IntegerField()
    elapsed_ms = serializers.IntegerField()
    game = serializers.IntegerField()


class DealHistorySerializer(serializers.Serializer):
    deal = serializers.CharField()
    autoplay = serializers.CharField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    best_moves = serializers.IntegerField(allow_null=True)
    best_time_ms = serializers.IntegerField(allow_null=True)
    best_game = serializers.IntegerField(allow_null=True)
    record = DealRecordShortSerializer(allow_null=True, help_text="the deal's record on this autoplay (null: none yet)")
    holds_record = serializers.BooleanField()


class StatisticsSerializer(serializers.Serializer):
    """A player's statistics as they read them (games/statistics.py): finished games only."""

    games_finished = serializers.IntegerField(help_text="won or lost")
    games_won = serializers.IntegerField()
    games_lost = serializers.IntegerField(help_text="resigned, or time up")
    games_unfinished = serializers.IntegerField(help_text="still playing, left or restarted: neither won nor lost")
    win_rate = serializers.FloatField(allow_null=True, help_text="games_won / games_finished; null before the first finished game")
    casual_streak = StreakSerializer(help_text="runs of casual wins (every game but the ranked daily), by finish")
    daily_streak = StreakSerializer(help_text="runs of days with a ranked daily won")
    moves = BestAndMeanSerializer()
    time_ms = BestAndMeanSerializer()
    by_day = DayResultsSerializer(many=True, help_text="the last 30 UTC days, oldest first")
    deals = DealHistorySerializer(many=True, help_text="the numbered deals played most recently (10 at most), each beside its record")


class PublicProfileSerializer(serializers.Serializer):
    username = serializers.CharField()
    display_name = serializers.CharField()
    bio = serializers.CharField()
    date_joined = serializers.DateTimeField()
    bot = serializers.BooleanField(help_text="a bot account: its results rank on the bots' boards only (`?players=bots`)")
    marked = serializers.BooleanField(help_text="marked by a moderator: every result of the account is off the boards")
    is_friend = serializers.BooleanField()
    friendship = serializers.ChoiceField(
        choices=["none", "friends", "request_sent", "request_received"],
        allow_null=True,
        help_text="what this player is to you: friends, your request awaiting them, theirs awaiting you, or none; null signed out or on your own profile",
    )
    stats = StatsSerializer()
    statistics = StatisticsSerializer()


class PlayerFoundSerializer(serializers.Serializer):
    username = serializers.CharField()
    display_name = serializers.CharField()
    date_joined = serializers.DateTimeField()
