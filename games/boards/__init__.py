"""Boards beyond the day (docs/boards.md): deal records, the month's ladder over the dailies, streaks."""
