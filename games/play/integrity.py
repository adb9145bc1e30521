"""Integrity: a game's snapshot, counters and line must equal a replay of its action history."""

from __future__ import annotations

from collections.abc import Iterator

from games.engine import Board, EngineError
from games.play import lines
from games.play.models import Action, Game
from games.play.services import board_of_deal


def replayed(game: Game) -> Iterator[tuple[Action | None, Board, list]]:
    """The game's history replayed from its deal: first (None, board, line) at the start, then
    (action, board, line) after each stored action. One board is played on throughout: copy what you keep."""
    board = board_of_deal(game.deal)
    line = lines.opening(board, game.autoplay)
    yield None, board, line
    for expected, action in enumerate(game.actions.order_by("index")):
        if action.index != expected:
            raise EngineError(f"action {expected} is missing (found {action.index})")
        if action.kind == Action.Kind.MOVE:
            played = board.play(action.notation, autoplay=game.autoplay)
            made = [str(m) for m in played.autoplay]
            if made != action.autoplay:
                raise EngineError(f"action {action.index}: autoplay {made} stored as {action.autoplay}")
            line = lines.appended(line, str(played.move), made)
        else:
            board.undo()
            line = lines.without_last(line)
        yield action, board, line


def replay_history(game: Game) -> tuple[Board, int, int, list]:
    """Replays the stored actions from the deal: (board, ply, undos, line)."""
    ply = undos = 0
    for step in replayed(game):
        action = step[0]
        if action is not None:
            ply += 1
            undos += action.kind == Action.Kind.UNDO
    _, board, line = step
    return board, ply, undos, line


def check_game(game: Game) -> str | None:
    """None when the game agrees with its history, else what differs."""
    try:
        board, ply, undos, line = replay_history(game)
    except EngineError as exc:
        return f"history does not replay: {exc}"
    if board.state() != game.state:
        return "snapshot differs from the replayed position"
    if (ply, undos) != (game.ply, game.undos):
        return f"counters ply={game.ply} undos={game.undos}, history gives ply={ply} undos={undos}"
    if line != game.line:
        return "stored line differs from the replayed line"
    if board.cards_home() != game.cards_home:
        return f"cards_home {game.cards_home}, the replayed position has {board.cards_home()}"
    if board.is_won() != (game.status == Game.Status.WON):
        return f"status {game.status} but the replayed position is {'won' if board.is_won() else 'not won'}"
    return None
