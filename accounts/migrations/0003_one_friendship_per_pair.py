"""One friendship row per pair of players, whichever of them asked.

Two friend requests crossing each other (each player asking the other at the same moment) were both
stored, as the pair's rows were unique only in one direction: both players then saw the other's
request as incoming and outgoing, and two acceptances made them friends twice. The rows such a
crossing left are merged first: one row stays, accepted if either was (both asked, so a crossing pair
of pending requests becomes a friendship), the older one kept.
"""

import django.db.models.functions.comparison
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone


def merge_crossed_requests(apps, schema_editor):
    Friendship = apps.get_model("accounts", "Friendship")
    seen = {}
    for row in Friendship.objects.order_by("created_at", "pk"):
        pair = (min(row.from_user_id, row.to_user_id), max(row.from_user_id, row.to_user_id))
        kept = seen.get(pair)
        if kept is None:
            seen[pair] = row
            continue
        if kept.status != "accepted":
            kept.status = "accepted"
            kept.accepted_at = row.accepted_at or timezone.now()
            kept.save(update_fields=["status", "accepted_at"])
        row.delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_username_unique_in_any_case"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(merge_crossed_requests, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="friendship", name="one_request_per_pair"),
        migrations.AddConstraint(
            model_name="friendship",
            constraint=models.UniqueConstraint(
                django.db.models.functions.comparison.Least("from_user", "to_user"),
                django.db.models.functions.comparison.Greatest("from_user", "to_user"),
                name="one_friendship_per_pair",
            ),
        ),
    ]
