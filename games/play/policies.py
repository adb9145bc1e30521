"""The questions play asks of the domains above it about any game: when its time ends, who may see it.

Play knows nothing of races or dailies. Each adds its own rule here when the app is ready
(games/wiring.py): a ranked daily's midnight is a deadline rule (a race deals its games with their
deadline, `Game.deadline`, which needs no rule); a running race and a daily whose day is not over hide
their games; the daily shows its games under its own ids (`daily:DATE`) and says which rank, from a row
of its own beside the game that play reads with it. Play asks these rules at every action and every read,
so a rule is written once and holds on every path (REST, sockets, pages, lists, exports).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Q
from django.utils import timezone


@dataclass(frozen=True)
class Deadline:
    """The instant a game's time ends, the reason an action after it is refused, and the clock of the
    domain that set it (the daily's can be moved between days by tests)."""

    at: dt.datetime
    reason: str
    clock: Callable[[], dt.datetime] = timezone.now

    def passed(self) -> bool:
        return self.clock() >= self.at


DeadlineRule = Callable[[object], Deadline | None]
#: The games (over Game) whose deadline has passed, for lists filtered by status.
ExpiryRule = Callable[[], Q]
#: A rule that hides games from a viewer: the Q of the games it hides from them (over Game).
HidingRule = Callable[[object], Q]

_deadline_rules: list[DeadlineRule] = []
_expiry_rules: list[ExpiryRule] = []
_hiding_rules: list[HidingRule] = []


def add_deadline_rule(rule: DeadlineRule) -> None:
    if rule not in _deadline_rules:
        _deadline_rules.append(rule)


def add_expiry_rule(rule: ExpiryRule) -> None:
    if rule not in _expiry_rules:
        _expiry_rules.append(rule)


def add_hiding_rule(rule: HidingRule) -> None:
    if rule not in _hiding_rules:
        _hiding_rules.append(rule)


def deadline_of(game) -> Deadline | None:
    """The earliest deadline of the game: the one it was dealt with (`Game.deadline`, a race's time
    limit), or one a rule sets (a ranked daily's midnight); None."""
    found = [deadline for rule in _deadline_rules if (deadline := rule(game)) is not None]
    if game.deadline is not None:
        found.append(Deadline(game.deadline, "the game's time limit has passed"))
    return min(found, key=lambda deadline: deadline.at) if found else None


def time_is_up(game) -> Deadline | None:
    """The deadline a game still playing has passed, or None."""
    if game.status != "playing":
        return None
    deadline = deadline_of(game)
    return deadline if deadline is not None and deadline.passed() else None


def time_up_games() -> Q:
    """The games still stored as playing whose time is up (over Game): a list filtered by status shows
    them as the resigned games they are, before the sweeper has stored them so."""
    expired = Q(pk__in=[])
    for rule in _expiry_rules:
        expired |= rule()
    return Q(status="playing") & expired


def _sees_everything(viewer, player_id) -> bool:
    return getattr(viewer, "is_authenticated", False) and (viewer.pk == player_id or viewer.is_staff)


def hidden_from(viewer) -> Q:
    """The games hidden from `viewer` (over Game), their own and staff's aside: the one answer to "may
    this viewer see this game now", for single games and for lists alike."""
    hidden = Q(pk__in=[])
    for rule in _hiding_rules:
        hidden |= rule(viewer)
    if getattr(viewer, "is_authenticated", False):
        if viewer.is_staff:
            return Q(pk__in=[])
        return hidden & ~Q(player_id=viewer.pk)
    return hidden


def can_view_game(viewer, game) -> bool:
    """Whether `viewer` may see `game` now (its board, its line, its pushes)."""
    if _sees_everything(viewer, game.player_id):
        return True
    if not _hiding_rules:
        return True
    return not type(game).objects.filter(pk=game.pk).filter(hidden_from(viewer)).exists()


# --- deals that another domain names -----------------------------------------------------------------

#: A domain's record of a new game, written in the game's transaction once it is stored (the daily's:
#: the game is shown under the `daily:DATE` it was asked for by).
Recorder = Callable[[object], None]
#: Finds the stored deal of a deal id of its kind (`daily:DATE`): the Deal, and the record of a game
#: asked for by that id (None: nothing to record).
DealSource = Callable[[object], tuple[object, Recorder | None]]
#: Refuses (raises ServiceError) a stored deal a player may not be dealt now (a daily's in play).
DealGuard = Callable[[object], None]

_deal_sources: dict[str, DealSource] = {}
_deal_guards: list[DealGuard] = []


def add_deal_source(kind: str, source: DealSource) -> None:
    _deal_sources[kind] = source


def add_deal_guard(guard: DealGuard) -> None:
    if guard not in _deal_guards:
        _deal_guards.append(guard)


def deal_source(kind: str) -> DealSource | None:
    return _deal_sources.get(kind)


def guard_deal(deal) -> None:
    for guard in _deal_guards:
        guard(deal)


# --- rows of the domains above play, read with a game ------------------------------------------------

_read_with: list[str] = []


def add_read_with(relation: str) -> None:
    """A domain above play keeps a row of its own beside some games (a one-to-one on Game, named by its
    accessor: the daily's `daily_game`): it is read with the game on every read (the action's one
    statement joins it, games.play.store; lists select it), so the domain's rules ask it no query."""
    if relation not in _read_with:
        _read_with.append(relation)


def read_with() -> tuple[str, ...]:
    return tuple(_read_with)


# --- what a game is shown as ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Labels:
    """How a domain above play shows some games under deal ids of its own kind (the daily: `daily:DATE`,
    its ranked games and the casual games asked for by that id), from its row read with the game."""

    kind: str
    #: The deal id a game is shown under, or None for a game it does not label.
    label: Callable[[object], str | None]
    #: Whether a game ranks (a ranked daily's): it is played once, on the server's clock.
    ranked: Callable[[object], bool]
    #: The games shown under the id `kind:value`, given the value (over Game).
    shown_under: Callable[[object], Q]
    #: Every game it labels (over Game).
    labelled: Callable[[], Q]


_labels: list[Labels] = []


def add_labels(labels: Labels) -> None:
    if labels not in _labels:
        _labels.append(labels)


def label_of(game) -> str | None:
    """The deal id a domain above play shows the game under, or None (then it is the deal's own id)."""
    for labels in _labels:
        if (label := labels.label(game)) is not None:
            return label
    return None


def is_ranked(game) -> bool:
    """Whether the game ranks (a ranked daily's)."""
    return any(labels.ranked(game) for labels in _labels)


def shown_under(deal_id) -> Q:
    """The games shown under `deal_id` (over Game): by the domain whose kind it is, else the games of
    that deal that no domain labels."""
    for labels in _labels:
        if labels.kind == deal_id.kind:
            return labels.shown_under(deal_id.value)
    shown = Q(deal_id=str(deal_id))
    for labels in _labels:
        shown &= ~labels.labelled()
    return shown


# --- help ----------------------------------------------------------------------------------------------

#: Refuses (raises ServiceError 403 forbidden) the solver's help on a deal to a player (a visitor is
#: AnonymousUser): hints, the deal's par line. `game` is the game a hint is asked on, else None. Fair
#: play (docs/fair-play.md): no help where it would rank (a racer's deal, an unfinished ranked daily's).
HelpGuard = Callable[[str, object, object], None]

_help_guards: list[HelpGuard] = []


def add_help_guard(guard: HelpGuard) -> None:
    if guard not in _help_guards:
        _help_guards.append(guard)


def guard_help(deal_id: str, player, game=None) -> None:
    for guard in _help_guards:
        guard(deal_id, player, game)
