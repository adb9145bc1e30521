"""`manage.py deal <deal>`: prints a deal's board text (Freecell Solver's format), a daily's too."""

from django.core.management.base import BaseCommand, CommandError

from freecell_site.errors import ServiceError
from games.daily.models import DailyChallenge
from games.daily.services import parse_date
from games.engine import Board, EngineError
from games.play.services import board_of_deal


class Command(BaseCommand):
    help = "Print the board text of a deal (ms:N, seed:S, or daily:YYYY-MM-DD once that daily is made)."

    def add_arguments(self, parser):
        parser.add_argument("deal", help="ms:N (1 to 8589934591), seed:S or daily:YYYY-MM-DD")

    def handle(self, *args, deal: str, **options):
        if deal.strip().lower().startswith("daily:"):
            board = self._daily_board(deal.strip()[6:])
        else:
            try:
                board = Board.from_deal(deal)
            except EngineError as exc:
                raise CommandError(f"{exc.code}: {exc}") from None
        self.stdout.write(board.to_text().rstrip("\n"))

    def _daily_board(self, date: str) -> Board:
        """The deal of a daily already made: it comes from the service's secret, not from the date."""
        try:
            day = parse_date(date)
        except ServiceError as exc:
            raise CommandError(f"invalid_deal: {exc.message}") from None
        made = DailyChallenge.objects.filter(date=day).first()
        if made is None:
            raise CommandError(
                f"not_found: there is no daily for {day.isoformat()} yet: manage.py daily --ensure --date {day.isoformat()} makes it"
            )
        return board_of_deal(made.deal)
