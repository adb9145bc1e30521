"""OAuth 2.0 for apps of other developers (docs/tokens.md, "Apps of other developers"): the consent page, the code with PKCE S256,
any client_id, the token an app gets working, listed and revoked like any other, and RFC 6749's
errors."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import secrets
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.test import Client

from accounts.models import AccessToken
from accounts.scopes import PLAY, READ
from tests.support.players import code_of
from tests.support.tokens import client_with

REDIRECT = "http://127.0.0.1:53682/callback"


def pkce() -> tuple[str, str]:
    """A code_verifier and its S256 code_challenge (RFC 7636)."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize_url(challenge: str, **changes) -> str:
    params = {
        "response_type": "code",
        "client_id": "my-bot",
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "scope": "read play",
        "state": "s-123",
    }
    params.update(changes)
    return "/oauth/authorize/?" + urlencode({k: v for k, v in params.items() if v is not None})


class HiddenFields(HTMLParser):
    def __init__(self):
        super().__init__()
        self.fields = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("type") == "hidden":
            self.fields[attrs["name"]] = attrs.get("value") or ""


def hidden_fields(html: str) -> dict:
    parser = HiddenFields()
    parser.feed(html)
    return parser.fields


def page_of(user) -> Client:
    page = Client()
    page.force_login(user)
    return page


def consent(page: Client, url: str, *, allow: bool = True):
    """Opens the consent page and answers it as the player would; the answer's redirect."""
    shown = page.get(url)
    assert shown.status_code == 200, shown.content
    fields = hidden_fields(shown.content.decode())
    if allow:
        fields["allow"] = "on"
    answer = page.post("/oauth/authorize/", fields)
    assert answer.status_code == 302, answer.content
    return answer


def query_of(location: str) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def exchange(the_code: str, verifier: str, **changes):
    body = {"grant_type": "authorization_code", "code": the_code, "code_verifier": verifier, "redirect_uri": REDIRECT, "client_id": "my-bot"}
    body.update(changes)
    return Client().post("/oauth/token/", urlencode({k: v for k, v in body.items() if v is not None}), content_type="application/x-www-form-urlencoded")


def code_for(user, verifier_challenge=None, **changes) -> tuple[str, str]:
    verifier, challenge = verifier_challenge or pkce()
    answer = consent(page_of(user), authorize_url(challenge, **changes))
    location = answer["Location"]
    uri = changes.get("redirect_uri", REDIRECT)
    assert location.startswith(uri + ("&" if "?" in uri else "?")), location
    query = query_of(location)
    assert query["state"] == "s-123"
    return query["code"], verifier


# --- the flow -------------------------------------------------------------------------------------


def test_an_app_gets_a_token_of_ours_with_the_granted_scopes(alice):
    verifier, challenge = pkce()
    page = page_of(alice)
    shown = page.get(authorize_url(challenge))
    html = shown.content.decode()
    assert shown.status_code == 200
    assert 'data-testid="oauth-client">my-bot<' in html and REDIRECT in html
    for words in ("<code>read</code>", "<code>play</code>"):
        assert words in html
    assert "<code>account</code>" not in html
    # The answer leaves by a redirect to the app, which the page's policy lets the form do.
    assert "form-action 'self' http://127.0.0.1:53682" in shown["Content-Security-Policy"]
    fields = hidden_fields(html)
    answer = page.post("/oauth/authorize/", {**fields, "allow": "on"})
    query = query_of(answer["Location"])
    assert answer["Location"].startswith(REDIRECT + "?") and query["state"] == "s-123"
    assert query["iss"] == "http://testserver"  # RFC 9207: which server answered

    issued = exchange(query["code"], verifier)
    assert issued.status_code == 200, issued.content
    body = issued.json()
    assert set(body) == {"access_token", "token_type", "scope", "expires_in"}
    assert body["token_type"] == "Bearer" and body["scope"] == "read play"
    assert body["expires_in"] == 365 * 24 * 3600
    key = body["access_token"]
    assert key.startswith("fco_") and len(key) == 47

    app = client_with(key)
    assert app.get("/api/me/").json()["username"] == "alice"
    assert app.post("/api/games/", {"deal": "ms:1", "autoplay": "none"}, format="json").status_code == 201
    refused = app.patch("/api/me/", {"bio": "hacked"}, format="json")
    assert refused.status_code == 403 and code_of(refused) == "missing_scope"

    listed = page.get("/api/tokens/").json()
    mine = [entry for entry in listed if entry["name"] == "my-bot"]
    assert len(mine) == 1 and mine[0]["scopes"] == [READ, PLAY] and mine[0]["expires_at"] is not None
    assert page.delete(f"/api/tokens/{mine[0]['id']}/").status_code == 204
    gone = app.get("/api/me/")
    assert gone.status_code == 401 and code_of(gone) == "authentication_failed"


def test_a_code_is_spent_once(alice):
    code, verifier = code_for(alice)
    assert exchange(code, verifier).status_code == 200
    again = exchange(code, verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    assert AccessToken.objects.filter(user=alice, name="my-bot").count() == 1


def test_a_visitor_signs_in_first_and_comes_back(db):
    _, challenge = pkce()
    url = authorize_url(challenge)
    answer = Client().get(url)
    assert answer.status_code == 302
    target = urlsplit(answer["Location"])
    assert target.path == "/login/" and parse_qs(target.query)["next"] == [url]


def test_a_guest_signs_in_first(db):
    from accounts.guests import new_guest

    _, challenge = pkce()
    url = authorize_url(challenge)
    answer = page_of(new_guest()).get(url)
    assert answer.status_code == 302
    target = urlsplit(answer["Location"])
    assert target.path == "/login/" and parse_qs(target.query)["next"] == [url]


def test_deny_sends_access_denied_and_makes_no_token(alice):
    _, challenge = pkce()
    answer = consent(page_of(alice), authorize_url(challenge), allow=False)
    query = query_of(answer["Location"])
    assert answer["Location"].startswith(REDIRECT) and query["error"] == "access_denied" and query["state"] == "s-123"
    assert not AccessToken.objects.filter(user=alice, name="my-bot").exists()


def test_an_expired_token_is_refused_and_leaves_the_list(alice):
    code, verifier = code_for(alice)
    key = exchange(code, verifier).json()["access_token"]
    AccessToken.objects.filter(user=alice, name="my-bot").update(expires_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
    assert client_with(key).get("/api/me/").status_code == 401
    assert "my-bot" not in [entry["name"] for entry in page_of(alice).get("/api/tokens/").json()]


# --- the token endpoint's errors (RFC 6749 section 5.2) -------------------------------------------


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"code_verifier": "x" * 50}, "invalid_grant"),  # not the verifier of the challenge
        ({"code_verifier": None}, "invalid_request"),
        ({"redirect_uri": "http://127.0.0.1:53682/other"}, "invalid_request"),  # not the one authorized
        ({"redirect_uri": None}, "invalid_request"),
        ({"client_id": "another-app"}, "invalid_client"),
        ({"code": "not-a-code"}, "invalid_grant"),
        ({"grant_type": "password"}, "unsupported_grant_type"),
        ({"grant_type": "client_credentials"}, "unsupported_grant_type"),
    ],
)
def test_a_bad_exchange_gets_rfc_6749_errors(alice, changes, error):
    code, verifier = code_for(alice)
    answer = exchange(code, verifier, **changes)
    assert answer.status_code in (400, 401), answer.content
    assert answer["Content-Type"].startswith("application/json")
    assert answer.json()["error"] == error, answer.json()
    assert answer.json()["error_description"]  # a developer is told what went wrong
    assert not AccessToken.objects.filter(user=alice, name="my-bot").exists()


def test_a_json_body_or_a_get_is_told_what_the_endpoint_takes(db):
    json_body = Client().post("/oauth/token/", {"grant_type": "authorization_code"}, content_type="application/json")
    assert json_body.status_code == 400 and json_body.json()["error"] == "unsupported_grant_type"
    assert "form-encoded" in json_body.json()["error_description"]
    get = Client().get("/oauth/token/")
    assert get.status_code == 405 and get.json()["error"] == "invalid_request" and get["Allow"] == "POST"


# --- the authorization endpoint's errors ----------------------------------------------------------


@pytest.mark.parametrize(
    "redirect_uri",
    [
        "http://evil.example/callback",  # plain http off the loopback
        "https://app.example/cb#fragment",
        "javascript:alert(1)",
        "https://user:pw@app.example/cb",
        "ftp://app.example/cb",
        "/relative",
        None,
    ],
)
def test_a_bad_redirect_uri_is_shown_to_the_player_never_followed(alice, redirect_uri):
    _, challenge = pkce()
    answer = page_of(alice).get(authorize_url(challenge, redirect_uri=redirect_uri))
    assert answer.status_code == 400
    assert 'data-testid="oauth-error"' in answer.content.decode()
    assert "Location" not in answer


@pytest.mark.parametrize(
    "redirect_uri", ["https://app.example/cb", "http://localhost:8080/cb", "http://[::1]:9000/", "http://127.0.0.1/cb?x=1"]
)
def test_https_and_loopback_redirects_are_taken(alice, redirect_uri):
    code, verifier = code_for(alice, redirect_uri=redirect_uri)
    assert exchange(code, verifier, redirect_uri=redirect_uri).status_code == 200


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"code_challenge": None, "code_challenge_method": None}, "invalid_request"),  # PKCE is required
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge": "c" * 500}, "invalid_request"),  # not the 43 characters of an S256 challenge
        ({"code_challenge": "c" * 42 + "="}, "invalid_request"),
        ({"scope": "read admin"}, "invalid_scope"),
        ({"response_type": "token"}, "unsupported_response_type"),
    ],
)
def test_a_bad_request_goes_back_to_the_app_with_its_error(alice, changes, error):
    _, challenge = pkce()
    answer = page_of(alice).get(authorize_url(challenge, **changes))
    assert answer.status_code == 302, answer.content
    assert answer["Location"].startswith(REDIRECT + "?")
    query = query_of(answer["Location"])
    assert query["error"] == error and query["state"] == "s-123", query


@pytest.mark.parametrize("client_id", ["", "a" * 61, "has space", "tab\tin"])
def test_a_bad_client_id_is_shown_to_the_player(alice, client_id):
    _, challenge = pkce()
    answer = page_of(alice).get(authorize_url(challenge, client_id=client_id))
    assert answer.status_code == 400 and 'data-testid="oauth-error"' in answer.content.decode()


@pytest.mark.parametrize(
    "changes",
    [{"client_id": "never-seen"}, {"client_id": ""}, {"redirect_uri": ""}, {"redirect_uri": "http://evil.example/x"}, {"nonce": "n" * 300}],
)
def test_a_consent_form_changed_on_its_way_is_refused_on_the_page(alice, changes):
    _, challenge = pkce()
    page = page_of(alice)
    fields = hidden_fields(page.get(authorize_url(challenge)).content.decode())
    answer = page.post("/oauth/authorize/", {**fields, **changes, "allow": "on"})
    assert answer.status_code == 400 and "Location" not in answer
    assert 'data-testid="oauth-error"' in answer.content.decode()
    assert not AccessToken.objects.filter(user=alice, name="my-bot").exists()


def test_no_scope_asked_gives_read(alice):
    code, verifier = code_for(alice, scope=None)
    assert exchange(code, verifier).json()["scope"] == "read"


def test_a_player_at_the_token_limit_is_told_and_the_exchange_refused(alice, monkeypatch):
    from accounts import services

    code, verifier = code_for(alice)
    monkeypatch.setattr(services, "MAX_TOKENS", AccessToken.objects.filter(user=alice).count())
    _, challenge = pkce()
    assert "Too many tokens" in page_of(alice).get(authorize_url(challenge)).content.decode()
    refused = exchange(code, verifier)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"
    assert "revoke" in refused.json()["error_description"]
    monkeypatch.setattr(services, "MAX_TOKENS", 100)
    assert exchange(code, verifier).status_code == 200  # the code was not spent by the refusal
