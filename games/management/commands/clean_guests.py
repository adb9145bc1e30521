"""`manage.py clean_guests`: deletes guest accounts left idle, with their games (games/guests.py)."""

import argparse

from django.core.management.base import BaseCommand

from accounts.guests import GUEST_DAYS
from games.guests import CLEAN_BATCH, clean_guests


def _days(text: str) -> int:
    """An argparse type: a whole number of days, 1 or more (argparse makes its error a usage error)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days: give 1 or more")
    return int(text)


class Command(BaseCommand):
    help = (
        f"Deletes guest accounts (accounts/guests.py) that joined more than --days days ago (default {GUEST_DAYS}) "
        "and whose games have not moved since, with their games, in batches until none is left. A guest's games "
        "are kept for that browser only while the guest plays; sign-up keeps them for good."
    )

    def add_arguments(self, parser):
        parser.add_argument("--days", type=_days, default=GUEST_DAYS, help=f"idle days before a guest goes (default {GUEST_DAYS})")

    def handle(self, *args, days: int, **options):
        total = 0
        while True:
            deleted = clean_guests(days)
            total += deleted
            if deleted < CLEAN_BATCH:
                break
        self.stdout.write(f"{total} idle guest{'' if total == 1 else 's'} deleted")
