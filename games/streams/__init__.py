"""Newline-delimited JSON streams over HTTP (SPEC section 8): a game, a race, a player's events."""
