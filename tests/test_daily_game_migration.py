"""Migration 0017 moves the daily's columns of Game (`daily`, `past_daily`) to the daily's table DailyGame,
rows and all, and moves them back when unapplied."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.support.migrations import migrate_to, migrate_to_latest

BEFORE = [("games", "0016_game_abandoned")]
AFTER = [("games", "0017_daily_game")]


@pytest.mark.django_db(transaction=True)
def test_the_daily_columns_move_to_the_dailys_table_and_back():
    apps = migrate_to(BEFORE)
    try:
        User, Deal, Daily, Game = (apps.get_model(*name) for name in (("auth", "User"), ("games", "Deal"), ("games", "DailyChallenge"), ("games", "Game")))
        alice, bob = User.objects.create(username="m-alice"), User.objects.create(username="m-bob")
        deal = Deal.objects.create(id="seed:1", columns=[[]] * 8)
        day = Daily.objects.create(date=dt.date(2026, 11, 29), deal=deal)
        made = {
            "ranked": Game.objects.create(deal=deal, player=alice, daily=day, state={}),
            "casual": Game.objects.create(deal=deal, player=alice, past_daily=day, state={}),
            "plain": Game.objects.create(deal=deal, player=bob, state={}),
            "bobs": Game.objects.create(deal=deal, player=bob, daily=day, state={}),
        }
        ids = {name: game.pk for name, game in made.items()}

        apps = migrate_to(AFTER)
        DailyGame = apps.get_model("games", "DailyGame")
        rows = {row.game_id: (row.daily_id, row.player_id, row.ranked) for row in DailyGame.objects.all()}
        assert rows == {
            ids["ranked"]: (day.date, alice.pk, True),
            ids["casual"]: (day.date, alice.pk, False),
            ids["bobs"]: (day.date, bob.pk, True),
        }
        assert "daily_id" not in {field.attname for field in apps.get_model("games", "Game")._meta.concrete_fields}

        apps = migrate_to(BEFORE)
        Game = apps.get_model("games", "Game")
        back = {game.pk: (game.daily_id, game.past_daily_id) for game in Game.objects.all()}
        assert back == {
            ids["ranked"]: (day.date, None),
            ids["casual"]: (None, day.date),
            ids["plain"]: (None, None),
            ids["bobs"]: (day.date, None),
        }
    finally:
        migrate_to_latest()
