"""Fair play's writes: the review of a finished result, players' reports, moderators' verdicts and marks.

A result is reviewed once, when its game is won (games.play.follow_ups runs `review_result` before the
daily and the boards take the result): the signals of games.fairplay.measures are measured on its
stored action timeline, and a result that crosses one is `flagged` and stays off the people's boards
until a moderator clears it. A bot's results are never reviewed (it said what it is; it ranks among
bots); a marked account's are rejected as they come. Reports open a case but change no board: only a
moderator's verdict does.
"""

from __future__ import annotations

import dataclasses
import logging

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Profile
from freecell_site.errors import ServiceError
from games.boards.models import DealRecord
from games.daily.models import RANKED, DailyChallenge, DailyResult, ranked_day
from games.fairplay import measures
from games.fairplay.models import Report, ReviewCase
from games.play import facts, follow_ups
from games.play.models import Action, Game

logger = logging.getLogger(__name__)

HELD = Game.HELD_REVIEWS


def review_on() -> bool:
    """FAIR_PLAY_REVIEW=0 turns automatic flags off (private servers, tests); reports and verdicts stay."""
    return settings.FAIR_PLAY_REVIEW


def signals() -> tuple[measures.Signal, ...]:
    """The published signals; the pace floor is the setting DAILY_MIN_MS_PER_MOVE."""
    pace = settings.DAILY_MIN_MS_PER_MOVE
    return tuple(dataclasses.replace(s, threshold=pace) if s.signal == "pace_ms" else s for s in measures.SIGNALS)


def _ms(span) -> int:
    return max(0, int(span.total_seconds() * 1000))


def par_of(game: Game) -> int | None:
    """The par a result is held against: the daily's, or the solver's facts of the deal when they are
    known already (never solved here: a review must not wait for the solver). Par counts safe autoplay."""
    if game.autoplay != Game.Autoplay.SAFE:
        return None
    date = ranked_day(game)
    if date is not None:
        return DailyChallenge.objects.filter(date=date).values_list("par", flat=True).first()
    known = facts.known_facts(game.deal_id)
    return known.get("par") if known else None


def timeline_of(game: Game) -> measures.Timeline:
    """What the signals read of a game: each action's time from the board shown (the game's creation,
    a race's start), its score, its par and its hints."""
    times = Action.objects.filter(game_id=game.pk).order_by("index").values_list("created_at", flat=True)
    return measures.Timeline(
        action_ms=[_ms(at - game.created_at) for at in times],
        moves=game.ply,
        undos=game.undos,
        par=par_of(game),
        hints=game.hints,
    )


# --- the review of a result, when its game is won --------------------------------------------------


def needs_review(game: Game) -> bool:
    """The changes fair play follows (games.play.follow_ups): a game won just now. No query otherwise."""
    return game.status == Game.Status.WON and game.review == Game.Review.NONE


def _set_review(game: Game, review: str, reasons: list | None = None) -> None:
    game.review = review
    changed = {"review": review}
    if reasons is not None:
        game.review_reasons = changed["review_reasons"] = reasons
    Game.objects.filter(pk=game.pk).update(**changed)


def _open_case(game: Game, *, by_mark: bool = False) -> ReviewCase:
    case, made = ReviewCase.objects.select_for_update().get_or_create(
        game_id=game.pk, defaults={"opened_at": timezone.now(), "by_mark": by_mark}
    )
    if not made and not case.open:
        case.decided_at, case.opened_at = None, timezone.now()
        case.save(update_fields=["decided_at", "opened_at"])
    return case


def review_result(game: Game) -> None:
    """A game won: its player's mark rejects it; a person's result that crosses a signal is flagged."""
    profile = Profile.objects.filter(user_id=game.player_id).only("bot", "marked_at").first()
    if profile is not None and profile.marked:
        _set_review(game, Game.Review.REJECTED)
        case = _open_case(game, by_mark=True)
        _decide(case, moderator=None, note="the player's account is marked")
        return
    if (profile is not None and profile.bot) or not review_on():
        return
    reasons = measures.reasons(timeline_of(game), signals())
    if reasons:
        _set_review(game, Game.Review.FLAGGED, reasons)
        _open_case(game)
        logger.info("game %s flagged for review: %s", game.pk, ", ".join(r["signal"] for r in reasons))


# --- reports ---------------------------------------------------------------------------------------


def on_a_board(game: Game) -> bool:
    """Whether the game ranks on a board now: a daily's leaderboard or its deal's records."""
    return DailyResult.objects.filter(game_id=game.pk).exists() or DealRecord.objects.filter(game_id=game.pk).exists()


def game_or_404(game_id) -> Game:
    try:
        found = Game.objects.filter(pk=int(game_id)).first()
    except (ValueError, TypeError, OverflowError):
        found = None
    if found is None:
        raise ServiceError("not_found", f"no game {game_id}", status=404)
    return found


def reportable(game_id, reporter) -> Game:
    """The result `reporter` may report: a won game of another player that ranks on a board."""
    try:
        game = game_or_404(game_id)
    except ServiceError:
        game = None
    if game is None or game.status != Game.Status.WON or not on_a_board(game):
        raise ServiceError("not_found", f"no result {game_id} on a board to report", status=404)
    if game.player_id == reporter.pk:
        raise ServiceError("invalid_request", "you cannot report your own result")
    return game


def report(*, game_id, reporter, reason: str) -> ReviewCase:
    """A player reports a result that ranks on a board: its case opens (again) for the moderators. The
    board does not change until a verdict: a report alone cannot take an honest result down."""
    game = reportable(game_id, reporter)
    reason = (reason or "").strip()
    if not reason:
        raise ServiceError("invalid_request", "say what looks wrong: reason must not be empty")
    try:
        with transaction.atomic():
            Report.objects.create(game=game, reporter=reporter, reason=reason[:500], created_at=timezone.now())
            case = _open_case(game)
    except IntegrityError:
        raise ServiceError("already_reported", "you have reported this result already: the moderators have it", status=409) from None
    return case


# --- moderators' verdicts and marks ------------------------------------------------------------------


def _decide(case: ReviewCase, *, moderator, note: str) -> None:
    case.decided_at, case.moderator, case.note = timezone.now(), moderator, note[:500]
    case.save(update_fields=["decided_at", "moderator", "note"])


def _locked_game(game_id) -> Game:
    return Game.objects.select_for_update().get(pk=game_or_404(game_id).pk)


@transaction.atomic
def clear(game, *, moderator=None, note: str = "") -> Game:
    """The result is fair: it ranks from now on, on every board it belongs to. Only a won game can be
    cleared: cleared while still playing, its win would skip the review."""
    game = _locked_game(getattr(game, "pk", game))
    if game.status != Game.Status.WON:
        raise ServiceError("invalid_request", f"game {game.pk} is not won: there is nothing to clear")
    game.review = Game.Review.CLEARED
    game.save(update_fields=["review"])
    _decide(_open_case(game), moderator=moderator, note=note)
    follow_ups.after_verdict(game)
    return game


@transaction.atomic
def reject(game, *, moderator=None, note: str = "", by_mark: bool = False) -> Game:
    """The result is not fair: it leaves (or never enters) every board. A ranked game may be rejected
    while still playing, as a bot can be caught before it wins; a casual one once won (before, it is on
    no board)."""
    game = _locked_game(getattr(game, "pk", game))
    if game.status != Game.Status.WON and ranked_day(game) is None:
        raise ServiceError("invalid_request", f"game {game.pk} is on no board: there is nothing to reject")
    game.review = Game.Review.REJECTED
    game.save(update_fields=["review"])
    case = _open_case(game, by_mark=by_mark)
    if by_mark and not case.by_mark:
        case.by_mark = True
        case.save(update_fields=["by_mark"])
    _decide(case, moderator=moderator, note=note)
    follow_ups.after_verdict(game)
    return game


def mark_account(user, *, moderator=None, note: str = "") -> int:
    """Marks an account: every result of it leaves every board (rejected, `by_mark`), and its results to
    come are rejected as they are won; its profile says so. Returns how many results it took off."""
    with transaction.atomic():
        Profile.objects.filter(user=user).update(marked_at=timezone.now(), mark_note=note[:500])
        results = Game.objects.filter(player=user, status=Game.Status.WON).exclude(review=Game.Review.REJECTED)
        taken = 0
        for game_id in results.values_list("pk", flat=True):
            reject(game_id, moderator=moderator, note=note or "the player's account is marked", by_mark=True)
            taken += 1
    return taken


def unmark_account(user, *, moderator=None, note: str = "") -> int:
    """Lifts a mark: the results the mark rejected are cleared and rank again; returns how many."""
    with transaction.atomic():
        Profile.objects.filter(user=user).update(marked_at=None, mark_note="")
        cases = ReviewCase.objects.filter(game__player=user, by_mark=True, game__review=Game.Review.REJECTED)
        given_back = 0
        for game_id in cases.values_list("game_id", flat=True):
            clear(game_id, moderator=moderator, note=note or "the account's mark was lifted")
            ReviewCase.objects.filter(game_id=game_id).update(by_mark=False)
            given_back += 1
    return given_back


# --- bot accounts ------------------------------------------------------------------------------------


def has_ranked_result(user) -> bool:
    """Whether an account has anything a board counts or may count: a ranked daily started, or a game won."""
    return Game.objects.filter(RANKED | ~Q(status__in=[Game.Status.PLAYING, Game.Status.RESIGNED]), player=user).exists()


@transaction.atomic
def become_bot(user) -> Profile:
    """Turns an account into a bot, for good: its results rank among bots only. Refused once it has a
    ranked result, which stands on the people's boards (or on its way there)."""
    profile, _ = Profile.objects.select_for_update().get_or_create(user=user)
    if profile.bot:
        return profile
    if has_ranked_result(user):
        raise ServiceError(
            "has_results",
            "this account has results on the people's boards (a ranked daily or a won game): make a new account for your bot",
            status=409,
        )
    profile.bot = True
    profile.save(update_fields=["bot"])
    return profile


# --- privacy -------------------------------------------------------------------------------------------


def held_results(viewer):
    """A result held by a review (flagged or rejected) is hidden from everyone but its player and staff:
    its board, line, moves and time, on every path (games.play.policies' hiding rules)."""
    return Q(review__in=HELD)
