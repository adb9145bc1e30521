"""A casual game's own clock: play time counted, and the current stretch's start and lease (games.play.services)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0008_action_dated_by_its_service'),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='clock_from',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='game',
            name='clock_ms',
            field=models.PositiveBigIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='game',
            name='clock_until',
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
