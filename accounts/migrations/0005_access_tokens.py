"""Named, scoped personal access tokens stored hashed; every API token of DRF's authtoken table becomes one
with every scope (its holder's key keeps working), and that table's plain keys are deleted."""

import datetime as dt
import hashlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone
from django.utils.dateparse import parse_datetime


#: The table of rest_framework.authtoken, which the project used before and no longer installs.
OLD_TABLE = "authtoken_token"
OLD_TOKEN_NAME = "API token"
ALL_SCOPES = ["read", "play", "race", "account"]


def convert_old_tokens(apps, schema_editor):
    """Each row of OLD_TABLE, if the table is there, becomes an AccessToken of every scope keyed by the
    SHA-256 of its key (accounts.tokens.digest, written out here as a migration is frozen); the rows are
    then deleted, so no key is left in the database in plain text."""
    connection = schema_editor.connection
    if OLD_TABLE not in connection.introspection.table_names():
        return
    AccessToken = apps.get_model("accounts", "AccessToken")
    table = schema_editor.quote_name(OLD_TABLE)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {schema_editor.quote_name('key')}, user_id, created FROM {table}")
        rows = cursor.fetchall()
    for key, user_id, created in rows:
        token = AccessToken.objects.create(
            user_id=user_id,
            name=OLD_TOKEN_NAME,
            scopes=ALL_SCOPES,
            key_digest=hashlib.sha256(key.encode("ascii")).hexdigest(),
            prefix=key[:8],
        )
        if isinstance(created, str):  # SQLite may answer the text it stores
            created = parse_datetime(created)
        if created is not None and timezone.is_naive(created):  # stored in UTC where the column has no zone
            created = timezone.make_aware(created, dt.timezone.utc)
        AccessToken.objects.filter(pk=token.pk).update(created_at=created or timezone.now())  # auto_now_add set it
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table}")


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0004_table_settings'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='AccessToken',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=60)),
                ('scopes', models.JSONField(default=list)),
                ('key_digest', models.CharField(help_text='SHA-256 of the key, in hex', max_length=64, unique=True)),
                ('prefix', models.CharField(blank=True, max_length=12)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('last_used_at', models.DateTimeField(blank=True, null=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='access_tokens', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [models.Index(fields=['user', 'created_at'], name='access_token_user_created')],
            },
        ),
        # Not reversible in full: the old table's keys are gone (only their digests are kept).
        migrations.RunPython(convert_old_tokens, migrations.RunPython.noop),
    ]
