"""A shared daily result: what a player's finished ranked game of a day may tell anyone at once, and its text.

The numbers of a finished ranked game (moves, undos, time, rank) are public as soon as it ends, as the
day's leaderboard shows them; its line and positions are not, and stay hidden (games.play.policies)
until the day is over. So the result, its text and its picture tell nothing of the deal, and a link to
the replay is given only to a viewer who may see it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from urllib.parse import quote

from accounts.selectors import is_bot
from freecell_site.errors import ServiceError
from games.daily import leaderboard
from games.daily import services as daily
from games.play import policies
from games.play.models import Game
from games.play.payloads import review_state


@dataclass(frozen=True)
class SharedResult:
    """One player's finished ranked game of a day, as shared."""

    date: dt.date
    username: str
    status: str
    moves: int
    undos: int
    par: int | None
    elapsed_ms: int
    rank: int | None  # None unless on the leaderboard (a resign, a game under review)
    of: int  # ranked results of the day
    under_review: bool
    review: str  # the game's review state (games.play.payloads.review_state)
    game_id: int
    day_over: bool
    day_ends_at: dt.datetime
    replay_visible: bool  # whether the viewer may watch the replay now
    #: The day's winning move counts [(moves, results)], fewest first: where this result stands.
    histogram: list[tuple[int, int]]

    @property
    def won(self) -> bool:
        return self.status == Game.Status.WON

    @property
    def over_par(self) -> int | None:
        return self.moves - self.par if self.par is not None and self.won else None


def shared_result(date: dt.date, player, viewer) -> SharedResult:
    """`player`'s finished ranked game of `date`, as `viewer` may see it shared. Raises not_found (no such
    daily or no game of the player's), or game_not_finished while the game is still being played."""
    found = daily.published(date)
    game = daily.ranked_game_of(player, found.date) if player is not None else None
    missing = ServiceError(
        "not_found", f"{player.username if player is not None else 'that player'} has no daily result for {found.date.isoformat()}", status=404
    )
    if game is None:
        raise missing
    up = policies.time_is_up(game)
    if game.status == Game.Status.PLAYING and up is None:
        # Only those who may see the game learn that it is being played; to others it has no result yet.
        if not policies.can_view_game(viewer, game):
            raise missing
        raise ServiceError("game_not_finished", "the daily game is still being played", status=409)
    if game.held and not policies.can_view_game(viewer, game):
        raise missing  # a result held by fair play shows neither its moves nor its time to others
    status = Game.Status.RESIGNED if up is not None else game.status
    result = leaderboard.result_of(found.date, player)
    return SharedResult(
        date=found.date,
        username=player.username,
        status=status,
        moves=game.ply,
        undos=game.undos,
        par=found.par,
        elapsed_ms=game.clock_at(up.at) if up is not None else (game.elapsed_ms or 0),
        rank=leaderboard.rank_of(result) if result else None,
        of=leaderboard.count(found.date, bots=is_bot(player.pk)),  # a bot ranks among bots
        under_review=game.review == Game.Review.FLAGGED,
        review=review_state(game),
        game_id=game.pk,
        day_over=daily.is_over(found.date),
        day_ends_at=daily.day_end(found.date),
        replay_visible=policies.can_view_game(viewer, game),
        histogram=leaderboard.histogram(found.date),
    )


def format_elapsed(ms: int) -> str:
    """4:05 or 1:02:03."""
    seconds = ms // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def summary(result: SharedResult) -> str:
    """The result in one line: moves against par, undos, time, rank."""
    par_text = ""
    if result.par is not None:
        diff = result.over_par
        par_text = f" (par {result.par}, {'+' if diff >= 0 else ''}{diff})" if diff is not None else f" (par {result.par})"
    undos = f"{result.undos} undo{'' if result.undos == 1 else 's'}"
    time_text = format_elapsed(result.elapsed_ms)
    if not result.won:
        return f"resigned after {result.moves} moves{par_text}, {undos}, {time_text}"
    text = f"won in {result.moves} moves{par_text}, {undos}, {time_text}"
    if result.rank is not None:
        text += f", rank {result.rank} of {result.of}"
    elif result.under_review:
        text += ", under review"
    return text


def share_text(result: SharedResult, link: str) -> str:
    """The shareable text: the day, the result, and the link to the result's page."""
    return f"FreeCell Online daily {result.date.isoformat()}: {summary(result)}\n{link}"


def result_path(date: dt.date, username: str) -> str:
    """The result's page (frontend): works at once, spoils nothing, and leads to the replay after the day."""
    return f"/daily/{date.isoformat()}/result/{quote(username, safe='')}/"
