"""Monitoring as deployed: the alert rules load and fire (promtool), the compose profile scrapes every
replica with the repo's files, the dashboard and rules name metrics the service has, and a live server
answers a scrape with what its sockets did (docs/operations.md)."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "deploy" / "alerts" / "rules.yml"
PROMETHEUS = ROOT / "deploy" / "prometheus" / "prometheus.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "freecell.json"
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool is absent: apt-get install prometheus (Debian's package has it)")


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


# --- promtool --------------------------------------------------------------------------------------


@needs_promtool
def test_the_alert_rules_load():
    result = subprocess.run([PROMTOOL, "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"SUCCESS: \d+ rules found", result.stdout + result.stderr)


@needs_promtool
def test_the_alerts_fire_on_the_failures_they_name_and_stay_quiet_otherwise():
    """deploy/alerts/rules_test.yml: slow acks, the sweeper stopped and lagging, the channel layer
    failing, a pool with requests waiting."""
    result = subprocess.run([PROMTOOL, "test", "rules", "rules_test.yml"], cwd=RULES.parent, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_promtool
def test_the_prometheus_config_is_valid():
    result = subprocess.run([PROMTOOL, "check", "config", "--syntax-only", str(PROMETHEUS)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


# --- compose ----------------------------------------------------------------------------------------


MONITORING = {"prometheus", "alertmanager", "grafana", "node-exporter"}


def test_monitoring_is_a_profile_of_its_own_and_mounts_the_repos_files():
    services = compose()["services"]
    assert MONITORING <= set(services)
    for name in MONITORING:
        assert services[name]["profiles"] == ["monitoring"], name
    for name in set(services) - MONITORING:
        assert "profiles" not in services[name], f"{name} must run without the monitoring profile"
    for name, service in services.items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("./deploy/"):
                assert (ROOT / source).exists(), f"{name} mounts {source}, which the repo lacks"
    mounts = {volume.split(":")[1]: volume.split(":")[0] for volume in services["prometheus"]["volumes"]}
    assert mounts["/etc/prometheus/prometheus.yml"] == "./deploy/prometheus/prometheus.yml"
    assert mounts["/etc/prometheus/rules/freecell.yml"] == "./deploy/alerts/rules.yml"
    grafana = {volume.split(":")[1]: volume.split(":")[0] for volume in services["grafana"]["volumes"]}
    assert grafana["/etc/grafana/provisioning"] == "./deploy/grafana/provisioning"
    assert grafana["/var/lib/grafana/dashboards"] == "./deploy/grafana/dashboards"


def test_prometheus_scrapes_every_web_replica_where_the_replicas_answer_it():
    data = compose()
    config = yaml.safe_load(PROMETHEUS.read_text())
    (job,) = [job for job in config["scrape_configs"] if job["job_name"] == "freecell-web"]
    (found,) = job["dns_sd_configs"]
    web = data["services"]["web"]
    port = web["command"][web["command"].index("-p") + 1]
    assert found["names"] == ["web"] and found["type"] == "A" and str(found["port"]) == port  # each replica's address
    assert job.get("metrics_path", "/metrics") == "/metrics"
    # The replicas answer /metrics to the compose network Prometheus is on, and it loads the mounted rules.
    assert web["environment"]["METRICS_ALLOW_IPS"] == data["networks"]["default"]["ipam"]["config"][0]["subnet"]
    assert config["rule_files"] == ["/etc/prometheus/rules/*.yml"]
    provider = yaml.safe_load((ROOT / "deploy/grafana/provisioning/dashboards/freecell.yml").read_text())
    assert provider["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards"


def test_the_replicas_log_json_lines():
    assert compose()["services"]["web"]["environment"]["LOG_FORMAT"] == "json"


def test_nginx_names_each_request_and_keeps_metrics_inside():
    text = (ROOT / "deploy" / "nginx" / "nginx.conf").read_text()
    assert text.count("proxy_set_header X-Request-ID $request_id;") == 2  # both servers' proxied requests
    assert "req=$request_id" in text
    assert re.search(r"location = /metrics \{[^}]*return 403", text)


# --- the names the dashboard and the rules use ------------------------------------------------------------


@pytest.fixture(scope="module")
def known_metrics(django_db_blocker) -> set[str]:
    """Every metric name this service exposes: its registry's families (with their sample suffixes)
    and what the scrape-time collector yields on a database of each vendor."""
    from prometheus_client import REGISTRY

    from freecell_site import metrics, scrape  # noqa: F401 (defines and registers them)

    names = set()
    for family in REGISTRY.collect():
        names |= {family.name, f"{family.name}_total", f"{family.name}_bucket", f"{family.name}_count", f"{family.name}_sum"}
    # The scrape-time families, named in their module (some need PostgreSQL or a pool to appear).
    names |= set(re.findall(r'GaugeMetricFamily\(\s*"(freecell_[a-z_]+)"', (ROOT / "freecell_site" / "scrape.py").read_text()))
    names |= {"freecell_backup_last_success_timestamp_seconds", "freecell_backup_last_size_bytes"}  # the backup service's
    return names


def _named(expressions: list[str]) -> set[str]:
    return {name for expr in expressions for name in re.findall(r"\b(freecell_[a-z_]+)", expr)}


def test_the_dashboard_shows_moves_acks_sockets_errors_and_sweeper_lag_from_metrics_that_exist(known_metrics):
    dashboard = json.loads(DASHBOARD.read_text())
    titles = {panel["title"]: [target["expr"] for target in panel["targets"]] for panel in dashboard["panels"]}
    for wanted in ("Moves per second", "Websocket ack p50 / p99", "Open websockets and streams", "Errors", "Sweeper lag"):
        assert wanted in titles, wanted
    assert any("histogram_quantile(0.5," in e for e in titles["Websocket ack p50 / p99"])
    assert any("histogram_quantile(0.99," in e for e in titles["Websocket ack p50 / p99"])
    used = _named([expr for exprs in titles.values() for expr in exprs])
    assert used and used <= known_metrics, used - known_metrics
    assert all(panel["datasource"]["uid"] == "prometheus" for panel in dashboard["panels"])
    source = yaml.safe_load((ROOT / "deploy/grafana/provisioning/datasources/prometheus.yml").read_text())
    assert source["datasources"][0]["uid"] == "prometheus" and source["datasources"][0]["url"] == "http://prometheus:9090"


def test_the_alert_rules_name_metrics_that_exist_and_a_runbook_section_each(known_metrics):
    rules = [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]
    used = _named([rule["expr"] for rule in rules])
    assert used <= known_metrics, used - known_metrics
    names = {rule["alert"] for rule in rules}
    for wanted in ("FreecellAcksSlow", "FreecellChannelLayerFailing", "FreecellSweeperStopped", "FreecellDailiesNotMadeAhead",
                   "FreecellDatabasePoolExhausted", "FreecellDiskFull"):
        assert wanted in names, wanted
    operations = (ROOT / "docs" / "operations.md").read_text()
    for rule in rules:
        assert rule["labels"]["severity"] in ("page", "ticket"), rule["alert"]
        anchor = rule["annotations"]["runbook"].split("#")[1]
        assert f"### {rule['alert']}" in operations and anchor == rule["alert"].lower(), rule["alert"]


# --- a live process -----------------------------------------------------------------------------------


@pytest.mark.services
@pytest.mark.slow
def test_a_live_server_answers_a_scrape_with_what_its_sockets_and_requests_did(database):
    """A real Daphne process on PostgreSQL and Redis: a move over a socket and one over REST, then
    GET /metrics from loopback shows them, the open socket, the pool and the database figures."""
    from tests.support.servers import Client, kind, register, server_env, servers

    env = server_env(database, "redis://127.0.0.1:6379/9")
    with servers(1, env) as (server,):
        token = register(server, "scraped")
        status, game = server.call("POST", "/api/games/", {"deal": "ms:1", "autoplay": "none"}, token=token)
        assert status == 201, game

        def scrape() -> dict:
            with urllib.request.urlopen(server.base + "/metrics", timeout=10) as response:
                assert response.headers["Content-Type"].startswith("text/plain")
                text = response.read().decode()
            return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in text_string_to_metric_families(text) for s in f.samples}

        async def play_over_a_socket() -> dict:
            async with Client(server, f"/ws/games/{game['id']}/", token) as socket:
                await socket.until(kind("auth_ok"))
                await socket.send({"type": "move", "move": "5a", "ply": 0})
                await socket.until(kind("ack"))
                return await asyncio.to_thread(scrape)  # while the socket is open

        during = asyncio.run(play_over_a_socket())
        assert during[("freecell_open_websockets", (("kind", "game"),))] == 1
        status, _ = server.call("POST", f"/api/games/{game['id']}/moves/", {"move": "5b", "ply": 1}, token=token)
        assert status == 200
        after = scrape()
        ws = (("kind", "move"), ("outcome", "ok"), ("transport", "ws"), ("via", "api"))
        rest = (("kind", "move"), ("outcome", "ok"), ("transport", "rest"), ("via", "api"))
        assert after[("freecell_actions_total", ws)] == 1 and after[("freecell_actions_total", rest)] == 1
        assert after[("freecell_ws_ack_seconds_count", ())] == 1
        assert after[("freecell_open_websockets", (("kind", "game"),))] == 0
        assert after[("freecell_db_pool_max", ())] >= 1 and after[("freecell_database_max_connections", ())] > 0
        assert ("freecell_dailies_ahead", ()) in after and ("freecell_review_queue", ()) in after
        # A process whose allowed networks leave loopback out refuses it, in the spec's shape.
        env_403 = {**env, "METRICS_ALLOW_IPS": "10.0.0.0/8"}
        with servers(1, env_403) as (closed,):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(closed.base + "/metrics", timeout=10)
            assert refused.value.code == 403 and json.loads(refused.value.read())["error"]["code"] == "forbidden"
