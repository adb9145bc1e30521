"""The balancer's own config (deploy/nginx/nginx.conf) run for real: Debian's nginx in front of two Daphne
processes on PostgreSQL and Redis. A race is played through it over websockets, a spoofed
X-Forwarded-For is ignored, an oversized body is refused by nginx, one address cannot hold more than its
share of connections, and a replica killed mid-race leaves its players to reconnect through the
balancer to the other one and finish. Also: docker-compose.yml has the shape the config assumes."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
import yaml

from tests.support.players import PASSWORD
from tests.support.servers import FrameReader, Server, free_port, fresh_database, progress

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "deploy" / "nginx" / "nginx.conf"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
STREAM_MODULE = Path("/usr/lib/nginx/modules/ngx_stream_module.so")


# --- docker-compose.yml --------------------------------------------------------------------------


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_only_the_balancer_publishes_ports_and_it_runs_the_repos_config():
    services = compose()["services"]
    published = {name for name, service in services.items() if service.get("ports")}
    # The monitoring pages (--profile monitoring) are published to the host's loopback only.
    monitoring = {name for name in published if "monitoring" in services[name].get("profiles", [])}
    assert published - monitoring == {"balancer"}, published
    assert all(str(port).startswith("127.0.0.1:") for name in monitoring for port in services[name]["ports"]), monitoring
    balancer = services["balancer"]
    assert balancer["image"].startswith("nginx")
    assert any(volume.startswith("./deploy/nginx/nginx.conf:/etc/nginx/nginx.conf") for volume in balancer["volumes"])
    assert balancer["depends_on"]["web"]["condition"] == "service_healthy" and "healthcheck" in balancer
    assert "expose" not in services["web"] and "network_mode" not in services["web"]


def test_the_replicas_trust_forwarded_headers_from_the_compose_network_only():
    data = compose()
    env = data["services"]["web"]["environment"]
    subnet = data["networks"]["default"]["ipam"]["config"][0]["subnet"]
    assert env["FORWARDED_ALLOW_IPS"] == subnet and subnet.startswith("${COMPOSE_SUBNET:-")
    default = re.search(r":-([^}]+)\}", subnet).group(1)
    from freecell_site.forwarded import parse_networks

    (network,) = parse_networks([default])
    assert network.is_private and network.num_addresses <= 65536
    assert "--proxy-headers" not in data["services"]["web"]["command"]


def test_the_config_names_the_replicas_as_compose_does():
    """The upstream the test replaces is the service compose runs (web, on Daphne's port)."""
    text = CONFIG.read_text()
    (line,) = [line for line in text.splitlines() if re.search(r";\s*#\s*@upstream\s*$", line)]
    port = compose()["services"]["web"]["command"]
    assert "server web:8000 " in line and port[port.index("-p") + 1] == "8000"
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in text and "proxy_add_x_forwarded_for" not in text


# --- the live stack --------------------------------------------------------------------------------

def render(config: str, *, listen: list[int], upstreams: list[int], certs: Path, folder: Path) -> str:
    """The repo's config with the test's ports, replicas, certificates and paths (the markers in it)."""
    ports = iter(listen)
    lines = []
    for line in config.splitlines():
        if re.search(r";\s*#\s*@listen\s*$", line):
            line = re.sub(r"listen\s+\d+", lambda _: f"listen 127.0.0.1:{next(ports)}", line)
        elif re.search(r";\s*#\s*@upstream\s*$", line):
            match = re.match(r"(\s*)server\s+web:8000(\s[^;]*)?;", line)
            assert match, line
            line = "\n".join(f"{match.group(1)}server 127.0.0.1:{port}{match.group(2) or ''};" for port in upstreams)
        elif re.fullmatch(r"\s*#\s*@paths\s*", line):
            line = "\n".join(f"    {name}_temp_path {folder / name};" for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        elif re.fullmatch(r"\s*#\s*@modules\s*", line) and STREAM_MODULE.exists():
            line = f"load_module {STREAM_MODULE};"  # Debian builds it as a module; nginx's image has it built in
        lines.append(line.replace("/etc/nginx/certs/", f"{certs}/").replace("/var/run/nginx-freecell-", f"{folder}/nginx-freecell-"))
    rendered = "\n".join(lines) + "\n"
    assert next(ports, None) is None, "every listen line of the config was given a port"
    return rendered


class Balancer:
    def __init__(self, upstreams: list[int], folder: Path):
        self.folder = folder
        self.port, self.plain_port = free_port(), free_port()
        certs = folder / "certs"
        certs.mkdir()
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
             "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(certs / "privkey.pem"), "-out", str(certs / "fullchain.pem")],
            check=True, capture_output=True, timeout=30,
        )
        self.ca = certs / "fullchain.pem"
        conf = folder / "nginx.conf"
        conf.write_text(render(CONFIG.read_text(), listen=[self.plain_port, self.port], upstreams=upstreams, certs=certs, folder=folder))
        command = [NGINX, "-p", str(folder), "-c", str(conf), "-e", "stderr", "-g", f"daemon off; pid {folder / 'nginx.pid'};"]
        check = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stderr
        self.log_path = folder / "nginx.log"
        self.log = open(self.log_path, "w")  # noqa: SIM115
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT)
        self.origin = f"https://127.0.0.1:{self.port}"
        self.tls = ssl.create_default_context(cafile=str(self.ca))

    def wait_ready(self, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.log_path.read_text()[-2000:]}")
            try:
                if self.call("GET", "/healthz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("nginx did not start")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: the master stops its workers first
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def connection(self, source: str = "127.0.0.1") -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.tls, timeout=15, source_address=(source, 0))

    def call(self, method: str, path: str, body: dict | None = None, token: str | None = None, *, source: str = "127.0.0.1", headers: dict | None = None) -> tuple[int, dict]:
        connection = self.connection(source)
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token:
            sent["Authorization"] = f"Token {token}"
        connection.request(method, path, body=json.dumps(body).encode() if body is not None else None, headers=sent)
        response = connection.getresponse()
        raw = response.read()
        connection.close()
        try:
            return response.status, json.loads(raw or b"{}")
        except ValueError:
            return response.status, {"raw": raw.decode("latin-1")}

    def ws(self, path: str) -> str:
        return f"wss://127.0.0.1:{self.port}{path}"

    def log_tail(self) -> str:
        self.log.flush()
        return "\n".join(self.log_path.read_text().splitlines()[-8:])


@pytest.fixture(scope="module")
def stack():
    folder = Path(tempfile.mkdtemp(prefix="freecell-balancer-"))
    # Run as root, nginx's workers are `nobody`: they must reach the temp paths in here.
    folder.chmod(0o755)
    with fresh_database("freecell_lb") as database:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        env.update(
            DATABASE_URL=database,
            DJANGO_SETTINGS_MODULE="freecell_site.settings",
            # Behind the balancer, as compose sets it: nginx connects from loopback here.
            FORWARDED_ALLOW_IPS="127.0.0.1",
            RACE_COUNTDOWN_S="0",
            FAIR_PLAY_REVIEW="0",  # the racers play a solver's line at machine speed
            LOG_LEVEL="WARNING",
            ACTIONS_PER_SECOND="0",
            WS_MOVE_BURST="1000",
            WS_MOVE_RATE="1000",
            THROTTLE_USER="100000/min",
            THROTTLE_ANON="100000/min",
            LOGIN_NETWORK_FAILURES="10",  # 100 by default: the spoofing test below needs fewer guesses
        )
        replicas = [Server(env, log_dir=folder) for _ in range(2)]
        balancer = None
        try:
            for replica in replicas:
                replica.wait_ready()
            balancer = Balancer([replica.port for replica in replicas], folder)
            balancer.wait_ready()
            yield balancer, replicas
        finally:
            if balancer is not None:
                balancer.stop()
            for replica in replicas:
                replica.stop()
    shutil.rmtree(folder, ignore_errors=True)


def register(balancer: Balancer, username: str) -> str:
    status, body = balancer.call("POST", "/api/auth/register/", {"username": username, "password": PASSWORD})
    assert status == 201, body
    return body["token"]


def wait_for_a_fresh_minute(margin: float = 15) -> None:
    """The login throttle counts per calendar minute: a test that ran across a minute's end would see
    its counts start again."""
    left = 60 - time.time() % 60
    if left < margin:
        time.sleep(left + 0.2)


@pytest.mark.services
@pytest.mark.timeout(150)
@pytest.mark.skipif(NGINX is None, reason="needs Debian's nginx (apt-get install nginx)")
class TestThroughTheBalancer:
    def test_a_spoofed_x_forwarded_for_is_ignored_and_the_app_sees_the_address_nginx_saw(self, stack):
        """An attacker (127.0.0.2) rotates X-Forwarded-For through the balancer: nginx overwrites it with
        the address it saw, so the app judges 10 guesses and refuses the rest. Another client
        (127.0.0.3) is its own address: it is not limited. 127.0.0.1, nginx's own, is the only
        trusted proxy."""
        balancer, _ = stack
        register(balancer, "lb_victim")
        register(balancer, "lb_bystander")
        wait_for_a_fresh_minute()
        answers = [
            balancer.call("POST", "/api/auth/token/", {"username": "lb_victim", "password": f"guess {i}"}, source="127.0.0.2", headers={"X-Forwarded-For": f"198.51.100.{i}"})[0]
            for i in range(15)
        ]
        assert answers == [401] * 10 + [429] * 5, answers
        # Not even the right password, from the attacker's address, for another account.
        assert balancer.call("POST", "/api/auth/token/", {"username": "lb_bystander", "password": PASSWORD}, source="127.0.0.2", headers={"X-Forwarded-For": "192.0.2.1"})[0] == 429
        # A client at another address, claiming the attacker's: its own address, and it is let in.
        status, body = balancer.call("POST", "/api/auth/token/", {"username": "lb_bystander", "password": PASSWORD}, source="127.0.0.3", headers={"X-Forwarded-For": "127.0.0.2"})
        assert status == 200 and body["token"], body

    def test_an_oversized_body_is_refused_by_the_balancer(self, stack):
        balancer, _ = stack
        connection = balancer.connection()
        connection.putrequest("POST", "/api/auth/register/")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", str(8 * 1024 * 1024))
        connection.endheaders()  # the body is never sent: nginx answers from the length alone
        response = connection.getresponse()
        page = response.read().decode("latin-1")
        connection.close()
        # nginx's own answer, in the API's error shape (it was nginx's HTML page).
        assert response.status == 413 and response.getheader("Content-Type") == "application/json", page[:300]
        assert json.loads(page)["error"]["code"] == "too_large" and response.getheader("Retry-After") is None
        # A chunked body without a length is cut off at the cap too.
        connection = balancer.connection()
        connection.putrequest("POST", "/api/auth/register/")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Transfer-Encoding", "chunked")
        connection.endheaders()
        chunk = b"x" * 65536
        try:
            for _ in range(64):  # 4 MB
                connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            connection.send(b"0\r\n\r\n")
        except OSError:
            pass  # nginx may answer and close before the upload ends
        response = connection.getresponse()
        assert response.status == 413, (response.status, balancer.log_tail())
        connection.close()
        # A body under the cap reaches the application, which answers in its own shape.
        status, body = balancer.call("POST", "/api/auth/register/", {"username": "x" * 100, "password": "p" * (1024 * 1024)})
        assert status == 400 and body["error"]["code"] == "invalid_request", (status, str(body)[:200])

    def test_one_address_cannot_hold_more_requests_than_its_share(self, stack):
        """limit_conn at the HTTP stage: an address holding its share of requests open (headers sent,
        body awaited: nginx holds them itself, no replica sees them) has its next ones refused with 429
        in the API's error shape, while another address is served meanwhile. The share has room for a
        school behind one NAT address (64 refused 26 of 90 players their socket)."""
        balancer, _ = stack
        share = config_limit("limit_conn per_client")
        assert share >= 200
        held = []
        try:
            for _ in range(share + 6):
                raw = balancer.tls.wrap_socket(socket.create_connection(("127.0.0.1", balancer.port), timeout=10), server_hostname="127.0.0.1")
                raw.sendall(b"POST /api/auth/token/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
                held.append(raw)
            time.sleep(0.5)  # the refused have their answer by then; the held still wait for their bodies
            statuses = [answer_now(raw) for raw in held]
            assert balancer.call("GET", "/api/ping/", source="127.0.0.4")[0] == 200
        finally:
            for raw in held:
                raw.close()
        assert statuses.count(None) == share and statuses.count(429) == 6, statuses

    def test_idle_connections_of_one_address_are_bounded_before_any_request(self, stack):
        """Issue 41, H3: one address held 14,800 idle TCP connections on :443 (the HTTP stage counts
        only connections with a request). The stream stage counts from accept: past its share, a
        connection is closed at once, unread, and another address is still served."""
        balancer, _ = stack
        share = config_limit("limit_conn connections_per_client")
        assert share >= 300  # a school's NAT: 100 players, their sockets and kept-alive connections
        idle = []
        try:
            for _ in range(share + 20):
                idle.append(socket.create_connection(("127.0.0.1", balancer.port), timeout=10, source_address=("127.0.0.5", 0)))
            time.sleep(1.0)
            closed = [closed_by_peer(raw) for raw in idle]
            assert balancer.call("GET", "/api/ping/", source="127.0.0.6")[0] == 200
        finally:
            for raw in idle:
                raw.close()
        # Which 20 are closed is the order nginx's workers accepted them in, which is not quite the
        # order they were opened in (two workers accept side by side): the count is what is bounded.
        assert closed.count(True) == 20, closed.count(True)

    def test_nginxs_own_answers_are_the_apis_json_errors(self, stack):
        """405 and 429 (and 413, above; 502, below) were nginx's HTML pages."""
        balancer, _ = stack
        connection = balancer.connection()
        connection.request("TRACE", "/api/ping/")
        response = connection.getresponse()
        body = json.loads(response.read())
        connection.close()
        assert response.status == 405 and body["error"]["code"] == "method_not_allowed", body
        # The application's own errors pass through as they are.
        status, body = balancer.call("GET", "/api/games/999999999/")
        assert status in (401, 404) and body["error"]["code"] in ("not_authenticated", "not_found"), body

    def test_a_race_through_the_balancer_survives_a_replica_killed_mid_race(self, stack):
        balancer, replicas = stack
        from games.engine import Board
        from games.engine.solver import solve

        solution = solve(Board.from_deal("ms:1"), autoplay="safe", budget=30)
        assert solution.result == "solved"
        line = [str(move) for move in solution.moves]
        tokens = {name: register(balancer, name) for name in ("lb_alice", "lb_bob")}
        status, race = balancer.call("POST", "/api/races/", {"deal": "ms:1", "autoplay": "safe"}, tokens["lb_alice"])
        assert status == 201, race
        code = race["code"]
        assert balancer.call("POST", f"/api/races/{code}/join/", token=tokens["lb_bob"])[0] == 200

        async def scenario():
            alice = await Racer.join(balancer, code, "lb_alice", tokens["lb_alice"])
            bob = await Racer.join(balancer, code, "lb_bob", tokens["lb_bob"])
            racers = [alice, bob]
            await alice.send({"type": "start", "id": "go"})
            for racer in racers:
                await racer.until(lambda f: f["type"] == "race" and f["race"]["status"] == "running")
                racer.game = (await racer.until(lambda f: f["type"] == "state"))["game"]
            # Half of each line, each move seen by the rival through Redis.
            for racer in racers:
                await racer.play(line, len(line) // 2)
            await bob.until(progress("lb_alice", len(line) // 2))

            # Kill -9 the replica holding the most of the racers' sockets.
            on = established_by_port([replica.port for replica in replicas])
            assert sum(on.values()) == 2, on
            victim = max(replicas, key=lambda replica: on[replica.port])
            survivor = next(replica for replica in replicas if replica is not victim)
            victim.process.kill()
            victim.process.wait()
            assert balancer.call("GET", f"/api/races/{code}/")[1]["status"] == "running"

            reconnected = 0
            for racer in racers:
                if not await racer.alive():
                    await racer.reconnect()
                    reconnected += 1
            assert reconnected == on[victim.port] >= 1
            assert established_by_port([survivor.port])[survivor.port] == 2, "every socket is on the survivor"

            for racer in racers:
                await racer.play(line, len(line))
            finished = await alice.until(lambda f: f["type"] == "race" and f["race"]["status"] == "finished", timeout=15)
            for racer in racers:
                await racer.ws.close()
            return finished["race"]

        finished = asyncio.run(scenario())
        ranks = {r["username"]: (r["status"], r["rank"], r["moves"]) for r in finished["racers"]}
        assert ranks["lb_alice"] == ("won", 1, len(line)) and ranks["lb_bob"] == ("won", 2, len(line)), ranks
        # And REST through the balancer (to the surviving replica) agrees.
        status, race = balancer.call("GET", f"/api/races/{code}/")
        assert status == 200 and race["status"] == "finished"

    def test_after_both_replicas_restart_the_balancer_sends_to_them_at_once(self, stack):
        """Issue 41: after both replicas restarted, nginx answered 502 for about 10 s after they were
        back (fail_timeout=10s: once every replica is marked failed, nginx tries none until it ends).
        Runs last: it stops the replicas. While none runs, the answer is a JSON 502; then stand-ins
        for them start listening on their ports the moment both are marked failed, and the balancer
        must send to them within about fail_timeout (1 s), not 10 s."""
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        balancer, replicas = stack
        for replica in replicas:
            replica.stop()

        class Back(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the standard library's name)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args):
                pass

        status, body = balancer.call("GET", "/api/ping/")
        assert status == 502 and body["error"]["code"] == "unavailable", (status, body)
        balancer.call("GET", "/api/ping/")  # every replica is now marked failed
        stand_ins = [ThreadingHTTPServer(("127.0.0.1", replica.port), Back) for replica in replicas]
        for server in stand_ins:
            threading.Thread(target=server.serve_forever, daemon=True).start()
        back = time.monotonic()
        try:
            while balancer.call("GET", "/api/ping/")[0] != 200:
                assert time.monotonic() - back < 15, "nginx never sent to the replicas that came back"
                time.sleep(0.1)
            waited = time.monotonic() - back
        finally:
            for server in stand_ins:
                server.shutdown()
                server.server_close()
        assert waited < 2.5, f"502 for {waited:.1f} s after the replicas were back"

def answer_now(raw: ssl.SSLSocket) -> int | None:
    """The status of an answer already received on `raw`, or None. Non-blocking: TLS 1.3 session
    tickets make a socket readable with no answer on it."""
    raw.setblocking(False)
    try:
        return int(raw.recv(64).split()[1])
    except (ssl.SSLWantReadError, BlockingIOError):
        return None


def config_limit(directive: str) -> int:
    """The number a `directive <zone> <number>;` line of the config sets."""
    (number,) = re.findall(rf"^\s*{re.escape(directive)}\s+(\d+);", CONFIG.read_text(), flags=re.M)
    return int(number)


def closed_by_peer(raw: socket.socket) -> bool:
    """Whether the other end has closed `raw` (non-blocking)."""
    raw.setblocking(False)
    try:
        return raw.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True


def established_by_port(ports: list[int]) -> dict[int, int]:
    """Established TCP connections whose local port is one of `ports` (the replicas' side of nginx's
    connections), from the kernel's tables. Waits a moment for closed HTTP connections to go."""
    def count() -> dict[int, int]:
        found = dict.fromkeys(ports, 0)
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                rows = Path(table).read_text().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                fields = row.split()
                port = int(fields[1].rsplit(":", 1)[1], 16)
                if fields[3] == "01" and port in found:
                    found[port] += 1
        return found

    last, stable_since = None, time.monotonic()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        now = count()
        if now != last:
            last, stable_since = now, time.monotonic()
        elif time.monotonic() - stable_since > 0.5:
            break
        time.sleep(0.1)
    return last


class Racer(FrameReader):
    """A racer's race socket through the balancer, keeping unread frames."""

    def __init__(self, balancer: Balancer, code: str, name: str, token: str):
        super().__init__()
        self.balancer, self.code, self.name, self.token = balancer, code, name, token
        self.label = name
        self.game: dict | None = None

    @classmethod
    async def join(cls, balancer, code, name, token) -> Racer:
        racer = cls(balancer, code, name, token)
        await racer.connect()
        return racer

    async def connect(self) -> None:
        from websockets.asyncio.client import connect

        self.frames = []
        self.ws = await connect(self.balancer.ws(f"/ws/races/{self.code}/"), origin=self.balancer.origin, ssl=self.balancer.tls, open_timeout=10)
        await self.send({"type": "auth", "token": self.token})
        await self.until(lambda f: f["type"] == "auth_ok")

    async def reconnect(self) -> None:
        await self.connect()
        self.game = (await self.until(lambda f: f["type"] == "state"))["game"]

    async def alive(self) -> bool:
        """Whether the socket still answers (a socket on a killed replica is closed by nginx)."""
        from websockets.exceptions import ConnectionClosed

        probe = secrets.token_hex(4)
        try:
            await self.send({"type": "ping", "id": probe})
            await self.until(lambda f: f["type"] == "pong" and f.get("id") == probe, timeout=5)
            return True
        except (ConnectionClosed, AssertionError, OSError):
            return False

    async def play(self, line: list[str], upto: int) -> None:
        """Plays the line from the game's ply up to move `upto`, each move acknowledged."""
        ply = self.game["ply"]
        for index in range(ply, upto):
            await self.send({"type": "move", "move": line[index], "ply": index, "client_id": f"{self.name}-{index}"})
            ack = await self.until(lambda f: f["type"] in ("ack", "error"))
            assert ack["type"] == "ack" and ack["ply"] == index + 1, ack
        self.game = {**self.game, "ply": upto}
