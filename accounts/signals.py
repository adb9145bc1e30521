"""Signals accounts sends for other apps: a player's sign-in credentials changed."""

from django.dispatch import Signal

#: Sent with `user_id` after a change that may end some of a player's sign-ins (a new password revokes
#: the API token and ends the other sessions; a logout ends one session or revokes the token). The
#: games app closes the player's sockets whose sign-in no longer holds.
credentials_changed = Signal()
