"""The JSON shape of a game, shared by the REST API, websocket pushes and the channel layer."""

from __future__ import annotations

from django.utils import timezone

from games.play import policies
from games.play.models import Game


def iso(moment) -> str | None:
    """A UTC instant as the API writes it: ISO 8601 with a Z."""
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def deal_label(game_or_race) -> str:
    """The deal id a player knows a game or race by: `daily:DATE` for a daily (ranked, or a past one
    asked for by that id), else the deal's own id."""
    day = getattr(game_or_race, "daily_id", None) or game_or_race.past_daily_id
    return f"daily:{day.isoformat()}" if day is not None else game_or_race.deal_id


def elapsed_ms(game: Game) -> int:
    if game.elapsed_ms is not None:
        return game.elapsed_ms
    return max(0, int((timezone.now() - game.created_at).total_seconds() * 1000))


def game_payload(game: Game, *, username: str | None = None) -> dict:
    """The spec's game object: {id, deal, player, status, ply, moves, undos, autoplay, state, ...}.

    A game whose time is up (a race's limit, a ranked daily's day) shows as resigned at its deadline
    before the sweeper has stored it so: a read shows what is true and writes nothing."""
    status, finished_at, elapsed = game.status, game.finished_at, None
    up = policies.time_is_up(game)
    if up is not None:
        status, finished_at = Game.Status.RESIGNED, up.at
        elapsed = max(0, int((up.at - game.created_at).total_seconds() * 1000))
    return {
        "id": game.pk,
        "deal": deal_label(game),
        "player": username or game.player.username,
        "status": status,
        "ply": game.ply,
        "moves": game.ply,
        "undos": game.undos,
        "autoplay": game.autoplay,
        "ranked": game.daily_id is not None,
        "state": game.state,
        "cards_home": game.cards_home,
        "stuck": game.stuck,
        "version": game.version,
        "created_at": iso(game.created_at),
        "finished_at": iso(finished_at),
        "elapsed_ms": elapsed if elapsed is not None else elapsed_ms(game),
    }
