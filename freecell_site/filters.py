"""Query parameters of the API's lists: the filters each list names, their dates, and 400 `bad_filter` for any other."""

from __future__ import annotations

import datetime as dt

from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError

from freecell_site.errors import ServiceError

#: What every list takes besides its filters: paging, and DRF's format override.
ALWAYS = ("page", "page_size", "format")


# For a list view (before APIView in its bases): a query parameter that is neither paging nor one of the
# view's `filter_params` is refused with 400 `bad_filter`, rather than silently ignored (a client that
# misspells `status` would otherwise take the whole list for the filtered one). Checked after sign-in and
# permissions, so a 401 still comes first. A comment, not a docstring: drf-spectacular publishes the
# docstring a view inherits as the operation's description.
class FilteredList:
    filter_params: tuple[str, ...] = ()

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.method not in ("GET", "HEAD"):
            return  # a list view's POST (create) reads its body, not the query
        unknown = sorted(set(request.query_params) - {*ALWAYS, *self.filter_params})
        # `?scope=` names a filter and gives it nothing: refused, not read as the filter's default
        # (a client that builds the query from an empty field would take the whole list for its choice).
        empty = sorted(name for name, values in request.query_params.lists() if name not in unknown and "" in values)
        if empty:
            raise ValidationError({name: [f"{name} is given empty: give it a value or leave it out"] for name in empty})
        if unknown:
            takes = ", ".join((*self.filter_params, *ALWAYS))
            raise ServiceError(
                "bad_filter",
                f"unknown query parameter{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}: this list takes {takes}",
                extra={"fields": {name: ["not a filter of this list"] for name in unknown}},
            )


def moment(request, name: str, *, until: bool = False) -> dt.datetime | None:
    """The query parameter `name` as an instant: an ISO datetime (UTC when it names no zone), or an ISO
    date, which stands for its whole day (UTC): `since=2026-12-01` from its start, `until=2026-12-01`
    to its end. None when absent; 400 `invalid_request` when it is neither (given empty too)."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    day = _date(raw)
    if day is not None:
        start = dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)
        return start + dt.timedelta(days=1) if until else start
    try:
        found = parse_datetime(raw) if len(raw) <= 40 else None
    except ValueError:
        found = None
    if found is None:
        raise ValidationError({name: [f"{name} must be an ISO date (2026-12-01) or datetime (2026-12-01T18:30:00Z)"]})
    return found if found.tzinfo is not None else found.replace(tzinfo=dt.UTC)


def day(request, name: str) -> dt.date | None:
    """The query parameter `name` as a date (YYYY-MM-DD); None when absent; 400 `invalid_request` else."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    found = _date(raw)
    if found is None:
        raise ValidationError({name: [f"{name} must be a date written YYYY-MM-DD"]})
    return found


def _date(raw: str) -> dt.date | None:
    if len(raw) != 10 or not raw.isascii():
        return None
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        return None


def choice(request, name: str, choices: tuple[str, ...], default: str) -> str:
    """The query parameter `name`, one of `choices` (`default` when absent); 400 `invalid_request` else."""
    raw = request.query_params.get(name, default)
    if raw not in choices:
        raise ValidationError({name: [f"{name} must be one of: {', '.join(choices)}"]})
    return raw


#: The schema of the instants a list is filtered by.
SINCE_UNTIL = [
    OpenApiParameter(
        "since", OpenApiTypes.STR,
        description="only entries from this instant on: an ISO datetime (UTC unless it names a zone), or a date for "
        "its whole day (UTC)",
    ),
    OpenApiParameter(
        "until", OpenApiTypes.STR,
        description="only entries before this instant: an ISO datetime, or a date, which includes that whole day (UTC)",
    ),
]
ORDER = OpenApiParameter(
    "order", OpenApiTypes.STR, enum=["newest", "oldest"], description="newest first (the default) or oldest first"
)
