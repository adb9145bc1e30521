"""`manage.py solve <deal>|<range>`: the solver from the command line (see games/engine/solver_cli.py)."""

import sys

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Solve a deal (ms:1) or a range (ms:1-1000): prints the line, or a summary table for a range."

    def add_arguments(self, parser):
        parser.add_argument("args", nargs="+", help="a deal or range, then the solver's options (--autoplay, --par, --budget, --json, --jobs)")

    def run_from_argv(self, argv):
        # The solver's own argument parser owns the options, so `--help` and exit codes are its own.
        from games.engine.solver_cli import run

        sys.exit(run(argv[2:]))

    def handle(self, *args, **options):  # pragma: no cover - run_from_argv handles everything
        from games.engine.solver_cli import main

        return str(main(list(args)) or "")
