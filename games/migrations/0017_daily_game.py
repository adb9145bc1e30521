"""The daily's columns leave Game for a table of the daily's own (games.daily.models.DailyGame): a game's
ranked daily (`Game.daily`) and the past daily a casual game was asked for by (`Game.past_daily`) become
rows of DailyGame (`ranked` true and false), and the one-ranked-game-per-daily constraint moves with them.

The rows are copied by one INSERT ... SELECT each (no row passes through Python: a busy site has
millions of games); going back copies them into the columns again."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def to_daily_games(apps, schema_editor):
    game, daily_game = apps.get_model("games", "Game")._meta, apps.get_model("games", "DailyGame")._meta
    quote = schema_editor.quote_name
    with schema_editor.connection.cursor() as cursor:
        for column, ranked in (("daily_id", True), ("past_daily_id", False)):
            cursor.execute(
                f"INSERT INTO {quote(daily_game.db_table)} (game_id, daily_id, player_id, ranked) "
                f"SELECT id, {column}, player_id, %s FROM {quote(game.db_table)} WHERE {column} IS NOT NULL"
                + (" AND daily_id IS NULL" if not ranked else ""),  # a ranked game never had a past daily too
                [ranked],
            )


def to_game_columns(apps, schema_editor):
    game, daily_game = apps.get_model("games", "Game")._meta, apps.get_model("games", "DailyGame")._meta
    quote = schema_editor.quote_name
    games, rows = quote(game.db_table), quote(daily_game.db_table)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {games} SET "
            f"daily_id = (SELECT d.daily_id FROM {rows} d WHERE d.game_id = {games}.id AND d.ranked = %s), "
            f"past_daily_id = (SELECT d.daily_id FROM {rows} d WHERE d.game_id = {games}.id AND d.ranked = %s) "
            f"WHERE id IN (SELECT game_id FROM {rows})",
            [True, False],
        )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0016_game_abandoned"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="DailyGame",
            fields=[
                (
                    "game",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name="daily_game", serialize=False, to="games.game"
                    ),
                ),
                ("daily", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="games", to="games.dailychallenge")),
                ("player", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL)),
                ("ranked", models.BooleanField()),
            ],
        ),
        migrations.RunPython(to_daily_games, to_game_columns),
        # The constraint's name is the index's name on PostgreSQL: the old one goes before the new one comes.
        migrations.RemoveConstraint(model_name="game", name="one_ranked_game_per_daily"),
        migrations.AddConstraint(
            model_name="dailygame",
            constraint=models.UniqueConstraint(condition=models.Q(("ranked", True)), fields=("daily", "player"), name="one_ranked_game_per_daily"),
        ),
        migrations.RemoveField(model_name="game", name="daily"),
        migrations.RemoveField(model_name="game", name="past_daily"),
    ]
