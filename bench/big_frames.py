"""What 1 MB websocket frames from one client cost a Daphne (issue 41, H2), before and after, in one run.

Two phases, each on a fresh Daphne process (SQLite, the in-memory channel layer), each with its own
quiet baseline (the same process, no flood):

- before: Daphne's defaults (1 MiB messages) and no limit on oversized frames (the socket limits
  off and WS_OVERSIZED_FRAMES=0: every frame over 4 KiB answered `too_large`, as the code was);
- after: the serving options of freecell_site/serving.py (16 KiB messages) and the default limits.

In each, `--sockets` sockets on one deal's records socket send 1 MB text frames as fast as the server
reads them for `--seconds`, reopening a socket the server closes; meanwhile another client pings on
its own socket every 0.1 s. Printed: the server's CPU seconds (from /proc), frames sent, sockets the
server closed, and the other client's ping round trip p50/p99.

    .venv/bin/python -m bench.big_frames --sockets 10 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench._server import ROOT, free_port, percentile
from freecell_site.serving import DAPHNE_OPTIONS

FRAME = "x" * 1_000_000


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start(env: dict, options: list[str]) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), *options, "freecell_site.asgi:application"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
            return proc, port
        except Exception:
            if time.time() > deadline:
                raise RuntimeError("daphne did not start") from None
            time.sleep(0.2)


async def pings(url: str, origin: str, seconds: float) -> list[float]:
    from websockets.asyncio.client import connect

    waits = []
    async with connect(url, origin=origin) as ws:
        end = time.monotonic() + seconds
        n = 0
        while time.monotonic() < end:
            n += 1
            started = time.perf_counter()
            await ws.send(json.dumps({"type": "ping", "id": n}))
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if frame.get("id") == n:
                    break
            waits.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.1)
    return waits


async def pinger(url: str, origin: str, seconds: float) -> list[float]:
    """pings() for `seconds`, on a new socket whenever the server closes one (counted as a wait of 10 s)."""
    from websockets.exceptions import ConnectionClosed

    waits: list[float] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            waits += await pings(url, origin, end - time.monotonic())
        except (ConnectionClosed, OSError, TimeoutError):
            waits.append(10_000.0)
    return waits


async def flooder(url: str, origin: str, end: float, counts: dict) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    while time.monotonic() < end:
        try:
            async with connect(url, origin=origin, max_size=None, local_addr=("127.0.0.2", 0), open_timeout=5) as ws:
                reader = asyncio.create_task(drain(ws))
                while time.monotonic() < end:
                    await ws.send(FRAME)
                    counts["sent"] += 1
                reader.cancel()
        except (ConnectionClosed, InvalidStatus, OSError, TimeoutError):
            counts["closed"] += 1
            await asyncio.sleep(0.05)


async def drain(ws) -> None:
    try:
        async for _ in ws:
            pass
    except Exception:  # the server closed or dropped the socket: the sender sees it too
        pass


async def phase(port: int, pid: int, sockets: int, seconds: float) -> dict:
    url, origin = f"ws://127.0.0.1:{port}/ws/deals/ms:1/records/", f"http://127.0.0.1:{port}"
    cpu = cpu_seconds(pid)
    quiet = await pinger(url, origin, seconds / 2)
    quiet_cpu = cpu_seconds(pid) - cpu
    counts = {"sent": 0, "closed": 0}
    end = time.monotonic() + seconds
    cpu = cpu_seconds(pid)
    floods = [asyncio.create_task(flooder(url, origin, end, counts)) for _ in range(sockets)]
    loud = await pinger(url, origin, seconds)
    await asyncio.gather(*floods, return_exceptions=True)
    return {
        "quiet ping p50/p99 ms": (round(percentile(quiet, 50), 1), round(percentile(quiet, 99), 1)),
        "quiet CPU s": round(quiet_cpu, 2),
        "flood CPU s": round(cpu_seconds(pid) - cpu, 2),
        "1 MB frames sent": counts["sent"],
        "sockets closed": counts["closed"],
        "flood ping p50/p99 ms": (round(percentile(loud, 50), 1), round(percentile(loud, 99), 1)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="freecell-bigframes-"))
    env = {
        **os.environ, "SQLITE_PATH": str(folder / "db.sqlite3"), "DATABASE_URL": "", "REDIS_URL": "", "DEBUG": "0",
        "SECURE_SSL_REDIRECT": "0", "SECRET_KEY": "bench-" + "x" * 50, "ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "ERROR",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    before_env = {**env, "WS_OVERSIZED_FRAMES": "0", "WS_ADDRESS_FRAME_BURST": "0", "WS_ACCOUNT_FRAME_BURST": "0",
                  "WS_ADDRESS_OPEN_BURST": "0", "WS_SOCKETS_PER_ADDRESS": "0"}
    for name, phase_env, options in (("before", before_env, []), ("after", env, DAPHNE_OPTIONS)):
        proc, port = start(phase_env, options)
        try:
            print(name, asyncio.run(phase(port, proc.pid, args.sockets, args.seconds)), flush=True)
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
