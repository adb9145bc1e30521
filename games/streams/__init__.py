"""Newline-delimited JSON streams over HTTP (docs/streams.md): a game, a race, a player's events."""
