"""Template filters about players: a name as the pages show it (a guest's is "Guest", accounts/guests.py)."""

from django import template

from accounts import guests

register = template.Library()


@register.filter
def shown_name(username: str) -> str:
    """`{{ game.player|shown_name }}`: the username, or "Guest" for a guest."""
    return guests.shown_name(username or "")


@register.filter
def is_guest_name(username: str) -> bool:
    """`{% if game.player|is_guest_name %}`: a guest has no profile page to link to."""
    return guests.is_guest_name(username or "")
