"""Make dailies ahead (`--ensure --days 7`), list them, or rebuild a day's leaderboard tallies."""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import logging
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from freecell_site.errors import ServiceError
from games.daily import leaderboard
from games.daily import services as daily
from games.daily.models import DailyChallenge
from games.engine import parse_day
from games.engine.solver_cli import positive_seconds

#: The most days one --ensure makes.
MAX_DAYS = 366


def _date(text: str) -> dt.date:
    """An argparse type: argparse turns its ArgumentTypeError into a usage error (a CommandError
    raised here would escape the parser as a traceback)."""
    try:
        return parse_day(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date: write YYYY-MM-DD") from None


def _par_budget(text: str) -> float:
    return positive_seconds(text, most=3600)


@contextlib.contextmanager
def _quiet(logger: logging.Logger):
    """Keep `logger` to warnings and errors for the block."""
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


class Command(BaseCommand):
    help = (
        "Daily challenges. --ensure makes the dailies of today and the following days (--days N, "
        "default 7 in all) that are missing, proving each deal solvable and finding its par with the "
        "solver; run it from cron so no player ever waits for the solver. --list shows the stored "
        "dailies; --rebuild DATE recomputes a day's leaderboard from its games."
    )

    def add_arguments(self, parser):
        parser.add_argument("--ensure", action="store_true", help="make missing dailies from today on")
        parser.add_argument("--days", type=int, default=7, help="how many days from today to ensure (default 7)")
        parser.add_argument("--date", type=_date, help="ensure only this date (YYYY-MM-DD)")
        parser.add_argument(
            "--par-budget",
            type=_par_budget,
            metavar="SECONDS",
            help="seconds of par search per seed (default DAILY_PAR_BUDGET); made ahead, no player waits, "
            "so a longer search may find a shorter par",
        )
        parser.add_argument("--list", action="store_true", help="list stored dailies, newest first")
        parser.add_argument("--rebuild", type=_date, metavar="DATE", help="recompute DATE's results and tallies")

    def handle(self, *args, ensure=False, days=7, date=None, list=False, rebuild=None, par_budget=None, **options):  # noqa: A002
        if not (ensure or list or rebuild):
            raise CommandError("say what to do: --ensure [--days N | --date D], --list or --rebuild DATE")
        if ensure:
            if not 1 <= days <= MAX_DAYS:  # each day costs the solver's budget: a typo must not cost weeks
                raise CommandError(f"--days must be from 1 to {MAX_DAYS}")
            first = daily.today()
            dates = [date] if date else [first + dt.timedelta(days=i) for i in range(days)]
            # The service logs each daily it makes at INFO, the line this command prints: shown twice.
            # Its INFO lines (the seeds it skipped too) come back with -v 2.
            quiet = _quiet(daily.logger) if options.get("verbosity", 1) < 2 else contextlib.nullcontext()
            with quiet:
                for day in dates:
                    self._ensure(day, par_budget)
        if rebuild:
            if not DailyChallenge.objects.filter(date=rebuild).exists():
                raise CommandError(f"there is no daily for {rebuild.isoformat()}")
            n = leaderboard.rebuild(rebuild)
            self.stdout.write(f"daily:{rebuild.isoformat()}: {n} ranked results, tallies rebuilt")
        if list:
            # The deal id is for the operator (to solve or check it with `solve`); players never see it.
            for row in DailyChallenge.objects.order_by("-date")[:60]:
                self.stdout.write(
                    f"daily:{row.date.isoformat()}  deal {row.deal_id}  par {row.par}  seed index {row.seed_index}  players {row.players}"
                )

    def _ensure(self, day: dt.date, par_budget: float | None) -> None:
        existing = DailyChallenge.objects.filter(date=day).first()
        if existing is not None:
            self.stdout.write(f"daily:{day.isoformat()} exists (par {existing.par})")
            return
        started = time.monotonic()
        budget = settings.DAILY_PAR_BUDGET if par_budget is None else par_budget
        try:
            # Another maker (a request, a second run) may hold the day's lock: wait for its row rather
            # than give up after a request's 2 s.
            made = daily.ensure_daily(day, budget=budget, wait=budget + settings.DAILY_SOLVE_BUDGET + 30)
        except ServiceError as error:
            raise CommandError(f"daily:{day.isoformat()}: {error.message}") from None
        if not getattr(made, "made_now", False):
            self.stdout.write(f"daily:{day.isoformat()} exists (par {made.par}): made meanwhile by another process")
            return
        self.stdout.write(
            self.style.SUCCESS(
                f"daily:{day.isoformat()} made: par {made.par}, seed index {made.seed_index} "
                f"({time.monotonic() - started:.1f} s)"
            )
        )
