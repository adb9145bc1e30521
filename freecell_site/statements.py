"""Statements written by hand once for every database: each built on first use per connection from the
models' own fields, its rows read through the fields' own conversions, so it reads what the ORM would.

For the few statements run on every action or request (games.play.store, accounts.tokens), where
building the same query through Django's compiler each time costs more than running it
(docs/performance.md). Each such statement is the only way its data is read or written for that
purpose, and a test checks it against the ORM on every database the suite runs on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import connection

_built: dict[tuple[str, Any], Any] = {}


def once(name, build):
    """The statement `name`, built by `build` on first use for the current database connection."""
    key = (connection.alias, name)
    found = _built.get(key)
    if found is None:
        found = _built[key] = build()
    return found


@dataclass(frozen=True)
class Columns:
    """A model's columns in a statement's row: where they start, and how each value converts."""

    model: Any
    start: int
    attnames: list[str]
    converters: list[list]

    def values(self, row) -> list:
        values = list(row[self.start : self.start + len(self.attnames)])
        for position, converters in enumerate(self.converters):
            for convert in converters:
                values[position] = convert(values[position], None, connection)
        return values

    def instance(self, row):
        """The model instance these columns of `row` hold, as the ORM would build it."""
        return self.model.from_db(connection.alias, self.attnames, self.values(row))


def columns(model, start: int) -> Columns:
    """Every concrete column of `model`, from position `start` of a row on."""
    fields = model._meta.concrete_fields
    return Columns(model, start, [field.attname for field in fields], [_converters_of(field, model._meta.db_table) for field in fields])


def selected(model, alias: str) -> list[str]:
    """The select list of every concrete column of `model` under the table alias `alias`."""
    return [f"{alias}.{connection.ops.quote_name(field.column)}" for field in model._meta.concrete_fields]


def _converters_of(field, table: str) -> list:
    column = field.get_col(table)
    return connection.ops.get_db_converters(column) + column.get_db_converters(connection)
