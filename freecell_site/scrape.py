"""GET /metrics (docs/operations.md): this process's metrics in Prometheus' text format, to METRICS_ALLOW_IPS only,
with the figures read at scrape time: the database pool, and from the database and the cache the
sweeper's lag and lease, the dailies made ahead and the fair-play review queue (docs/operations.md).

Answered by the first middleware, before Django checks the Host header: Prometheus scrapes each
replica at its own address (`172.29.0.5:8000`), which no ALLOWED_HOSTS names, and cannot be told to
send another Host; nor is it redirected to HTTPS. The address check is what guards it."""

from __future__ import annotations

import datetime as dt
import ipaddress
import logging

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import Min
from django.http import HttpResponse, JsonResponse
from django.utils import timezone
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4, REGISTRY, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from freecell_site.errors import error_body
from freecell_site.forwarded import parse_networks

logger = logging.getLogger(__name__)


class StateCollector(Collector):
    """Gauges read when Prometheus asks, not kept up to date per action: a few indexed queries and one
    cache read a scrape. Each replica reports the same database figures: alert on their max()."""

    def collect(self):
        yield from self._pool()
        for read in (self._review_queue, self._dailies, self._sweeper_lag, self._sweeper_lease, self._database):
            try:
                yield from read()
            except Exception as exc:  # a figure that cannot be read is missing, and the scrape goes on
                logger.warning("metrics: %s failed: %s: %s", read.__name__.strip("_"), type(exc).__name__, exc)

    def _pool(self):
        pool = getattr(connection, "pool", None)  # psycopg's pool (DB_POOL_SIZE), PostgreSQL only
        if pool is None:
            return
        stats = pool.get_stats()
        size, available = stats.get("pool_size", 0), stats.get("pool_available", 0)
        yield GaugeMetricFamily("freecell_db_pool_in_use", "Database connections of this process's pool lent out now", value=size - available)
        yield GaugeMetricFamily("freecell_db_pool_max", "The most connections this process's pool opens (DB_POOL_SIZE)", value=pool.max_size)
        yield GaugeMetricFamily("freecell_db_pool_waiting", "Requests waiting for a connection of the pool now", value=stats.get("requests_waiting", 0))

    def _review_queue(self):
        from games.fairplay.models import ReviewCase

        queue = ReviewCase.objects.filter(decided_at__isnull=True)
        yield GaugeMetricFamily("freecell_review_queue", "Fair-play review cases open (the moderators' queue)", value=queue.count())
        oldest = queue.aggregate(oldest=Min("opened_at"))["oldest"]
        age = (timezone.now() - oldest).total_seconds() if oldest else 0.0
        yield GaugeMetricFamily("freecell_review_queue_oldest_seconds", "Age of the oldest open review case (0: none open)", value=age)

    def _dailies(self):
        from games.daily.models import DailyChallenge
        from games.daily.services import today

        day = today()
        made = DailyChallenge.objects.filter(date__gte=day)
        yield GaugeMetricFamily("freecell_dailies_ahead", "Dailies made for the days after today (the dailies job makes 7)", value=made.filter(date__gt=day).count())
        yield GaugeMetricFamily("freecell_daily_today_made", "1 when today's daily is made", value=int(made.filter(date=day).exists()))

    def _sweeper_lag(self):
        """How late the oldest thing that time has decided and the sweeper has not yet stored is: a race
        whose countdown is over, or one past its time limit (0 when nothing is due)."""
        from games.races.models import Race

        now = timezone.now()
        oldest = Race.objects.filter(status=Race.Status.COUNTDOWN, starts_at__lte=now).aggregate(at=Min("starts_at"))["at"]
        running = Race.objects.filter(status=Race.Status.RUNNING).order_by("starts_at").values_list("starts_at", "time_limit_s")[:1000]
        for starts_at, limit in running:
            ends = starts_at + dt.timedelta(seconds=limit)
            if ends <= now and (oldest is None or ends < oldest):
                oldest = ends
        lag = (now - oldest).total_seconds() if oldest is not None else 0.0
        yield GaugeMetricFamily("freecell_sweeper_lag_seconds", "How long the oldest due race transition has waited for the sweeper", value=lag)

    def _sweeper_lease(self):
        from games.sweeper import LEASE_KEY

        holder = cache.get(LEASE_KEY)
        family = GaugeMetricFamily("freecell_sweeper_lease", "1 for the process that holds the sweeper's lease (none: no sweeper ran in the last seconds)", labels=["holder"])
        if holder:
            family.add_metric([str(holder)[:100]], 1)
        yield family
        yield GaugeMetricFamily("freecell_sweeper_lease_held", "1 when some process holds the sweeper's lease", value=int(bool(holder)))

    def _database(self):
        if connection.vendor != "postgresql":
            return
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_database_size(current_database()), (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'),"
                " current_setting('max_connections')::int"
            )
            size, connections, most = cursor.fetchone()
        yield GaugeMetricFamily("freecell_database_bytes", "Size of the PostgreSQL database on disk", value=size)
        yield GaugeMetricFamily("freecell_database_connections", "Client connections PostgreSQL has open, from every process", value=connections)
        yield GaugeMetricFamily("freecell_database_max_connections", "PostgreSQL's max_connections", value=most)


_registered: list[Collector] = []


def register() -> None:
    """Adds the state collector to the default registry once per process."""
    if not _registered:
        _registered.append(StateCollector())
        REGISTRY.register(_registered[0])


def _allowed(address: str) -> bool:
    try:
        client = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(client, ipaddress.IPv6Address) and client.ipv4_mapped is not None:
        client = client.ipv4_mapped
    return any(client in network for network in _networks())


_parsed: dict[tuple[str, ...], tuple] = {}


def _networks() -> tuple:
    raw = tuple(settings.METRICS_ALLOW_IPS)
    if raw not in _parsed:  # parsed once per value (tests override the setting)
        _parsed[raw] = parse_networks(raw, "METRICS_ALLOW_IPS")
    return _parsed[raw]


def metrics(request):
    if request.method not in ("GET", "HEAD"):
        return JsonResponse(error_body("method_not_allowed", f"{request.method} is not allowed here: GET /metrics"), status=405)
    if not settings.METRICS_ENABLED:
        return JsonResponse(error_body("not_found", "metrics are turned off on this server (METRICS_ENABLED=0)"), status=404)
    if not _allowed(request.META.get("REMOTE_ADDR", "")):
        return JsonResponse(error_body("forbidden", "metrics are answered only to the addresses in METRICS_ALLOW_IPS"), status=403)
    register()
    response = HttpResponse(generate_latest(REGISTRY), content_type=CONTENT_TYPE_PLAIN_0_0_4)  # the text format every Prometheus reads
    response["Cache-Control"] = "no-store"
    return response


class MetricsMiddleware:
    """Answers `/metrics` itself, first of all the middleware (see the module docstring)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info == "/metrics":
            return metrics(request)
        return self.get_response(request)
