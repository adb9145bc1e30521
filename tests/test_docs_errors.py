"""Every error code the REST API can answer is in the overview's error table (and so in /api/docs/): the
codes of the service's errors (`ServiceError("...")`, `error_body("...")`) and of the rules engine's."""

from __future__ import annotations

import re
from pathlib import Path

from freecell_site import api_docs

ROOT = Path(__file__).resolve().parent.parent
_RAISED = [r'ServiceError\(\s*"([a-z_]+)"', r'error_body\(\s*"([a-z_]+)"']
#: Codes that are not answers of the REST API: the engine errors' abstract base, and the sockets' own
#: (said in the AsyncAPI document, whose test checks them).
NOT_REST = {"engine_error", "idle_timeout"}


def raised_codes() -> dict[str, str]:
    """Each code the code raises, with a file that raises it."""
    found = {}
    for folder in ("accounts", "games", "freecell_site"):
        for path in (ROOT / folder).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            text = path.read_text()
            for pattern in _RAISED:
                for code in re.findall(pattern, text):
                    found.setdefault(code, str(path.relative_to(ROOT)))
    from games.engine import errors

    for error in vars(errors).values():
        if isinstance(error, type) and issubclass(error, errors.EngineError):
            found.setdefault(error.code, "games/engine/errors.py")
    return found


def table() -> str:
    description = api_docs.DESCRIPTION
    return description[description.index("| status | codes |") : description.index("## Moves are idempotent")]


def test_every_error_code_is_in_the_overview_s_table():
    listed = set(re.findall(r"`([a-z_]+)`", table()))
    missing = {code: where for code, where in raised_codes().items() if code not in listed and code not in NOT_REST}
    assert missing == {}


def test_the_codes_are_found():
    """The search can fail: it finds the codes of the service's and the engine's errors."""
    codes = raised_codes()
    assert {"not_found", "bad_filter", "ply_conflict", "illegal_move", "invalid_deal", "bad_notation"} <= set(codes)
