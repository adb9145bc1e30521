"""The foundation: settings from the environment, /healthz, the error shape, the deploy check, compose."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def run_django(code: str, **env: str) -> subprocess.CompletedProcess:
    """Runs `code` after django.setup() in a fresh interpreter with `env` on top of a clean environment."""
    base = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS"}}
    base.update(env, DJANGO_SETTINGS_MODULE="freecell_site.settings")
    script = f"import django; django.setup()\n{code}"
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=base, capture_output=True, text=True, timeout=60)


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS"}}
    base.update(env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=base, capture_output=True, text=True, timeout=120)


class TestSettings:
    def test_it_defaults_to_sqlite_and_the_in_memory_layer(self):
        result = run_django(
            "from django.conf import settings as s\n"
            "print(s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'], s.CACHES['default']['BACKEND'], s.DEBUG)"
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.split() == [
            "django.db.backends.sqlite3",
            "channels.layers.InMemoryChannelLayer",
            "django.core.cache.backends.locmem.LocMemCache",
            "True",
        ]

    def test_it_reads_postgres_and_redis_urls(self):
        result = run_django(
            "from django.conf import settings as s\n"
            "d = s.DATABASES['default']\n"
            "print(d['ENGINE'], d['NAME'], d['HOST'], d['PORT'], s.CHANNEL_LAYERS['default']['BACKEND'], s.CACHES['default']['BACKEND'])",
            DATABASE_URL="postgres://u:p@db.example:5433/fc",
            REDIS_URL="redis://cache.example:6379/2",
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.split() == [
            "freecell_site.postgresql",  # Django's, replacing pooled connections PostgreSQL closed
            "fc",
            "db.example",
            "5433",
            "channels_redis.pubsub.RedisPubSubChannelLayer",
            "django_redis.cache.RedisCache",
        ]

    def test_a_sqlite_database_url_gets_the_same_lock_timeout_as_the_default_file(self):
        # Without it, two threads writing at once fail with "database is locked" at once.
        show = "from django.conf import settings as s\nd = s.DATABASES['default']\nprint(d['NAME'], d['OPTIONS'])"
        default = run_django(show)
        from_url = run_django(show, DATABASE_URL="sqlite:////tmp/fc-elsewhere.sqlite3")
        assert default.returncode == 0 and from_url.returncode == 0, default.stderr + from_url.stderr
        assert from_url.stdout.split(" ", 1)[0] == "/tmp/fc-elsewhere.sqlite3"
        assert from_url.stdout.split(" ", 1)[1] == default.stdout.split(" ", 1)[1]
        assert "'timeout': 20" in from_url.stdout and "IMMEDIATE" in from_url.stdout

    def test_the_channel_layer_is_redis_pub_sub_by_default_namespaced_by_database_or_the_list_one(self):
        show = "from django.conf import settings as s\nl = s.CHANNEL_LAYERS['default']\nprint(l['BACKEND'], l['CONFIG'].get('prefix'))"
        pubsub = run_django(show, REDIS_URL="redis://cache.example:6379/2")
        assert pubsub.returncode == 0, pubsub.stderr
        assert pubsub.stdout.split() == ["channels_redis.pubsub.RedisPubSubChannelLayer", "freecell.2."]
        lists = run_django(show, REDIS_URL="redis://cache.example:6379/2", CHANNEL_LAYER="lists")
        assert lists.stdout.split() == ["channels_redis.core.RedisChannelLayer", "None"]
        wrong = run_django(show, REDIS_URL="redis://cache.example:6379/2", CHANNEL_LAYER="carrier-pigeon")
        assert wrong.returncode != 0 and "CHANNEL_LAYER must be pubsub or lists" in wrong.stderr

    def test_postgresql_binds_on_the_server_and_prepares_repeated_statements_unless_turned_off(self):
        show = "from django.conf import settings as s\no = s.DATABASES['default']['OPTIONS']\nprint(o.get('server_side_binding'), o.get('prepare_threshold'))"
        url = "postgres://u:p@db.example:5433/fc"
        on = run_django(show, DATABASE_URL=url)
        assert on.returncode == 0, on.stderr
        assert on.stdout.split() == ["True", "5"]
        off = run_django(show, DATABASE_URL=url, DB_PREPARED_STATEMENTS="0")
        assert off.stdout.split() == ["None", "None"]

    def test_the_smtp_connection_gives_up_on_a_silent_mail_server(self):
        """One thread sends every mail (accounts/mail.py): with Django's default of no timeout, a server
        that accepted and never answered held every later reset mail of the process."""
        show = "from django.core.mail import get_connection\nprint(get_connection('django.core.mail.backends.smtp.EmailBackend').timeout)"
        assert run_django(show).stdout.strip() == "10.0"
        assert run_django(show, EMAIL_TIMEOUT="3").stdout.strip() == "3.0"

    def test_an_empty_allowed_hosts_stops_a_production_start(self):
        """Django would answer every request 400, and neither `check --deploy` nor Daphne says so."""
        result = run_django("print('started')", DEBUG="0", SECRET_KEY="x" * 60, ALLOWED_HOSTS="")
        assert result.returncode != 0 and "ALLOWED_HOSTS is empty" in result.stderr
        assert run_django("print('started')", ALLOWED_HOSTS="").stdout.strip() == "started"  # development

    def test_log_lines_say_when_how_bad_and_where(self):
        result = run_django("import logging\nlogging.getLogger('games.daily').warning('the daily is late')")
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} WARNING games\.daily: the daily is late", result.stderr.strip()), result.stderr

    def test_a_clients_mistake_is_one_log_line_and_a_server_error_keeps_its_traceback(self):
        result = run_django(
            "import logging\nfrom django.test import Client\n"
            "Client().get('/', HTTP_HOST='evil.example')\n"
            "try:\n    raise RuntimeError('boom')\nexcept RuntimeError:\n"
            "    logging.getLogger('django.request').error('Internal Server Error: /x', exc_info=True, extra={'status_code': 500})",
        )
        lines = result.stderr.strip().splitlines()
        assert "ERROR django.security.DisallowedHost: Invalid HTTP_HOST header: 'evil.example'" in lines[0], result.stderr
        assert "Internal Server Error: /x" in lines[1] and lines[2] == "Traceback (most recent call last):", result.stderr
        assert result.stderr.count("Traceback") == 1

    def test_production_serves_the_collected_and_compressed_files_once_collectstatic_ran(self, tmp_path):
        """The app folders (WhiteNoise's finders) served every file uncompressed, whatever collectstatic wrote."""
        prod = {"DEBUG": "0", "SECRET_KEY": "x" * 60, "STATIC_ROOT": str(tmp_path / "static")}
        fetch = (
            "from django.conf import settings\nfrom django.test import Client\n"
            "r = Client().get('/static/frontend/app.css', HTTP_ACCEPT_ENCODING='gzip', secure=True)\n"
            "print(settings.WHITENOISE_USE_FINDERS, r.status_code, r.headers.get('Content-Encoding'))"
        )
        before = run_django(fetch, **prod)
        assert before.stdout.split() == ["True", "200", "None"], before.stderr  # not collected yet: from the app folders
        assert "No directory at" not in before.stderr, before.stderr  # meant, so not a warning on every start
        collected = manage("collectstatic", "--noinput", **prod)
        assert collected.returncode == 0, collected.stderr
        after = run_django(fetch, **prod)
        assert after.stdout.split() == ["False", "200", "gzip"], after.stderr

    def test_it_reads_lists_and_booleans(self):
        result = run_django(
            "from django.conf import settings as s\nprint(s.DEBUG, s.ALLOWED_HOSTS, s.CSRF_TRUSTED_ORIGINS)",
            DEBUG="off",
            ALLOWED_HOSTS="a.example, b.example",
            CSRF_TRUSTED_ORIGINS="https://a.example",
            SECRET_KEY="x" * 60,
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "False ['a.example', 'b.example'] ['https://a.example']"

    def test_hsts_preload_and_subdomains_are_on_in_production_unless_turned_off(self):
        show = "from django.conf import settings as s\nprint(s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD)"
        production = {"DEBUG": "0", "SECRET_KEY": "x" * 60}
        assert run_django(show, **production).stdout.split() == ["True", "True"]
        off = run_django(show, **production, SECURE_HSTS_INCLUDE_SUBDOMAINS="0", SECURE_HSTS_PRELOAD="no")
        assert off.stdout.split() == ["False", "False"], off.stderr

    def test_the_readme_names_every_variable_the_settings_read_with_the_default_they_use(self):
        import ast
        import re

        rows = [line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("| `")]
        documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", "\n".join(rows)))  # named anywhere in the table
        # Every env_*("NAME", default) and os.environ.get("NAME", default) in the settings.
        calls = [node for node in ast.walk(ast.parse((ROOT / "freecell_site" / "settings.py").read_text())) if isinstance(node, ast.Call)]
        read = {
            call.args[0].value: call.args[1].value if len(call.args) > 1 and isinstance(call.args[1], ast.Constant) else None
            for call in calls
            if call.args and isinstance(call.args[0], ast.Constant) and str(call.args[0].value).isupper()
            and getattr(call.func, "id", getattr(call.func, "attr", "")).startswith(("env_", "get"))
        }
        assert set(read) - documented == set() and len(read) > 40
        # A number given as the default must be the code's (DAILY_WAIT_SECONDS said 2 in the docs and
        # was 20 in settings.py).
        checked = 0
        for names, defaults in (row.split("|")[1:3] for row in rows):
            names, defaults = re.findall(r"`([A-Z][A-Z0-9_]+)`", names), re.findall(r"`([^`]*)`", defaults)
            for name, default in zip(names, defaults, strict=True) if len(names) == len(defaults) else ():
                if re.fullmatch(r"[0-9.]+", default) and isinstance(read.get(name), (int, float)) and not isinstance(read[name], bool):
                    assert float(default) == read[name], (name, default, read[name])
                    checked += 1
        assert checked > 20

    @pytest.mark.parametrize(
        ("variable", "value"),
        [
            ("DEBUG", "maybe"),
            ("DATABASE_URL", "mysql://nobody@host/db"),
            ("DATABASE_URL", "not a url"),
            ("REDIS_URL", "http://localhost:6379"),
            ("CSRF_TRUSTED_ORIGINS", "freecell.example"),
            ("DB_POOL_SIZE", "many"),
            ("THROTTLE_ANON", "lots"),
            ("THROTTLE_USER", "5/fortnight"),
            ("THROTTLE_HINT", "x/min"),
            ("LOG_LEVEL", "LOUD"),
        ],
    )
    def test_it_fails_loudly_naming_a_bad_variable(self, variable, value):
        result = run_django("", **{variable: value})
        assert result.returncode != 0
        assert "ImproperlyConfigured" in result.stderr
        assert variable in result.stderr.splitlines()[-1]


def test_the_server_entry_point_freezes_what_it_loaded_so_full_collections_skip_it():
    result = run_django(
        "import gc, sys\nimport freecell_site.asgi\n"
        "print(gc.get_freeze_count() > 50_000, 'games.play.views' in sys.modules, 'accounts.views' in sys.modules)"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "True"]


class TestDeployCheck:
    def test_it_passes_with_production_values(self):
        result = manage(
            "check", "--deploy", "--fail-level", "WARNING",
            DEBUG="0", SECRET_KEY="k8$" + "q7Zp" * 16, ALLOWED_HOSTS="freecell.example",
            EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend", SITE_URL="https://freecell.example",
        )
        assert result.returncode == 0, result.stdout + result.stderr

    def test_it_flags_reset_links_on_the_development_site_address(self):
        result = manage(
            "check", "--deploy", "--fail-level", "WARNING",
            DEBUG="0", SECRET_KEY="k8$" + "q7Zp" * 16, ALLOWED_HOSTS="freecell.example",
            EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        )
        assert result.returncode != 0
        assert "accounts.W002" in result.stdout + result.stderr

    def test_it_flags_reset_mail_written_to_the_log(self):
        result = manage(
            "check", "--deploy", "--fail-level", "WARNING",
            DEBUG="0", SECRET_KEY="k8$" + "q7Zp" * 16, ALLOWED_HOSTS="freecell.example",
        )
        assert result.returncode != 0
        assert "accounts.W001" in result.stdout + result.stderr

    def test_it_flags_the_development_secret_key(self):
        result = manage("check", "--deploy", "--fail-level", "WARNING", DEBUG="0", ALLOWED_HOSTS="freecell.example")
        assert result.returncode != 0
        assert "security.W009" in result.stdout + result.stderr


class TestHealth:
    def test_it_is_up_when_the_database_and_layer_answer(self, client, db):
        response = client.get("/healthz")
        assert response.status_code == 200
        body = response.json()
        assert body["status"] == "ok"
        assert body["database"]["ok"] and body["channel_layer"]["ok"]

    def test_it_is_down_when_the_database_fails(self, client, db, monkeypatch):
        from freecell_site import health

        class DeadConnection:
            vendor = "postgresql"

            def cursor(self):
                raise RuntimeError("database unreachable")

        monkeypatch.setattr(health, "connection", DeadConnection())
        response = client.get("/healthz")
        assert response.status_code == 503
        assert response.json()["database"] == {"ok": False, "error": "RuntimeError: database unreachable"}

    def test_a_database_that_is_down_reads_as_down_before_the_pools_wait_is_over(self):
        """A request waits up to 10 s for a pooled connection; the balancer's health check gives up
        sooner (compose: 5 s), so /healthz timed out where it should have said 503."""
        result = run_django(
            "import json, time\nfrom freecell_site.health import CHECK_TIMEOUT, check_database\n"
            "t = time.monotonic(); r = check_database()\n"
            "print(json.dumps({'ok': r['ok'], 'error': r.get('error', ''), 'within': time.monotonic() - t < CHECK_TIMEOUT + 2}))",
            DATABASE_URL="postgres://postgres@127.0.0.1:9/nothing",  # a closed port: refused at once
        )
        assert result.returncode == 0, result.stderr
        body = json.loads(result.stdout.strip().splitlines()[-1])
        assert body["ok"] is False and "PoolTimeout" in body["error"] and body["within"], body

    def test_it_is_down_when_the_channel_layer_fails(self, client, db, monkeypatch):
        from freecell_site import health

        class DeadLayer:
            async def new_channel(self, prefix):
                raise ConnectionError("redis is gone")

        monkeypatch.setattr(health, "get_channel_layer", lambda: DeadLayer())
        response = client.get("/healthz")
        assert response.status_code == 503
        assert response.json()["channel_layer"]["ok"] is False
        assert response.json()["status"] == "down"


class TestErrorShape:
    def test_an_unknown_api_url_is_a_json_404(self, client, db):
        response = client.get("/api/no/such/thing/")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"

    def test_a_wrong_method_is_a_json_405(self, client, db):
        response = client.delete("/api/solutions/verify/")
        assert response.status_code == 405
        assert response.json()["error"]["code"] == "method_not_allowed"

    def test_a_missing_game_is_a_json_404(self, client, db):
        response = client.get("/api/games/999999/")
        assert response.status_code == 404
        assert set(response.json()["error"]) >= {"code", "message"}

    def test_a_validation_error_names_the_field(self, alice_client):
        response = alice_client.post("/api/games/", {"autoplay": "none"}, format="json")
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "invalid_request"
        assert "deal" in error["message"] and "deal" in error["fields"]

    def test_an_anonymous_write_is_a_json_401(self, anon_client, db):
        response = anon_client.post("/api/games/", {"deal": "ms:1"}, format="json")
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "not_authenticated"

    def test_a_bad_token_is_a_json_401(self, anon_client, db):
        anon_client.credentials(HTTP_AUTHORIZATION="Token nonsense")
        response = anon_client.get("/api/games/1/")
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "authentication_failed"

    def test_malformed_json_is_a_json_400(self, alice_client):
        response = alice_client.generic("POST", "/api/games/", "{not json", content_type="application/json")
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "bad_request"

    def test_a_crash_is_a_json_500(self, alice_client, monkeypatch):
        from games.play import services

        def crash(**kwargs):
            raise RuntimeError("boom")

        monkeypatch.setattr(services, "create_game", crash)
        alice_client.raise_request_exception = False
        response = alice_client.post("/api/games/", {"deal": "ms:1"}, format="json")
        assert response.status_code == 500
        assert response.json()["error"]["code"] == "server_error"

    def test_the_schema_and_docs_are_served(self, client, db):
        assert client.get("/api/schema/").status_code == 200
        assert client.get("/api/docs/").status_code == 200

    def test_the_docs_page_loads_nothing_from_another_site(self, client, db):
        """Swagger UI comes from our static files (the sidecar package), not a CDN whose script would
        run on this site's origin with the visitor's session."""
        import re

        from django.contrib.staticfiles import finders

        page = client.get("/api/docs/").content.decode()
        links = re.findall(r'(?:src|href)="([^"]+)"', page)
        assert any(link.endswith("swagger-ui-bundle.js") for link in links), links
        assert all(link.startswith("/static/") for link in links), links
        assert "cdn." not in page and "https://" not in page.split("<body", 1)[0]
        assert finders.find("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")


class TestCompose:
    def compose(self) -> dict:
        return yaml.safe_load((ROOT / "docker-compose.yml").read_text())

    def test_it_has_web_postgres_and_redis_with_health_checks(self):
        services = self.compose()["services"]
        assert {"web", "postgres", "redis"} <= set(services)
        for name in ("web", "postgres", "redis"):
            assert "healthcheck" in services[name], name

    def test_web_runs_daphne_with_several_replicas(self):
        web = self.compose()["services"]["web"]
        assert web["command"][0] == "daphne" and "freecell_site.asgi:application" in web["command"]
        assert web["deploy"]["replicas"] >= 2
        # A fixed host port would stop the service from scaling.
        assert all(":" not in str(port) for port in web.get("ports", []))

    def test_web_is_wired_to_postgres_and_redis(self):
        services = self.compose()["services"]
        env = services["web"]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:5432/" in env["DATABASE_URL"]
        assert env["REDIS_URL"].startswith("redis://redis:6379")
        assert env["DEBUG"] == "0"
        assert "SECRET_KEY" in env and "${SECRET_KEY" in env["SECRET_KEY"]
        depends = services["web"]["depends_on"]
        assert depends["postgres"]["condition"] == "service_healthy"
        assert depends["redis"]["condition"] == "service_healthy"

    @pytest.mark.django_db
    def test_the_dailies_job_makes_the_coming_week_with_a_command_that_runs(self, monkeypatch):
        import shlex

        from django.core.management import call_command

        from games.daily import services as daily
        from games.models import DailyChallenge
        from tests.support.daily import WIN, trivial_deal

        services = self.compose()["services"]
        job = services["dailies"]
        assert job["environment"] == services["web"]["environment"]  # same secret, same database
        assert job["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        script = job["command"][-1]
        step = next(part for part in script.split(";") if "manage.py" in part)  # "do python manage.py ..."
        words = shlex.split(step.strip().removeprefix("do "))
        assert words[:3] == ["python", "manage.py", "daily"] and "--ensure" in words, words
        budgets = []
        monkeypatch.setattr(daily, "deal_for", lambda date, index: trivial_deal())  # the solver stays out
        monkeypatch.setattr(daily, "prove", lambda deal, budget: budgets.append(budget) or daily.Proof(True, [WIN]))
        call_command(*words[2:])  # the job's own arguments, as the command parses them
        assert DailyChallenge.objects.count() == 7 and set(budgets) == {30.0}

    def test_the_deployment_mails_reset_links_rather_than_logging_them(self):
        from accounts.checks import CONSOLE_MAIL

        env = self.compose()["services"]["web"]["environment"]
        assert env["EMAIL_BACKEND"] != CONSOLE_MAIL and env["EMAIL_BACKEND"].endswith("smtp.EmailBackend")
        assert env["EMAIL_HOST"].startswith("${EMAIL_HOST:?")  # required, as the secrets are

    def test_the_dockerfile_builds_what_compose_runs(self):
        dockerfile = (ROOT / "Dockerfile").read_text()
        assert "pip install" in dockerfile and "daphne" in dockerfile
