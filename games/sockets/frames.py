"""What a client frame may be: size, JSON, strings a database can store, ids, ply and client ids."""

from __future__ import annotations

import json
import math

from freecell_site.parsers import is_encodable

MAX_FRAME = 4096  # bytes of one client frame
MAX_ID = 64
#: Frames that act as a player; an anonymous socket may only watch.
PLAYER_FRAMES = frozenset({"move", "undo", "resign", "start"})
#: Frames answered in the order they came, each after the answers to the ones before (Socket.in_turn).
ACTION_FRAMES = ("move", "undo", "resign")


class BadFrame(Exception):
    pass


def _not_json(constant: str):
    raise ValueError(f"{constant} is not JSON")


def _finite(number: str) -> float:
    value = float(number)
    if not math.isfinite(value):  # 1e400: a JSON number that Python reads as infinity
        raise ValueError(f"{number} is too large")
    return value


def parse_frame(text: str):
    """A client frame's JSON. Python's json module accepts NaN and Infinity, which are not JSON: a
    NaN `id` would be echoed back in a frame that a browser's JSON.parse refuses."""
    return json.loads(text, parse_constant=_not_json, parse_float=_finite)


def string_fault(value) -> str | None:
    """Why a parsed frame (or its id) holds a string no database can store, or None: a NUL
    (PostgreSQL refuses it in a query), or half of a UTF-16 surrogate pair, which JSON can spell
    ("\\ud800"), which no database stores. One walk with a stack, not recursion: a 4 KB frame can nest a thousand
    lists. (A search of the raw text for `\\u0000` also refused those six characters written as text.)"""
    stack = [value]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                return "a frame may not contain a NUL character"
            if not value.isascii() and not is_encodable(value):
                return "a frame's strings may not hold a lone surrogate (half of a UTF-16 pair)"
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return None


def check_ply_and_client(ply, client_id) -> None:
    if not isinstance(ply, int) or isinstance(ply, bool) or not 0 <= ply < 2**31:
        raise BadFrame("ply must be the number of player actions the client has seen")
    if not isinstance(client_id, str) or len(client_id) > 64:
        raise BadFrame("client_id must be a string of at most 64 characters")
