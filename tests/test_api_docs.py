"""The served API docs: every operation has a summary, a description and examples that fit the schema
(the examples are recorded answers: tests/test_docs_examples.py)."""

from __future__ import annotations

import re

import jsonschema
import pytest

from freecell_site import api_docs
from tests.support.openapi import check, generated_schema, operations


@pytest.fixture(scope="module")
def document():
    return generated_schema()


def unnamed(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def missing_docs(document: dict) -> list[str]:
    """What each operation lacks: a summary, a description, an example of every successful answer
    that has a body (each media type), of some answer when none has one, and of the request body."""
    faults = []
    for path, method, operation in operations(document):
        name = f"{method.upper()} {path}"
        for part in ("summary", "description"):
            if not operation.get(part, "").strip():
                faults.append(f"{name}: no {part}")
        responses = operation.get("responses", {})
        with_body = [(status, media) for status, r in responses.items() if status.startswith("2") for media in r.get("content", {})]
        for status, media in with_body:
            if "examples" not in responses[status]["content"][media] and "example" not in responses[status]["content"][media]:
                faults.append(f"{name}: no example of its {status} answer ({media})")
        if not with_body and not any(
            "examples" in content for r in responses.values() for content in r.get("content", {}).values()
        ):
            faults.append(f"{name}: no example answer")
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None and "examples" not in body and "example" not in body:
            faults.append(f"{name}: no example request body")
    return faults


def test_every_operation_has_a_summary_a_description_and_examples(document):
    assert missing_docs(document) == []


def test_an_operation_without_docs_is_reported(document, monkeypatch):
    """The check above can fail: without the words and the recorded examples of one operation, it names
    what is missing."""
    monkeypatch.delitem(api_docs._BY_SHAPE, ("/api/games/{}/moves/", "post"))
    recorded = api_docs.recorded_examples()
    del recorded[("post", "/api/games/{}/moves/")]
    monkeypatch.setattr(api_docs, "recorded_examples", lambda: recorded)
    faults = missing_docs(generated_schema())
    assert "POST /api/games/{game_id}/moves/: no description" in faults
    assert "POST /api/games/{game_id}/moves/: no example request body" in faults
    assert "POST /api/games/{game_id}/moves/: no example of its 200 answer (application/json)" in faults


def test_every_example_fits_its_schema_strictly(document):
    """Each JSON example (answers and request bodies) fits its schema with no field the schema does not
    name and every required one present, so an example cannot drift from what the server sends."""
    faults = []
    for path, method, operation in operations(document):
        parts = [(f"{status} answer", r) for status, r in operation.get("responses", {}).items()]
        parts.append(("request body", operation.get("requestBody", {})))
        for what, part in parts:
            content = part.get("content", {}).get("application/json", {})
            for example in content.get("examples", {}).values():
                try:
                    check(example["value"], content["schema"], document)
                except jsonschema.ValidationError as exc:
                    faults.append(f"{method.upper()} {path} {what}: {exc.message} at {list(exc.absolute_path)}")
    assert faults == []


def test_a_made_up_field_in_an_example_is_refused(document):
    schema = document["paths"]["/api/games/{game_id}/"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    game = api_docs.recorded_examples()[("get", "/api/games/{}/")]["responses"]["200"]["application/json"]["200"]
    check(game, schema, document)
    with pytest.raises(jsonschema.ValidationError):
        check({**game, "score": 3}, schema, document)
    with pytest.raises(jsonschema.ValidationError):
        check({k: v for k, v in game.items() if k != "board"}, schema, document)  # `board` is missing


def test_every_entry_documents_an_operation(document):
    """An entry of DOCS whose path the schema lacks (a renamed path, a removed endpoint) fails."""
    shapes = {(unnamed(path), method) for path, method, _operation in operations(document)}
    faults = [f"{method.upper()} {path}: no such operation" for (path, method) in api_docs.DOCS if (unnamed(path), method) not in shapes]
    assert faults == []


def test_a_view_s_own_words_are_kept(document):
    """The hook fills only what a view leaves out: the view's summary and docstring stay."""
    ping = document["paths"]["/api/ping/"]["get"]
    assert ping["summary"] == "Ping"
    assert ping["description"].startswith("Liveness for API clients")
    moves = document["paths"]["/api/games/{game_id}/moves/"]["post"]
    assert moves["summary"] == "Play one move"
    assert moves["description"] == api_docs.DOCS[("/api/games/{game_id}/moves/", "post")].description


@pytest.mark.django_db
def test_the_served_schema_carries_the_overview_and_the_examples(client):
    answer = client.get("/api/schema/?format=json")
    assert answer.status_code == 200
    served = answer.json()
    for heading in ("## Authentication", "## Errors", "`client_id`", "## Rate limits", "Retry-After", "## Notation", "## Deal ids", "## Paging", "review"):
        assert heading in served["info"]["description"], heading
    examples = served["paths"]["/api/games/{game_id}/moves/"]["post"]["responses"]["409"]["content"]["application/json"]["examples"]
    assert examples["ply_conflict"]["value"]["error"]["code"] == "ply_conflict"
