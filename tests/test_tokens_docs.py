"""docs/tokens.md's examples are real answers (issue 40, D11 and D12): the `missing_scope` refusal as the
service words it, with its `scopes`; a new token and an app's token with the fields, values and key
shape the service answers."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rest_framework.test import APIClient

from accounts.scopes import PLAY, READ
from tests.support.tokens import client_with, key_with
from tests.test_oauth import code_for, exchange

DOC = Path(__file__).resolve().parents[1] / "docs" / "tokens.md"
KEY = re.compile(r"fco_[A-Za-z0-9_-]{43}")


def example(name: str) -> dict:
    """The JSON block after the `<!-- example: NAME ...-->` marker."""
    text = DOC.read_text()
    start = text.index(f"<!-- example: {name}")
    block = re.search(r"```json\n(.*?)\n```", text[start:], re.S)
    return json.loads(block.group(1))


def test_the_missing_scope_example_is_the_real_refusal(alice):
    answer = client_with(key_with(alice, READ)).post("/api/games/", {"deal": "ms:1", "autoplay": "none"}, format="json")
    assert answer.status_code == 403
    assert answer.json() == example("missing_scope")


def test_the_new_token_example_has_the_real_fields_and_a_real_looking_key(alice):
    documented = example("a new token")
    session = APIClient()
    session.force_login(alice)
    real = session.post("/api/tokens/", {"name": documented["name"], "scopes": documented["scopes"]}, format="json").json()
    assert list(documented) == list(real)
    assert (documented["name"], documented["scopes"], documented["expires_at"]) == (real["name"], real["scopes"], real["expires_at"])
    assert KEY.fullmatch(real["token"]) and KEY.fullmatch(documented["token"])


def test_the_token_endpoint_example_is_a_real_exchanges(alice):
    documented = example("the token endpoint")
    code, verifier = code_for(alice, scope="read play")
    real = exchange(code, verifier).json()
    assert set(documented) == set(real)
    assert {k: v for k, v in documented.items() if k != "access_token"} == {k: v for k, v in real.items() if k != "access_token"}
    assert KEY.fullmatch(real["access_token"]) and KEY.fullmatch(documented["access_token"])
    assert documented["scope"].split() == [READ, PLAY]
