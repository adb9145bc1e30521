"""What the daily announces: a ranked result went on or off its day's leaderboard. The boards listen."""

from django.dispatch import Signal

#: Sent by games.daily.leaderboard inside the transaction that puts a won ranked game on its day's board
#: (`added=True`: the winning move, or a review cleared) or takes it off (`added=False`: a review
#: rejected), with `game`. Sent only when the board changed, never twice for the same change.
result_changed = Signal()
