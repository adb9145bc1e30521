"""`manage.py verify <deal> "<moves>"`: replays a line and says whether it is valid and won."""

from django.core.management.base import BaseCommand, CommandError

from games.engine import Board, EngineError, verify


class Command(BaseCommand):
    help = "Replay a line of moves on a deal; report valid/won, or the first bad move."

    def add_arguments(self, parser):
        parser.add_argument("deal", help="ms:N or seed:S")
        parser.add_argument("moves", help="moves separated by white space, e.g. \"3a 1h 57\"")
        parser.add_argument("--autoplay", choices=["none", "safe"], default="none")

    def handle(self, *args, deal: str, moves: str, autoplay: str, **options):
        try:
            board = Board.from_deal(deal)
        except EngineError as exc:
            raise CommandError(f"{exc.code}: {exc}") from None
        result = verify(board, moves, autoplay=autoplay)
        if result.error:
            error = result.error
            raise CommandError(
                f"invalid: move {error['index']} ({error['move']!r}) is refused: {error['code']}: {error['message']}"
            )
        verdict = "valid and won" if result.won else "valid, not won"
        self.stdout.write(f"{verdict}: {result.moves} moves replayed on {deal}")
