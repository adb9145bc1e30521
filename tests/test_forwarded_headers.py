"""X-Forwarded-For is believed only from the proxies in FORWARDED_ALLOW_IPS (freecell_site/forwarded.py):
an attacker who reaches a server process directly and rotates the header is still one address to the
login throttle and the request throttles, while a trusted proxy's header names each of its clients."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.core.exceptions import ImproperlyConfigured

from freecell_site.forwarded import ForwardedForMiddleware, client_address, parse_networks
from tests.support.players import PASSWORD, make_player

ROOT = Path(__file__).resolve().parent.parent
ATTACKER = "203.0.113.66"
PROXY = "10.0.0.2"


@pytest.fixture(autouse=True)
def _fast_and_one_window(settings, monkeypatch):
    """In-memory pushes, cheap hashes, and one throttle window for the whole test: a test that ran
    across a minute's end would see its counts start again. These tests are about addresses: a
    network's limit of 10 (100 by default), and the account's out of the way."""
    from accounts import throttle

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.LOGIN_NETWORK_FAILURES = 10
    settings.LOGIN_ACCOUNT_FAILURES = 1000
    # The windows of now, kept for the test (an old window's rows are swept now and then).
    frozen = {kind: throttle._window(f"{kind}:x") for kind in throttle.WINDOWS}
    monkeypatch.setattr(throttle, "_window", lambda key: frozen[throttle._kind(key)])


async def _request(method: str, path: str, *, peer: str, headers: list[tuple[bytes, bytes]] = (), body: dict | None = None) -> tuple[int, dict]:
    """One request through the server's own ASGI application, from the peer `peer` (what the server's
    socket says), with `headers` as the client wrote them."""
    from freecell_site.asgi import application

    data = json.dumps(body).encode() if body is not None else b""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"testserver"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
            *headers,
        ],
        "client": (peer, 51000),
        "server": ("127.0.0.1", 8000),
    }
    communicator = ApplicationCommunicator(application, scope)
    await communicator.send_input({"type": "http.request", "body": data, "more_body": False})
    start = await communicator.receive_output(10)
    chunks = []
    while True:
        message = await communicator.receive_output(10)
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    await communicator.wait(5)
    raw = b"".join(chunks)
    return start["status"], json.loads(raw) if raw else {}


def guess(peer: str, forwarded_for: str | None, username: str = "alice", password: str = "wrong password 1") -> int:
    headers = [(b"x-forwarded-for", forwarded_for.encode())] if forwarded_for is not None else []
    status, _ = async_to_sync(_request)("POST", "/api/auth/token/", peer=peer, headers=headers, body={"username": username, "password": password})
    return status


def failures_of(address: str) -> int:
    from accounts import throttle

    return throttle.failures(f"net:{address}")


# --- straight at the app ---------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("allowed", [[], ["10.0.0.0/8"]], ids=["nobody trusted", "only the proxies trusted"])
def test_an_attacker_rotating_x_forwarded_for_straight_at_the_app_is_one_address(settings, allowed):
    """40 password guesses, each claiming a new address: only the per-address limit (10) is judged,
    the rest are 429 before any password is checked, and they all count against the attacker's own
    address. With --proxy-headers all 40 were judged."""
    settings.FORWARDED_ALLOW_IPS = allowed
    make_player("alice")
    answers = [guess(ATTACKER, f"198.51.100.{i}") for i in range(40)]
    assert answers.count(401) == 10 and answers.count(429) == 30, answers
    assert answers[:10] == [401] * 10
    assert failures_of(ATTACKER) == 10
    assert all(failures_of(f"198.51.100.{i}") == 0 for i in range(40))
    # Not even the right password gets through from that address until the minute ends.
    assert guess(ATTACKER, "192.0.2.1", password=PASSWORD) == 429


@pytest.mark.django_db(transaction=True)
def test_an_attacker_cannot_lock_a_player_out_by_spoofing_the_players_address(settings):
    """Naming the player's address in the header does not spend the player's allowance."""
    settings.FORWARDED_ALLOW_IPS = ["10.0.0.0/8"]
    make_player("alice")
    victim = "198.51.100.7"
    for _ in range(12):
        guess(ATTACKER, victim)
    assert failures_of(victim) == 0
    # The player, through the real proxy, signs in.
    assert guess(PROXY, victim, password=PASSWORD) == 200


# --- through a trusted proxy ---------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_trusted_proxys_header_names_each_client(settings):
    settings.FORWARDED_ALLOW_IPS = ["10.0.0.2"]
    make_player("alice")
    answers = [guess(PROXY, f"198.51.100.{i}") for i in range(12)]
    assert answers == [401] * 12, "twelve clients behind the proxy, one guess each: none is limited"
    assert failures_of("198.51.100.3") == 1 and failures_of(PROXY) == 0
    # One client behind the proxy is limited on its own, and the others are not.
    for _ in range(10):
        guess(PROXY, "198.51.100.50")
    assert guess(PROXY, "198.51.100.50") == 429
    assert guess(PROXY, "198.51.100.51", password=PASSWORD) == 200


@pytest.mark.django_db(transaction=True)
def test_a_proxy_that_appends_is_read_from_the_right(settings):
    """A proxy that appends to the client's header (nginx's $proxy_add_x_forwarded_for): what the
    client wrote is on the left, and is not believed."""
    settings.FORWARDED_ALLOW_IPS = ["10.0.0.0/8"]
    make_player("alice")
    for i in range(12):
        guess(PROXY, f"192.0.2.{i}, 198.51.100.9")
    assert failures_of("198.51.100.9") == 10
    assert all(failures_of(f"192.0.2.{i}") == 0 for i in range(12))


@pytest.mark.django_db(transaction=True)
def test_the_anonymous_request_throttle_uses_the_same_address(settings, monkeypatch):
    """DRF's throttles read REMOTE_ADDR, which the middleware sets: a rotating header straight at the
    app meets the anonymous rate; behind the proxy each client has its own."""
    from rest_framework.throttling import SimpleRateThrottle

    # DRF reads the rates once, at import: the class attribute is what its throttles use.
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {**SimpleRateThrottle.THROTTLE_RATES, "anon": "5/min"})
    settings.FORWARDED_ALLOW_IPS = ["10.0.0.2"]
    ping = lambda peer, xff: async_to_sync(_request)("GET", "/api/ping/", peer=peer, headers=[(b"x-forwarded-for", xff.encode())])[0]  # noqa: E731
    straight = [ping(ATTACKER, f"198.51.100.{i}") for i in range(8)]
    assert straight.count(429) == 3, straight
    behind = [ping(PROXY, f"198.51.100.{i}") for i in range(8)]
    assert behind == [200] * 8, behind


# --- the rule itself ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("peer", "header", "expected"),
    [
        ("10.1.2.3", ["198.51.100.9"], "198.51.100.9"),
        ("10.1.2.3", ["1.1.1.1, 198.51.100.9"], "198.51.100.9"),  # the client's own entry on the left
        ("10.1.2.3", ["198.51.100.9, 10.0.0.7"], "198.51.100.9"),  # two proxies of ours
        ("10.1.2.3", ["1.1.1.1", "198.51.100.9"], "198.51.100.9"),  # the header twice: read in order
        ("10.1.2.3", ["10.0.0.9, 10.0.0.8"], "10.0.0.9"),  # all ours: the furthest back
        ("::ffff:10.1.2.3", ["198.51.100.9"], "198.51.100.9"),  # a dual-stack listener's IPv4 peer
        ("2001:db8::5", ["[2001:db8:1::7]:443"], "2001:db8:1::7"),
        ("2001:db8::5", ["198.51.100.9:51000"], "198.51.100.9"),
        ("11.0.0.1", ["198.51.100.9"], None),  # not a proxy of ours
        ("2001:db9::5", ["198.51.100.9"], None),
        (None, ["198.51.100.9"], None),  # no peer known (a unix socket)
        ("10.1.2.3", [], None),
        ("10.1.2.3", ["198.51.100.9, not-an-address"], None),  # a broken chain: believe nothing in it
        ("10.1.2.3", ["not-an-address, 198.51.100.9"], "198.51.100.9"),
        ("10.1.2.3", [""], None),
    ],
)
def test_the_client_is_the_right_most_address_that_is_not_a_trusted_proxy(peer, header, expected):
    networks = parse_networks(["10.0.0.0/8", "2001:db8::/32"])
    assert client_address(peer, header, networks) == expected


def test_with_nobody_trusted_the_header_is_never_read():
    assert client_address("10.1.2.3", ["198.51.100.9"], ()) is None
    assert client_address("127.0.0.1", ["198.51.100.9"], parse_networks([])) is None


@pytest.mark.parametrize("kind", ["http", "websocket"])
def test_http_and_websocket_scopes_both_get_the_clients_address(settings, kind):
    seen = []

    async def inner(scope, receive, send):
        seen.append(scope.get("client"))

    settings.FORWARDED_ALLOW_IPS = ["127.0.0.1"]
    app = ForwardedForMiddleware(inner)
    headers = [(b"x-forwarded-for", b"198.51.100.9")]
    async_to_sync(app)({"type": kind, "headers": headers, "client": ("127.0.0.1", 4000)}, None, None)
    async_to_sync(app)({"type": kind, "headers": headers, "client": (ATTACKER, 4000)}, None, None)
    assert seen == [("198.51.100.9", 0), (ATTACKER, 4000)]


def test_the_servers_application_passes_every_protocol_through_the_middleware():
    from channels.routing import ProtocolTypeRouter

    from freecell_site.asgi import application

    middleware = application.app
    assert isinstance(middleware, ForwardedForMiddleware)
    assert isinstance(middleware.app, ProtocolTypeRouter) and set(middleware.app.application_mapping) >= {"http", "websocket"}


def test_nothing_else_reads_the_header_and_drf_believes_none():
    """One place decides the client's address: no other code reads X-Forwarded-For (in WSGI or ASGI
    spelling), and DRF's throttles take REMOTE_ADDR as it is (NUM_PROXIES 0)."""
    import re

    from django.conf import settings

    readers = re.compile(r"HTTP_X_FORWARDED_FOR|b[\"']x-forwarded-for[\"']|X-Forwarded-For[\"']\s*[\]),]", re.IGNORECASE)
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("accounts", "games", "freecell_site", "frontend")
        for path in (ROOT / folder).rglob("*.py")
        if path != ROOT / "freecell_site" / "forwarded.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if readers.search(line)
    ]
    assert not found, found
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 0


# --- configuration ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["10.0.0.300", "proxy.internal", "*", "10.0.0.1/8", "10.0.0.0/33", "10.0.0.0/8;192.0.2.1"])
def test_a_bad_network_fails_loudly_naming_the_setting(monkeypatch, value):
    from freecell_site.env import env_networks

    monkeypatch.setenv("FORWARDED_ALLOW_IPS", value)
    with pytest.raises(ImproperlyConfigured, match="FORWARDED_ALLOW_IPS"):
        env_networks("FORWARDED_ALLOW_IPS")


def test_addresses_and_networks_are_read_comma_separated(monkeypatch):
    from freecell_site.env import env_networks

    monkeypatch.setenv("FORWARDED_ALLOW_IPS", " 172.18.0.0/16, 192.0.2.7 ,2001:db8::/32,,")
    assert env_networks("FORWARDED_ALLOW_IPS") == ["172.18.0.0/16", "192.0.2.7/32", "2001:db8::/32"]
    monkeypatch.delenv("FORWARDED_ALLOW_IPS")
    assert env_networks("FORWARDED_ALLOW_IPS") == []


def test_a_bad_setting_changed_at_run_time_fails_rather_than_trusting(settings):
    settings.FORWARDED_ALLOW_IPS = ["10.0.0.0/8"]
    app = ForwardedForMiddleware(lambda scope, receive, send: None)
    settings.FORWARDED_ALLOW_IPS = ["everyone"]
    with pytest.raises(ImproperlyConfigured):
        async_to_sync(app)({"type": "http", "headers": [], "client": ("10.0.0.1", 1)}, None, None)


def test_the_server_refuses_to_start_on_a_bad_network():
    env = {**os.environ, "FORWARDED_ALLOW_IPS": "10.0.0.0/8, 300.1.1.1", "DJANGO_SETTINGS_MODULE": "freecell_site.settings"}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    run = subprocess.run([sys.executable, "-c", "import freecell_site.asgi"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "FORWARDED_ALLOW_IPS" in run.stderr and "300.1.1.1" in run.stderr


def test_no_server_is_started_with_proxy_headers_anywhere():
    """Daphne's --proxy-headers believes X-Forwarded-For from anyone; the middleware replaces it."""
    for path in ["docker-compose.yml", "Dockerfile", "README.md", *[str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")]]:
        text = (ROOT / path).read_text()
        for line in text.splitlines():
            if "daphne" in line and "--proxy-headers" in line:
                raise AssertionError(f"{path}: {line.strip()}")
