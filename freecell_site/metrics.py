"""The service's Prometheus metrics (docs/operations.md): each one defined once, here, with the
cheap calls the transports record them through.

Recording costs a lock and an addition in the process (no I/O, no query): `GET /metrics`
(freecell_site/scrape.py) reads them, with the figures that come from the database and the cache,
which are read at scrape time instead. Each server process keeps its own values and is scraped on its
own (one Daphne per replica), so no multi-process directory is needed. `METRICS_ENABLED=0` turns
every recording into a return (bench/metrics.py compares the two).
"""

from __future__ import annotations

import time
from contextlib import contextmanager

from django.conf import settings
from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics

# A `_created` sample beside each counter and histogram doubles what a scrape carries, for nothing the
# dashboard or alerts read.
disable_created_metrics()

# Seconds: a move takes a few ms when all is well; the tail is what the alerts watch.
_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

ACTIONS = Counter(
    "freecell_actions",
    "Moves and undos asked for, by how they came (via: web or api, transport: rest or ws), kind (move, undo) "
    "and outcome (ok, repeated: a resend answered from the stored action, or the refusal's error code)",
    ["via", "transport", "kind", "outcome"],
)
ACTION_SECONDS = Histogram(
    "freecell_action_seconds",
    "Time the service takes for one move or undo (the database transaction and its checks), by transport",
    ["transport"],
    buckets=_LATENCY_BUCKETS,
)
WS_ACK_SECONDS = Histogram(
    "freecell_ws_ack_seconds",
    "Time from a move or undo frame received on a socket to its ack sent (waiting for the socket's earlier actions included)",
    buckets=_LATENCY_BUCKETS,
)
OPEN_SOCKETS = Gauge("freecell_open_websockets", "Websockets open in this process, by kind (game, race, records)", ["kind"])
OPEN_STREAMS = Gauge("freecell_open_streams", "Held-open ndjson streams in this process, by kind (game, race, event)", ["kind"])
BUS_FAILURES = Counter(
    "freecell_channel_layer_failures",
    "Failed calls to the channel layer (Redis) in this process, by operation (publish, receive, group_add, probe, ...)",
    ["operation"],
)
RESYNCS = Counter(
    "freecell_resyncs",
    "Full states sent again to a client: after the channel layer was away (bus_back) or on a version gap (gap)",
    ["transport", "reason"],
)
THROTTLED = Counter(
    "freecell_throttle_refusals",
    "Requests, frames, actions and sockets refused by a limit, by the limit's kind",
    ["kind"],
)

# The operations a channel-layer failure is counted under: a bounded set (a group's name is not a label).
_BUS_OPERATIONS = ("publish", "receive", "new_channel", "group_add", "group_discard", "probe", "round trip", "stream join", "stream receive")


def enabled() -> bool:
    return settings.METRICS_ENABLED


def outcome_of(exc: BaseException | None, repeated: bool = False) -> str:
    """An action's outcome label: `ok`, `repeated`, or the spec's error code of its refusal (ServiceError
    and EngineError carry one); `database_unavailable` and `server_error` for the rest."""
    if exc is None:
        return "repeated" if repeated else "ok"
    code = getattr(exc, "code", None)
    if isinstance(code, str) and code.isidentifier():
        return code
    if type(exc).__name__ in ("OperationalError", "InterfaceError"):
        return "database_unavailable"
    return "server_error"


# Each label set's child, looked up once: `labels()` checks and locks on every call.
_children: dict[tuple, object] = {}


def _child(metric, *labels):
    key = (metric, *labels)
    child = _children.get(key)
    if child is None:
        child = _children[key] = metric.labels(*labels)
    return child


def _record(via: str, transport: str, kind: str, outcome: str, seconds: float) -> None:
    _child(ACTION_SECONDS, transport).observe(seconds)
    _child(ACTIONS, via, transport, kind, outcome).inc()


def _repeated(outcome) -> bool:
    """Whether an action was a resend: an Outcome's `repeated`, or a socket's result's."""
    found = outcome.get("repeated") if isinstance(outcome, dict) else getattr(outcome, "repeated", False)
    return bool(found)


class _Noted:
    was_repeated = False

    def repeated(self, outcome) -> None:
        self.was_repeated = _repeated(outcome)


@contextmanager
def action(*, via: str, transport: str, kind: str):
    """Counts and times the action played inside the block; its outcome is the exception that leaves the
    block, or the `repeated` flag of the outcome set with `.repeated(outcome)` on what this yields."""
    noted = _Noted()
    if not enabled():
        yield noted
        return
    started = time.perf_counter()
    try:
        yield noted
    except BaseException as exc:
        _record(via, transport, kind, outcome_of(exc), time.perf_counter() - started)
        raise
    _record(via, transport, kind, outcome_of(None, noted.was_repeated), time.perf_counter() - started)


def counted(act, *, via: str, transport: str, kind: str):
    """`act` (a move or undo taking keywords, returning an Outcome or a socket's result dict), counted and
    timed at each call: for the sockets, whose actions run in a database thread. (No context manager:
    this is on every socket move's path.)"""

    def call(**kwargs):
        if not enabled():
            return act(**kwargs)
        started = time.perf_counter()
        try:
            result = act(**kwargs)
        except BaseException as exc:
            _record(via, transport, kind, outcome_of(exc), time.perf_counter() - started)
            raise
        _record(via, transport, kind, "repeated" if _repeated(result) else "ok", time.perf_counter() - started)
        return result

    return call


def ack_sent(seconds: float) -> None:
    if enabled():
        WS_ACK_SECONDS.observe(seconds)


def opened(gauge: Gauge, kind: str) -> None:
    if enabled():
        _child(gauge, kind).inc()


def closed(gauge: Gauge, kind: str) -> None:
    if enabled():
        _child(gauge, kind).dec()


def bus_failed(what: str) -> None:
    """One failure of the channel layer, `what` as games.events names it ("publish to game.7",
    "channel layer receive", "channels-redis pub/sub")."""
    if not enabled():
        return
    words = what.removeprefix("channel layer ")
    operation = next((known for known in _BUS_OPERATIONS if words.startswith(known)), "connection")
    _child(BUS_FAILURES, operation).inc()


def resynced(transport: str, reason: str) -> None:
    if enabled():
        _child(RESYNCS, transport, reason).inc()


def throttled(kind: str) -> None:
    if enabled():
        _child(THROTTLED, kind.replace(" ", "_")).inc()  # "sockets opened_per_address": one word
