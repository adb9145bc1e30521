"""A deal record's unique key leads with its player (player, deal, autoplay): a player's own line is read
by it, and a plan PostgreSQL makes once for every deal must prefer it to the ranking index, which leads
with the deal (games.boards.models.DealRecord)."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0018_record_span_tally'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='dealrecord',
            name='one_record_per_player',
        ),
        migrations.AddConstraint(
            model_name='dealrecord',
            constraint=models.UniqueConstraint(fields=('player', 'deal', 'autoplay'), name='one_record_per_player'),
        ),
    ]
