"""The served OpenAPI schema for tests, and a strict check of a JSON value against one of its schemas."""

from __future__ import annotations

import copy

import jsonschema


def generated_schema() -> dict:
    """The schema as /api/schema/ serves it (post-processing hooks included)."""
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def operations(document: dict):
    """(path, method, operation) for every operation of the schema."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in {"get", "post", "put", "patch", "delete"}:
                yield path, method, operation


def strict(schema):
    """An OpenAPI 3.0 schema as JSON Schema that refuses what the server never sends: `nullable`
    becomes a null branch, and an object that names its properties takes no others (so an example
    with a made-up or misspelt field fails, and with `required`, one that lacks a field fails too)."""
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {key: strict(value) for key, value in schema.items()}
    if "properties" in schema and "additionalProperties" not in schema and not {"allOf", "anyOf", "oneOf"} & schema.keys():
        schema["additionalProperties"] = False
    if schema.pop("nullable", False):
        return {"anyOf": [schema, {"type": "null"}]}
    return schema


def check(value, schema: dict, document: dict) -> None:
    """Raises jsonschema.ValidationError when `value` does not fit `schema` (which may $ref the document's components)."""
    root = {"components": strict(copy.deepcopy(document.get("components", {}))), **strict(schema)}
    jsonschema.validate(value, root)
