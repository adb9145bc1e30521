"""The browser sign-in's own parts, without a server: PKCE's S256, the link, and the loopback listener
refusing an answer that is not its own."""

from __future__ import annotations

import urllib.request
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from freecell_client import ApiError, oauth


def test_s256_is_rfc_7636s():
    # RFC 7636 appendix B's example.
    assert oauth.challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    verifier, challenge = oauth.pkce_pair()
    assert 43 <= len(verifier) <= 128 and challenge == oauth.challenge_of(verifier)


def test_the_link_asks_for_a_code_with_s256():
    url = oauth.authorize_url("http://example.test/", redirect_uri="http://127.0.0.1:1/callback", challenge="c", state="s", scopes=["read", "play"])
    parts = urlsplit(url)
    assert (parts.netloc, parts.path) == ("example.test", "/oauth/authorize/")
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert query == {
        "response_type": "code", "client_id": "freecell-cli", "redirect_uri": "http://127.0.0.1:1/callback",
        "code_challenge": "c", "code_challenge_method": "S256", "scope": "read play", "state": "s",
    }


def answer_with(params_of):
    """A `show` that plays the browser: it follows the link's redirect_uri with the query `params_of(query)`."""

    def show(url):
        query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
        with urllib.request.urlopen(query["redirect_uri"] + "?" + urlencode(params_of(query)), timeout=10) as page:
            page.read()

    return show


def test_an_answer_with_another_state_is_refused():
    with pytest.raises(ApiError) as refused:
        oauth.sign_in("http://127.0.0.1:9", show=answer_with(lambda q: {"code": "x", "state": "not " + q["state"]}), wait_s=10)
    assert refused.value.code == "invalid_state"


def test_a_refusal_in_the_browser_is_raised_with_its_code():
    with pytest.raises(ApiError) as refused:
        oauth.sign_in("http://127.0.0.1:9", show=answer_with(lambda q: {"error": "access_denied", "state": q["state"]}), wait_s=10)
    assert refused.value.code == "access_denied"


def test_no_answer_times_out():
    with pytest.raises(ApiError) as late:
        oauth.sign_in("http://127.0.0.1:9", show=lambda url: None, wait_s=0.5)
    assert late.value.code == "timeout"
