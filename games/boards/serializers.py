"""The boards' JSON shapes, each defined once: the views write them and the schema describes them."""

from __future__ import annotations

import datetime as dt

from rest_framework import serializers

from games.daily.leaderboard import PLAYERS

#: What every board line says of its player (docs/fair-play.md).
BOT = "a bot account's line (on the bots' board only)"


def _written(field, value):
    """A value as its field writes it (DRF's `to_representation`), None as null."""
    return None if value is None else field.to_representation(value)


class PageSerializer(serializers.Serializer):
    """What every board answer carries about its page and scope.

    An answer is a dict of the fields' values, each written by its field's own `to_representation`;
    `write` writes some of them ahead (a page's entries and record, the caller's `me`: what
    games.boards.views keeps in the cache), given back under WRITTEN to be taken as they are."""

    WRITTEN = "written"

    scope = serializers.ChoiceField(choices=["all", "friends"])
    players = serializers.ChoiceField(choices=list(PLAYERS), help_text="whose board this is: people's or bots'")
    count = serializers.IntegerField(help_text="players on the board in this scope")
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)

    def write(self, **values) -> dict:
        """Fields of this answer written as the answer writes them, to be given back under WRITTEN."""
        return {name: _written(self.fields[name], value) for name, value in values.items()}

    def to_representation(self, instance):
        written = instance.get(self.WRITTEN, {})
        return {name: written[name] if name in written else _written(field, instance[name]) for name, field in self.fields.items()}


class LineSerializer(serializers.Serializer):
    """A board line (a dataclass of games.boards.selectors): each field read straight off the line and
    written by the field's own `to_representation`, as DRF writes it, without DRF's per-field lookups
    (a page is up to 200 lines: those lookups were a board answer's largest cost)."""

    def to_representation(self, instance):
        return {name: _written(field, getattr(instance, name)) for name, field in self.fields.items()}


class RecordEntrySerializer(LineSerializer):
    rank = serializers.IntegerField(help_text="1 = the deal's record")
    username = serializers.CharField()
    moves = serializers.IntegerField(help_text="player actions, undos included (the score)")
    undos = serializers.IntegerField()
    elapsed_ms = serializers.IntegerField()
    # In UTC, as every time the API writes (settings.TIME_ZONE): named here, the field does not ask for
    # the current time zone again for each line (two thirds of writing a time).
    finished_at = serializers.DateTimeField(default_timezone=dt.UTC)
    game = serializers.IntegerField(help_text="the game's id: its replay is /replay/<game>/")
    bot = serializers.BooleanField(help_text=BOT)


class RecordsSerializer(PageSerializer):
    deal = serializers.CharField(help_text="the deal asked for, as asked (ms:N, seed:S, daily:DATE)")
    autoplay = serializers.ChoiceField(choices=["none", "safe"])
    record = RecordEntrySerializer(
        allow_null=True,
        help_text="the record to beat (the first line of this board of people or bots, whatever the scope and page); null if none won it",
    )
    entries = RecordEntrySerializer(many=True)
    me = RecordEntrySerializer(allow_null=True, help_text="the caller's best and rank in this scope; null if none")


class LadderEntrySerializer(LineSerializer):
    rank = serializers.IntegerField(help_text="equal points share a rank")
    username = serializers.CharField()
    points = serializers.IntegerField()
    played = serializers.IntegerField(help_text="ranked dailies of the month started")
    won = serializers.IntegerField(help_text="ranked dailies of the month won (and not held for review)")
    bot = serializers.BooleanField(help_text=BOT)


class LadderSerializer(PageSerializer):
    month = serializers.CharField(help_text="YYYY-MM")
    points_rule = serializers.CharField(help_text="how points are earned, to show beside the board")
    entries = LadderEntrySerializer(many=True)
    me = LadderEntrySerializer(allow_null=True, help_text="the caller's line and rank in this scope; null if none")


class StreakEntrySerializer(LineSerializer):
    rank = serializers.IntegerField(help_text="equal (current, longest) share a rank")
    username = serializers.CharField()
    current = serializers.IntegerField(help_text="consecutive UTC days with a ranked daily won, up to today or yesterday; else 0")
    longest = serializers.IntegerField(help_text="the longest such run ever")
    bot = serializers.BooleanField(help_text=BOT)


class StreaksSerializer(PageSerializer):
    order = serializers.CharField(help_text="how the board is ranked, to show beside it")
    entries = StreakEntrySerializer(many=True)
    me = StreakEntrySerializer(allow_null=True, help_text="the caller's line and rank in this scope; null if none")


#: One writer of each answer, made once: a serializer copies its class's fields when first used (0.4 ms
#: a request), and writing an answer changes nothing in them.
RECORDS, LADDER, STREAKS = RecordsSerializer(), LadderSerializer(), StreaksSerializer()
