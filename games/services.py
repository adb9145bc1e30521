"""The only code that changes a game: create, play a move, undo, resign.

REST views, websocket consumers, races, the admin and management commands all call these functions.
Each write locks the game row, checks `ply`, lets the engine validate, appends the Action, updates the
snapshot on Game, and after commit publishes the new state on the channel layer (best effort: clients
resync from the database when they see a gap in `version`). On PostgreSQL the common move skips the
lock: it is validated on the game as read and written only if the game's version is still the one read
(`_play_unlocked`, docs/performance.md).
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.closing import lock_open_account
from freecell_site.errors import ServiceError
from games import events, ratelimit, store
from games.engine import Board, DealId, EngineError, Move, parse_deal
from games.engine import deal_columns as engine_deal_columns
from games.models import Action, DailyChallenge, Deal, Game, Race, RaceEntry
from games.payloads import game_payload, iso
from games.selectors import can_view_game

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    """The answer to one action: the game after it, the stored action, and whether it was a resend."""

    game: Game
    action: Action | None
    repeated: bool = False

    def payload(self) -> dict:
        body = game_payload(self.game)
        if self.action is not None:
            body["action"] = action_payload(self.action)
        body["repeated"] = self.repeated
        return body


def action_payload(action: Action) -> dict:
    return {
        "index": action.index,
        "kind": action.kind,
        "move": action.notation,
        "autoplay": action.autoplay,
        "at": iso(action.created_at),
    }


# --- deals ------------------------------------------------------------------------------------


def get_deal(deal: str) -> Deal:
    """The stored Deal for a deal id (`ms:N`, `seed:S`, `daily:DATE` of a day that has begun)."""
    return deal_and_daily(deal)[0]


def deal_and_daily(deal: str) -> tuple[Deal, DailyChallenge | None]:
    """The stored Deal for a deal id, and the daily challenge when the id is `daily:DATE`."""
    deal_id = parse_deal(deal)
    if deal_id.kind == "daily":
        from games import daily  # dailies depend on the solver; loaded only when asked for

        challenge = daily.get_daily(deal_id.value)
        return challenge.deal, challenge
    found = stored_deal(deal_id)
    if deal_id.kind == "seed":
        _refuse_a_daily_in_play(found)
    return found, None


def stored_deal(deal_id: DealId) -> Deal:
    """The Deal row of an `ms:` or `seed:` deal, stored on first use. For the service's own use (the
    daily's maker): players' requests go through `get_deal`, which guards the dailies in play."""
    key = str(deal_id)
    found = Deal.objects.filter(pk=key).first()
    if found is not None:
        return found
    columns = [[str(card) for card in column] for column in engine_deal_columns(deal_id)]
    return Deal.objects.get_or_create(pk=key, defaults={"columns": columns})[0]


def _refuse_a_daily_in_play(deal: Deal) -> None:
    """A daily's deal is a seed: deal drawn from the service's secret. Should its seed be known (a
    leaked or default secret makes it computable), it is still not dealt, shown or solved outside the
    ranked game until its day is over: a player would practise it, or ask hints on it, first."""
    from games import daily  # dailies depend on the solver; loaded only when asked for

    if DailyChallenge.objects.filter(deal=deal, date__gte=daily.today()).exists():
        raise ServiceError("forbidden", "this deal is a daily's whose day is not over: it is played ranked, at /api/daily/play/", status=403)


def board_of_deal(deal: Deal) -> Board:
    return Board.from_state({"columns": deal.columns, "cells": [None] * 4, "foundations": {"C": 0, "D": 0, "H": 0, "S": 0}})


def board_of(game: Game) -> Board:
    """The game's position, replayed from its effective line so that `undo` has its history."""
    board = board_of_deal(game.deal)
    for move, _autoplay in game.line:
        if move is None:  # safe autoplay on the deal itself, before any move
            board.safe_autoplay()
        else:
            board.play(move, autoplay=game.autoplay)
    return board


# --- creating games ---------------------------------------------------------------------------


def create_game(
    *, player, deal: str | Deal, autoplay: str = "safe", daily=None, past_daily_id=None, started_at=None, by_player: bool = True
) -> Game:
    """A new game of `deal` for `player`; the clock starts at `started_at` (default: now).

    `by_player`: the player asked for it, so their account must be open (a race's start deals every
    racer's board, and closing an account leaves its open races first).

    `daily`: the ranked game of that daily. A casual game asked for as `daily:DATE`, or given the
    `past_daily_id` (the date of the daily) a race was asked for by, is shown under that id."""
    if autoplay not in Game.Autoplay.values:
        raise ServiceError("invalid_request", f"autoplay must be one of: {', '.join(Game.Autoplay.values)}")
    deal_row, asked_daily = (deal, None) if isinstance(deal, Deal) else deal_and_daily(deal)
    board = board_of_deal(deal_row)
    with transaction.atomic():
        if by_player:
            lock_open_account(player)
        game = Game.objects.create(
            deal=deal_row,
            player=player,
            autoplay=autoplay,
            daily=daily,
            past_daily_id=None if daily is not None else (past_daily_id or (asked_daily and asked_daily.pk)),
            state=board.state(),
            created_at=started_at or timezone.now(),
        )
        # Safe autoplay can have work to do on the deal itself (an ace on top of a column).
        if autoplay == Game.Autoplay.SAFE:
            first = board.safe_autoplay()
            if first:
                game.line = [[None, [str(m) for m in first]]]
                _store_position(game, board)
                game.save()
    return game


# --- playing ----------------------------------------------------------------------------------


def _lock(game_id) -> Game:
    """The game row, locked until the transaction ends, with its player and race entry (games.store)."""
    try:
        game = store.lock_game(int(game_id))
    except (ValueError, TypeError, OverflowError):
        game = None
    if game is None:
        raise ServiceError("not_found", f"no game {game_id}", status=404)
    return game


def _check_player(game: Game, user) -> None:
    if not getattr(user, "is_authenticated", False) or user.pk != game.player_id:
        if not can_view_game(user, game):  # a game hidden from the caller does not exist for them
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
#: it bounds what one game costs: each move rewrites the game's line, and a game of 16,000 moves took
#: 83 ms a move against 33 ms at the start (SQLite, one process); its line stays verifiable by
#: /api/solutions/verify/ (serializers.MAX_LINE_MOVES leaves room for the autoplay moves written out).
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
    if game.status != Game.Status.PLAYING:
        raise ServiceError("game_over", f"the game is over ({game.status})", status=409, extra={"game": game_payload(game)})


def _resend(game: Game, *, ply, kind: str, move: str | None, client_id: str) -> Outcome | None:
    """The stored answer when this request repeats the last accepted action (same ply, same action)."""
    if not isinstance(ply, int) or ply != game.ply - 1:
        return None
    last = game.actions.order_by("-index").first()
    if last is None or last.index != ply or last.kind != kind:
        return None
    if client_id and last.client_id and client_id != last.client_id:
        return None
    if kind == Action.Kind.MOVE:
        try:
            asked, stored = Move.parse(move), Move.parse(last.notation)
        except Exception:
            return None
        if (asked.source, asked.dest) != (stored.source, stored.dest) or asked.count not in (None, stored.count or 1):
            return None
    return Outcome(game, last, repeated=True)


def _store_position(game: Game, board: Board) -> None:
    game.state = board.state()
    game.cards_home = board.cards_home()
    game.stuck = board.is_stuck()


# What an action changes on Game (a narrower UPDATE than every column).
GAME_PLAY_FIELDS = ("ply", "undos", "version", "state", "line", "cards_home", "stuck", "status", "finished_at", "elapsed_ms")


def _new_action(game: Game, *, kind: str, notation: str, autoplay: list[str], client_id: str) -> Action:
    return Action(game=game, index=game.ply, kind=kind, notation=notation, autoplay=autoplay, client_id=client_id[:64])


def _apply(game: Game, board: Board, action: Action) -> None:
    """What an action changes on the game (in memory): one more ply and version, the new position."""
    game.ply += 1
    game.version += 1
    _store_position(game, board)
    if board.is_won():
        game.status = Game.Status.WON
        game.finished_at = action.created_at
        game.elapsed_ms = max(0, int((game.finished_at - game.created_at).total_seconds() * 1000))
        game.stuck = False


def _record(game: Game, board: Board, *, kind: str, notation: str, autoplay: list[str], client_id: str) -> Action:
    action = store.insert_action(_new_action(game, kind=kind, notation=notation, autoplay=autoplay, client_id=client_id))
    _apply(game, board, action)
    store.update(game, GAME_PLAY_FIELDS)
    _after_change(game)
    return action


def _after_change(game: Game) -> None:
    """Side effects of any change: race progress inside the transaction, pushes after commit."""
    from games import daily, races  # both call back into this module

    races.on_game_changed(game)
    daily.on_game_changed(game)
    payload = game_payload(game)
    transaction.on_commit(lambda: events.publish_game(payload))


def play_move(*, game_id: int, user, move: str, ply: int, client_id: str = "", known: Game | None = None) -> Outcome:
    """Plays one move in the spec's notation; raises ServiceError or an EngineError.

    On PostgreSQL the common move (the game goes on, in no race or a running one) is read without a
    lock and written in one statement that checks the game's version (`_play_unlocked`); anything
    else, and a move that finds the game changed meanwhile, takes the locked path.

    `known`: the game as the caller last got it from this module (`Outcome.game`), which a socket
    keeps between its player's moves; it saves the read, and is used up (changed in place). Whether
    it is still current is checked where it matters, by the write's version check."""
    with _clocks():
        if store.records_in_one_statement():
            played = _play_unlocked(game_id=game_id, user=user, move=move, ply=ply, client_id=client_id, known=known)
            if isinstance(played, Outcome):
                return played
            return _play_locked(game_id=game_id, user=user, move=move, ply=ply, client_id=client_id, counted=played)
        return _play_locked(game_id=game_id, user=user, move=move, ply=ply, client_id=client_id)


class _TimeUp(Exception):
    """An action came after its game's time was up (a race's time limit, a ranked daily's day), which
    nobody had applied yet."""

    def __init__(self, game: Game, reason: str):
        super().__init__(reason)
        self.game = game
        self.reason = reason


def _check_clocks(game: Game) -> None:
    """Refuses an action on a race's game past the race's time limit, and on a ranked daily game after
    its day (UTC): the action is refused before anything is written. The race's limit is otherwise
    applied by `races.refresh`, which a race's sockets call at the end; a racer playing over REST with
    no socket open must not win after it. A daily game left open over midnight must not be won on
    its closed board either, with the day's par line and replays public by then."""
    race = _race_of(game)
    if race is not None and race.status == Race.Status.RUNNING and race.starts_at is not None:
        from games import races  # races call back into this module

        if timezone.now() >= races.ends_at(race):
            raise _TimeUp(game, "the race's time limit has passed")
    if game.daily_id is not None:
        from games import daily  # dailies call back into this module

        if daily.is_over(game.daily_id):
            raise _TimeUp(game, f"the daily of {game.daily_id.isoformat()} is over: its ranked play ended at midnight UTC")


@contextmanager
def _clocks():
    """Around an action, outside its transaction: when its game's time is up, applies it (a race's
    limit resigns every racer still playing and finishes the race; a daily's day resigns the game, a
    loss, as a game left unfinished after its day is counted) and answers `game_over`."""
    try:
        yield
    except _TimeUp as up:
        if up.game.daily_id is not None:
            _resign_past_daily(up.game.pk)
        else:
            from games import races

            races.refresh(up.game.race_entry.race.code)
        game = store.read_game(up.game.pk)
        raise ServiceError("game_over", up.reason, status=409, extra={"game": game_payload(game)}) from None


def settled(game: Game) -> Game:
    """`game` as a read should show it: a ranked daily game still playing after its day, or a racer's
    game after its race's time limit, is resigned first (else it showed `playing` until its player
    acted)."""
    if game.status == Game.Status.PLAYING and game.daily_id is not None:
        from games import daily

        if daily.is_over(game.daily_id):
            _resign_past_daily(game.pk)
            return Game.objects.select_related("player", "deal").get(pk=game.pk)
    from games import races

    return races.settled(game)


def settle_games_of(user) -> None:
    """Settles (see `settled`) the player's games still playing in a past day's daily or a running
    race, before a list of their games is read: it must not show them playing. Usually none."""
    from games import daily

    stale = Game.objects.filter(player=user, status=Game.Status.PLAYING).filter(
        Q(daily_id__lt=daily.today()) | Q(race_entry__race__status=Race.Status.RUNNING)
    )
    for game in stale.select_related("player", "deal"):
        settled(game)


def _play_unlocked(*, game_id: int, user, move: str, ply: int, client_id: str, known: Game | None) -> Outcome | bool:
    """The move read and written without a lock: the Outcome, or whether the action was already counted
    against the rate limit when the locked path must answer instead.

    Anything unusual (a resend, a stale ply, a finished game, a win, a race that is not simply running)
    goes to the locked path, which answers it exactly as before; so does a game that changed between
    the read and the write, which it then sees as it is. A refused move is refused here: it was illegal
    in the position of the version the client played on.

    A `known` game at the client's ply stands in for the read: it is what the last write stored, and the
    write checks that the version is still that one. (A race's status changes only with its games': its
    time limit resigns them, and it finishes when they have finished.)"""
    if not isinstance(move, str) or not isinstance(ply, int) or isinstance(ply, bool):
        return False
    if known is not None and known.pk == game_id and known.ply == ply:
        game = known
    else:
        try:
            game = store.read_game(int(game_id))
        except (ValueError, TypeError, OverflowError):
            return False
    if game is None or ply != game.ply or game.status != Game.Status.PLAYING or game.ply >= MAX_ACTIONS or not _progress_only(game):
        return False
    _check_player(game, user)
    _check_clocks(game)
    ratelimit.check_actions(user.pk)
    try:
        board, notation, autoplay = _played(game, move)
    except EngineError:
        if game is known:
            return True  # the stored game may have changed since: the locked path answers on it
        raise
    if board.is_won():
        return True  # a win ranks racers and dailies under locks
    version = game.version
    action = _new_action(game, kind=Action.Kind.MOVE, notation=notation, autoplay=autoplay, client_id=client_id)
    _apply(game, board, action)
    if not store.record_if_unchanged(game, GAME_PLAY_FIELDS, action, version):
        return True
    _after_change(game)
    return Outcome(game, action)


def _progress_only(game: Game) -> bool:
    """Whether a change of the game that does not end it needs no lock beyond its own row: the game is in
    no race, or in a running race against people (then only the racer's progress is pushed)."""
    race = _race_of(game)
    return race is None or (race.status == Race.Status.RUNNING and race.ghost_of_id is None)


def _race_of(game: Game) -> Race | None:
    """The race the game is played in, read with the game (games.store): no query."""
    try:
        return game.race_entry.race
    except RaceEntry.DoesNotExist:
        return None


@transaction.atomic
def _play_locked(*, game_id: int, user, move: str, ply: int, client_id: str = "", counted: bool = False) -> Outcome:
    game = _lock(game_id)
    _check_player(game, user)
    if not counted:
        ratelimit.check_actions(user.pk)
    if not isinstance(move, str):
        raise ServiceError("bad_notation", "move must be a string such as '3a' or '57'")
    repeated = _resend(game, ply=ply, kind=Action.Kind.MOVE, move=move, client_id=client_id)
    if repeated:
        return repeated
    _check_playing(game)
    _check_clocks(game)
    _check_ply(game, ply)
    _check_room(game)
    board, notation, autoplay = _played(game, move)
    action = _record(game, board, kind=Action.Kind.MOVE, notation=notation, autoplay=autoplay, client_id=client_id)
    return Outcome(game, action)


def _played(game: Game, move: str) -> tuple[Board, str, list[str]]:
    """The position after `move` and the move as played (with its autoplay), appended to the game's line.

    A move needs only the current position (the snapshot); undo replays the line for its history.
    BadNotation / IllegalMove leave the game as it was."""
    board = Board.from_state(game.state)
    played = board.play(move, autoplay=game.autoplay)
    notation, autoplay = str(played.move), [str(m) for m in played.autoplay]
    game.line = [*game.line, [notation, autoplay]]
    return board, notation, autoplay


def undo(*, game_id: int, user, ply: int, client_id: str = "") -> Outcome:
    """Takes back the last move and the autoplay it triggered; counts as a player action."""
    with _clocks():
        return _undo_locked(game_id=game_id, user=user, ply=ply, client_id=client_id)


@transaction.atomic
def _undo_locked(*, game_id: int, user, ply: int, client_id: str) -> Outcome:
    game = _lock(game_id)
    _check_player(game, user)
    ratelimit.check_actions(user.pk)
    repeated = _resend(game, ply=ply, kind=Action.Kind.UNDO, move=None, client_id=client_id)
    if repeated:
        return repeated
    _check_playing(game)
    _check_clocks(game)
    _check_ply(game, ply)
    _check_room(game)
    if not game.line or game.line[-1][0] is None:
        raise ServiceError("illegal_move", "there is no move to undo", status=422)
    undone_move, undone_autoplay = game.line[-1]
    game.line = game.line[:-1]
    board = board_of(game)
    game.undos += 1
    action = _record(game, board, kind=Action.Kind.UNDO, notation=undone_move, autoplay=undone_autoplay, client_id=client_id)
    return Outcome(game, action)


@transaction.atomic
def resign(*, game_id: int, user) -> Outcome:
    """Ends the game as resigned (a loss); a resign of a resigned game answers the same."""
    game = _lock(game_id)
    _check_player(game, user)
    if game.status == Game.Status.RESIGNED:
        return Outcome(game, None, repeated=True)
    _check_playing(game)
    _mark_resigned(game)
    return Outcome(game, None)


def _mark_resigned(game: Game) -> None:
    now = timezone.now()
    game.status = Game.Status.RESIGNED
    game.finished_at = now
    game.elapsed_ms = max(0, int((now - game.created_at).total_seconds() * 1000))
    game.version += 1
    store.update(game, ("status", "finished_at", "elapsed_ms", "version"))
    _after_change(game)


@transaction.atomic
def _resign_past_daily(game_id: int) -> None:
    """A ranked daily game still playing after its day ends as a loss (see `_check_clocks`)."""
    game = _lock(game_id)
    if game.status == Game.Status.PLAYING:
        _mark_resigned(game)
