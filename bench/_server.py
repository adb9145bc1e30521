"""Benchmark helpers: a fresh PostgreSQL database, Daphne processes on free ports, percentiles."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
REDIS = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379/3")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fresh_database(name: str) -> str:
    """Drops and creates database `name`, migrates it, returns its URL."""
    subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", "--force", name], check=True)
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", name], check=True)
    url = f"{PG}/{name}"
    env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": REDIS}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    return url


def server_env(database_url: str, **extra: str) -> dict:
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": REDIS,
        "DEBUG": "0",
        "SECURE_SSL_REDIRECT": "0",
        "SECRET_KEY": "bench-" + "x" * 50,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LOG_LEVEL": "WARNING",
        "THROTTLE_ANON": "1000000/min",
        "THROTTLE_USER": "1000000/min",
        "THROTTLE_VERIFY": "1000000/min",
        "ACTIONS_PER_SECOND": "0",
        **extra,
    }


@contextlib.contextmanager
def daphne(env: dict, count: int = 1, app: str = "freecell_site.asgi:application"):
    """Starts `count` Daphne processes serving `app`; yields their ports; stops them."""
    ports = [free_port() for _ in range(count)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), app],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for port in ports
    ]
    try:
        for port in ports:
            deadline = time.time() + 30
            while True:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
                    break
                except Exception:
                    if time.time() > deadline:
                        raise RuntimeError(f"daphne on {port} did not start") from None
                    time.sleep(0.2)
        yield ports, procs
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]
