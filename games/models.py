"""The games app's models, which Django loads from here: each domain keeps its own (games/play,
games/daily, games/races, games/boards); this module only names them for the app registry and for admin and tests."""

from games.boards.models import (
    DealRecord,
    LadderDay,
    LadderEntry,
    LadderTally,
    LongestTally,
    RecordSpanTally,
    RecordTally,
    Streak,
    StreakTally,
)
from games.daily.models import DailyChallenge, DailyGame, DailyMovesTally, DailyResult, DailySpanTally
from games.fairplay.models import Report, ReviewCase
from games.play.models import Action, Deal, Game
from games.races.models import Challenge, Race, RaceEntry, RaceInvite

__all__ = [
    "Action",
    "Challenge",
    "DailyChallenge",
    "DailyGame",
    "DealRecord",
    "DailyMovesTally",
    "DailyResult",
    "DailySpanTally",
    "Deal",
    "Game",
    "Report",
    "ReviewCase",
    "LadderDay",
    "LadderEntry",
    "LadderTally",
    "LongestTally",
    "Race",
    "RaceEntry",
    "RaceInvite",
    "RecordSpanTally",
    "RecordTally",
    "Streak",
    "StreakTally",
]
