"""Fair play's reads: the published policy, the moderators' queue, and one case with its timeline."""

from __future__ import annotations

from dataclasses import asdict

from django.conf import settings
from django.db.models import Count

from games.daily.models import ranked_day
from games.fairplay import measures, services
from games.fairplay.models import Report, ReviewCase
from games.play.models import Action, Game
from games.play.payloads import REVIEW_STATES, deal_label, review_state


def policy(words: str) -> dict:
    """What GET /api/fair-play/ publishes: the policy, whether review is on, the signals and thresholds."""
    return {
        "policy": words,
        "review": services.review_on(),
        "signals": measures.published(services.signals()),
        "review_states": REVIEW_STATES,
        "report_limit": settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["report"],
    }


def case_line(game: Game, reports: int | None = None, opened_at=None) -> dict:
    """One line of the queue (and a verdict's answer)."""
    if reports is None:
        reports = Report.objects.filter(game_id=game.pk).count()
    if opened_at is None:
        opened_at = ReviewCase.objects.filter(game_id=game.pk).values_list("opened_at", flat=True).first() or game.finished_at
    return {
        "game": game.pk,
        "player": game.player.username,
        "deal": deal_label(game),
        "daily": ranked_day(game),
        "review": review_state(game),
        "reasons": game.review_reasons,
        "reports": reports,
        "opened_at": opened_at,
        "moves": game.ply,
        "undos": game.undos,
        "elapsed_ms": game.elapsed_ms,
    }


def review_of(game_id: int, viewer) -> dict | None:
    """A result's review as its player (or a moderator) reads it; None for anyone else."""
    try:
        game = Game.objects.filter(pk=int(game_id)).only("pk", "player_id", "review", "review_reasons").first()
    except OverflowError:
        game = None
    if game is None or not (viewer.is_staff or viewer.pk == game.player_id):
        return None
    found = ReviewCase.objects.filter(game_id=game_id).first()
    return {
        "game": game.pk,
        "review": review_state(game),
        "reasons": game.review_reasons,
        "note": found.note if found is not None and not found.open else "",
        "decided_at": found.decided_at if found is not None else None,
        "in_queue": found is not None and found.open,
    }


def queue(*, limit: int = 200) -> dict:
    """Open cases, oldest first: flagged by a signal, or reported."""
    cases = (
        ReviewCase.objects.filter(decided_at__isnull=True)
        .select_related("game__player", "game__daily_game")
        .annotate(report_count=Count("game__reports"))
        .order_by("opened_at", "game_id")
    )
    lines = [case_line(case.game, case.report_count, case.opened_at) for case in cases[:limit]]
    return {"count": ReviewCase.objects.filter(decided_at__isnull=True).count(), "cases": lines}


def case(game_id: int) -> dict | None:
    """A case as a moderator reads it: the result, each action's time and how it came, the signals'
    values against their thresholds, the reports, and the verdict so far."""
    game = Game.objects.select_related("player", "player__profile").filter(pk=game_id).first()
    if game is None:
        return None
    found = ReviewCase.objects.select_related("moderator").filter(game_id=game_id).first()
    actions = list(Action.objects.filter(game_id=game_id).order_by("index").values_list("index", "kind", "notation", "created_at", "via"))
    timeline = services.timeline_of(game)
    values = measures.values(timeline)
    return {
        "line": case_line(game, opened_at=found.opened_at if found else None),
        "status": game.status,
        "player": game.player,
        "case": found,
        "profile": getattr(game.player, "profile", None),
        "actions": [
            {"index": index, "kind": kind, "move": notation, "at_ms": at_ms, "gap_ms": at_ms - (timeline.action_ms[i - 1] if i else 0), "via": via or "?"}
            for i, ((index, kind, notation, _at, via), at_ms) in enumerate(zip(actions, timeline.action_ms, strict=True))
        ],
        "signals": [
            {**asdict(signal), "value": values[signal.signal], "crossed": values[signal.signal] is not None and signal.crossed(values[signal.signal])}
            for signal in services.signals()
        ],
        "par": timeline.par,
        "reports": list(Report.objects.filter(game_id=game_id).select_related("reporter").order_by("created_at")),
    }
