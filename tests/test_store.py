"""The hand-written SQL of a game action (games/store.py) and of token login (accounts/authentication.py)
give what the ORM gives, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest
from django.db import transaction
from rest_framework.authtoken.models import Token

from accounts.authentication import user_of_token
from games import services, store
from games.models import Action, Game, RaceEntry
from tests.support.players import client_for

pytestmark = pytest.mark.django_db(transaction=False)


def stored_fields(game: Game) -> dict:
    return {field.attname: getattr(game, field.attname) for field in Game._meta.concrete_fields}


def test_the_lock_reads_every_column_of_the_game_as_the_orm_does(alice):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    services.play_move(game_id=game.pk, user=alice, move="3a", ply=0)
    Game.objects.filter(pk=game.pk).update(review=Game.Review.FLAGGED)  # a column the lock does not write
    with transaction.atomic():
        locked = store.lock_game(game.pk)
    expected = Game.objects.get(pk=game.pk)
    assert stored_fields(locked) == stored_fields(expected)
    assert locked.line == [["3a", []]] and isinstance(locked.state, dict) and locked.created_at.tzinfo is not None
    assert locked.player.username == "alice" and locked.player.pk == alice.pk


def test_a_game_in_no_race_says_so_without_a_query(alice, django_assert_num_queries):
    game = services.create_game(player=alice, deal="ms:1")
    with transaction.atomic():
        locked = store.lock_game(game.pk)
        with django_assert_num_queries(0):
            with pytest.raises(RaceEntry.DoesNotExist):
                locked.race_entry  # noqa: B018


def test_a_racers_game_comes_with_its_entry_and_race(alice, bob, settings):
    settings.RACE_COUNTDOWN_S = 0
    race = client_for(alice).post("/api/races/", {"deal": "ms:1"}, format="json").json()
    client_for(bob).post(f"/api/races/{race['code']}/join/", {}, format="json")
    client_for(alice).post(f"/api/races/{race['code']}/start/", {}, format="json")
    entry = RaceEntry.objects.select_related("race").get(player=bob, race__code=race["code"])
    with transaction.atomic():
        locked = store.lock_game(entry.game_id)
    assert locked.race_entry.pk == entry.pk and locked.race_entry.race.code == race["code"]
    assert locked.race_entry.race.status == entry.race.status and locked.race_entry.player_id == bob.pk


@pytest.mark.parametrize("game_id", [0, 10**6, -1, 2**31, 2**63, -(2**63) - 1])
def test_no_such_game_is_none_even_for_numbers_the_database_cannot_hold(alice, game_id):
    with transaction.atomic():
        assert store.lock_game(game_id) is None


def test_insert_and_update_write_what_the_orm_reads_back(alice):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    action = store.insert_action(Action(game=game, index=0, kind="move", notation="3a", autoplay=["ah"], client_id="c1"))
    read = Action.objects.get(pk=action.pk)
    assert (read.game_id, read.index, read.kind, read.notation, read.autoplay, read.client_id) == (game.pk, 0, "move", "3a", ["ah"], "c1")
    assert read.created_at == action.created_at and action.created_at is not None and not action._state.adding

    game.ply, game.line, game.review = 7, [["3a", ["ah"]]], Game.Review.FLAGGED
    store.update(game, ("ply", "line"))
    read = Game.objects.get(pk=game.pk)
    assert (read.ply, read.line) == (7, [["3a", ["ah"]]])
    assert read.review == Game.Review.NONE  # a field not named is not written


def test_a_token_names_its_active_user_and_nothing_else_does(alice):
    key = Token.objects.get_or_create(user=alice)[0].key
    assert user_of_token(key) == alice
    for bad in ["", "x" * 40, key + "x", key[:-1], "\x00" * 10, None, 42]:
        assert user_of_token(bad) is None
    alice.is_active = False
    alice.save()
    assert user_of_token(key) is None
    response = client_for(alice).get("/api/me/")
    assert response.status_code == 401 and response.json()["error"]["code"] == "authentication_failed"


def test_on_postgresql_a_moves_statements_are_prepared_once_per_connection(alice):
    """Server-side binding with prepare_threshold (settings): after a few moves PostgreSQL keeps the
    lock, the insert and the update planned instead of planning them again on every move."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    for ply in range(0, 12, 2):  # a move and its undo, six times
        services.play_move(game_id=game.pk, user=alice, move="3a", ply=ply)
        services.undo(game_id=game.pk, user=alice, ply=ply + 1)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any(text.startswith("SELECT") and "FOR UPDATE OF g" in text for text in prepared), prepared
    assert any(text.startswith("INSERT INTO " + Action._meta.db_table) for text in prepared), prepared
    assert any(text.startswith("UPDATE " + Game._meta.db_table) for text in prepared), prepared


# --- a move read without a lock and written in one statement (PostgreSQL) ---------------------------


@pytest.fixture
def one_statement():
    if not store.records_in_one_statement():
        pytest.skip("the one-statement write is PostgreSQL's (SQLite takes the locked path)")


def test_a_move_is_one_read_and_one_write_and_stores_what_the_lock_would(alice, one_statement, django_assert_num_queries):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    with django_assert_num_queries(2) as queries:
        outcome = services.play_move(game_id=game.pk, user=alice, move="3a", ply=0, client_id="c1")
    assert "FOR UPDATE" not in queries.captured_queries[0]["sql"]
    stored = Game.objects.get(pk=game.pk)
    assert stored_fields(outcome.game) == stored_fields(stored)
    assert (stored.ply, stored.version, stored.line) == (1, game.version + 1, [["3a", []]])
    action = Action.objects.get(game=game)
    assert (action.pk, action.index, action.kind, action.notation, action.client_id) == (outcome.action.pk, 0, "move", "3a", "c1")
    assert action.created_at == outcome.action.created_at


def test_the_write_does_nothing_when_the_game_has_changed_since_it_was_read(alice, one_statement):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    read = store.read_game(game.pk)
    read.ply, read.version = 1, read.version + 1
    action = Action(game=read, index=0, kind="move", notation="3a", autoplay=[], client_id="")
    assert not store.record_if_unchanged(read, services.GAME_PLAY_FIELDS, action, version=game.version + 5)
    assert not Action.objects.filter(game=game).exists() and Game.objects.get(pk=game.pk).ply == 0
    assert store.record_if_unchanged(read, services.GAME_PLAY_FIELDS, action, version=game.version)
    assert Action.objects.get(game=game).pk == action.pk and Game.objects.get(pk=game.pk).ply == 1


def test_a_move_that_finds_the_game_changed_is_answered_by_the_locked_path(alice, one_statement, settings, monkeypatch):
    """Another tab moves between this move's read and its write: nothing of this move is stored, and the
    answer is the locked path's (a stale ply), with the move counted once against the rate limit."""
    from freecell_site.errors import ServiceError
    from games import ratelimit

    settings.ACTIONS_PER_SECOND = 2
    monkeypatch.setattr(ratelimit.time, "time", lambda: 7_000_000.0)
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    real_read = store.read_game

    def read_then_other_tab_moves(game_id):
        stale = real_read(game_id)
        services._play_locked(game_id=game_id, user=alice, move="3a", ply=0)
        return stale

    monkeypatch.setattr(store, "read_game", read_then_other_tab_moves)
    with pytest.raises(ServiceError) as refused:
        services.play_move(game_id=game.pk, user=alice, move="3b", ply=0)
    assert refused.value.code == "ply_conflict"
    assert list(Action.objects.filter(game=game).values_list("notation", flat=True)) == ["3a"]
    assert Game.objects.get(pk=game.pk).ply == 1


def test_a_winning_move_takes_the_lock(alice, one_statement):
    from django.db import connection

    from tests.lines import winning_line

    line = winning_line("ms:1", "safe")
    game = services.create_game(player=alice, deal="ms:1", autoplay="safe")
    locks = []

    def watch(execute, sql, params, many, context):
        locks.append("FOR UPDATE" in sql)
        return execute(sql, params, many, context)

    for ply, move in enumerate(line):
        locks.clear()
        with connection.execute_wrapper(watch):
            outcome = services.play_move(game_id=game.pk, user=alice, move=move, ply=ply)
        assert any(locks) == (ply == len(line) - 1), f"move {ply} of {len(line)}"
    assert outcome.game.status == Game.Status.WON and Game.objects.get(pk=game.pk).status == Game.Status.WON


# --- a move validated on the game the socket kept from its last move (PostgreSQL) ---------------------


def test_a_move_on_the_known_game_is_one_write_and_stores_what_a_read_would(alice, one_statement, django_assert_num_queries):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    first = services.play_move(game_id=game.pk, user=alice, move="3a", ply=0)
    with django_assert_num_queries(1) as queries:
        second = services.play_move(game_id=game.pk, user=alice, move="3b", ply=1, known=first.game)
    assert queries.captured_queries[0]["sql"].startswith("WITH changed AS (UPDATE")
    stored = Game.objects.get(pk=game.pk)
    assert stored_fields(second.game) == stored_fields(stored)
    assert stored.line == [["3a", []], ["3b", []]] and stored.ply == 2
    assert list(Action.objects.filter(game=game).values_list("notation", flat=True)) == ["3a", "3b"]


def test_a_known_game_at_another_ply_than_the_clients_is_read_again(alice, one_statement, django_assert_num_queries):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    first = services.play_move(game_id=game.pk, user=alice, move="3a", ply=0)
    services.play_move(game_id=game.pk, user=alice, move="3b", ply=1)  # from another tab: `first` is behind
    with django_assert_num_queries(2):
        third = services.play_move(game_id=game.pk, user=alice, move="3c", ply=2, known=first.game)
    assert Game.objects.get(pk=game.pk).line == [["3a", []], ["3b", []], ["3c", []]] == third.game.line


@pytest.mark.parametrize(
    ("elsewhere", "move", "code"),
    [
        ("move", "3c", "ply_conflict"),  # legal on the known position: the write finds a newer version
        ("move", "d1", "ply_conflict"),  # illegal on it (free cell d is empty): still the stored game's answer
        ("resign", "3c", "game_over"),  # the same ply, a newer version
        ("resign", "d1", "game_over"),
    ],
)
def test_a_stale_known_game_gets_the_answer_the_stored_game_gives(alice, one_statement, elsewhere, move, code):
    """The socket kept the game, then the game changed elsewhere (a move in another tab, a resign, a race's
    time limit): the answer is the one the stored game gives, and nothing of the move is stored."""
    from freecell_site.errors import ServiceError

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    known = services.play_move(game_id=game.pk, user=alice, move="3a", ply=0).game
    if elsewhere == "move":
        services.play_move(game_id=game.pk, user=alice, move="3b", ply=1)
    else:
        services.resign(game_id=game.pk, user=alice)
    before = Game.objects.get(pk=game.pk)
    with pytest.raises(ServiceError) as refused:
        services.play_move(game_id=game.pk, user=alice, move=move, ply=1, known=known)
    assert refused.value.code == code
    after = Game.objects.get(pk=game.pk)
    assert stored_fields(after) == stored_fields(before)
    assert Action.objects.filter(game=game).count() == before.ply


def test_on_postgresql_moves_and_undos_update_the_games_row_in_place(alice):
    """No index holds a column that an action changes, and the table keeps room on its pages, so
    PostgreSQL updates the row in place (HOT) rather than adding an entry to each of its indexes."""
    from django.db import connection

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
    services.resign(game_id=game.pk, user=alice)
    assert hot_updates() - before == 4
