"""The options Daphne serves the project with (Dockerfile, docker-compose.yml, the test servers).

- `--websocket-max-message-size`, `--websocket-max-frame-size` 16384: no client frame of the protocol
  is over 4,096 bytes (games/sockets/frames.py answers those `too_large`); autobahn refuses a larger
  frame from its header, before reading its payload, and drops the connection. Daphne's default of
  1 MiB let each 1 MB frame be read, decoded and handed to the application (issue 41, H2).
- `--websocket_connect_timeout` 5: seconds a websocket handshake may take once the upgrade began.

Daphne's `--http-timeout` is not set: it bounds how long the application takes to answer (a 503
after it), which would cut the held-open streams (`/api/stream/`); slow headers and bodies are the
balancer's to bound (deploy/nginx/nginx.conf), and freecell_site/daphne_requests.py bounds them for a
Daphne reached directly.
"""

from __future__ import annotations

WEBSOCKET_MAX_MESSAGE_BYTES = 16384

DAPHNE_OPTIONS = [
    "--websocket-max-message-size", str(WEBSOCKET_MAX_MESSAGE_BYTES),
    "--websocket-max-frame-size", str(WEBSOCKET_MAX_MESSAGE_BYTES),
    "--websocket_connect_timeout", "5",
]
