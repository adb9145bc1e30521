"""Fair play (docs/fair-play.md): the automatic review of a won result, its privacy, reports, verdicts, marks, bots,
`via` on every action, and no help where it would rank."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Profile
from games.daily import services as daily
from games.fairplay import services as fairplay
from games.models import DailyResult, DealRecord, Game, LadderEntry, ReviewCase
from games.play import services
from tests.support.boards import CASUAL_DEAL, casual_deal
from tests.support.daily import actions_for
from tests.support.players import client_for, code_of, token_of
from tests.support.races import running_race

pytestmark = pytest.mark.usefixtures("solver_stand_in")

STEADY = [153] * 40  # a solver's line played at an even 153 ms a move


def person_gaps(n: int, seed: int = 7) -> list[int]:
    """Gaps of a person's hand: about 2 s a move, spread as people's are (log-normal, sigma 0.8)."""
    rng = random.Random(seed)
    return [int(2000 * rng.lognormvariate(0, 0.8)) + 300 for _ in range(n)]


def signed_in(user) -> APIClient:
    """A client on the site's session, as the pages are."""
    client = APIClient()
    client.force_login(user)
    return client


def play_timed(game: Game, actions: list[str], *, first_ms: int, gaps_ms: list[int]) -> Game:
    """Plays `actions` in `game` as if its board had been shown `first_ms` before the first and each next
    action came `gaps_ms[i]` after the one before: the stored timeline fair play reads."""
    offsets = [first_ms]
    for gap in gaps_ms[: len(actions) - 1]:
        offsets.append(offsets[-1] + gap)
    now = timezone.now()
    created = now - dt.timedelta(milliseconds=offsets[-1])
    Game.objects.filter(pk=game.pk).update(created_at=created)
    for action in actions:
        current = Game.objects.get(pk=game.pk)
        if current.ply == len(actions) - 1:  # before the winning action: date the stored ones
            for index, offset in enumerate(offsets[:-1]):
                current.actions.filter(index=index).update(created_at=created + dt.timedelta(milliseconds=offset))
        if action == "undo":
            services.undo(game_id=game.pk, user=current.player, ply=current.ply)
        else:
            services.play_move(game_id=game.pk, user=current.player, move=action, ply=current.ply)
    return Game.objects.get(pk=game.pk)


def ranked_win(user, *, moves: int = 20, first_ms: int = 150, gaps=STEADY) -> Game:
    game, _ = daily.start_ranked_game(user)
    return play_timed(game, actions_for(moves), first_ms=first_ms, gaps_ms=gaps)


def casual_win(user, *, moves: int = 20, first_ms: int = 150, gaps=STEADY, deal: str = CASUAL_DEAL) -> Game:
    casual_deal(deal)
    game = services.create_game(player=user, deal=deal, autoplay="safe", server_clock=True)
    return play_timed(game, actions_for(moves), first_ms=first_ms, gaps_ms=gaps)


@pytest.fixture
def review_on(settings):
    settings.FAIR_PLAY_REVIEW = True


def leaderboard_names(date: dt.date, client=None) -> list[str]:
    answer = (client or client_for()).get(f"/api/daily/{date.isoformat()}/leaderboard/")
    return [entry["username"] for entry in answer.json()["entries"]]


# --- the automatic review --------------------------------------------------------------------------


def test_a_solver_line_at_an_even_pace_is_flagged_with_its_reasons_and_kept_off_every_board(review_on, alice, today_daily):
    game = ranked_win(alice)
    assert game.review == "flagged"
    signals = {reason["signal"] for reason in game.review_reasons}
    assert {"steadiness", "first_move_ms"} <= signals
    assert all(set(reason) == {"signal", "value", "threshold"} for reason in game.review_reasons)
    assert not DailyResult.objects.filter(game=game).exists()
    assert not DealRecord.objects.filter(game=game).exists()
    assert not LadderEntry.objects.filter(player=alice, won__gt=0).exists()
    assert ReviewCase.objects.get(game=game).open
    mine = client_for(alice).get(f"/api/games/{game.pk}/").json()
    assert mine["review"] == "flagged" and mine["review_reasons"] == game.review_reasons


def test_a_persons_pace_is_not_flagged_and_ranks_at_once(review_on, alice, today_daily):
    game = ranked_win(alice, first_ms=6000, gaps=person_gaps(40))
    assert game.review == "" and game.review_reasons == []
    assert leaderboard_names(today_daily.date) == ["alice"]


def test_review_off_flags_nothing(settings, alice, today_daily):
    settings.FAIR_PLAY_REVIEW = False
    game = ranked_win(alice)
    assert game.review == "" and DailyResult.objects.filter(game=game).exists()


def test_moves_at_par_with_no_undo_is_flagged_but_not_with_an_undo(review_on, alice, bob, today_daily):
    daily_row = today_daily
    daily_row.par = 20
    daily_row.save()
    at_par = ranked_win(alice, moves=20, first_ms=6000, gaps=person_gaps(40, seed=1))
    assert [r["signal"] for r in at_par.review_reasons] == ["moves_over_par"]
    game, _ = daily.start_ranked_game(bob)
    with_undo = play_timed(game, actions_for(20, undos=1), first_ms=6000, gaps_ms=person_gaps(40, seed=2))
    assert with_undo.review == ""


def test_a_casual_record_set_by_a_machine_is_flagged_and_the_deal_board_ignores_it(review_on, alice, bob):
    machine = casual_win(alice)
    person = casual_win(bob, moves=25, first_ms=5000, gaps=person_gaps(40, seed=3))
    assert machine.review == "flagged" and person.review == ""
    board = client_for().get(f"/api/deals/{CASUAL_DEAL}/records/").json()
    assert [entry["username"] for entry in board["entries"]] == ["bob"]


def test_hints_asked_in_a_game_flag_its_record(review_on, alice):
    casual_deal()
    game = services.create_game(player=alice, deal=CASUAL_DEAL, autoplay="safe", server_clock=True)
    Game.objects.filter(pk=game.pk).update(hints=2)
    won = play_timed(game, actions_for(20), first_ms=6000, gaps_ms=person_gaps(40, seed=4))
    assert won.review_reasons == [{"signal": "hints", "value": 2, "threshold": 0}]


def test_a_bots_results_are_never_reviewed(review_on, alice):
    assert client_for(alice).post("/api/account/bot/").status_code == 200
    game = casual_win(alice)
    assert game.review == "" and Profile.objects.get(user=alice).bot


def test_the_policy_publishes_every_signal_and_its_threshold(settings, anon_client):
    settings.DAILY_MIN_MS_PER_MOVE = 180
    answer = anon_client.get("/api/fair-play/").json()
    signals = {signal["signal"]: signal for signal in answer["signals"]}
    assert set(signals) == {"steadiness", "even_beat", "first_move_ms", "pace_ms", "moves_over_par", "hints"}
    assert signals["pace_ms"]["threshold"] == 180
    assert all(signal["words"] and signal["flags_when"] in ("below", "at_or_below", "above") for signal in signals.values())
    assert answer["review"] is False  # the test settings turn automatic review off
    assert answer["review_states"] == ["none", "flagged", "cleared", "rejected"]


# --- privacy of a held result ------------------------------------------------------------------------


def test_others_see_neither_the_moves_nor_the_time_of_a_flagged_result(review_on, alice, bob, today_daily):
    game = ranked_win(alice)
    other = client_for(bob)
    assert other.get(f"/api/games/{game.pk}/").status_code == 404
    assert other.get(f"/api/games/{game.pk}/history/").status_code == 404
    assert other.get(f"/daily/{today_daily.date.isoformat()}/result/alice/").status_code == 404
    assert "alice" not in leaderboard_names(today_daily.date, other)
    assert signed_in(alice).get(f"/daily/{today_daily.date.isoformat()}/result/alice/").status_code == 200
    fairplay.clear(game)
    assert other.get(f"/daily/{today_daily.date.isoformat()}/result/alice/").status_code == 200
    assert leaderboard_names(today_daily.date, other) == ["alice"]


def test_a_racers_held_win_shows_no_moves_and_no_time_in_the_race(review_on, alice, bob, settings):
    settings.RACE_COUNTDOWN_S = 0
    casual_deal()
    race = running_race(alice, bob, deal=CASUAL_DEAL, autoplay="safe")
    game_id = next(r["game"] for r in race["racers"] if r["username"] == "alice")
    won = play_timed(Game.objects.get(pk=game_id), actions_for(20), first_ms=100, gaps_ms=STEADY)
    assert won.review == "flagged"
    shown = client_for(bob).get(f"/api/races/{race['code']}/").json()
    racer = next(r for r in shown["racers"] if r["username"] == "alice")
    assert (racer["status"], racer["moves"], racer["elapsed_ms"], racer["review"]) == ("won", None, None, "flagged")


# --- reports -------------------------------------------------------------------------------------------


def test_a_report_sends_a_result_to_the_queue_without_touching_the_board(alice, bob, staff, today_daily):
    game = ranked_win(alice)  # review off: ranked
    answer = client_for(bob).post(f"/api/games/{game.pk}/report/", {"reason": "an even 153 ms a move"}, format="json")
    assert answer.status_code == 202 and answer.json()["reported"] is True
    assert leaderboard_names(today_daily.date) == ["alice"]
    assert Game.objects.get(pk=game.pk).review == ""
    queue = client_for(staff).get("/api/fair-play/queue/").json()
    assert [(case["game"], case["reports"]) for case in queue["cases"]] == [(game.pk, 1)]
    again = client_for(bob).post(f"/api/games/{game.pk}/report/", {"reason": "again"}, format="json")
    assert again.status_code == 409 and code_of(again) == "already_reported"


def test_reports_are_refused_for_ones_own_result_unranked_games_and_visitors(alice, bob, anon_client, today_daily):
    game = ranked_win(alice)
    own = client_for(alice).post(f"/api/games/{game.pk}/report/", {"reason": "me"}, format="json")
    assert own.status_code == 400
    playing = services.create_game(player=alice, deal="ms:1")
    assert client_for(bob).post(f"/api/games/{playing.pk}/report/", {"reason": "x"}, format="json").status_code == 404
    assert anon_client.post(f"/api/games/{game.pk}/report/", {"reason": "x"}, format="json").status_code == 401
    assert client_for(bob).post(f"/api/games/{game.pk}/report/", {"reason": "  "}, format="json").status_code == 400


def test_reports_are_rate_limited(alice, bob, monkeypatch):
    from django.core.cache import cache

    from freecell_site.throttling import ScopedRateThrottle

    cache.clear()
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {**ScopedRateThrottle.THROTTLE_RATES, "report": "2/hour"})
    games = [casual_win(alice, deal=f"seed:{900 + i}") for i in range(3)]
    answers = [client_for(bob).post(f"/api/games/{g.pk}/report/", {"reason": "x"}, format="json") for g in games]
    assert [a.status_code for a in answers] == [202, 202, 429]
    assert "Retry-After" in answers[2]


# --- verdicts and marks ------------------------------------------------------------------------------


def test_a_moderator_clears_or_rejects_with_a_note_the_player_reads(review_on, alice, bob, staff, today_daily):
    flagged = ranked_win(alice)
    # a held result does not exist for others; a verdict on a result they may see is forbidden to them
    assert client_for(bob).post(f"/api/games/{flagged.pk}/review/", {"verdict": "clear"}, format="json").status_code == 404
    visible = services.create_game(player=alice, deal="ms:1")
    assert client_for(bob).post(f"/api/games/{visible.pk}/review/", {"verdict": "clear"}, format="json").status_code == 403
    cleared = client_for(staff).post(f"/api/games/{flagged.pk}/review/", {"verdict": "clear", "note": "a fast human"}, format="json")
    assert cleared.status_code == 200 and cleared.json()["review"] == "cleared"
    assert leaderboard_names(today_daily.date) == ["alice"]
    rejected = client_for(staff).post(f"/api/games/{flagged.pk}/review/", {"verdict": "reject", "note": "a solver's line"}, format="json")
    assert rejected.json()["review"] == "rejected"
    assert leaderboard_names(today_daily.date) == []
    state = client_for(alice).get(f"/api/games/{flagged.pk}/review/").json()
    assert (state["review"], state["note"], state["in_queue"]) == ("rejected", "a solver's line", False)
    assert client_for(bob).get(f"/api/games/{flagged.pk}/review/").status_code == 404


def test_a_marked_account_leaves_every_board_and_its_next_wins_too(alice, bob, staff, today_daily):
    ranked = ranked_win(alice)
    casual = casual_win(alice)
    assert leaderboard_names(today_daily.date) == ["alice"] and DealRecord.objects.filter(game=casual).exists()
    answer = client_for(staff).post("/api/users/alice/mark/", {"note": "engine"}, format="json")
    assert answer.status_code == 200 and answer.json()["results"] == 2
    assert leaderboard_names(today_daily.date) == [] and not DealRecord.objects.filter(player=alice).exists()
    assert client_for(bob).get("/api/users/alice/").json()["marked"] is True
    later = casual_win(alice, deal="seed:102")
    assert later.review == "rejected" and not DealRecord.objects.filter(game=later).exists()
    back = client_for(staff).delete("/api/users/alice/mark/")
    assert back.json()["results"] == 3
    assert leaderboard_names(today_daily.date) == ["alice"]
    assert set(DealRecord.objects.filter(player=alice).values_list("game_id", flat=True)) == {ranked.pk, casual.pk, later.pk}
    assert Game.objects.get(pk=ranked.pk).review == "cleared"


def test_only_moderators_read_the_queue_or_mark(alice, bob):
    assert client_for(alice).get("/api/fair-play/queue/").status_code == 403
    assert client_for(alice).post("/api/users/bob/mark/", {}, format="json").status_code == 403


# --- bots ------------------------------------------------------------------------------------------------


def test_an_account_becomes_a_bot_for_good_only_before_its_first_result(alice, bob):
    answer = client_for(alice).post("/api/account/bot/")
    assert answer.status_code == 200 and answer.json() == {"username": "alice", "bot": True}
    assert client_for(bob).get("/api/users/alice/").json()["bot"] is True
    assert client_for(alice).get("/api/me/").json()["bot"] is True
    casual_win(bob)
    refused = client_for(bob).post("/api/account/bot/")
    assert refused.status_code == 409 and code_of(refused) == "has_results"
    assert Profile.objects.get(user=bob).bot is False


# --- via --------------------------------------------------------------------------------------------------


def test_every_action_records_whether_it_came_from_the_site_or_the_api(alice):
    game = services.create_game(player=alice, deal="ms:1")
    assert signed_in(alice).post(f"/api/games/{game.pk}/moves/", {"move": "3a", "ply": 0}, format="json").status_code == 200
    api = client_for()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token_of(alice)}")
    assert api.post(f"/api/games/{game.pk}/undo/", {"ply": 1}, format="json").status_code == 200
    history = client_for(alice).get(f"/api/games/{game.pk}/history/").json()
    assert [action["via"] for action in history["actions"]] == ["web", "api"]


# --- no help where it would rank ---------------------------------------------------------------------


def test_no_par_line_or_hint_on_the_deal_of_a_race_under_way(alice, bob, charlie, anon_client, settings, monkeypatch):
    from games.play import views

    settings.RACE_COUNTDOWN_S = 0
    monkeypatch.setattr(views, "solver_facts", lambda deal_id, board, asker=None: {"result": "solved", "solvable": True, "par": 3, "par_line": "1a 2b 3c", "reason": None})
    running_race(alice, bob, deal="ms:617")
    for client in (client_for(bob), anon_client):
        answer = client.get("/api/deals/ms:617/facts/")
        assert answer.status_code == 403 and code_of(answer) == "forbidden"
    assert client_for(charlie).get("/api/deals/ms:617/facts/").json()["par_line"] == "1a 2b 3c"
    practice = services.create_game(player=bob, deal="ms:617")
    hint = client_for(bob).get(f"/api/games/{practice.pk}/hint/")
    assert hint.status_code == 403 and code_of(hint) == "forbidden"


def test_no_help_on_the_deal_of_ones_unfinished_ranked_daily(alice, today_daily):
    daily.start_ranked_game(alice)
    casual = Game.objects.create(player=alice, deal=today_daily.deal, state={}, line=[])
    with pytest.raises(Exception) as refused:
        services.hint_for(game_id=casual.pk, user=alice)
    assert getattr(refused.value, "code", None) == "forbidden"


# --- pushes of a result held as it is won --------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # pushes go out after commit
def test_a_watchers_socket_gets_no_push_of_a_win_held_for_review_but_the_player_does(review_on, alice, bob):
    from asgiref.sync import sync_to_async

    from tests.support.sockets import next_of, open_socket, run, session_cookie

    casual_deal()
    game = services.create_game(player=alice, deal=CASUAL_DEAL, autoplay="safe", server_clock=True)

    async def scenario():
        watcher = await open_socket(f"/ws/games/{game.pk}/", cookie=await sync_to_async(session_cookie)(bob))
        player = await open_socket(f"/ws/games/{game.pk}/", cookie=await sync_to_async(session_cookie)(alice))
        assert (await next_of(watcher, "state"))["game"]["id"] == game.pk
        await next_of(player, "state")
        won = await sync_to_async(play_timed)(game, actions_for(12), first_ms=100, gaps_ms=STEADY)
        assert won.review == "flagged"
        frame = await watcher.receive_json_from(timeout=10)
        while frame["type"] == "state" and frame["game"]["status"] == "playing":  # the moves before the win
            frame = await watcher.receive_json_from(timeout=10)
        assert frame["type"] == "error" and frame["code"] == "not_found"
        assert (await watcher.receive_output(timeout=10)) == {"type": "websocket.close", "code": 4404}
        last = await next_of(player, "state")
        while last["game"]["status"] == "playing":
            last = await next_of(player, "state")
        assert last["game"]["review"] == "flagged" and last["game"]["moves"] == 12
        await player.disconnect()

    run(scenario)


def test_the_docs_table_publishes_each_signal_with_its_side_and_threshold():
    """docs/fair-play.md says what GET /api/fair-play/ answers: one row per signal, its side, its threshold."""
    from pathlib import Path

    from games.fairplay.measures import SIDE_WORDS, SIGNALS

    text = (Path(__file__).resolve().parent.parent / "docs" / "fair-play.md").read_text()
    sides = SIDE_WORDS
    for signal in SIGNALS:
        threshold = "`DAILY_MIN_MS_PER_MOVE` (150)" if signal.signal == "pace_ms" else f"{signal.threshold:g}"
        assert f"| `{signal.signal}` | {sides[signal.flags_when]} | {threshold} |" in text, signal.signal
