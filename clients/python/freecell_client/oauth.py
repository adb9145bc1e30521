"""Signing in through the browser: OAuth 2.0 authorization code with PKCE (S256), the code received by a
listener on the loopback address (RFC 8252), so no password passes through the program."""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import secrets
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

from freecell_client.errors import ApiError

#: What this program calls itself on the consent page and in the player's list of tokens.
CLIENT_ID = "freecell-cli"
#: What the command line does: read, play, race (not the account: it makes no tokens by default).
DEFAULT_SCOPES = ("read", "play", "race")
CALLBACK_PATH = "/callback"
#: How long the listener waits for the player to answer the consent page.
WAIT_S = 300.0

DONE_PAGE = """<!doctype html><meta charset="utf-8"><title>FreeCell Online</title>
<p>{message}</p><p>You can close this tab and go back to the terminal.</p>"""


@dataclass
class Grant:
    """The token endpoint's answer: `access_token`, `scope` (space-separated), `expires_in` seconds."""

    access_token: str
    scope: str
    expires_in: int | None
    token_type: str = "Bearer"


def challenge_of(verifier: str) -> str:
    """The S256 code_challenge of a code_verifier: base64url of its SHA-256, unpadded (RFC 7636 4.2)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def pkce_pair() -> tuple[str, str]:
    """A code_verifier (256 random bits) and its S256 code_challenge (RFC 7636)."""
    verifier = secrets.token_urlsafe(32)
    return verifier, challenge_of(verifier)


def authorize_url(base_url: str, *, redirect_uri: str, challenge: str, state: str, scopes, client_id: str = CLIENT_ID) -> str:
    query = urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "scope": " ".join(scopes),
            "state": state,
        }
    )
    return f"{base_url.rstrip('/')}/oauth/authorize/?{query}"


class _Listener(http.server.HTTPServer):
    """A one-shot HTTP server on 127.0.0.1 that keeps the query of the first request to the callback path."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _CallbackHandler)
        self.answer: dict[str, str] | None = None
        self.arrived = threading.Event()


class _CallbackHandler(http.server.BaseHTTPRequestHandler):
    server: _Listener

    def do_GET(self):  # noqa: N802 (http.server's name)
        parts = urlsplit(self.path)
        if parts.path != CALLBACK_PATH or self.server.answer is not None:
            self.send_error(404)
            return
        self.server.answer = {key: values[0] for key, values in parse_qs(parts.query).items()}
        message = "Signed in." if "code" in self.server.answer else "Sign-in refused: " + self.server.answer.get("error", "no code")
        page = DONE_PAGE.format(message=message).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)
        self.server.arrived.set()

    def log_message(self, format, *args):  # noqa: A002 (http.server's signature)
        pass  # the terminal is the player's, not a log


def exchange(base_url: str, *, code: str, verifier: str, redirect_uri: str, client_id: str = CLIENT_ID, timeout: float = 15.0) -> Grant:
    """Trades the code and its verifier at `/oauth/token/`; an OAuth error raises ApiError with its code."""
    body = urlencode(
        {"grant_type": "authorization_code", "code": code, "code_verifier": verifier, "redirect_uri": redirect_uri, "client_id": client_id}
    ).encode()
    request = urllib.request.Request(
        f"{base_url.rstrip('/')}/oauth/token/", data=body, method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            data = json.loads(answer.read())
    except urllib.error.HTTPError as error:
        try:
            data = json.loads(error.read())
        except ValueError:
            data = {}
        raise ApiError(error.code, str(data.get("error", "http_error")), str(data.get("error_description") or data.get("error") or error.reason), data) from None
    except (urllib.error.URLError, OSError) as error:
        raise ApiError(0, "network_error", str(getattr(error, "reason", error))) from None
    return Grant(access_token=data["access_token"], scope=data.get("scope", ""), expires_in=data.get("expires_in"), token_type=data.get("token_type", "Bearer"))


def sign_in(
    base_url: str,
    *,
    scopes=DEFAULT_SCOPES,
    show: Callable[[str], None],
    open_browser: Callable[[str], bool] | None = None,
    wait_s: float = WAIT_S,
    client_id: str = CLIENT_ID,
) -> Grant:
    """Listens on a free loopback port, shows the consent link (`show`) and opens it (`open_browser`,
    when given), waits for the browser to come back with the code, then trades it for a token."""
    verifier, challenge = pkce_pair()
    state = secrets.token_urlsafe(16)
    listener = _Listener()
    redirect_uri = f"http://127.0.0.1:{listener.server_address[1]}{CALLBACK_PATH}"
    url = authorize_url(base_url, redirect_uri=redirect_uri, challenge=challenge, state=state, scopes=scopes, client_id=client_id)
    thread = threading.Thread(target=listener.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        show(url)
        if open_browser is not None:
            open_browser(url)
        deadline = time.monotonic() + wait_s
        while not listener.arrived.wait(timeout=0.2):
            if time.monotonic() > deadline:
                raise ApiError(0, "timeout", f"no answer from the browser in {wait_s:.0f} s")
    finally:
        listener.shutdown()
        listener.server_close()
    answer = listener.answer or {}
    if answer.get("state") != state:
        raise ApiError(0, "invalid_state", "the browser came back with another sign-in's state: try again")
    if "error" in answer:
        raise ApiError(0, answer["error"], answer.get("error_description") or "the sign-in was refused in the browser", answer)
    return exchange(base_url, code=answer["code"], verifier=verifier, redirect_uri=redirect_uri, client_id=client_id)
