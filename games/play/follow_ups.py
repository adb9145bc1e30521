"""What follows a change of a game, and a verdict on a result: the domains' hooks, called in one fixed order.

Play knows nothing of the domains above it. The wiring module (games/wiring.py) hands play two ordered
lists when the app is ready, and play calls them inside the transaction of the change, so a result and
everything that follows from it commit together (a hook that raises rolls the change back):

- `after_change(game)`: after every action, resign and time-out of a game. Each hook says which changes
  it cares about (`wants`), so a plain move costs no hook more than that check.
- `after_verdict(game)`: after a result's review changed (a moderator's verdict, an account's mark): the
  boards take the result on or off.

Pushes to watchers are not hooks: they go on the channel layer after commit (games.events).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FollowUp:
    """One domain's step: its name (for logs and tests), which changes it cares about, and what it does."""

    name: str
    wants: Callable[[object], bool]
    run: Callable[[object], None]


_after_change: tuple[FollowUp, ...] = ()
_after_verdict: tuple[FollowUp, ...] = ()


def install(*, after_change: Sequence[FollowUp], after_verdict: Sequence[FollowUp]) -> None:
    """Sets the two lists (games/wiring.py, once the app is ready; again in a test that reorders them)."""
    global _after_change, _after_verdict
    _after_change, _after_verdict = tuple(after_change), tuple(after_verdict)


def installed() -> tuple[tuple[FollowUp, ...], tuple[FollowUp, ...]]:
    return _after_change, _after_verdict


def _run(steps: tuple[FollowUp, ...], game) -> None:
    for step in steps:
        if step.wants(game):
            step.run(game)


def after_change(game) -> None:
    """Inside the transaction of a change of `game` (as now stored): each interested domain follows it."""
    _run(_after_change, game)


def after_verdict(game) -> None:
    """Inside the transaction of a verdict on `game`'s result: the boards follow its review state."""
    _run(_after_verdict, game)
