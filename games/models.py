"""The games app's models, which Django loads from here: each domain keeps its own (games/play,
games/daily, games/races); this module only names them for the app registry and for admin and tests."""

from games.daily.models import DailyChallenge, DailyMovesTally, DailyResult, DailySpanTally
from games.play.models import Action, Deal, Game
from games.races.models import Race, RaceEntry, RaceInvite

__all__ = [
    "Action",
    "DailyChallenge",
    "DailyMovesTally",
    "DailyResult",
    "DailySpanTally",
    "Deal",
    "Game",
    "Race",
    "RaceEntry",
    "RaceInvite",
]
