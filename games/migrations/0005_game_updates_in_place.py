"""Moves update a game's row in place (HOT) on PostgreSQL: the leaderboard's old index on games, which held
the columns every move changes, goes (DailyResult has its own), and pages keep room for new versions."""

from django.db import migrations

# Percent of each page that inserts fill; the rest is left for the new versions of its rows.
GAME_FILLFACTOR = 70


def set_fillfactor(apps, schema_editor, percent):
    if schema_editor.connection.vendor == "postgresql":
        table = schema_editor.quote_name(apps.get_model("games", "Game")._meta.db_table)
        schema_editor.execute(f"ALTER TABLE {table} SET (fillfactor = {int(percent)})")


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0004_daily_board_indexes"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="game", name="game_daily_rank"),
        migrations.RunPython(
            lambda apps, editor: set_fillfactor(apps, editor, GAME_FILLFACTOR),
            lambda apps, editor: set_fillfactor(apps, editor, 100),
        ),
    ]
