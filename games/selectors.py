"""Reads: who may see a game, histories and lines of play, players' finished games."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import QuerySet

from games.daily import today
from games.models import Action, Game, Race, RaceEntry
from games.payloads import deal_label, iso


def can_view_game(user, game: Game) -> bool:
    """Anyone may watch casual games and see finished ones; a ranked daily game of someone else
    stays hidden from everyone until that day is over. Winning that daily oneself once opened them:
    a throwaway account won it (a solver's line at a human pace), read the leader's line, and the
    main account played it for the same count in less time, taking the top rank.

    Likewise a racer's game is hidden from the other racers of its race until the race is over: a
    racer sees the others' progress (the spec's race), not their boards, and a rival's finished
    line could be copied move for move while the race ran. Others may watch."""
    signed_in = getattr(user, "is_authenticated", False)
    if signed_in and (user.pk == game.player_id or user.is_staff):
        return True
    if game.daily_id is not None and game.daily_id >= today():
        return False
    return not (signed_in and _entries_raced_by(user).filter(game_id=game.pk).exists())


def _entries_raced_by(viewer) -> QuerySet[RaceEntry]:
    """The entries of races not yet over in which `viewer` races too (their games are hidden from them)."""
    return RaceEntry.objects.filter(race__status__in=[Race.Status.COUNTDOWN, Race.Status.RUNNING], race__entries__player_id=viewer.pk)


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


def exported_games(user, viewer) -> QuerySet[Game]:
    """A player's finished games that the viewer may see, oldest first: a query, so that a page of
    them reads that page only (a player may have thousands)."""
    games = finished_games_of(user)
    # Only ranked games of today or later can be hidden (one a day per player): they are checked one
    # by one, the rest are visible to all.
    candidates = games.filter(daily_id__gte=today()).select_related(None).only("id", "player_id", "daily_id")
    hidden = [game.pk for game in candidates if not can_view_game(viewer, game)]
    if getattr(viewer, "is_authenticated", False) and viewer.pk != user.pk and not viewer.is_staff:
        # Finished in a race the viewer still runs against this player (see can_view_game).
        hidden += list(_entries_raced_by(viewer).filter(player_id=user.pk, game__isnull=False).values_list("game_id", flat=True))
    return games.exclude(pk__in=hidden) if hidden else games


def export_row(game: Game) -> dict:
    """One exported game with its line."""
    return {
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


def export_rows(user, viewer) -> Iterator[dict]:
    """Every exported game of a player, as the viewer may see them (the NDJSON export streams them)."""
    for game in exported_games(user, viewer).iterator(chunk_size=200):
        yield export_row(game)
