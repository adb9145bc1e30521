"""The action path's three statements (games.play.store) read and write what the ORM reads and writes,
on every database the suite runs on (SQLite here, PostgreSQL in CI's second run)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.daily.models import DailyGame, daily_game_of
from games.daily.services import today
from games.models import Action, Game
from games.play import services, store
from tests.support.daily import make_test_daily, ranked_game

pytestmark = pytest.mark.django_db


def _fields(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields}


def _a_game_with_every_kind_of_value(player) -> Game:
    game = services.create_game(player=player, deal="ms:7", autoplay="none", deadline=timezone.now() + dt.timedelta(minutes=5))
    services.play_move(game_id=game.pk, user=player, move="3a", ply=0)
    Game.objects.filter(pk=game.pk).update(review="flagged", review_reasons=[{"signal": "pace_ms", "value": 90.5, "threshold": 150}], hints=2)
    return Game.objects.get(pk=game.pk)


def test_a_game_read_by_its_key_is_the_game_the_orm_reads(alice):
    game = _a_game_with_every_kind_of_value(alice)
    read = store.read_game(game.pk)
    assert _fields(read) == _fields(game)
    assert read.player.username == alice.username
    assert read.player.email == alice.email  # the rest of the player is read when asked for
    casual = services.create_game(player=alice, deal="ms:8")
    assert _fields(store.read_game(casual.pk)) == _fields(Game.objects.get(pk=casual.pk))


@pytest.mark.parametrize("key", [0, -1, 10**6, 2**31, 2**63, -(2**63) - 1])
def test_no_game_is_read_for_a_key_no_game_has(alice, key):
    assert store.read_game(key) is None


def test_a_write_stores_what_the_orm_then_reads_and_only_at_the_version_it_read(alice):
    game = _a_game_with_every_kind_of_value(alice)
    read = store.read_game(game.pk)
    read.state = {"columns": [["AS"], [], [], [], [], [], [], []], "cells": ["KH", None, None, None], "foundations": {"C": 1, "D": 0, "H": 0, "S": 0}}
    read.line = [["3a", ["ah"]], ["57", []]]
    read.ply, read.version, read.status = 9, game.version + 1, Game.Status.WON
    read.finished_at, read.elapsed_ms = timezone.now(), 12345
    fields = ("ply", "version", "state", "line", "status", "finished_at", "elapsed_ms")
    with transaction.atomic():
        assert store.write_game(read, fields, game.version) is True
    stored = Game.objects.get(pk=game.pk)
    assert {name: getattr(stored, name) for name in fields} == {name: getattr(read, name) for name in fields}
    read.ply = 99
    with transaction.atomic():
        assert store.write_game(read, ("ply",), game.version) is False  # a stale version writes nothing
    assert Game.objects.get(pk=game.pk).ply == 9


def test_an_inserted_action_is_the_action_the_orm_reads_and_a_second_at_its_ply_is_refused(alice):
    game = services.create_game(player=alice, deal="ms:7", autoplay="none")
    action = Action(game=game, index=0, kind="move", notation="3a", autoplay=["ah", "2h"], client_id="c-9", via="web", created_at=timezone.now(), clock_ms=42)
    with transaction.atomic():
        store.insert_action(action)
    assert action.pk is not None
    assert _fields(Action.objects.get(pk=action.pk)) == _fields(action)
    again = Action(game=game, index=0, kind="undo", notation="3a", autoplay=[], via="api", created_at=timezone.now())
    with pytest.raises(IntegrityError), transaction.atomic():
        store.insert_action(again)


def test_the_read_brings_the_row_the_daily_keeps_beside_a_game_and_asks_no_more(alice, django_assert_num_queries):
    """The daily's row beside a game (games.daily.models.DailyGame) comes in the read's one statement, as
    the ORM reads it; a game without one is known to have none: the daily's rules ask no query."""

    ranked = ranked_game(alice, make_test_daily(today()))
    casual = services.create_game(player=alice, deal="ms:8")
    with django_assert_num_queries(1):
        read = store.read_game(ranked.pk)
        row = daily_game_of(read)
    assert _fields(row) == _fields(DailyGame.objects.get(pk=ranked.pk)) and row.ranked
    assert row.game is read  # its game is the game read, not read again
    with django_assert_num_queries(1):
        assert daily_game_of(store.read_game(casual.pk)) is None


def test_an_action_on_a_ranked_daily_runs_the_statements_of_a_casual_one(alice):
    """A ranked daily's action learns of its daily (its midnight, no hints, its ranking) from the game's
    one read, which joins the daily's row: no statement more than the same move in a casual game."""

    challenge = make_test_daily(today())
    ranked = ranked_game(alice, challenge)
    casual = services.create_game(player=alice, deal=challenge.deal)
    counted = []
    for game in (ranked, casual):
        services.play_move(game_id=game.pk, user=alice, move="2a", ply=0)  # the ranked game's first action is counted as played
        with CaptureQueriesContext(connection) as queries:
            services.play_move(game_id=game.pk, user=alice, move="a5", ply=1)
        counted.append([query["sql"] for query in queries.captured_queries if "SAVEPOINT" not in query["sql"]])
    assert len(counted[0]) == len(counted[1]) == 3, counted
    assert "games_dailygame" in counted[0][0] and counted[0][0].startswith("SELECT"), counted[0]
