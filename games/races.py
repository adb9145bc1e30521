"""Race lifecycle: racers' progress and finish order as their games change."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from games import events
from games.models import Game, Race, RaceEntry


def race_payload(race: Race) -> dict:
    """The spec's race object: {code, deal, status, owner, racers}."""
    racers = []
    for entry in race.entries.select_related("player", "game").order_by("joined_at", "id"):
        game = entry.game
        racers.append(
            {
                "username": entry.player.username,
                "game": game.pk if game else None,
                "moves": game.ply if game else 0,
                "cards_home": game.cards_home if game else 0,
                "status": game.status if game else "waiting",
                "rank": entry.rank,
                "elapsed_ms": game.elapsed_ms if game else None,
            }
        )
    return {
        "code": race.code,
        "deal": race.deal_id,
        "status": race.status,
        "owner": race.owner.username,
        "autoplay": race.autoplay,
        "starts_at": race.starts_at.isoformat().replace("+00:00", "Z") if race.starts_at else None,
        "time_limit_s": race.time_limit_s,
        "version": race.version,
        "racers": racers,
    }


def on_game_changed(game: Game) -> None:
    """Called by services inside the game's transaction: ranks a finisher, ends a finished race."""
    entry = RaceEntry.objects.select_related("race").filter(game=game).first()
    if entry is None:
        return
    race = Race.objects.select_for_update().get(pk=entry.race_id)
    if game.status == Game.Status.WON and entry.rank is None:
        entry.rank = (race.entries.aggregate(best=Max("rank"))["best"] or 0) + 1
        entry.save(update_fields=["rank"])
    unfinished = race.entries.filter(game__status=Game.Status.PLAYING).exists()
    if race.status == Race.Status.RUNNING and not unfinished:
        race.status = Race.Status.FINISHED
        race.finished_at = timezone.now()
    race.version += 1
    race.save(update_fields=["status", "finished_at", "version"])
    payload = race_payload(race)
    transaction.on_commit(lambda: events.publish_race(payload))
