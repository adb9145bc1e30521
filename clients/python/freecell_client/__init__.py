"""A Python client for the FreeCell Online API: typed REST methods, ndjson streams, the sockets, a bot that races."""

#: The package's version (pyproject.toml reads it from here; CHANGELOG.md has a section for each).
__version__ = "0.2.0"

from freecell_client.client import FreeCellClient  # noqa: E402 (after the version, which the client's User-Agent names)
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
