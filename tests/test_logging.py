"""Logs (docs/operations.md, "Logs"): JSON lines on request, the request's id from nginx through the view's
lines and back in the answer, the socket's id on its frames' lines, and never a password or a token."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from freecell_site import logging_context
from tests.support.sockets import new_game, next_of, open_socket, run

ROOT = Path(__file__).resolve().parent.parent


def run_django(code: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "LOG_FORMAT", "LOG_LEVEL"}}
    base.update(env, DJANGO_SETTINGS_MODULE="freecell_site.settings")
    return subprocess.run([sys.executable, "-c", f"import django; django.setup()\n{code}"], cwd=ROOT, env=base, capture_output=True, text=True, timeout=60)


REQUESTS = (
    "from django.test import Client\n"
    "c = Client()\n"
    "r = c.get('/api/no-such-thing/', HTTP_X_REQUEST_ID='4f1c2e0a9b8d7c6e5f4a3b2c1d0e9f8a')\n"
    "print(r['X-Request-ID'])\n"
    "r = c.get('/api/no-such-thing/')\n"
    "print(r['X-Request-ID'])\n"
    "r = c.get('/api/no-such-thing/', HTTP_X_REQUEST_ID='not an id\\n{\"level\": \"CRITICAL\"}')\n"
    "print(r['X-Request-ID'])\n"
    "import logging; logging.getLogger('games.daily').warning('outside any request')\n"
)


class TestRequestIds:
    def test_json_lines_carry_the_request_id_nginx_sent_or_one_made_and_the_answer_says_it(self):
        result = run_django(REQUESTS, LOG_FORMAT="json")
        given, made, replaced = result.stdout.split()
        assert given == "4f1c2e0a9b8d7c6e5f4a3b2c1d0e9f8a"
        assert len(made) == 32 and made != given
        assert len(replaced) == 32 and "not an id" not in result.stderr  # what a client wrote is not an id
        lines = [json.loads(line) for line in result.stderr.splitlines()]
        not_found = [line for line in lines if line["logger"] == "django.request"]
        assert [line["request_id"] for line in not_found] == [given, made, replaced]
        assert {"time", "level", "logger", "message", "connection_id"} <= set(not_found[0]) and "context" not in not_found[0]
        assert not_found[0]["level"] == "WARNING" and "Not Found: /api/no-such-thing/" in not_found[0]["message"]
        outside = lines[-1]
        assert outside["message"] == "outside any request" and outside["request_id"] is None

    def test_plain_lines_stay_the_development_default_with_the_id_at_the_end(self):
        result = run_django(REQUESTS)
        lines = result.stderr.strip().splitlines()
        assert lines[0].endswith("WARNING django.request: Not Found: /api/no-such-thing/ [request=4f1c2e0a9b8d7c6e5f4a3b2c1d0e9f8a]"), lines[0]
        assert lines[-1].endswith("WARNING games.daily: outside any request"), lines[-1]


@pytest.fixture
def caught():
    """Records as the console handler sees them (its context filter included)."""
    import freecell_site.asgi  # noqa: F401 (sets Django up, which configures logging anew: first)

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Keep(level=logging.INFO)
    handler.addFilter(logging_context.ContextFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    yield records
    root.removeHandler(handler)


@pytest.mark.django_db(transaction=True)
def test_each_sockets_frames_log_with_its_own_connection_id_even_in_database_threads(alice, alice_token, settings, monkeypatch, caught):
    from games.play import services

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    play_move = services.play_move

    def logged(**kwargs):  # runs in a database thread, as every move does
        logging.getLogger("games.play.services").info("move %s", kwargs["move"])
        return play_move(**kwargs)

    monkeypatch.setattr(services, "play_move", logged)
    first, second = new_game(alice), new_game(alice)

    async def scenario():
        one = await open_socket(f"/ws/games/{first.pk}/", token=alice_token)
        two = await open_socket(f"/ws/games/{second.pk}/", token=alice_token)
        for socket in (one, two):
            await next_of(socket, "auth_ok")
        await one.send_json_to({"type": "move", "move": "5a", "ply": 0})
        await next_of(one, "ack")
        await two.send_json_to({"type": "move", "move": "6a", "ply": 0})
        await next_of(two, "ack")
        await one.send_json_to({"type": "move", "move": "5b", "ply": 1})
        await next_of(one, "ack")
        await asyncio.gather(one.disconnect(), two.disconnect())

    run(scenario)
    ids = {record.getMessage(): record.connection_id for record in caught if record.name == "games.play.services"}
    assert set(ids) == {"move 5a", "move 6a", "move 5b"}
    assert ids["move 5a"] == ids["move 5b"] != ids["move 6a"]
    assert all(ids.values()) and all(len(found) == 12 for found in ids.values())


@pytest.mark.slow
def test_no_password_or_token_is_ever_logged(tmp_path):
    """A live server logging everything (DEBUG, JSON): sign up, sign in wrongly and rightly, make a token,
    use it over REST and a socket, send a bad one, change the password; the log holds none of them."""
    from tests.support.servers import Client, Server, kind

    database = tmp_path / "db.sqlite3"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST") and k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(SQLITE_PATH=str(database), LOG_LEVEL="DEBUG", LOG_FORMAT="json", FAIR_PLAY_REVIEW="0", DEBUG="1",
               EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True, timeout=300)
    password, new_password, bad_key = "correct-Horse-battery-71", "staple-Wombat-paper-93", "fco_notarealkey0123456789abcdef"
    server = Server(env, log_dir=tmp_path)
    secrets: list[str] = [password, new_password, bad_key]
    try:
        server.wait_ready()
        status, body = server.call("POST", "/api/auth/register/", {"username": "quiet", "password": password})
        assert status == 201, body
        secrets.append(body["token"])
        assert server.call("POST", "/api/auth/token/", {"username": "quiet", "password": "wrong-" + password})[0] == 401
        status, body = server.call("POST", "/api/auth/token/", {"username": "quiet", "password": password})
        assert status == 200, body
        key = body["token"]
        secrets.append(key)
        status, made = server.call("POST", "/api/tokens/", {"name": "bot", "scopes": ["read", "play"]}, token=key)
        assert status == 201, made
        scoped = made["token"]
        secrets.append(scoped)
        status, game = server.call("POST", "/api/games/", {"deal": "ms:1"}, token=scoped)
        assert status == 201, game
        assert server.call("POST", f"/api/games/{game['id']}/moves/", {"move": "5a", "ply": 0}, token=scoped)[0] == 200
        assert server.call("GET", "/api/me/", token=bad_key)[0] == 401

        async def over_a_socket():
            async with Client(server, f"/ws/games/{game['id']}/", None) as socket:
                await socket.send({"type": "auth", "token": bad_key})
                await socket.until(kind("error", code="authentication_failed"))
                await socket.send({"type": "auth", "token": scoped})
                await socket.until(kind("auth_ok"))
                await socket.send({"type": "move", "move": "5b", "ply": 1})
                await socket.until(kind("ack"))

        asyncio.run(over_a_socket())
        changed = server.call("POST", "/api/auth/password/change/", {"old_password": password, "new_password": new_password}, token=key)
        assert changed[0] in (200, 204), changed
    finally:
        server.stop()
    log = server.log_path.read_text()
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert any(line.get("request_id") for line in lines), log[-3000:]  # the server did log its requests' lines
    assert any(line["logger"] == "django.request" and "Unauthorized" in line["message"] for line in lines), log[-3000:]
    for secret in secrets:
        assert secret not in log, f"a secret ({secret[:6]}…) is in the log"


# --- through nginx (deploy/nginx/nginx.conf) ------------------------------------------------------------

from tests.test_balancer import NGINX, stack  # noqa: E402, F401 (the balancer test's stack: nginx before two replicas)


@pytest.mark.services
@pytest.mark.timeout(150)
@pytest.mark.skipif(NGINX is None, reason="needs Debian's nginx (apt-get install nginx)")
def test_one_request_id_through_nginx_the_view_and_its_log_lines(stack):  # noqa: F811 (the fixture imported above)
    """nginx names the request (replacing what the client sent), writes the id in its access line, the
    replica writes it on the view's log lines and answers it in X-Request-ID."""
    import re
    import time

    balancer, replicas = stack
    connection = balancer.connection()
    connection.request("GET", "/api/no-such-thing/", headers={"X-Request-ID": "chosen-by-the-client-1234"})
    response = connection.getresponse()
    response.read()
    connection.close()
    assert response.status == 404
    named = response.getheader("X-Request-ID")
    assert named and re.fullmatch(r"[0-9a-f]{32}", named), named  # nginx's $request_id, not the client's
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and f"req={named}" not in balancer.log_path.read_text():
        time.sleep(0.1)
    assert '"GET /api/no-such-thing/ HTTP/1.1" 404' in balancer.log_path.read_text()
    assert f"req={named}" in balancer.log_path.read_text()
    lines = [line for replica in replicas for line in replica.log_path.read_text().splitlines() if named in line]
    assert len(lines) == 1 and "WARNING django.request: Not Found: /api/no-such-thing/" in lines[0], lines
    assert lines[0].endswith(f"[request={named}]")
