"""The three statements of an action, written once for every database: read a game by its key (with
the rows the domains above play keep beside it), store what the action changed under a version check,
append the action.

They are the only statements of the action path (games.play.services), on SQLite and PostgreSQL alike.
Each is built once per connection from the models' own fields (freecell_site.statements), and its
values pass through the fields' own conversions (the ORM's, both ways), so what they read and write is
what the ORM would; tests/test_play_store.py checks them against the ORM on every database the suite
runs on. Written by hand because building the same three statements through the query compiler on
every action cost more than running them (docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection

from freecell_site import statements
from games.play import policies
from games.play.models import Action, Game

#: Action's columns an insert writes (its key comes back from the database).
ACTION_FIELDS = ("game", "index", "kind", "notation", "autoplay", "client_id", "via", "created_at", "clock_ms")


@dataclass(frozen=True)
class _Read:
    sql: str
    game: statements.Columns
    #: The rows the domains above play keep beside a game (games.play.policies.read_with): their
    #: relation on Game, and their columns (all null when the game has none).
    joined: list[tuple[Any, statements.Columns]]


def _joined_relations() -> list:
    """The reverse one-to-one relations on Game that are read with it (games.play.policies.read_with)."""
    return [Game._meta.get_field(name) for name in policies.read_with()]


def _read_statement() -> _Read:
    quote = connection.ops.quote_name
    users = get_user_model()._meta
    username = users.get_field(get_user_model().USERNAME_FIELD)
    game = statements.columns(Game, 0)
    selected = statements.selected(Game, "g")
    joins = []
    joined = []
    for number, relation in enumerate(_joined_relations()):
        alias, meta = f"j{number}", relation.related_model._meta
        joined.append((relation, statements.columns(relation.related_model, len(selected))))
        selected += statements.selected(relation.related_model, alias)
        joins.append(
            f"LEFT JOIN {quote(meta.db_table)} {alias} ON {alias}.{quote(relation.field.column)} = g.{quote(Game._meta.pk.column)} "
        )
    sql = (
        f"SELECT {', '.join(selected)}, u.{quote(username.column)} FROM {quote(Game._meta.db_table)} g "
        f"INNER JOIN {quote(users.db_table)} u ON u.{quote(users.pk.column)} = g.{quote(Game._meta.get_field('player').column)} "
        f"{''.join(joins)}WHERE g.{quote(Game._meta.pk.column)} = %s"
    )
    return _Read(sql, game, joined)


def read_game(game_id: int) -> Game | None:
    """The game with key `game_id`, its player's name (the rest of the player is read if asked for) and
    the rows the domains above play keep beside it, or None. One statement, by primary key."""
    low, high = connection.ops.integer_field_range(Game._meta.pk.get_internal_type())
    if not (low or 0) < game_id <= (high or game_id):  # a key no game can have (and a database would refuse)
        return None
    read = statements.once("read_game", _read_statement)
    with connection.cursor() as cursor:
        cursor.execute(read.sql, [game_id])
        row = cursor.fetchone()
    if row is None:
        return None
    game = read.game.instance(row)
    user_model = get_user_model()
    game.player = user_model.from_db(connection.alias, [user_model._meta.pk.attname, user_model.USERNAME_FIELD], [game.player_id, row[-1]])
    for relation, columns in read.joined:
        values = columns.values(row)
        beside = None
        if values[columns.attnames.index(relation.field.attname)] is not None:  # the LEFT JOIN found a row
            beside = columns.model.from_db(connection.alias, columns.attnames, values)
            relation.field.set_cached_value(beside, game)
        relation.set_cached_value(game, beside)
    return game


def none_read_with(game: Game) -> None:
    """A game just created has none of the rows read with a game yet: known without a query."""
    for relation in _joined_relations():
        relation.set_cached_value(game, None)


def _update_statement(fields: tuple[str, ...]) -> tuple[str, list]:
    quote = connection.ops.quote_name
    meta = Game._meta
    model_fields = [meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in model_fields)
    sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s AND {quote(meta.get_field('version').column)} = %s"
    return sql, model_fields


def write_game(game: Game, fields: tuple[str, ...], read_version: int) -> bool:
    """Stores `fields` of the game if it is still at `read_version`; False when another action changed
    it meanwhile (nothing is written then)."""
    sql, model_fields = statements.once(("update_game",) + fields, lambda: _update_statement(fields))
    values = [field.get_db_prep_save(getattr(game, field.attname), connection) for field in model_fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*values, game.pk, read_version])
        return cursor.rowcount == 1


def _insert_statement() -> tuple[str, list]:
    quote = connection.ops.quote_name
    meta = Action._meta
    model_fields = [meta.get_field(name) for name in ACTION_FIELDS]
    columns = ", ".join(quote(field.column) for field in model_fields)
    places = ", ".join("%s" for _ in model_fields)
    sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({places})"
    if connection.features.can_return_columns_from_insert:
        sql += f" RETURNING {quote(meta.pk.column)}"
    return sql, model_fields


def insert_action(action: Action) -> None:
    """Appends the action (its key set from the database); the unique (game, index) refuses a second
    action at the same ply."""
    sql, model_fields = statements.once("insert_action", _insert_statement)
    values = [field.get_db_prep_save(getattr(action, field.attname), connection) for field in model_fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        if connection.features.can_return_columns_from_insert:
            action.pk = cursor.fetchone()[0]
        else:
            action.pk = connection.ops.last_insert_id(cursor, Action._meta.db_table, Action._meta.pk.column)
    action._state.adding = False
    action._state.db = connection.alias
