"""Bots on boards (docs/fair-play.md): every board row and tally carries `bot`, next to the board's own key in the
tallies' unique keys and the ranking indexes, so that people's and bots' boards are each a range of them.

Rows already stored are people's: no account could be a bot before migration 0012. LongestTally had
`longest` as its primary key; it gets an id and the key (bot, longest), counted again from the streaks.
"""

from django.db import migrations, models
from django.db.models import Count


def count_longest(apps, schema_editor):
    Streak = apps.get_model("games", "Streak")
    LongestTally = apps.get_model("games", "LongestTally")
    rows = Streak.objects.values("bot", "longest").annotate(n=Count("player")).order_by()
    LongestTally.objects.bulk_create(LongestTally(bot=row["bot"], longest=row["longest"], count=row["n"]) for row in rows)


def bot_field(help_text: str = "") -> models.BooleanField:
    # A database default too: a process of the release before, still serving during the upgrade, inserts rows without it.
    return models.BooleanField(default=False, db_default=False, help_text=help_text) if help_text else models.BooleanField(default=False, db_default=False)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0012_fair_play"),
    ]

    operations = [
        # The daily's leaderboard: (daily, bot, ...).
        migrations.RemoveConstraint(model_name="dailymovestally", name="one_tally_per_move_count"),
        migrations.RemoveIndex(model_name="dailymovestally", name="daily_moves_tally_sum"),
        migrations.AddField(model_name="dailymovestally", name="bot", field=bot_field()),
        migrations.AddConstraint(
            model_name="dailymovestally",
            constraint=models.UniqueConstraint(fields=("daily", "bot", "moves"), name="one_tally_per_move_count"),
        ),
        migrations.AddIndex(
            model_name="dailymovestally", index=models.Index(fields=["daily", "bot", "moves", "count"], name="daily_moves_tally_sum")
        ),
        migrations.RemoveConstraint(model_name="dailyspantally", name="one_tally_per_span"),
        migrations.RemoveIndex(model_name="dailyspantally", name="daily_span_tally_sum"),
        migrations.AddField(model_name="dailyspantally", name="bot", field=bot_field()),
        migrations.AddConstraint(
            model_name="dailyspantally",
            constraint=models.UniqueConstraint(fields=("daily", "bot", "moves", "span"), name="one_tally_per_span"),
        ),
        migrations.AddIndex(
            model_name="dailyspantally",
            index=models.Index(fields=["daily", "bot", "moves", "span", "count"], name="daily_span_tally_sum"),
        ),
        migrations.RemoveIndex(model_name="dailyresult", name="daily_result_board"),
        migrations.AddField(model_name="dailyresult", name="bot", field=bot_field()),
        migrations.AddIndex(
            model_name="dailyresult",
            index=models.Index(
                fields=["daily", "bot", "moves", "elapsed_ms", "finished_at", "game", "undos", "player"], name="daily_result_board"
            ),
        ),
        # Deal records: (deal, autoplay, bot, ...).
        migrations.RemoveIndex(model_name="dealrecord", name="deal_record_board"),
        migrations.AddField(
            model_name="dealrecord", name="bot", field=bot_field("a bot's line: on the deal's board of bots, not of people")
        ),
        migrations.AddIndex(
            model_name="dealrecord",
            index=models.Index(
                fields=["deal", "autoplay", "bot", "moves", "elapsed_ms", "finished_at", "game", "undos", "player"],
                name="deal_record_board",
            ),
        ),
        migrations.RemoveConstraint(model_name="recordtally", name="one_record_tally"),
        migrations.RemoveIndex(model_name="recordtally", name="record_tally_sum"),
        migrations.AddField(model_name="recordtally", name="bot", field=bot_field()),
        migrations.AddConstraint(
            model_name="recordtally",
            constraint=models.UniqueConstraint(fields=("deal", "autoplay", "bot", "moves"), name="one_record_tally"),
        ),
        migrations.AddIndex(
            model_name="recordtally", index=models.Index(fields=["deal", "autoplay", "bot", "moves", "count"], name="record_tally_sum")
        ),
        # The month's ladder: (month, bot, ...).
        migrations.RemoveIndex(model_name="ladderentry", name="ladder_board"),
        migrations.AddField(
            model_name="ladderentry", name="bot", field=bot_field("a bot's line: on the month's ladder of bots, not of people")
        ),
        migrations.AddIndex(
            model_name="ladderentry", index=models.Index(fields=["month", "bot", "-points", "-won", "player", "played"], name="ladder_board")
        ),
        migrations.RemoveConstraint(model_name="laddertally", name="one_ladder_tally"),
        migrations.RemoveIndex(model_name="laddertally", name="ladder_tally_sum"),
        migrations.AddField(model_name="laddertally", name="bot", field=bot_field()),
        migrations.AddConstraint(
            model_name="laddertally", constraint=models.UniqueConstraint(fields=("month", "bot", "points"), name="one_ladder_tally")
        ),
        migrations.AddIndex(
            model_name="laddertally", index=models.Index(fields=["month", "bot", "points", "count"], name="ladder_tally_sum")
        ),
        # Streaks: (bot, ...), one board for all time.
        migrations.RemoveIndex(model_name="streak", name="streak_alive"),
        migrations.RemoveIndex(model_name="streak", name="streak_longest"),
        migrations.AddField(model_name="streak", name="bot", field=bot_field("a bot's streak: on the bots' board, not the people's")),
        migrations.AddIndex(
            model_name="streak", index=models.Index(fields=["bot", "last_day", "-current", "-longest", "player"], name="streak_alive")
        ),
        migrations.AddIndex(model_name="streak", index=models.Index(fields=["bot", "-longest", "player", "last_day"], name="streak_longest")),
        migrations.RemoveConstraint(model_name="streaktally", name="one_streak_tally"),
        migrations.RemoveIndex(model_name="streaktally", name="streak_tally_sum"),
        migrations.AddField(model_name="streaktally", name="bot", field=bot_field()),
        migrations.AddConstraint(
            model_name="streaktally",
            constraint=models.UniqueConstraint(fields=("bot", "last_day", "current", "longest"), name="one_streak_tally"),
        ),
        migrations.AddIndex(
            model_name="streaktally",
            index=models.Index(fields=["bot", "last_day", "current", "longest", "count"], name="streak_tally_sum"),
        ),
        migrations.DeleteModel(name="LongestTally"),
        migrations.CreateModel(
            name="LongestTally",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("bot", models.BooleanField(default=False, db_default=False)),
                ("longest", models.PositiveIntegerField()),
                ("count", models.PositiveIntegerField(default=0)),
            ],
            options={"constraints": [models.UniqueConstraint(fields=("bot", "longest"), name="one_longest_tally")]},
        ),
        migrations.RunPython(count_longest, migrations.RunPython.noop),
    ]
