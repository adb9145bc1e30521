"""The follow-ups of a change of a game (games/wiring.py): one list, in one order, each step called only
for the changes it cares about."""

from __future__ import annotations

import pytest

from games import wiring
from games.daily import services as daily
from games.models import DailyResult, Game
from games.play import follow_ups, services
from games.play.follow_ups import FollowUp
from tests.support.boards import CASUAL_DEAL, casual_deal
from tests.support.daily import actions_for, play

pytestmark = pytest.mark.usefixtures("solver_stand_in")


@pytest.fixture
def recorded(monkeypatch):
    """The wiring's own steps, each noting its name when it runs."""
    calls: list[str] = []

    def noting(step: FollowUp) -> FollowUp:
        def run(game):
            calls.append(step.name)
            step.run(game)

        return FollowUp(step.name, step.wants, run)

    monkeypatch.setattr(follow_ups, "_after_change", tuple(noting(step) for step in wiring.AFTER_CHANGE))
    monkeypatch.setattr(follow_ups, "_after_verdict", tuple(noting(step) for step in wiring.AFTER_VERDICT))
    return calls


def test_the_wiring_orders_review_then_the_daily_then_the_boards_then_races():
    assert [step.name for step in wiring.AFTER_CHANGE] == [
        "fair play reviews a result just won",
        "the daily ranks a ranked win",
        "the boards count wins and ranked games",
        "the race follows its racer",
    ]
    assert follow_ups.installed() == (wiring.AFTER_CHANGE, wiring.AFTER_VERDICT)


def test_a_plain_move_of_a_casual_game_runs_no_follow_up(alice, recorded):
    game = services.create_game(player=alice, deal="ms:1")
    services.play_move(game_id=game.pk, user=alice, move="3a", ply=0)
    assert recorded == []


def test_a_ranked_win_runs_every_follow_up_but_races_in_order(alice, today_daily, recorded):
    game, _ = daily.start_ranked_game(alice)
    play(game, actions_for(3))
    assert recorded == [
        "the boards count wins and ranked games",  # the first action: the daily counts as played
        "fair play reviews a result just won",
        "the daily ranks a ranked win",
        "the boards count wins and ranked games",
    ]


def test_a_verdict_runs_the_daily_then_the_boards(alice, today_daily, recorded):
    from games.fairplay import services as fairplay

    game, _ = daily.start_ranked_game(alice)
    game = play(game, actions_for(2))
    recorded.clear()
    fairplay.reject(game)
    assert recorded == ["the daily's leaderboard", "the deal's records, the ladder and streaks"]


def test_the_order_is_what_keeps_a_flagged_result_off_the_board(alice, bob, today_daily, settings, monkeypatch):
    """With the review after the daily, a result the review flags would already stand on the board."""
    settings.FAIR_PLAY_REVIEW = True
    settings.DAILY_MIN_MS_PER_MOVE = 150
    fast = play(daily.start_ranked_game(alice)[0], actions_for(12), seconds=0.5)
    assert fast.review == "flagged" and not DailyResult.objects.filter(game=fast).exists()
    review, rank, *rest = wiring.AFTER_CHANGE
    monkeypatch.setattr(follow_ups, "_after_change", (rank, review, *rest))
    reversed_order = play(daily.start_ranked_game(bob)[0], actions_for(12), seconds=0.5)
    assert reversed_order.review == "flagged" and DailyResult.objects.filter(game=reversed_order).exists()


def test_a_casual_win_goes_to_review_and_the_boards_only(alice, recorded):
    casual_deal()
    game = services.create_game(player=alice, deal=CASUAL_DEAL, autoplay="safe", server_clock=True)
    play(game, actions_for(2))
    assert Game.objects.get(pk=game.pk).status == "won"
    assert recorded == ["fair play reviews a result just won", "the boards count wins and ranked games"]
