"""The SQL that every game action runs, written once instead of built by the ORM on each call.

Django builds a query's SQL anew every time it runs: for the row lock of a move (a join of four tables)
that cost more CPU than everything else the move does, and about ten times what PostgreSQL spends
running it (docs/performance.md). So the three statements of each action (lock the game, append
the action, update the game) are written here, once, from the models' own metadata: the column
names, the values' conversion to and from the database (`get_db_prep_save`, the fields' converters)
and the model instances are Django's. Everything else, and every other query, uses the ORM.
`tests/test_store.py` checks each statement against the ORM's answer.
"""

from __future__ import annotations

import functools
import itertools

from django.contrib.auth import get_user_model
from django.db import connection

from games.models import Action, Game, Race, RaceEntry

# What a change of a game reads with it: the player's name (in every answer) and the race entry with
# its race (most games have none; races.on_game_changed needs them). Only these columns of the others.
_PLAYER_COLUMNS = ("id", "username")
_ENTRY_COLUMNS = ("id", "race_id", "player_id", "game_id", "rank")
_RACE_COLUMNS = ("id", "code", "status", "ghost_of_id")


def _columns(model, alias: str, names) -> list[str]:
    table = model._meta
    return [f'{alias}."{table.get_field(name).column}"' for name in names]


@functools.cache
def _game_names() -> tuple[str, ...]:
    """Every column of Game (attnames), in the order the lock query reads them."""
    return tuple(field.attname for field in Game._meta.concrete_fields)


@functools.cache
def _select_sql(vendor: str, locked: bool) -> str:
    """The game's query for this kind of database (`vendor` keys the cache), locking its row or not."""
    user = get_user_model()
    features = connection.features
    if not locked:
        lock = ""
    elif features.has_select_for_update_of:
        lock = " FOR UPDATE OF g"
    else:  # SQLite locks the whole database on the first write instead
        lock = " FOR UPDATE" if features.has_select_for_update else ""
    select = [
        *_columns(Game, "g", _game_names()),
        *_columns(user, "u", _PLAYER_COLUMNS),
        *_columns(RaceEntry, "e", _ENTRY_COLUMNS),
        *_columns(Race, "r", _RACE_COLUMNS),
    ]
    return (
        f"SELECT {', '.join(select)} FROM {Game._meta.db_table} g"
        f' JOIN {user._meta.db_table} u ON u."id" = g."player_id"'
        f' LEFT JOIN {RaceEntry._meta.db_table} e ON e."game_id" = g."id"'
        f' LEFT JOIN {Race._meta.db_table} r ON r."id" = e."race_id"'
        f' WHERE g."id" = %s{lock}'
    )


@functools.cache
def _game_converters(vendor: str) -> list[tuple]:
    """Per column of Game: the column and the functions that turn its database value into the field's
    Python value (JSON text to data, SQLite's text to datetimes...), as the ORM applies them."""
    found = []
    for field in Game._meta.concrete_fields:
        column = field.get_col(Game._meta.db_table)
        found.append((column, [*connection.ops.get_db_converters(column), *field.get_db_converters(connection)]))
    return found


def _load_game(values) -> Game:
    converted = []
    for value, (column, converters) in zip(values, _game_converters(connection.vendor), strict=True):
        for convert in converters:
            value = convert(value, column, connection)
        converted.append(value)
    return Game.from_db(connection.alias, _game_names(), converted)


def lock_game(game_id: int) -> Game | None:
    """The game row, locked until the transaction ends, with its player and race entry; None if none."""
    return _select_game(game_id, locked=True)


def read_game(game_id: int) -> Game | None:
    """The game row as `lock_game` reads it, without locking it (see `record_if_unchanged`)."""
    return _select_game(game_id, locked=False)


def _select_game(game_id: int, *, locked: bool) -> Game | None:
    low, high = connection.ops.integer_field_range(Game._meta.pk.get_internal_type())
    if not (low is None or low <= game_id) or not (high is None or game_id <= high):
        return None  # as the ORM answers: no such row (the database would refuse the number)
    with connection.cursor() as cursor:
        cursor.execute(_select_sql(connection.vendor, locked), [game_id])
        row = cursor.fetchone()
    if row is None:
        return None
    # The row is the game's columns, then the player's, the entry's and the race's (see _select_sql).
    ends = list(itertools.accumulate(map(len, (_game_names(), _PLAYER_COLUMNS, _ENTRY_COLUMNS))))
    game_values, player_values, entry_values, race_values = (
        row[: ends[0]], row[ends[0] : ends[1]], row[ends[1] : ends[2]], row[ends[2] :]
    )
    game = _load_game(game_values)
    game.player = get_user_model().from_db(connection.alias, _PLAYER_COLUMNS, player_values)
    if entry_values[0] is None:
        # Remember that there is no entry, so that `game.race_entry` raises without a query.
        Game._meta.get_field("race_entry").set_cached_value(game, None)
    else:
        entry = RaceEntry.from_db(connection.alias, _ENTRY_COLUMNS, entry_values)
        entry.race = Race.from_db(connection.alias, _RACE_COLUMNS, race_values)
        game.race_entry = entry
    return game


@functools.cache
def _insert_sql(vendor: str, model, names: tuple[str, ...]) -> str:
    meta = model._meta
    columns = ", ".join(f'"{meta.get_field(name).column}"' for name in names)
    placeholders = ", ".join(["%s"] * len(names))
    returning = f' RETURNING "{meta.pk.column}"' if connection.features.can_return_columns_from_insert else ""
    return f"INSERT INTO {meta.db_table} ({columns}) VALUES ({placeholders}){returning}"


def _prepared(instance, names: tuple[str, ...], *, adding: bool) -> list:
    """The database values of the fields `names` (defaults and auto_now(_add) applied as Django does)."""
    fields = [type(instance)._meta.get_field(name) for name in names]
    return [field.get_db_prep_save(field.pre_save(instance, adding), connection) for field in fields]


def _inserted(instance, pk) -> None:
    instance.pk = pk
    instance._state.adding = False
    instance._state.db = connection.alias


def insert(instance, names: tuple[str, ...]) -> None:
    """Inserts `instance` with the fields `names` (defaults and auto_now_add applied as Django does)."""
    meta = type(instance)._meta
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(connection.vendor, type(instance), names), _prepared(instance, names, adding=True))
        if connection.features.can_return_columns_from_insert:
            pk = cursor.fetchone()[0]
        else:
            pk = connection.ops.last_insert_id(cursor, meta.db_table, meta.pk.column)
    _inserted(instance, pk)


ACTION_FIELDS = ("game", "index", "kind", "notation", "autoplay", "client_id", "created_at")


def insert_action(action: Action) -> Action:
    """Appends one action to a game's history."""
    insert(action, ACTION_FIELDS)
    return action


@functools.cache
def _update_sql(model, names: tuple[str, ...]) -> str:
    meta = model._meta
    assignments = ", ".join(f'"{meta.get_field(name).column}" = %s' for name in names)
    return f'UPDATE {meta.db_table} SET {assignments} WHERE "{meta.pk.column}" = %s'


def update(instance, names: tuple[str, ...]) -> None:
    """Writes the fields `names` of a stored instance (like `save(update_fields=names)`, no signals)."""
    with connection.cursor() as cursor:
        cursor.execute(_update_sql(type(instance), names), [*_prepared(instance, names, adding=False), instance.pk])


# --- an action in one statement (PostgreSQL) ------------------------------------------------------


def records_in_one_statement() -> bool:
    """Whether `record_if_unchanged` works here: PostgreSQL can update and insert in one statement."""
    return connection.vendor == "postgresql"


@functools.cache
def _record_sql(game_names: tuple[str, ...], action_names: tuple[str, ...]) -> str:
    action = Action._meta
    columns = ", ".join(f'"{action.get_field(name).column}"' for name in action_names)
    # Typed placeholders: in a SELECT list PostgreSQL would otherwise take an untyped value for text.
    values = ", ".join(f"%s::{action.get_field(name).cast_db_type(connection)}" for name in action_names)
    return (
        f'WITH changed AS ({_update_sql(Game, game_names)} AND "version" = %s RETURNING "{Game._meta.pk.column}")'
        f' INSERT INTO {action.db_table} ({columns}) SELECT {values} FROM changed RETURNING "{action.pk.column}"'
    )


def record_if_unchanged(game: Game, game_names: tuple[str, ...], action: Action, version: int) -> bool:
    """Writes the fields `game_names` of `game` and inserts `action`, in one statement, if the stored game
    is still at `version`; False (and nothing written) if it has changed since it was read.

    One statement is one round trip and, outside a transaction, its own commit: a move read without a
    lock (`read_game`) and written this way takes two round trips to PostgreSQL instead of five (BEGIN,
    lock, insert, update, COMMIT). Every change of a game raises its version, so an unchanged version
    means the move was validated against the position it is played on."""
    game_values = _prepared(game, game_names, adding=False)
    action_values = _prepared(action, ACTION_FIELDS, adding=True)
    with connection.cursor() as cursor:
        cursor.execute(_record_sql(game_names, ACTION_FIELDS), [*game_values, game.pk, version, *action_values])
        row = cursor.fetchone()
    if row is None:
        return False
    _inserted(action, row[0])
    return True
