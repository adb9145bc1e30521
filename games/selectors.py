"""Reads: who may see a game, histories and lines of play, players' finished games."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import QuerySet

from games.daily import today
from games.models import Action, Game
from games.payloads import deal_label, iso


def can_view_game(user, game: Game) -> bool:
    """Anyone may watch casual games and see finished ones; a ranked daily game of someone else
    stays hidden until that day is over, unless the viewer has finished that daily themselves."""
    if getattr(user, "is_authenticated", False) and (user.pk == game.player_id or user.is_staff):
        return True
    if game.daily_id is None:
        return True
    if game.daily_id < today():
        return True
    if getattr(user, "is_authenticated", False):
        return Game.objects.filter(daily_id=game.daily_id, player=user).exclude(status=Game.Status.PLAYING).exists()
    return False


def actions_of(game: Game) -> QuerySet[Action]:
    return game.actions.order_by("index")


def line_text(game: Game) -> str:
    """The line of play as moves for autoplay `none`: autoplay written out, undone moves left out."""
    moves: list[str] = []
    for move, autoplay in game.line:
        if move is not None:
            moves.append(move)
        moves.extend(autoplay)
    return " ".join(moves)


def finished_games_of(user) -> QuerySet[Game]:
    return (
        Game.objects.filter(player=user)
        .exclude(status=Game.Status.PLAYING)
        .select_related("deal")
        .order_by("created_at", "id")
    )


def export_rows(user, viewer) -> Iterator[dict]:
    """A player's finished games with their lines, oldest first, as the viewer may see them."""
    for game in finished_games_of(user).iterator(chunk_size=200):
        if not can_view_game(viewer, game):
            continue
        yield {
            "id": game.pk,
            "deal": deal_label(game),
            "status": game.status,
            "moves": game.ply,
            "undos": game.undos,
            "autoplay": game.autoplay,
            "elapsed_ms": game.elapsed_ms,
            "created_at": iso(game.created_at),
            "finished_at": iso(game.finished_at),
            "line": line_text(game),
        }
