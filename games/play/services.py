"""Play: the only code that changes a game (create, play a move, undo, resign), on every database alike.

REST views, websocket consumers, races, dailies, the admin and management commands all call these
functions. An action reads the game, checks who acts, the ply, the game's time (games.play.policies) and the
move (the engine), then writes the new snapshot only if the game's version is still the one it read,
and appends the Action. Inside the same transaction the domains above play follow the change in their
fixed order (games.play.follow_ups: fair play's review, the daily, the boards, races); after commit the
new state is published on the channel layer (best effort: clients resync from the database when they
see a gap in `version`).

Two requests on the same game at once: the second one's version check finds the game changed, and it
answers from the game as it now is (the same answer as a resend, or `ply_conflict`). No row lock is
held while the engine validates the move.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.closing import lock_open_account
from freecell_site.errors import ServiceError
from games import events
from games.engine import Board, DealId, EngineError, Move, parse_deal
from games.engine import deal_columns as engine_deal_columns
from games.play import follow_ups, hints, lines, policies, ratelimit, store
from games.play.models import Action, Deal, Game
from games.play.payloads import action_payload, game_payload

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    """The answer to one action: the game after it, the stored action, and whether it was a resend."""

    game: Game
    action: Action | None
    repeated: bool = False
    #: The game object as the action's push carried it (computed once per action).
    shown: dict | None = None

    def payload(self) -> dict:
        body = dict(self.shown) if self.shown is not None else game_payload(self.game)
        if self.action is not None:
            body["action"] = action_payload(self.action)
        body["repeated"] = self.repeated
        return body


# --- deals ------------------------------------------------------------------------------------


def get_deal(deal: str) -> Deal:
    """The stored Deal for a deal id a player asks for (`ms:N`, `seed:S`, `daily:DATE` of a day that is over)."""
    return deal_and_record(deal)[0]


def deal_and_record(deal: str) -> tuple[Deal, policies.Recorder | None]:
    """The stored Deal for a deal id a player asks for, and the record a game asked for by that id needs
    (a `daily:DATE` game is shown under that id: the daily keeps it).

    `daily:` ids are found by the daily domain (games.play.policies.add_deal_source); every stored deal
    passes the guards other domains set (a daily's deal is not dealt while its day is on)."""
    deal_id = parse_deal(deal)
    source = policies.deal_source(deal_id.kind)
    if source is not None:
        return source(deal_id)
    found = stored_deal(deal_id)
    policies.guard_deal(found)
    return found, None


def stored_deal(deal_id: DealId) -> Deal:
    """The Deal row of an `ms:` or `seed:` deal, stored on first use (no guard: for the service's own use)."""
    key = str(deal_id)
    found = Deal.objects.filter(pk=key).first()
    if found is not None:
        return found
    columns = [[str(card) for card in column] for column in engine_deal_columns(deal_id)]
    return Deal.objects.get_or_create(pk=key, defaults={"columns": columns})[0]


def board_of_deal(deal: Deal) -> Board:
    return board_of_layout(deal.columns)


def board_of_layout(columns) -> Board:
    return Board.from_state({"columns": [list(column) for column in columns], "cells": [None] * 4, "foundations": {"C": 0, "D": 0, "H": 0, "S": 0}})


@functools.lru_cache(maxsize=4096)
def deal_layout(deal_key: str) -> tuple[tuple[str, ...], ...]:
    """A stored deal's columns by its id. A Deal row never changes once stored, so each process keeps
    the last few thousand it read: an undo or a hint replays from the deal without a query."""
    return tuple(tuple(column) for column in Deal.objects.values_list("columns", flat=True).get(pk=deal_key))


def board_of(game: Game) -> Board:
    """The game's position, replayed from its effective line so that `undo` has its history."""
    board = board_of_layout(deal_layout(game.deal_id))
    lines.replay(board, game.line, autoplay=game.autoplay)
    return board


# --- creating games ---------------------------------------------------------------------------


def create_game(
    *,
    player,
    deal: str | Deal,
    autoplay: str = "safe",
    record: policies.Recorder | None = None,
    started_at=None,
    by_player: bool = True,
    server_clock: bool = False,
    deadline=None,
) -> Game:
    """A new game of `deal` for `player`.

    A casual game has its own clock: it starts at the first action and counts while a page of the
    player has the game open (`keep_clock`, `pause_clock`). One asked for with `server_clock` (a ranked
    daily's, a race's) runs on the server's clock from `started_at` (default: now) to its finish, the
    same for everyone whatever their pages do.

    `by_player`: the player asked for it, so their account must be open (a race's start deals every
    racer's board, and closing an account leaves its open races first).

    `deadline`: when the game's time ends (a race's limit): an action after it is refused, and the
    sweeper resigns the game as of it.

    `record`: a domain's record of the new game, written in its transaction (the daily's: its ranked
    game, or a race's game shown under the `daily:DATE` the race was asked for by); a deal id asked for
    by a domain's own kind (`daily:DATE`) brings its own. An error it raises (a second ranked game:
    IntegrityError) undoes the game."""
    if autoplay not in Game.Autoplay.values:
        raise ServiceError("invalid_request", f"autoplay must be one of: {', '.join(Game.Autoplay.values)}")
    deal_row, asked = (deal, None) if isinstance(deal, Deal) else deal_and_record(deal)
    board = board_of_deal(deal_row)
    # Safe autoplay can have work to do on the deal itself (an ace on top of a column).
    line = lines.opening(board, autoplay)
    with transaction.atomic():
        if by_player:
            lock_open_account(player)
        game = Game(
            deal=deal_row,
            player=player,
            autoplay=autoplay,
            line=line,
            created_at=started_at or timezone.now(),
            clock_ms=None if server_clock else 0,
            deadline=deadline,
        )
        _store_position(game, board)
        game.save()
        store.none_read_with(game)  # a new game has no row of another domain yet (the records below add theirs)
        for recorder in (asked, record):
            if recorder is not None:
                recorder(game)
    return game


# --- the checks of an action --------------------------------------------------------------------


def read_game(game_id) -> Game:
    """The game an action acts on, by its key, with its player's name and the rows the domains above
    play keep beside it (a ranked daily's): one statement (games.play.store). The game carries what an
    action checks (its deadline, its clock, its daily), so no other row is read."""
    try:
        key = int(game_id)
    except (ValueError, TypeError, OverflowError):
        key = None
    game = store.read_game(key) if key is not None else None
    if game is None:
        raise ServiceError("not_found", f"no game {game_id}", status=404)
    return game


def read_with() -> list[str]:
    """Relations read with a game for a read of it (its page, its lists): its player, and the rows the
    domains above play keep beside it (games.play.policies.add_read_with). (Not the deal: its layout is
    needed only to replay the line, for an undo or a hint.)"""
    return ["player", *policies.read_with()]


def _check_player(game: Game, user) -> None:
    if not getattr(user, "is_authenticated", False) or user.pk != game.player_id:
        if not policies.can_view_game(user, game):  # a game hidden from the caller does not exist for them
            raise ServiceError("not_found", f"no game {game.pk}", status=404)
        raise ServiceError("forbidden", "only the game's player can play it", status=403)


def _check_ply(game: Game, ply) -> None:
    if not isinstance(ply, int) or isinstance(ply, bool) or ply < 0:
        raise ServiceError("invalid_request", "ply must be a non-negative whole number")
    if ply != game.ply:
        raise ServiceError(
            "ply_conflict",
            f"the game is at ply {game.ply}, not {ply}: refresh and try again",
            status=409,
            extra={"game": game_payload(game)},
        )


#: The most player actions (moves and undos) a game takes. Far beyond any real game (a few hundred),
#: it bounds what one game costs, since each action rewrites the game's line, and keeps its line
#: verifiable by /api/solutions/verify/ (serializers.MAX_LINE_MOVES leaves room for the autoplay
#: moves written out). Measurements: docs/performance.md.
MAX_ACTIONS = 5000


def _check_room(game: Game) -> None:
    if game.ply >= MAX_ACTIONS:
        raise ServiceError(
            "too_many_actions",
            f"a game takes at most {MAX_ACTIONS:,} moves and undos: resign it and deal again",
            status=409,
            extra={"game": game_payload(game)},
        )


def _check_playing(game: Game) -> None:
    """Refuses an action on a game that is over, or whose time is up (a race's limit, a ranked daily's
    day): the action is refused before anything is written; the sweeper (games/sweeper.py) resigns
    such a game, and every read shows it resigned meanwhile."""
    if game.status != Game.Status.PLAYING:
        raise ServiceError("game_over", f"the game is over ({game.status})", status=409, extra={"game": game_payload(game)})
    up = policies.time_is_up(game)
    if up is not None:
        raise ServiceError("game_over", up.reason, status=409, extra={"game": game_payload(game)})


def _resend(game: Game, *, ply, kind: str, move: str | None, client_id: str) -> Outcome | None:
    """The stored answer when this request repeats the last accepted action (same ply, same action)."""
    if not isinstance(ply, int) or isinstance(ply, bool) or ply != game.ply - 1:
        return None
    last = game.actions.order_by("-index").first()
    if last is None or last.index != ply or last.kind != kind:
        return None
    if client_id and last.client_id and client_id != last.client_id:
        return None
    if kind == Action.Kind.MOVE:
        try:
            asked, stored = Move.parse(move), Move.parse(last.notation)
        except EngineError:
            return None
        if (asked.source, asked.dest) != (stored.source, stored.dest) or asked.count not in (None, stored.count or 1):
            return None
    return Outcome(game, last, repeated=True)


# --- writing ------------------------------------------------------------------------------------


def _store_position(game: Game, board: Board) -> None:
    """The caches a game keeps of its history's position (verify_games proves them equal to a replay)."""
    game.state = board.state()
    game.cards_home = board.cards_home()
    game.stuck = board.is_stuck()
    if board.is_won():
        game.stuck = False


# What an action changes on Game (a narrower UPDATE than every column).
CLOCK_FIELDS = ("clock_ms", "clock_from", "clock_until")
ACTION_FIELDS = ("ply", "undos", "version", "state", "line", "cards_home", "stuck", "status", "finished_at", "elapsed_ms", *CLOCK_FIELDS)
RESIGN_FIELDS = ("status", "finished_at", "elapsed_ms", "version", *CLOCK_FIELDS)


def _finish(game: Game, status: str, at: dt.datetime) -> None:
    elapsed = game.clock_at(at)
    _stop_clock(game, at)
    game.status = status
    game.finished_at = at
    game.elapsed_ms = elapsed


def _write(game: Game, fields: tuple[str, ...], read_version: int) -> bool:
    """Stores `fields` of the game if it is still at the version it was read at; False when another
    action changed it meanwhile (nothing is written then)."""
    return store.write_game(game, fields, read_version)


def _announce(game: Game) -> dict:
    """Inside the change's transaction: the domains above play follow it; after commit: the push. Returns
    the game object the push carries."""
    follow_ups.after_change(game)
    payload = game_payload(game)
    transaction.on_commit(lambda: events.publish_game(payload))
    return payload


def _act(game_id, user, *, kind: str, ply, client_id: str, via: str, move: str | None = None) -> Outcome:
    """One player action (a move or an undo). A game changed by another request between the read and
    the write is read again and the action answered against it: a resend of what that request did, a
    `ply_conflict`, or, rarely, the action applied to the new position when the client's ply still
    matches (it cannot: every action raises the ply)."""
    if getattr(user, "is_authenticated", False):
        ratelimit.check_actions(user.pk)
    for _ in range(ATTEMPTS):
        with transaction.atomic():
            outcome = _try_act(game_id, user, kind=kind, ply=ply, client_id=client_id, via=via, move=move)
        if outcome is not None:
            return outcome
    raise _busy(game_id)


#: Reads of a game an action makes at most while other actions keep changing it under it.
ATTEMPTS = 5


def _busy(game_id) -> ServiceError:
    return ServiceError("server_busy", f"game {game_id} keeps changing: try again", status=503, extra={"retry_after": 1})


def _try_act(game_id, user, *, kind: str, ply, client_id: str, via: str, move: str | None) -> Outcome | None:
    game = read_game(game_id)
    _check_player(game, user)
    if kind == Action.Kind.MOVE and not isinstance(move, str):
        raise ServiceError("bad_notation", "move must be a string such as '3a' or '57'")
    repeated = _resend(game, ply=ply, kind=kind, move=move, client_id=client_id)
    if repeated:
        return repeated
    _check_playing(game)
    _check_ply(game, ply)
    _check_room(game)
    read_version = game.version
    if kind == Action.Kind.MOVE:
        board = Board.from_state(game.state)
        played = board.play(move, autoplay=game.autoplay)  # BadNotation / IllegalMove: nothing written
        notation, autoplay = str(played.move), [str(m) for m in played.autoplay]
        game.line = lines.appended(game.line, notation, autoplay)
    else:
        if not lines.has_move(game.line):
            raise ServiceError("illegal_move", "there is no move to undo", status=422)
        notation, autoplay = lines.last_move(game.line)
        game.line = lines.without_last(game.line)
        board = board_of(game)
        game.undos += 1
    action = Action(game=game, index=game.ply, kind=kind, notation=notation, autoplay=autoplay, client_id=client_id[:64], via=via)
    action.created_at = timezone.now()
    game.ply += 1
    game.version += 1
    _store_position(game, board)
    if board.is_won():
        _finish(game, Game.Status.WON, action.created_at)
    else:
        _run_clock(game, action.created_at)  # an action is a sign that the player has the game open
    action.clock_ms = game.clock_at(action.created_at)
    if not _write(game, ACTION_FIELDS, read_version):
        return None
    store.insert_action(action)
    return Outcome(game, action, shown=_announce(game))


# --- the actions --------------------------------------------------------------------------------


def play_move(*, game_id: int, user, move: str, ply: int, client_id: str = "", via: str = Action.Via.API) -> Outcome:
    """Plays one move in the spec's notation; raises ServiceError or an EngineError. `via`: how it came
    (`web` from the site's own pages, `api` from a token or an app), stored with the action."""
    return _act(game_id, user, kind=Action.Kind.MOVE, ply=ply, client_id=client_id, via=via, move=move)


def undo(*, game_id: int, user, ply: int, client_id: str = "", via: str = Action.Via.API) -> Outcome:
    """Takes back the last move and the autoplay it triggered; counts as a player action."""
    return _act(game_id, user, kind=Action.Kind.UNDO, ply=ply, client_id=client_id, via=via)


def resign(*, game_id: int, user) -> Outcome:
    """Ends the game as resigned (a loss); a resign of a resigned game answers the same."""
    return _leave(game_id, user, Game.Status.RESIGNED)


def abandon(*, game_id: int, user) -> Outcome:
    """Ends a casual game as abandoned: left for the same deal dealt again (Restart), neither a win nor a
    loss. The domains above play refuse it where leaving is a loss (games.play.restart)."""
    return _leave(game_id, user, Game.Status.ABANDONED)


def _leave(game_id, user, status: str) -> Outcome:
    for _ in range(ATTEMPTS):
        with transaction.atomic():
            game = read_game(game_id)
            _check_player(game, user)
            if game.status == status:
                return Outcome(game, None, repeated=True)
            _check_playing(game)
            if left := _end(game, status=status):
                return left
    raise _busy(game_id)


def _end(game: Game, *, at: dt.datetime | None = None, status: str = Game.Status.RESIGNED) -> Outcome | None:
    """Ends the game with `status` (resigned, or abandoned) as of `at`, if it is still at the version read."""
    read_version = game.version
    _finish(game, status, at or timezone.now())
    game.version += 1
    if not _write(game, RESIGN_FIELDS, read_version):
        return None
    return Outcome(game, None, shown=_announce(game))


def end_time_up(game_id: int) -> bool:
    """Resigns a game whose time is up (a race's limit, a ranked daily's day) as of its deadline: a
    loss, as a game left unfinished after its time is counted. For the sweeper; True if it did."""
    for _ in range(ATTEMPTS):
        with transaction.atomic():
            game = read_game(game_id)
            up = policies.time_is_up(game)
            if up is None:
                return False
            if _end(game, at=up.at) is not None:
                return True
    return False


def end_due_games(limit: int = 1000) -> int:
    """For the sweeper: resigns the games still playing past their deadline (a race's time limit), read
    by the indexed deadline, so a sweep reads only what is due. How many it resigned."""
    due = Game.objects.filter(status=Game.Status.PLAYING, deadline__lte=timezone.now()).order_by("deadline")
    return sum(end_time_up(game_id) for game_id in due.values_list("pk", flat=True)[:limit])


def resign_games_of_closed(sender, *, user, **kwargs) -> None:
    """A closed account's games still playing end as resigned (accounts.signals.account_closed)."""
    for game_id in Game.objects.filter(player=user, status=Game.Status.PLAYING).values_list("pk", flat=True):
        if not end_time_up(game_id):
            with transaction.atomic():
                game = read_game(game_id)
                if game.status == Game.Status.PLAYING:
                    _end(game)


# --- a casual game's clock -------------------------------------------------------------------------
#
# It counts while a page of the player has the game open, over any number of tabs and server
# processes, with no count of open pages to go wrong: each open page's socket says so every
# CLOCK_BEAT_S (`keep_clock`), and each sign lets the clock count CLOCK_LEASE_S more. A page that
# closes pauses it at once (`pause_clock`), and the player's other open pages, told on the bus, start
# it again (they would at their next beat anyway). A page that vanishes without closing (a killed
# server process, a lost network) stops the count when its lease runs out. An action writes the clock
# with its move (under the game's version, not the clock's compare-and-set): a pause that lands between
# its read and its write is lost, and the clock counts the lease from the action, the player acting.

#: How long a casual game's clock counts after the last sign that a page of its player has it open.
CLOCK_LEASE_S = 30.0
#: How often an open page's socket renews the lease (several times a lease, so one late beat is no gap).
CLOCK_BEAT_S = 10.0


def _lease(at: dt.datetime) -> dt.datetime:
    return at + dt.timedelta(seconds=CLOCK_LEASE_S)


def _stop_clock(game: Game, at: dt.datetime) -> None:
    """Folds the current stretch of a casual game's clock into its count, as of `at`: it counts no more."""
    if game.on_server_clock:
        return
    game.clock_ms = game.clock_at(at)
    game.clock_from = game.clock_until = None


def _run_clock(game: Game, at: dt.datetime) -> None:
    """A casual game's clock counts from `at` (or goes on counting) for a lease from `at`."""
    if game.on_server_clock or game.status != Game.Status.PLAYING:
        return
    if game.clock_from is None or game.clock_until is None or game.clock_until <= at:
        _stop_clock(game, at)  # a stretch whose lease ran out ends where its lease did
        game.clock_from = at
    game.clock_until = _lease(at)


def _change_clock(game_id: int, user, change) -> bool | None:
    """Applies `change` to the clock of the player's casual game still being played, if the clock fields
    are still as read (a compare-and-set: an action or another page's beat may write them meanwhile,
    and then it reads again). None when the game has no clock of the player's to change, now or later
    (another player's game, a game on the server's clock, a game over); False for a game not begun (the
    first action starts the clock); else whether the clock counts now."""
    if not getattr(user, "is_authenticated", False):
        return None
    for _ in range(ATTEMPTS):
        game = Game.objects.filter(pk=game_id, player_id=user.pk).only("pk", "status", "ply", "elapsed_ms", "created_at", *CLOCK_FIELDS).first()
        if game is None or game.on_server_clock or game.status != Game.Status.PLAYING:
            return None
        if game.ply == 0:
            return False
        read = {name: getattr(game, name) for name in CLOCK_FIELDS}
        now = timezone.now()
        change(game, now)
        if {name: getattr(game, name) for name in CLOCK_FIELDS} == read:
            return game.clock_running_at(now)
        written = Game.objects.filter(pk=game_id, status=Game.Status.PLAYING, **read).update(
            **{name: getattr(game, name) for name in CLOCK_FIELDS}
        )
        if written:
            return game.clock_running_at(now)
    return False  # kept changing under it: the next beat tries again (None would end the beats)


def keep_clock(*, game_id: int, user) -> bool | None:
    """A page of the player has their casual game open: its clock counts (again) for a lease from now.
    Called by the game's socket when it opens and every CLOCK_BEAT_S while it stays open. None when
    the game has no clock to keep, now or later; False before the first action (see `_change_clock`)."""
    return _change_clock(game_id, user, _run_clock)


def pause_clock(*, game_id: int, user) -> bool | None:
    """A page of the player closed their casual game: the clock stops counting now. The player's other
    open pages (on any process) are told, and keep it going at once (`keep_clock`)."""
    paused = _change_clock(game_id, user, _stop_clock)
    if paused is not None:
        transaction.on_commit(lambda: events.publish_clock(game_id))
    return paused


def hint_for(*, game_id, user) -> dict:
    """A hint for the player of a casual game still being played (games.play.hints); the domains above play
    refuse theirs (games.play.policies.guard_help: no hints in ranked games, nor on the deal of a race or a
    ranked daily the player has not finished)."""
    game = read_game(game_id)
    if not policies.can_view_game(user, game):  # a game hidden from the caller does not exist for them
        raise ServiceError("not_found", f"no game {game_id}", status=404)
    if not getattr(user, "is_authenticated", False) or user.pk != game.player_id:
        raise ServiceError("forbidden", "only the game's player can ask for a hint", status=403)
    policies.guard_help(game.deal_id, user, game)
    if game.status != Game.Status.PLAYING:
        raise ServiceError("game_over", f"the game is over ({game.status})", status=409)
    hint = hints.hint(board_of(game), game.autoplay, user.pk)
    # Counted once given (a fair-play signal of the result); the game's version and pushes stay as they are.
    Game.objects.filter(pk=game.pk).update(hints=F("hints") + 1)
    return hint
