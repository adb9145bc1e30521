"""The scopes of personal access tokens (docs/tokens.md) and whether a sign-in holds one.

A request signed in by session, or by a token that carries every scope, may do anything its account
may; a token limited to some scopes may do only what they name.
"""

from __future__ import annotations

READ = "read"  # reads, the caller's own private data included
PLAY = "play"  # games, moves, undo, resign, hints, the daily
RACE = "race"  # open, join, start, invite, rematch
ACCOUNT = "account"  # profile, friends, tokens

SCOPES = (READ, PLAY, RACE, ACCOUNT)

#: What each scope lets a token do, in the players' words (the account page, the docs).
DESCRIPTIONS = {
    READ: "read games, races, dailies and profiles, your own private data included",
    PLAY: "play: games, moves, undo, resign, hints, the daily",
    RACE: "race: open, join, start, invite, rematch",
    ACCOUNT: "your account: profile, friends, tokens",
}


def allows(auth, scope: str) -> bool:
    """Whether a request's `auth` (DRF's `request.auth`: None for a session, else the token) holds `scope`."""
    if auth is None:
        return True
    scopes = getattr(auth, "scopes", None)
    return scopes is None or scope in scopes
