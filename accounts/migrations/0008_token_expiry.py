"""An end to a token: the tokens apps get through OAuth (accounts/oauth.py) expire; the others hold until revoked."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_bots_and_marks"),
    ]

    operations = [
        migrations.AddField(
            model_name="accesstoken",
            name="expires_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
