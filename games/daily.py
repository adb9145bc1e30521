"""Daily challenges: one solvable deal per UTC date, its seed derived from a server secret."""

from __future__ import annotations

import datetime as dt

from freecell_site.errors import ServiceError
from games.models import DailyChallenge


def today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def get_daily(date: dt.date) -> DailyChallenge:
    """The daily of `date`; refuses a day that has not begun (UTC)."""
    if date > today():
        raise ServiceError("not_found", f"the daily of {date.isoformat()} has not begun", status=404)
    found = DailyChallenge.objects.select_related("deal").filter(date=date).first()
    if found is None:
        raise ServiceError("not_found", f"there is no daily for {date.isoformat()}", status=404)
    return found
