"""The one path of every action (games.play.services), the same on SQLite and PostgreSQL: no row lock, a
version-checked write, a change made meanwhile answered from the stored game, rows updated in place."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.authentication import user_of_token
from freecell_site.errors import ServiceError
from games.models import Action, Deal, Game
from games.play import ratelimit, services
from tests.support.players import client_for, token_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("game_id", [0, 10**6, -1, 2**31, 2**63, -(2**63) - 1, "x", None])
def test_no_such_game_is_not_found_even_for_numbers_the_database_cannot_hold(alice, game_id):
    with pytest.raises(ServiceError) as missing:
        services.play_move(game_id=game_id, user=alice, move="3a", ply=0)
    assert missing.value.code == "not_found"


def test_a_move_locks_no_row_and_writes_only_if_the_game_is_still_the_version_it_read(alice):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    with CaptureQueriesContext(connection) as queries:
        services.play_move(game_id=game.pk, user=alice, move="3a", ply=0)
    sql = [query["sql"] for query in queries.captured_queries]
    assert not any("FOR UPDATE" in text for text in sql), sql
    updates = [text for text in sql if text.startswith(f'UPDATE "{Game._meta.db_table}"')]
    assert len(updates) == 1 and '"version" =' in updates[0].split("WHERE", 1)[1], updates
    assert sum(text.startswith(f'INSERT INTO "{Action._meta.db_table}"') for text in sql) == 1


def test_an_undo_replays_from_the_deal_the_process_knows_without_reading_it_again(alice):
    """An undo replays the line from the deal's layout: a stored deal never changes, so once a process has
    read it, an undo runs only the action's statements (the game's read, its write, the action)."""
    game = services.create_game(player=alice, deal="ms:7", autoplay="none")
    services.play_move(game_id=game.pk, user=alice, move="3a", ply=0)
    services.undo(game_id=game.pk, user=alice, ply=1)
    services.play_move(game_id=game.pk, user=alice, move="3a", ply=2)
    with CaptureQueriesContext(connection) as queries:
        undone = services.undo(game_id=game.pk, user=alice, ply=3)
    sql = [query["sql"] for query in queries.captured_queries]
    assert not any(f'"{Deal._meta.db_table}"' in text.split("FROM", 1)[-1].split("WHERE", 1)[0] for text in sql), sql
    assert undone.game.state == Game.objects.get(pk=game.pk).state and undone.game.ply == 4


def test_a_move_that_finds_the_game_changed_is_answered_from_the_stored_game_and_counted_once(alice, settings, monkeypatch):
    """Another tab moves between this move's read and its write: nothing of this move is stored, and it
    is answered as the game now stands (a stale ply), counted once against the rate limit."""
    settings.ACTIONS_PER_SECOND = 2
    monkeypatch.setattr(ratelimit.time, "time", lambda: 7_000_000.0)
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    real_read = services.read_game
    other_tab = []

    def read_then_other_tab_moves(game_id):
        stale = real_read(game_id)
        if not other_tab:
            other_tab.append(True)
            Game.objects.filter(pk=game_id).update(ply=1, version=stale.version + 1)
            Action.objects.create(game_id=game_id, index=0, kind="move", notation="3a", autoplay=[])
        return stale

    monkeypatch.setattr(services, "read_game", read_then_other_tab_moves)
    with pytest.raises(ServiceError) as refused:
        services.play_move(game_id=game.pk, user=alice, move="3b", ply=0)
    assert refused.value.code == "ply_conflict" and refused.value.extra["game"]["ply"] == 1
    assert list(Action.objects.filter(game=game).values_list("notation", flat=True)) == ["3a"]
    # Counted once: a second action in the same second is still allowed (the limit is 2).
    monkeypatch.setattr(services, "read_game", real_read)
    assert services.play_move(game_id=game.pk, user=alice, move="3b", ply=1).game.ply == 2


def test_a_resend_of_the_last_move_while_it_was_being_stored_gets_the_same_answer(alice):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    first = services.play_move(game_id=game.pk, user=alice, move="3a", ply=0, client_id="c-1")
    again = services.play_move(game_id=game.pk, user=alice, move="3a", ply=0, client_id="c-1")
    assert again.repeated and again.action.pk == first.action.pk and Game.objects.get(pk=game.pk).ply == 1


def test_a_winning_move_dates_the_finish_with_its_action(alice):
    from tests.support.daily import WIN, trivial_deal

    game = services.create_game(player=alice, deal=trivial_deal(), autoplay="safe")
    won = services.play_move(game_id=game.pk, user=alice, move=WIN, ply=0)
    assert won.game.status == "won" and won.game.finished_at == won.action.created_at
    stored = Game.objects.get(pk=game.pk)
    assert stored.finished_at == Action.objects.get(game=game).created_at


def test_a_token_names_its_active_user_and_nothing_else_does(alice):
    key = token_of(alice)
    assert user_of_token(key) == alice
    for bad in ["", "x" * 40, key + "x", key[:-1], "\x00" * 10, None, 42]:
        assert user_of_token(bad) is None
    alice.is_active = False
    alice.save()
    assert user_of_token(key) is None
    response = client_for(alice).get("/api/me/")
    assert response.status_code == 401 and response.json()["error"]["code"] == "authentication_failed"


def test_on_postgresql_moves_and_undos_update_the_games_row_in_place(alice):
    """No index holds a column that a move or an undo changes, and the table keeps room on its pages, so
    PostgreSQL updates the row in place (HOT) rather than adding an entry to each of its indexes. A
    game's end changes `status`, which the sweeper's index of deadlines still playing holds: once a game."""
    if connection.vendor != "postgresql":
        pytest.skip("HOT updates are PostgreSQL's")

    def hot_updates() -> int:
        with connection.cursor() as cursor:  # this transaction's own count, up to date at once
            cursor.execute("SELECT pg_stat_get_xact_tuples_hot_updated(%s::regclass)", [Game._meta.db_table])
            return cursor.fetchone()[0]

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    before = hot_updates()
    services.play_move(game_id=game.pk, user=alice, move="3a", ply=0)
    services.play_move(game_id=game.pk, user=alice, move="3b", ply=1)
    services.undo(game_id=game.pk, user=alice, ply=2)
    assert hot_updates() - before == 3
    services.resign(game_id=game.pk, user=alice)
    assert hot_updates() - before == 3


def test_on_postgresql_a_moves_statements_are_prepared_once_per_connection(alice):
    """Server-side binding with prepare_threshold (settings): after a few moves PostgreSQL keeps a
    move's read, update and insert planned instead of planning them again on every move."""
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    for ply in range(0, 12, 2):  # a move and its undo, six times
        services.play_move(game_id=game.pk, user=alice, move="3a", ply=ply)
        services.undo(game_id=game.pk, user=alice, ply=ply + 1)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any(text.startswith(f'INSERT INTO "{Action._meta.db_table}"') for text in prepared), prepared
    assert any(text.startswith(f'UPDATE "{Game._meta.db_table}"') for text in prepared), prepared


def test_the_action_limit_costs_no_cache_round_trip_per_action_and_shares_in_batches(alice, settings, monkeypatch):
    """Counted in the process; the cache sees one batch per window, and another process's count comes back."""
    from django.core.cache import cache

    settings.ACTIONS_PER_SECOND = 5
    monkeypatch.setattr(ratelimit.time, "time", lambda: 8_000_000.0)
    calls = []
    real_incr = cache.incr
    monkeypatch.setattr(cache, "incr", lambda *a, **k: calls.append(a) or real_incr(*a, **k))
    monkeypatch.setattr(ratelimit, "_start_sharing", lambda: None)  # batches shared by hand below
    for _ in range(3):
        ratelimit.check_actions(alice.pk)
    assert calls == []  # three actions, no round trip
    cache.set(f"actions:{alice.pk}:8000000", 2)  # another process shared two actions of alice's
    ratelimit.share()
    assert cache.get(f"actions:{alice.pk}:8000000") == 5
    with pytest.raises(ServiceError) as refused:
        ratelimit.check_actions(alice.pk)  # 3 here + 2 elsewhere + this one: over 5
    assert refused.value.code == "rate_limited"
