"""What every page's template gets: the signed-in player's table settings, applied before the first paint."""

from __future__ import annotations

from accounts.selectors import table_settings as settings_of_player


def table_settings(request) -> dict:
    """`table_settings`: the player's card style and table colour (None for a visitor: their browser
    keeps theirs). Read lazily: only a template that asks (base.html's <html>) costs the query."""
    user = getattr(request, "user", None)
    return {"table_settings": lambda: settings_of_player(user)}
