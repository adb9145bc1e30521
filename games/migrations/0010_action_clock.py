"""The game's clock at each action, for replays and ghosts of casual games (their play time)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0009_casual_game_clock'),
    ]

    operations = [
        migrations.AddField(
            model_name='action',
            name='clock_ms',
            field=models.PositiveBigIntegerField(blank=True, null=True),
        ),
    ]
