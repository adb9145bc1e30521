"""The one place that says what follows a change of a game, and in which order (lila's Finisher).

Play calls these lists inside the transaction of each change (games.play.follow_ups); each step says
which changes it cares about, so a plain move costs only those checks. The order matters and is
tested (tests/test_follow_ups.py):

1. fair play reviews a result just won, so that a flagged one never reaches a board;
2. the daily ranks a ranked win that was not held;
3. the boards count it: the deal's records, the month's ladder and streaks (after the daily, whose
   board decides the ladder's points);
4. races follow their racer's progress and finish.

A verdict on a result (a moderator's, an account's mark) changes its review state; the daily's
leaderboard and the boards then take it on or off, in the same order.
"""

from __future__ import annotations

from games.boards import services as boards
from games.daily import services as daily
from games.fairplay import services as fairplay
from games.play import follow_ups, policies
from games.play.follow_ups import FollowUp
from games.races import services as races

AFTER_CHANGE = (
    FollowUp("fair play reviews a result just won", fairplay.needs_review, fairplay.review_result),
    FollowUp("the daily ranks a ranked win", daily.is_ranked_win, daily.rank_win),
    FollowUp("the boards count wins and ranked games", boards.follows, boards.follow_game),
    FollowUp("the race follows its racer", races.in_a_race, races.follow_game),
)

AFTER_VERDICT = (
    FollowUp("the daily's leaderboard", daily.is_ranked, daily.follow_verdict),
    FollowUp("the deal's records, the ladder and streaks", lambda game: True, boards.follow_verdict),
)


def install() -> None:
    """Hands play its follow-ups and the rules of the domains above it (games/apps.py, once ready)."""
    follow_ups.install(after_change=AFTER_CHANGE, after_verdict=AFTER_VERDICT)
    daily.connect()
    races.connect()
    boards.connect()
    policies.add_hiding_rule(fairplay.held_results)
