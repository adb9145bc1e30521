"""What the docs promise of query parameters and bodies holds: a board's unknown parameter is 400
`bad_filter` (never silently ignored), a profile edit naming an unknown field is 400, and no helper's
docstring is published as an operation's description."""

from __future__ import annotations

import inspect

import pytest

from tests.support.openapi import generated_schema, operations
from tests.support.players import code_of

pytestmark = pytest.mark.django_db

BOARDS = [
    "/api/deals/ms:1/records/?autoplay=safe&speed=fast",
    "/api/ladder/2026-12/?players=people&speed=fast",
    "/api/ladder/streaks/?speed=fast",
    "/api/daily/{today}/histogram/?speed=fast",
]


@pytest.mark.parametrize("url", BOARDS)
def test_an_unknown_query_parameter_of_a_board_is_refused(url, anon_client, today_daily):
    answer = anon_client.get(url.format(today=today_daily.date.isoformat()))
    assert answer.status_code == 400, answer.content[:300]
    assert code_of(answer) == "bad_filter"
    assert list(answer.json()["error"]["fields"]) == ["speed"]


@pytest.mark.parametrize("url", [url.replace("&speed=fast", "").replace("?speed=fast", "") for url in BOARDS])
def test_a_board_s_own_parameters_are_taken(url, anon_client, today_daily):
    assert anon_client.get(url.format(today=today_daily.date.isoformat())).status_code == 200


def test_a_profile_edit_with_an_unknown_field_is_refused_and_changes_nothing(alice_client):
    answer = alice_client.patch("/api/me/", {"bio": "aces", "colour": "red"}, format="json")
    assert answer.status_code == 400
    assert code_of(answer) == "invalid_request"
    assert list(answer.json()["error"]["fields"]) == ["colour"]
    assert alice_client.get("/api/me/").json()["bio"] == ""
    assert alice_client.patch("/api/me/", {"bio": "aces"}, format="json").status_code == 200


def test_no_operation_publishes_the_docstring_of_a_class_it_builds_on():
    """drf-spectacular takes a view's docstring, inherited ones included, as the description: a mixin's
    note to programmers ("For a list view ...") must not become what a developer reads."""
    from django.urls import get_resolver

    helpers = set()
    for pattern in get_resolver().url_patterns:
        for view in _views(pattern):
            for base in inspect.getmro(view)[1:]:
                doc = inspect.getdoc(base)
                if doc and base.__module__.split(".")[0] in {"games", "accounts", "freecell_site", "frontend"}:
                    helpers.add(doc.split("\n")[0][:60])
    leaked = [
        f"{method.upper()} {path}"
        for path, method, operation in operations(generated_schema())
        if any(line and operation.get("description", "").startswith(line) for line in helpers)
    ]
    assert leaked == []


def _views(pattern):
    if hasattr(pattern, "url_patterns"):
        for inner in pattern.url_patterns:
            yield from _views(inner)
    elif hasattr(pattern.callback, "cls"):
        yield pattern.callback.cls


def test_every_nullable_schema_takes_null_in_strict_openapi_3_0():
    """OpenAPI 3.0.3: `nullable` counts only beside a `type`. A nullable schema without one (a `$ref`
    wrapped in allOf, as `ghost` was) must take null through a branch of its own (NullEnum)."""
    document = generated_schema()
    schemas = document["components"]["schemas"]

    def takes_null(branch: dict) -> bool:
        if "$ref" in branch:
            branch = schemas[branch["$ref"].rsplit("/", 1)[1]]
        return None in branch.get("enum", []) or (branch.get("nullable") and "type" in branch)

    faults = []

    def visit(node, where):
        if isinstance(node, dict):
            if node.get("nullable") and "type" not in node:
                if not any(takes_null(b) for b in node.get("oneOf", []) + node.get("anyOf", [])):
                    faults.append(where)
            for key, value in node.items():
                visit(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                visit(value, f"{where}/{index}")

    visit(document, "")
    assert faults == []
    ghost = schemas["Race"]["properties"]["ghost"]
    assert {"$ref": "#/components/schemas/NullEnum"} in ghost["oneOf"]


def test_the_records_socket_s_query_parameters_are_in_the_asyncapi_document():
    """Every query parameter a socket reads is declared, with its values, in the channel's ws binding."""
    import json
    import re
    from pathlib import Path

    from games.sockets import boards

    source = Path(boards.__file__).read_text()
    read = set(re.findall(r'query\.get\("(\w+)"\)', source))
    document = json.loads((Path(__file__).resolve().parent.parent / "freecell_site" / "asyncapi.json").read_text())
    query = document["channels"]["/ws/deals/{deal}/records/"]["bindings"]["ws"]["query"]
    assert read == {"autoplay", "players"} == set(query["properties"])
    assert query["properties"]["autoplay"]["enum"] == ["none", "safe"]


def test_a_documented_401_of_a_public_board_says_when_it_is_answered(anon_client, today_daily):
    """The leaderboard is public: its 401 is only for `scope=friends` without a sign-in, and says so."""
    day = today_daily.date.isoformat()
    assert anon_client.get(f"/api/daily/{day}/leaderboard/").status_code == 200
    assert code_of(anon_client.get(f"/api/daily/{day}/leaderboard/?scope=friends")) == "not_authenticated"
    described = generated_schema()["paths"]["/api/daily/{date}/leaderboard/"]["get"]["responses"]["401"]["description"]
    assert "scope=friends" in described
