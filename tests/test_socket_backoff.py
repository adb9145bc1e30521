"""The page's LiveSocket (frontend/static/frontend/js/socket.js) under Node, with a fake WebSocket: a
socket the server refuses for its client's limits (close code 4429, after the open) backs off."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOCKET_JS = ROOT / "frontend" / "static" / "frontend" / "js" / "socket.js"

# Stands in for the browser: window, document, location, timers that only record their delays, and a
# WebSocket the script opens and closes with the code it is given.
SCRIPT = """
const delays = [];
globalThis.window = { addEventListener() {} };
globalThis.document = { addEventListener() {}, visibilityState: "visible" };
globalThis.location = { protocol: "http:", host: "testserver" };
globalThis.setInterval = () => 0;
globalThis.clearTimeout = () => {};
globalThis.setTimeout = (fn, delay) => { delays.push(delay); return 0; };
const sockets = [];
globalThis.WebSocket = class {
  constructor() { this.listeners = {}; sockets.push(this); }
  addEventListener(kind, fn) { this.listeners[kind] = fn; }
  fire(kind, event = {}) { this.listeners[kind]?.(event); }
  close() {}
};
const { LiveSocket } = await import(process.argv[1]);
const live = new LiveSocket("/ws/games/1/", {});
for (const code of JSON.parse(process.argv[2])) {
  live.connect();
  const ws = sockets.at(-1);
  ws.fire("open");
  if (code === "state") {
    ws.fire("message", { data: JSON.stringify({ type: "state" }) });
    ws.fire("close", { code: 1006 });
  } else {
    ws.fire("message", { data: JSON.stringify({ type: "error", code: "rate_limited" }) });
    ws.fire("close", { code });
  }
}
console.log(JSON.stringify(delays));
"""


def delays_after(closes: list) -> list[int]:
    done = subprocess.run(
        ["node", "--input-type=module", "-e", SCRIPT, SOCKET_JS.as_uri(), json.dumps(closes)],
        capture_output=True, text=True, timeout=30, check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_a_socket_refused_for_its_limits_backs_off_and_a_served_one_starts_again():
    refused = delays_after([4429] * 5)
    bases = [500 * 2**n for n in range(1, 6)]  # 1 s, 2 s, 4 s, 8 s, 16 s, with +-25% jitter
    assert all(0.75 * base <= delay <= 1.25 * base for delay, base in zip(refused, bases, strict=True)), refused
    # A socket that was served (a state frame) and then dropped starts again from 0.5 s.
    served = delays_after([4429, 4429, "state"])
    assert 0.75 * 500 <= served[-1] <= 1.25 * 500, served
