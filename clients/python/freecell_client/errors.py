"""The one exception the client raises for an answer the server refused (the spec's error shape)."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A refusal: `status` the HTTP status, `code` and `message` from `{"error": {"code", "message"}}`,
    `body` the whole decoded answer (a `ply_conflict` carries the current game in `body["error"]["game"]`).

    A network failure the retries could not get past is `status` 0, code `network_error`."""

    def __init__(self, status: int, code: str, message: str, body: Any = None):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.body = body

    @property
    def detail(self) -> dict:
        """The `error` object of the answer (empty when the answer had none)."""
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return self.body["error"]
        return {}

    @classmethod
    def from_answer(cls, status: int, body: Any, reason: str = "") -> ApiError:
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict):
            return cls(status, str(error.get("code", "error")), str(error.get("message", reason)), body)
        return cls(status, "http_error", reason or f"HTTP {status}", body)
