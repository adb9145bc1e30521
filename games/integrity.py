"""Integrity: a game's snapshot, counters and line must equal a replay of its action history."""

from __future__ import annotations

from games.engine import Board, EngineError
from games.models import Action, Game
from games.services import board_of_deal


def replay_history(game: Game) -> tuple[Board, int, int, list]:
    """Replays the stored actions from the deal: (board, ply, undos, line)."""
    board = board_of_deal(game.deal)
    line: list = []
    if game.autoplay == Game.Autoplay.SAFE:
        first = board.safe_autoplay()
        if first:
            line.append([None, [str(m) for m in first]])
    undos = 0
    actions = list(game.actions.order_by("index").values_list("index", "kind", "notation", "autoplay"))
    for expected, (index, kind, notation, autoplay) in enumerate(actions):
        if index != expected:
            raise EngineError(f"action {expected} is missing (found {index})")
        if kind == Action.Kind.MOVE:
            played = board.play(notation, autoplay=game.autoplay)
            made = [str(m) for m in played.autoplay]
            if made != autoplay:
                raise EngineError(f"action {index}: autoplay {made} stored as {autoplay}")
            line.append([str(played.move), made])
        else:
            board.undo()
            line.pop()
            undos += 1
    return board, len(actions), undos, line


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
    if board.is_won() != (game.status == Game.Status.WON):
        return f"status {game.status} but the replayed position is {'won' if board.is_won() else 'not won'}"
    return None
