"""The OAuth consent in Chromium (docs/tokens.md): a player signs up on the way, allows an app, and the
browser really reaches the app's loopback listener (the page's Content-Security-Policy lets the form's
redirect leave the site); the code then trades for a working token. axe finds nothing on the page."""

from __future__ import annotations

import http.server
import json
import threading
import urllib.parse
import urllib.request

import pytest

from tests.support.browser import new_tab
from tests.test_oauth import pkce

pytestmark = [pytest.mark.browser, pytest.mark.slow]


class Listener(http.server.HTTPServer):
    """The app's side: a listener on 127.0.0.1 that keeps the query it is called with."""

    def __init__(self):
        self.answers: list[dict] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(handler):  # noqa: N802, N805 (http.server's names; the server is `self` here)
                asked = urllib.parse.urlsplit(handler.path)
                if asked.path == "/callback":  # not the browser's own asks (its favicon)
                    self.answers.append({k: v[0] for k, v in urllib.parse.parse_qs(asked.query).items()})
                page = b"<!doctype html><title>my app</title><p>Thanks"
                handler.send_response(200)
                handler.send_header("Content-Type", "text/html")
                handler.send_header("Content-Length", str(len(page)))
                handler.end_headers()
                handler.wfile.write(page)

            def log_message(handler, *args):  # noqa: N805
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/callback"


def axe_violations(page) -> list:
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, options={"resultTypes": ["violations"]}).response["violations"]
    return [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in found]


def test_a_player_allows_an_app_in_the_browser(browser, site):
    app = Listener()
    try:
        verifier, challenge = pkce()
        query = urllib.parse.urlencode(
            {
                "response_type": "code", "client_id": "browser-bot", "redirect_uri": app.redirect_uri,
                "code_challenge": challenge, "code_challenge_method": "S256", "scope": "read play", "state": "st-1",
            }
        )
        tab = new_tab(browser, site)
        page = tab.page
        tab.goto(f"/oauth/authorize/?{query}")
        page.wait_for_url("**/login/**")  # a visitor signs in (or up) first
        page.click("text=Create an account")
        page.fill("input[name=username]", "oauthplayer")
        page.fill("input[name=password]", "correct horse battery staple")
        page.fill("input[name=password2]", "correct horse battery staple")
        page.click("form.stack button[type=submit]")
        page.wait_for_selector("[data-testid=oauth-allow]")  # back on the consent page
        assert page.inner_text("[data-testid=oauth-client]") == "browser-bot"
        assert axe_violations(page) == []
        page.click("[data-testid=oauth-allow]")
        page.wait_for_url(app.redirect_uri + "?**")
        assert len(app.answers) == 1 and app.answers[0]["state"] == "st-1"
        body = urllib.parse.urlencode(
            {"grant_type": "authorization_code", "code": app.answers[0]["code"], "code_verifier": verifier,
             "redirect_uri": app.redirect_uri, "client_id": "browser-bot"}
        ).encode()
        with urllib.request.urlopen(urllib.request.Request(site.url("/oauth/token/"), data=body), timeout=15) as answer:
            token = json.loads(answer.read())
        assert token["scope"] == "read play" and token["token_type"] == "Bearer"
        me = urllib.request.Request(site.url("/api/me/"), headers={"Authorization": f"Bearer {token['access_token']}"})
        with urllib.request.urlopen(me, timeout=15) as answer:
            assert json.loads(answer.read())["username"] == "oauthplayer"
        tab.assert_clean()
    finally:
        app.shutdown()
        app.server_close()
