"""HTTP for the client over the standard library: JSON in and out, the `Authorization` scheme, and
retries that honour `Retry-After` (429, 503) and resend only what is safe to resend."""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from freecell_client.errors import ApiError

#: Methods that change nothing, so a network failure may be retried blindly.
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
NETWORK_ERRORS = (urllib.error.URLError, OSError, http.client.HTTPException)


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any
    text: str = ""


@dataclass
class RetryPolicy:
    """How many times to try again and how long a wait may be. A `Retry-After` longer than
    `max_wait` is not waited for: the 429 is raised at once, with the wait in its body."""

    retries: int = 3
    max_wait: float = 30.0
    backoff: float = 0.5  # first wait after a network error or a 5xx; doubles each time
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    def backoff_for(self, attempt: int) -> float:
        return min(self.max_wait, self.backoff * 2 ** (attempt - 1))


def retry_after(answer: Answer) -> float | None:
    """Seconds the server asks to wait: the `Retry-After` header, else the error's `retry_after_ms` or `retry_after`."""
    header = answer.headers.get("retry-after")
    if header:
        try:
            return max(0.0, float(header))
        except ValueError:
            pass  # an HTTP date: the body's figure, if any, is used
    error = answer.body.get("error") if isinstance(answer.body, dict) else None
    if isinstance(error, dict):
        if isinstance(error.get("retry_after_ms"), (int, float)):
            return error["retry_after_ms"] / 1000
        if isinstance(error.get("retry_after"), (int, float)):
            return float(error["retry_after"])
    return None


class Transport:
    """Sends requests to one server with one token; `scheme` starts as `Bearer` and falls back to
    `Token` for a server that does not know Bearer (it answers 401 `not_authenticated`)."""

    def __init__(self, base_url: str, token: str | None, *, timeout: float, retry: RetryPolicy, user_agent: str):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.scheme = "Bearer"
        self.timeout = timeout
        self.retry = retry
        self.user_agent = user_agent
        #: The `RateLimit-*` headers of the last answer that had them.
        self.rate_limit: dict[str, str] = {}

    def url(self, path: str, params: dict | None = None) -> str:
        query = {k: v for k, v in (params or {}).items() if v is not None}
        return self.base_url + path + ("?" + urllib.parse.urlencode(query) if query else "")

    def headers(self, accept: str, has_body: bool) -> dict[str, str]:
        headers = {"Accept": accept, "User-Agent": self.user_agent}
        if has_body:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"{self.scheme} {self.token}"
        return headers

    def open(self, method: str, path: str, *, body: Any = None, params: dict | None = None, accept: str = "application/json", timeout: float | None = None):
        """One attempt: the open response (the caller reads and closes it), or an Answer for an HTTP error."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url(path, params), data=data, method=method, headers=self.headers(accept, data is not None))
        try:
            return urllib.request.urlopen(request, timeout=timeout or self.timeout)  # noqa: S310 (the caller's own server)
        except urllib.error.HTTPError as error:
            with error:
                return read_answer(error.code, error.headers, error.read())

    def request(
        self, method: str, path: str, *, body: Any = None, params: dict | None = None, accept: str = "application/json", resend: bool = False
    ) -> Answer:
        """The answer, after the retries; an ApiError for a refusal. `resend`: the request is safe to send
        again after a network error or a 5xx (a move with its `client_id`)."""
        attempt = 0
        fell_back = False
        repeatable = resend or method in SAFE_METHODS
        while True:
            try:
                response = self.open(method, path, body=body, params=params, accept=accept)
                if isinstance(response, Answer):
                    answer = response
                else:
                    with response:
                        answer = read_answer(response.status, response.headers, response.read())
            except NETWORK_ERRORS as error:
                if repeatable and attempt < self.retry.retries:
                    attempt += 1
                    self.retry.sleep(self.retry.backoff_for(attempt))
                    continue
                raise ApiError(0, "network_error", f"{method} {path}: {error}") from error
            self.note_rate_limit(answer)
            if answer.status == 401 and self.falls_back(answer) and not fell_back:
                fell_back = True
                self.scheme = "Token"
                continue
            if answer.status in (429, 503) and attempt < self.retry.retries:
                wait = retry_after(answer)
                wait = self.retry.backoff_for(attempt + 1) if wait is None else wait
                if wait <= self.retry.max_wait:
                    attempt += 1
                    self.retry.sleep(wait)
                    continue
            elif answer.status >= 500 and repeatable and attempt < self.retry.retries:
                attempt += 1
                self.retry.sleep(self.retry.backoff_for(attempt))
                continue
            if answer.status >= 400:
                raise ApiError.from_answer(answer.status, answer.body, answer.text[:200])
            return answer

    def falls_back(self, answer: Answer) -> bool:
        """Whether a 401 means "Bearer unknown" rather than "bad token": a server that reads only
        `Token` sees no credentials at all in a Bearer header."""
        if self.scheme != "Bearer" or not self.token:
            return False
        error = answer.body.get("error") if isinstance(answer.body, dict) else None
        return isinstance(error, dict) and error.get("code") == "not_authenticated"

    def note_rate_limit(self, answer: Answer) -> None:
        limits = {k: v for k, v in answer.headers.items() if k.startswith("ratelimit-")}
        if limits:
            self.rate_limit = limits


def read_answer(status: int, headers, raw: bytes) -> Answer:
    lowered = {k.lower(): v for k, v in headers.items()}
    text = raw.decode("utf-8", errors="replace")
    body: Any = None
    if "json" in lowered.get("content-type", "") and text.strip():
        try:
            body = json.loads(text)
        except ValueError:
            body = None
    return Answer(status, lowered, body, text)
