"""`manage.py deal <deal>`: prints a deal's board text (Freecell Solver's format)."""

from django.core.management.base import BaseCommand, CommandError

from games.engine import Board, EngineError


class Command(BaseCommand):
    help = "Print the board text of a deal (ms:N or seed:S)."

    def add_arguments(self, parser):
        parser.add_argument("deal", help="ms:N (1 to 8589934591) or seed:S")

    def handle(self, *args, deal: str, **options):
        try:
            board = Board.from_deal(deal)
        except EngineError as exc:
            raise CommandError(f"{exc.code}: {exc}") from None
        self.stdout.write(board.to_text().rstrip("\n"))
