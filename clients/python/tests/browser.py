"""A scripted browser for the sign-in tests: cookies, Django's CSRF token, redirects followed (to the
command line's loopback listener too), and a player's answer on the OAuth consent page."""

from __future__ import annotations

import http.cookiejar
import urllib.request
from html.parser import HTMLParser
from urllib.parse import urlencode, urljoin


class _Forms(HTMLParser):
    """The hidden inputs of the page, and the action of its form holding them."""

    def __init__(self):
        super().__init__()
        self.hidden: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if tag == "input" and found.get("type") == "hidden" and found.get("name"):
            self.hidden[found["name"]] = found.get("value") or ""


def hidden_fields(html: str) -> dict[str, str]:
    parser = _Forms()
    parser.feed(html)
    return parser.hidden


class Browser:
    def __init__(self, base_url: str):
        self.base_url = base_url
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        self.url = base_url

    def open(self, url: str, form: dict | None = None) -> str:
        data = urlencode(form).encode() if form is not None else None
        with self.opener.open(urljoin(self.base_url, url), data=data, timeout=30) as answer:
            self.url = answer.geturl()
            return answer.read().decode()

    def sign_in(self, username: str, password: str) -> None:
        page = self.open("/login/")
        self.open("/login/", {**hidden_fields(page), "username": username, "password": password})

    def answer_consent(self, page: str, *, allow: bool) -> str:
        """Sends the consent form (Allow, or Deny); the page the browser lands on after the redirects."""
        form = hidden_fields(page)
        assert "code_challenge" in form and "csrfmiddlewaretoken" in form, page[:2000]
        if allow:
            form["allow"] = "on"
        return self.open("/oauth/authorize/", form)
