"""GET /healthz: the state of the database and the channel layer, 200 when both answer, else 503."""

from __future__ import annotations

import time

from channels.layers import get_channel_layer
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from freecell_site import server_loop
from games import events

CHECK_TIMEOUT = 2.0


def check_database() -> dict:
    started = time.perf_counter()
    try:
        pool = getattr(connection, "pool", None)  # PostgreSQL's connection pool (DB_POOL_SIZE)
        if pool is not None and connection.connection is None:
            # A request waits up to the pool's timeout (10 s) for a connection; a health check must
            # answer "down" before the balancer's own check gives up (compose: 5 s).
            pool.open()
            raw = pool.getconn(timeout=CHECK_TIMEOUT)
            try:
                raw.execute("SELECT 1").fetchone()
            finally:
                pool.putconn(raw)
        else:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                cursor.fetchone()
    except Exception as exc:  # any failure means "down"; the message says which
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"ok": True, "vendor": connection.vendor, "ms": round((time.perf_counter() - started) * 1000, 2)}


def check_channel_layer() -> dict:
    layer = get_channel_layer()
    name = type(layer).__name__
    started = time.perf_counter()

    try:
        server_loop.call(events.round_trip, layer, CHECK_TIMEOUT, timeout=CHECK_TIMEOUT + 1)
    except Exception as exc:
        return {"ok": False, "backend": name, "error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"ok": True, "backend": name, "ms": round((time.perf_counter() - started) * 1000, 2)}


@never_cache
@require_GET
def healthz(request):
    checks = {"database": check_database(), "channel_layer": check_channel_layer()}
    healthy = all(check["ok"] for check in checks.values())
    return JsonResponse({"status": "ok" if healthy else "down", **checks}, status=200 if healthy else 503)
