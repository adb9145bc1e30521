"""What every page's template gets: the signed-in player's table settings, applied before the first paint,
and whether the visitor plays as a guest."""

from __future__ import annotations

from accounts.guests import is_guest
from accounts.selectors import table_settings as settings_of_player


def table_settings(request) -> dict:
    """`table_settings`: the player's card style and table colour (None for a visitor: their browser
    keeps theirs). Read lazily: only a template that asks (base.html's <html>) costs the query."""
    user = getattr(request, "user", None)
    return {"table_settings": lambda: settings_of_player(user), "is_guest": is_guest(user)}  # is_guest: no query
