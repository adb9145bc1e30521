"""The table's look a player chose (card style, table colour), kept with their profile."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0003_one_friendship_per_pair'),
    ]

    operations = [
        migrations.AddField(
            model_name='profile',
            name='settings',
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
