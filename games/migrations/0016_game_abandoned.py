"""A casual game left by Restart is `abandoned`: over, neither a win nor a loss."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0015_public_races_and_challenges"),
    ]

    operations = [
        migrations.AlterField(
            model_name="game",
            name="status",
            field=models.CharField(
                choices=[("playing", "Playing"), ("won", "Won"), ("resigned", "Resigned"), ("abandoned", "Abandoned")],
                default="playing",
                max_length=9,
            ),
        ),
    ]
