"""`manage.py sweep`: applies what time decides (games' deadlines, races' countdowns and ghosts, dailies' midnight)."""

import asyncio

from django.core.management.base import BaseCommand

from games import sweeper


class Command(BaseCommand):
    help = "Apply due race transitions and end ranked games left playing after their day (once, or --loop)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--loop",
            action="store_true",
            help="keep sweeping every SWEEP_EVERY_S seconds (under the lease), and make today's and tomorrow's dailies when missing",
        )

    def handle(self, *args, loop: bool, **options):
        if loop:
            asyncio.run(sweeper.run_forever())
            return
        done = sweeper.sweep()
        self.stdout.write(f"ended {done['games']} games past their deadline, advanced {done['races']} races, ended {done['daily_games']} daily games past their day")
