"""GET /metrics (docs/operations.md): who may read it, and that the transports record what docs/operations.md says."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from django.core.cache import cache
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from freecell_site import metrics
from games import events
from tests.support.daily import make_test_daily
from tests.support.sockets import new_game, next_of, open_socket, run

ROOT = Path(__file__).resolve().parent.parent


def sample(name: str, **labels) -> float:
    """A sample of this process's registry (0 when it has none yet)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def scraped(client, **extra) -> dict[str, list]:
    """GET /metrics parsed: each family's samples, by the family's name."""
    response = client.get("/metrics", **extra)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return {family.name: family.samples for family in text_string_to_metric_families(response.content.decode())}


def value(families: dict, family: str, name: str | None = None, **labels) -> float | None:
    for found in families.get(family, []):
        if found.name == (name or family) and all(found.labels.get(k) == v for k, v in labels.items()):
            return found.value
    return None


# --- who may read it ---------------------------------------------------------------------------


@pytest.mark.django_db
class TestWhoMayRead:
    def test_loopback_reads_it_by_default_in_prometheus_text(self, client):
        families = scraped(client)
        assert "freecell_sweeper_lease_held" in families and "process_cpu_seconds" in families

    def test_another_address_is_refused_403_in_the_spec_shape(self, client):
        response = client.get("/metrics", REMOTE_ADDR="203.0.113.9")
        assert response.status_code == 403
        assert response.json() == {"error": {"code": "forbidden", "message": "metrics are answered only to the addresses in METRICS_ALLOW_IPS"}}
        assert "`" + json.dumps(response.json()) + "`" in (ROOT / "docs" / "operations.md").read_text().replace("\n", " ")  # the docs' example

    def test_the_allowed_networks_come_from_the_setting(self, client, settings):
        settings.METRICS_ALLOW_IPS = ["172.29.0.0/24"]
        assert client.get("/metrics", REMOTE_ADDR="172.29.0.9").status_code == 200
        assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 403
        assert client.get("/metrics", REMOTE_ADDR="::ffff:172.29.0.9").status_code == 200  # a dual-stack listener's form

    def test_a_replica_is_scraped_at_its_own_address_whatever_allowed_hosts_and_https_say(self, client, settings):
        """Prometheus sends `Host: 172.29.0.5:8000` over plain HTTP; Django would answer 400 (not in
        ALLOWED_HOSTS) or redirect to HTTPS before any view."""
        settings.SECURE_SSL_REDIRECT = True
        settings.ALLOWED_HOSTS = ["freecell.example"]
        assert client.get("/metrics", HTTP_HOST="172.29.0.5:8000").status_code == 200
        assert client.get("/api/ping/", HTTP_HOST="172.29.0.5:8000").status_code == 400  # everything else still checks

    def test_only_get_reads_it(self, client):
        response = client.post("/metrics")
        assert response.status_code == 405 and response.json()["error"]["code"] == "method_not_allowed"

    def test_turned_off_it_is_404_and_nothing_is_recorded(self, client, settings, alice_client, alice):
        settings.METRICS_ENABLED = False
        assert client.get("/metrics").status_code == 404
        game = new_game(alice)
        before = sample("freecell_actions_total", via="api", transport="rest", kind="move", outcome="ok")
        assert alice_client.post(f"/api/games/{game.pk}/moves/", {"move": "5a", "ply": 0}, format="json").status_code == 200
        assert sample("freecell_actions_total", via="api", transport="rest", kind="move", outcome="ok") == before


# --- what the transports record --------------------------------------------------------------------


@pytest.mark.django_db
class TestActionsOverRest:
    def test_a_move_an_undo_and_a_refusal_are_counted_by_outcome_and_timed(self, alice_client, alice):
        game = new_game(alice)
        labels = {"via": "api", "transport": "rest"}
        ok = sample("freecell_actions_total", **labels, kind="move", outcome="ok")
        undone = sample("freecell_actions_total", **labels, kind="undo", outcome="ok")
        illegal = sample("freecell_actions_total", **labels, kind="move", outcome="illegal_move")
        conflict = sample("freecell_actions_total", **labels, kind="move", outcome="ply_conflict")
        repeated = sample("freecell_actions_total", **labels, kind="move", outcome="repeated")
        timed = sample("freecell_action_seconds_count", transport="rest")
        moves = f"/api/games/{game.pk}/moves/"
        assert alice_client.post(moves, {"move": "5a", "ply": 0, "client_id": "m1"}, format="json").status_code == 200
        assert alice_client.post(moves, {"move": "5a", "ply": 0, "client_id": "m1"}, format="json").status_code == 200  # a resend
        assert alice_client.post(moves, {"move": "1h", "ply": 1}, format="json").status_code == 422
        assert alice_client.post(moves, {"move": "5b", "ply": 0}, format="json").status_code == 409
        assert alice_client.post(f"/api/games/{game.pk}/undo/", {"ply": 1}, format="json").status_code == 200
        assert sample("freecell_actions_total", **labels, kind="move", outcome="ok") == ok + 1
        assert sample("freecell_actions_total", **labels, kind="move", outcome="repeated") == repeated + 1
        assert sample("freecell_actions_total", **labels, kind="move", outcome="illegal_move") == illegal + 1
        assert sample("freecell_actions_total", **labels, kind="move", outcome="ply_conflict") == conflict + 1
        assert sample("freecell_actions_total", **labels, kind="undo", outcome="ok") == undone + 1
        assert sample("freecell_action_seconds_count", transport="rest") == timed + 5

    def test_the_scrape_shows_them(self, client, alice_client, alice):
        game = new_game(alice)
        assert alice_client.post(f"/api/games/{game.pk}/moves/", {"move": "5a", "ply": 0}, format="json").status_code == 200
        families = scraped(client)
        assert value(families, "freecell_actions", "freecell_actions_total", via="api", kind="move", outcome="ok") >= 1
        assert value(families, "freecell_action_seconds", "freecell_action_seconds_count", transport="rest") >= 1


@pytest.fixture
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_in_memory_layer")
def test_a_socket_counts_itself_open_and_its_moves_with_their_ack_time(alice, alice_token):
    game = new_game(alice)
    acks = sample("freecell_ws_ack_seconds_count")
    moves = sample("freecell_actions_total", via="api", transport="ws", kind="move", outcome="ok")
    illegal = sample("freecell_actions_total", via="api", transport="ws", kind="move", outcome="illegal_move")
    open_before = sample("freecell_open_websockets", kind="game")

    async def scenario():
        socket = await open_socket(f"/ws/games/{game.pk}/", token=alice_token)
        await next_of(socket, "auth_ok")
        assert sample("freecell_open_websockets", kind="game") == open_before + 1
        await socket.send_json_to({"type": "move", "move": "5a", "ply": 0})
        await next_of(socket, "ack")
        await socket.send_json_to({"type": "move", "move": "1h", "ply": 1})
        assert (await next_of(socket, "error"))["code"] == "illegal_move"
        await socket.disconnect()

    run(scenario)
    assert sample("freecell_actions_total", via="api", transport="ws", kind="move", outcome="ok") == moves + 1
    assert sample("freecell_actions_total", via="api", transport="ws", kind="move", outcome="illegal_move") == illegal + 1
    assert sample("freecell_ws_ack_seconds_count") == acks + 1  # acks only: the refusal is an error frame
    assert sample("freecell_open_websockets", kind="game") == open_before


def test_channel_layer_failures_are_counted_by_operation_not_by_group():
    before = {op: sample("freecell_channel_layer_failures_total", operation=op) for op in ("publish", "receive", "connection")}
    events.note_bus_failure("publish to game.7", ConnectionError("refused"))
    events.note_bus_failure("publish to race.ABC", ConnectionError("refused"))
    events.note_bus_failure("channel layer receive", ConnectionError("refused"))
    events.note_bus_failure("channels-redis pub/sub")
    assert sample("freecell_channel_layer_failures_total", operation="publish") == before["publish"] + 2
    assert sample("freecell_channel_layer_failures_total", operation="receive") == before["receive"] + 1
    assert sample("freecell_channel_layer_failures_total", operation="connection") == before["connection"] + 1


@pytest.mark.django_db
def test_a_throttled_request_is_counted_by_its_throttle(client, monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle

    rates = {**SimpleRateThrottle.THROTTLE_RATES, "verify": "1/min"}  # DRF read them into the classes once
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", rates)
    cache.clear()
    before = sample("freecell_throttle_refusals_total", kind="rest_verify")
    assert client.get("/api/deals/ms:1/").status_code == 200
    assert client.get("/api/deals/ms:1/").status_code == 429
    assert sample("freecell_throttle_refusals_total", kind="rest_verify") == before + 1


def test_the_action_limit_is_counted_when_it_refuses(settings):
    from freecell_site.errors import ServiceError
    from games.play import ratelimit

    settings.ACTIONS_PER_SECOND = 1
    ratelimit.forget()
    before = sample("freecell_throttle_refusals_total", kind="actions_per_account")
    with pytest.raises(ServiceError):
        for _ in range(3):
            ratelimit.check_actions(987654)
    assert sample("freecell_throttle_refusals_total", kind="actions_per_account") == before + 1
    ratelimit.forget()


# --- what is read at scrape time --------------------------------------------------------------------


@pytest.mark.django_db
class TestStateAtScrapeTime:
    def test_the_review_queue_counts_open_cases_only(self, client, alice):
        from games.fairplay.models import ReviewCase

        open_case, decided = new_game(alice), new_game(alice)
        ReviewCase.objects.create(game=open_case, opened_at=timezone.now() - dt.timedelta(hours=2))
        ReviewCase.objects.create(game=decided, opened_at=timezone.now(), decided_at=timezone.now())
        families = scraped(client)
        assert value(families, "freecell_review_queue") == 1
        assert value(families, "freecell_review_queue_oldest_seconds") >= 7200

    def test_dailies_ahead_count_the_days_after_today(self, client):
        from games.daily.services import today

        for days in (0, 1, 2, 3):
            make_test_daily(today() + dt.timedelta(days=days))
        make_test_daily(today() - dt.timedelta(days=1))  # a past one counts for nothing
        families = scraped(client)
        assert value(families, "freecell_dailies_ahead") == 3
        assert value(families, "freecell_daily_today_made") == 1

    def test_sweeper_lag_is_the_oldest_due_transition_and_the_lease_names_its_holder(self, client, alice):
        from games.races.models import Race
        from games.sweeper import LEASE_KEY
        from tests.support.daily import trivial_deal

        cache.delete(LEASE_KEY)
        families = scraped(client)
        assert value(families, "freecell_sweeper_lag_seconds") == 0 and value(families, "freecell_sweeper_lease_held") == 0
        now = timezone.now()
        Race.objects.create(code="LATE1", deal=trivial_deal(), owner=alice, status=Race.Status.COUNTDOWN, starts_at=now - dt.timedelta(seconds=40))
        Race.objects.create(code="OVER1", deal=trivial_deal(), owner=alice, status=Race.Status.RUNNING, starts_at=now - dt.timedelta(seconds=160), time_limit_s=60)
        Race.objects.create(code="SOON1", deal=trivial_deal(), owner=alice, status=Race.Status.COUNTDOWN, starts_at=now + dt.timedelta(seconds=5))
        cache.set(LEASE_KEY, "web-1:42", 5)
        families = scraped(client)
        assert 100 <= value(families, "freecell_sweeper_lag_seconds") < 110  # OVER1's limit passed 100 s ago
        assert value(families, "freecell_sweeper_lease", holder="web-1:42") == 1
        assert value(families, "freecell_sweeper_lease_held") == 1
        cache.delete(LEASE_KEY)

    def test_a_figure_that_cannot_be_read_is_left_out_and_the_scrape_goes_on(self, client, monkeypatch):
        from games.fairplay.models import ReviewCase

        def broken(*args, **kwargs):
            raise RuntimeError("the database went away")

        monkeypatch.setattr(ReviewCase.objects, "filter", broken)
        families = scraped(client)
        assert "freecell_review_queue" not in families and "freecell_dailies_ahead" in families


def test_an_outcome_is_the_refusals_code_or_what_failed():
    from django.db import OperationalError

    from freecell_site.errors import ServiceError
    from games.engine.errors import IllegalMove

    assert metrics.outcome_of(None) == "ok" and metrics.outcome_of(None, repeated=True) == "repeated"
    assert metrics.outcome_of(ServiceError("ply_conflict", "x", status=409)) == "ply_conflict"
    assert metrics.outcome_of(IllegalMove("the 2S cannot go there")) == "illegal_move"
    assert metrics.outcome_of(OperationalError("gone")) == "database_unavailable"
    assert metrics.outcome_of(KeyError("x")) == "server_error"


def test_a_socket_limit_is_counted_under_one_word_kind(settings):
    from freecell_site.errors import ServiceError
    from games.sockets import limits

    settings.WS_ADDRESS_OPEN_BURST, settings.WS_ADDRESS_OPEN_RATE = 1, 0.1
    before = sample("freecell_throttle_refusals_total", kind="sockets_opened_per_address")
    limits.opens_per_address.spend("198.51.100.77", 1000.0)
    with pytest.raises(ServiceError):
        limits.opens_per_address.spend("198.51.100.77", 1000.0)
    assert sample("freecell_throttle_refusals_total", kind="sockets_opened_per_address") == before + 1
