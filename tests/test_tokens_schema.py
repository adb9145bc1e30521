"""The schema says how to authenticate and what each operation needs (issue 40 D13, docs/tokens.md):
`components.securitySchemes` holds the bearer token and OAuth's authorization code flow with the four
scopes, and each operation's `security` names the scope its view declares."""

from __future__ import annotations

import pytest
from django.urls import resolve
from rest_framework.test import APIClient

from accounts.permissions import UNDECLARED, scope_needed
from accounts.scopes import DESCRIPTIONS, SCOPES


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return APIClient().get("/api/schema/?format=json").json()


def test_the_schemes_are_the_bearer_token_and_oauths_code_flow(schema):
    schemes = schema["components"]["securitySchemes"]
    assert schemes["tokenAuth"]["type"] == "http" and schemes["tokenAuth"]["scheme"] == "bearer"
    flow = schemes["oauth2"]["flows"]["authorizationCode"]
    assert schemes["oauth2"]["type"] == "oauth2" and set(schemes["oauth2"]["flows"]) == {"authorizationCode"}
    assert flow["authorizationUrl"] == "/oauth/authorize/" and flow["tokenUrl"] == "/oauth/token/"
    assert flow["scopes"] == DESCRIPTIONS and list(flow["scopes"]) == list(SCOPES)


def _view_and_method(path: str, method: str):
    concrete = path.replace("{", "").replace("}", "")  # a parameter's name is as good a value as any to route by
    for value, stand_in in (("game_id", "1"), ("token_id", "1"), ("challenge_id", "1"), ("id", "1")):
        concrete = concrete.replace(value, stand_in)
    match = resolve(concrete)
    return match.func.cls, match.func.initkwargs, method.upper()


def test_each_operation_needs_the_scope_its_view_declares(schema):
    checked = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            try:
                view, initkwargs, verb = _view_and_method(path, method)
            except Exception:  # noqa: BLE001 (a path whose parameters do not route with stand-ins: checked by name below)
                continue
            needed = scope_needed(view(**initkwargs), verb)
            if needed is UNDECLARED:
                continue
            security = operation.get("security", [])
            oauth = [requirement["oauth2"] for requirement in security if "oauth2" in requirement]
            if "tokenAuth" not in str(security):
                continue  # sign-in views that take no token
            assert oauth == [[] if needed is None else [needed]], (path, method, security)
            checked += 1
    assert checked >= 60


@pytest.mark.parametrize(
    ("path", "method", "scopes", "anonymous"),
    [
        ("/api/games/", "post", ["play"], False),
        ("/api/me/", "patch", ["account"], False),
        ("/api/me/", "get", ["read"], False),
        ("/api/tokens/", "post", ["account"], False),
        ("/api/races/", "post", ["race"], False),
        ("/api/ping/", "get", [], True),
        ("/api/games/{game_id}/", "get", ["read"], True),  # anyone may read a public game; `read` adds what is yours
    ],
)
def test_known_operations(schema, path, method, scopes, anonymous):
    security = schema["paths"][path][method]["security"]
    assert {"oauth2": scopes} in security and {"tokenAuth": []} in security
    assert ({} in security) is anonymous, security
