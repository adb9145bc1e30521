"""A Python client for the FreeCell Online API: typed REST methods, ndjson streams, race sockets."""

from freecell_client.client import FreeCellClient
from freecell_client.errors import ApiError
from freecell_client.models import (
    Action,
    Daily,
    Deal,
    Game,
    GameState,
    Hint,
    History,
    Ladder,
    LadderEntry,
    Leaderboard,
    LeaderboardEntry,
    LegalMoves,
    Page,
    Race,
    Racer,
    StreakEntry,
    Streaks,
    Token,
    VerifyResult,
)

__all__ = [
    "Action", "ApiError", "Daily", "Deal", "FreeCellClient", "Game", "GameState", "Hint", "History", "Ladder",
    "LadderEntry", "Leaderboard", "LeaderboardEntry", "LegalMoves", "Page", "Race", "Racer", "StreakEntry",
    "Streaks", "Token", "VerifyResult",
]
