"""The API docs' examples as recorded answers: a recorder of real calls, and what of an answer is stable.

The OpenAPI document's examples are not written by hand: tests/test_docs_examples.py plays a scenario
of real calls through the API and records each answer (and the request bodies it marks) in
freecell_site/api_examples.json, keyed by operation, status and media type; the schema hook
(freecell_site.api_docs.apply_docs) serves exactly those. The test fails when a fresh run of the
scenario answers otherwise than the file, but for what changes from run to run (ids, times, keys,
race codes), which `stable` masks.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

from django.urls import resolve

#: Fields whose values change from run to run: compared by their type only.
VOLATILE = {
    "id", "game", "created_at", "finished_at", "starts_at", "ends_at", "at", "since", "date_joined",
    "last_used_at", "elapsed_ms", "clock_ms", "clock_running", "token", "code", "link", "rematch",
    "rematch_of", "retry_after", "retry_after_ms", "uid", "result_url", "replay_url", "reviewed_at",
    "reported_at", "flagged_at", "marked_at", "first_move_ms", "value", "opened_at", "closed_at",
    "time_ms", "answered_at", "expires_at", "decided_at", "best_time_ms",
}
#: What a game of a fresh random deal (`seed:`) shows of its cards, which differ from run to run.
SEED_CARDS = {"state", "board", "columns", "cards_home", "stuck"}
_PATTERNS = [
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?"), "<time>"),
    (re.compile(r"\d{4}-\d{2}(-\d{2})?"), "<date>"),
    (re.compile(r"fco_[A-Za-z0-9_-]+"), "<key>"),
    (re.compile(r"seed:\d+"), "seed:<n>"),
    (re.compile(r"/races/[A-Z0-9]{6}/"), "/races/<code>/"),
    (re.compile(r"/(replay|games)/\d+/"), r"/\1/<n>/"),
    (re.compile(r"\d+:\d{2}\b"), "<m:ss>"),
]


def stable(value, key: str = ""):
    """What of an answer stays the same from run to run: volatile fields become their type's name,
    dates, times, keys and race codes inside strings become placeholders."""
    if key in VOLATILE:
        return _types(value)
    if isinstance(value, dict):
        if str(value.get("deal", "")).startswith("seed:"):  # a fresh random deal: its cards change each run
            value = {k: v for k, v in value.items() if k not in SEED_CARDS}
        return {k: stable(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [stable(v, key) for v in value]
    if isinstance(value, str):
        for pattern, placeholder in _PATTERNS:
            value = pattern.sub(placeholder, value)
    return value


def _types(value):
    """A value with each of its scalars replaced by its type's name."""
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__


def differences(one, other, where: str = "") -> list[str]:
    """Where two stable values differ, as paths (for a test's message)."""
    if isinstance(one, dict) and isinstance(other, dict):
        found = []
        for key in sorted(set(one) | set(other)):
            if key not in one or key not in other:
                found.append(f"{where}/{key}: only in {'the fresh run' if key in one else 'the file'}")
            else:
                found += differences(one[key], other[key], f"{where}/{key}")
        return found
    if isinstance(one, list) and isinstance(other, list) and len(one) == len(other):
        return [d for index, (a, b) in enumerate(zip(one, other, strict=True)) for d in differences(a, b, f"{where}/{index}")]
    return [] if one == other else [f"{where}: {str(one)[:80]} != {str(other)[:80]}"]


def stable_text(text: str) -> list:
    """A text answer line by line, each JSON line read as JSON (ndjson), made stable."""
    lines = []
    for line in text.split("\n"):
        try:
            lines.append(stable(json.loads(line)))
        except ValueError:
            lines.append(stable(line))
    return lines


def operation_of(url: str) -> str:
    """`METHOD`-less key of a URL: its route as the URL resolver names it, `/api/games/{game_id}/`."""
    route = resolve(urlsplit(url).path).route
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


def example_name(status: int, value) -> str:
    """An example's name: the error code of an error, else the status."""
    if isinstance(value, dict) and isinstance(value.get("error"), dict):
        return str(value["error"].get("code", status))
    return str(status)


class Recorder:
    """Makes calls through a DRF test client and keeps each answer as an example of its operation:
    `{"<METHOD> <route>": {"request": {name: body}, "responses": {status: {media: {name: value}}}}}`.
    The first answer of a kind (status, media, name) is kept; later ones are only checked by the caller."""

    def __init__(self):
        self.examples: dict = {}

    def call(self, client, method: str, url: str, body=None, *, name: str | None = None, body_name: str | None = None,
             record_body: bool = True, expect: int | None = None, **extra):
        if body is not None:
            answer = getattr(client, method)(url, body, format="json", **extra)
        else:
            answer = getattr(client, method)(url, **extra)
        if expect is not None:
            assert answer.status_code == expect, (method, url, answer.status_code, _content(answer)[:500])
        key = f"{method.upper()} {operation_of(url)}"
        entry = self.examples.setdefault(key, {"request": {}, "responses": {}})
        if body is not None and record_body:
            entry["request"].setdefault(body_name or "request", body)
        content = answer.recorded = _content(answer)
        if content:
            media = answer["Content-Type"].split(";")[0].strip()
            value = json.loads(content) if media == "application/json" else content
            by_media = entry["responses"].setdefault(str(answer.status_code), {}).setdefault(media, {})
            by_media.setdefault(name or example_name(answer.status_code, value), value)
        return answer

    def document(self) -> dict:
        """The examples sorted, without empty request parts, as the file holds them."""
        out = {}
        for key in sorted(self.examples):
            entry = {part: value for part, value in self.examples[key].items() if value}
            if entry:
                out[key] = entry
        return out


def _content(answer) -> str:
    if getattr(answer, "streaming", False):
        return b"".join(answer.streaming_content).decode()
    return answer.content.decode()


def stable_document(document: dict) -> dict:
    """A whole examples file made stable, for comparing two runs."""
    out = {}
    for key, entry in document.items():
        out[key] = {
            "request": {name: stable(body) for name, body in entry.get("request", {}).items()},
            "responses": {
                status: {
                    media: {
                        name: stable_text(value) if isinstance(value, str) else stable(value)
                        for name, value in by_name.items()
                    }
                    for media, by_name in by_media.items()
                }
                for status, by_media in entry.get("responses", {}).items()
            },
        }
    return out
