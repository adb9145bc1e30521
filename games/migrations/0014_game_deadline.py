"""A game carries its deadline (a race's time limit), so an action checks it with no read of the race."""

import datetime as dt

from django.db import migrations, models


def running_races_deadlines(apps, schema_editor):
    """Games of races running now get their race's time limit as their deadline."""
    RaceEntry = apps.get_model("games", "RaceEntry")
    Game = apps.get_model("games", "Game")
    entries = RaceEntry.objects.filter(game__isnull=False, game__status="playing", race__starts_at__isnull=False).select_related("race")
    for entry in entries.iterator():
        deadline = entry.race.starts_at + dt.timedelta(seconds=entry.race.time_limit_s)
        Game.objects.filter(pk=entry.game_id).update(deadline=deadline)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_bots_on_boards"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="deadline",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(condition=models.Q(("deadline__isnull", False), ("status", "playing")), fields=["deadline"], name="game_deadline_due"),
        ),
        migrations.RunPython(running_races_deadlines, migrations.RunPython.noop),
    ]
