"""OpenAPI post-processing: every operation documents the error shape for any status not listed."""

from __future__ import annotations


def add_default_error_response(result, generator, request, public):
    """Adds a `default` response (the spec's error object) to every operation, so statuses such as
    415 or 406 that DRF can answer to any request are documented too."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault(
        "Error",
        {
            "type": "object",
            "properties": {
                "error": {
                    "type": "object",
                    # As games.api.serializers.ErrorDetail: the extra fields some codes carry.
                    "properties": {
                        "code": {"type": "string"},
                        "message": {"type": "string"},
                        "fields": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
                        "retry_after": {"type": "integer"},
                        "retry_after_ms": {"type": "integer"},
                        "game": {"type": "object"},
                    },
                    "required": ["code", "message"],
                }
            },
            "required": ["error"],
        },
    )
    default = {
        "description": "an error: {\"error\": {\"code\", \"message\"}}",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    for path in result.get("paths", {}).values():
        for method, operation in path.items():
            if method in {"get", "post", "put", "patch", "delete"}:
                operation.setdefault("responses", {}).setdefault("default", default)
    return result
