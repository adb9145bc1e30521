"""`manage.py rebuild_boards`: builds the deal records, the ladder and streaks again from the stored games."""

from django.core.management.base import BaseCommand

from games.boards import services


class Command(BaseCommand):
    help = (
        "Builds every board (deal records, the month's ladders, streaks) again from the stored won games and "
        "ranked results, through the same steps as the live updates: the backfill after migration 0011, or a "
        "manual fix. Safe to run again; a win while it runs is counted once (every step is idempotent)."
    )

    def handle(self, *args, **options):
        counts = services.rebuild()
        self.stdout.write(", ".join(f"{n} {name.replace('_', ' ')}" for name, n in counts.items()))
