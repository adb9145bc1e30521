"""Boards beyond the day (SPEC section 10): deal records, the month's ladder over the dailies, streaks."""
