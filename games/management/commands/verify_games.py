"""`manage.py verify_games`: replays every stored game's history and reports snapshots that differ."""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from games.play.integrity import check_game
from games.play.models import Game


class Command(BaseCommand):
    help = "Replay every stored game through the engine; report any snapshot that differs from its history."

    def add_arguments(self, parser):
        parser.add_argument("--quiet", action="store_true", help="no progress bar")

    def handle(self, *args, quiet: bool, **options):
        games = Game.objects.select_related("deal").order_by("pk")
        total = games.count()
        problems = []
        for game in tqdm(games.iterator(chunk_size=500), total=total, disable=quiet, unit="game", file=self.stderr):
            problem = check_game(game)
            if problem:
                problems.append((game.pk, problem))
                self.stdout.write(f"game {game.pk}: {problem}")
        self.stdout.write(f"{total} games checked, {len(problems)} differ from their history")
        if problems:
            raise CommandError(f"{len(problems)} games differ from their history")
