"""Hints over REST and the solver from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import Board
from games.models import DailyChallenge
from games.play import services
from tests.support.daily import ranked_game

ROOT = Path(__file__).resolve().parent.parent


def test_a_hint_is_a_move_of_a_winning_line_from_the_current_position(alice, alice_client):
    game = services.create_game(player=alice, deal="ms:5", autoplay="safe")
    services.play_move(game_id=game.pk, user=alice, move=str(services.board_of(game).legal_moves()[0]), ply=0)
    answer = alice_client.get(f"/api/games/{game.pk}/hint/")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["result"] == "solved"
    game.refresh_from_db()
    board = Board.from_state(game.state)
    assert board.check(body["move"])  # legal where the game stands
    played = alice_client.post(f"/api/games/{game.pk}/moves/", {"move": body["move"], "ply": game.ply}, format="json")
    assert played.status_code == 200


def test_there_are_no_hints_in_a_ranked_game(alice, alice_client):
    deal = services.get_deal("seed:5")
    daily = DailyChallenge.objects.create(date="2020-01-01", deal=deal)
    game = ranked_game(alice, daily)
    answer = alice_client.get(f"/api/games/{game.pk}/hint/")
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "forbidden"


# --- what a hint may cost the server --------------------------------------------------------------


class CountedSolver:
    """Stands in for the solver: counts its runs and answers `result` with the position's first legal move."""

    def __init__(self, result="solved"):
        self.runs = 0
        self.result = result
        self.seconds = 0.0  # how long each run takes

    def __call__(self, board, autoplay, budget):
        import time

        from games.engine.solver import Solution

        self.runs += 1
        time.sleep(self.seconds)
        moves = board.legal_moves()[:1] if self.result == "solved" else []
        return Solution(self.result, moves, 0.0, 0, autoplay, 0.0)


@pytest.fixture
def counted_solver(monkeypatch, settings):
    import games.engine.solver

    settings.HINT_IN_WORKER = False  # the stand-in lives in this process
    solver = CountedSolver()
    monkeypatch.setattr(games.engine.solver, "solve", solver)
    return solver


def test_the_solver_thinks_in_a_worker_process_not_in_the_server(alice, alice_client, monkeypatch):
    import os

    import games.engine.solver
    from games.play import hints

    here = CountedSolver()
    monkeypatch.setattr(games.engine.solver, "solve", here)  # a solve in this process would count
    game = services.create_game(player=alice, deal="ms:5", autoplay="safe")
    body = alice_client.get(f"/api/games/{game.pk}/hint/").json()
    assert body["result"] == "solved" and services.board_of(game).check(body["move"])
    assert here.runs == 0  # solved by the worker (spawned: its module is not patched)
    worker_pids = {p.pid for p in hints._pool._processes.values()}
    assert worker_pids and os.getpid() not in worker_pids


def test_a_worker_that_dies_is_a_503_and_the_next_hint_gets_a_fresh_one(alice, alice_client, monkeypatch):
    from concurrent.futures.process import BrokenProcessPool

    from games.play import hints

    game = services.create_game(player=alice, deal="ms:5", autoplay="safe")
    broken = hints._worker_pool()

    def dead(*args, **kwargs):
        raise BrokenProcessPool("a worker died")

    monkeypatch.setattr(broken, "submit", dead)
    answer = alice_client.get(f"/api/games/{game.pk}/hint/")
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "hint_unavailable"
    assert hints._worker_pool() is not broken
    assert alice_client.get(f"/api/games/{game.pk}/hint/").json()["result"] == "solved"


def test_a_settled_hint_is_remembered_for_every_game_at_that_position(alice, bob, alice_client, bob_client, counted_solver):
    first = services.create_game(player=alice, deal="ms:11982", autoplay="safe")
    second = services.create_game(player=bob, deal="ms:11982", autoplay="safe")
    answers = [alice_client.get(f"/api/games/{first.pk}/hint/").json() for _ in range(3)]
    answers.append(bob_client.get(f"/api/games/{second.pk}/hint/").json())
    assert counted_solver.runs == 1 and all(a == answers[0] for a in answers), answers
    services.play_move(game_id=first.pk, user=alice, move=answers[0]["move"], ply=0)
    alice_client.get(f"/api/games/{first.pk}/hint/")
    assert counted_solver.runs == 2  # a new position is a new question


def test_a_hint_the_solver_gave_up_on_is_remembered_for_minutes_not_a_week(alice, alice_client, counted_solver, monkeypatch):
    """Asking again at once would give up again: one player repeating a hard position kept the one
    solver slot busy for everyone. After a few minutes it is asked again (the load may be lighter)."""
    from games.play import hints

    timeouts = []
    real_set = hints.cache.set
    monkeypatch.setattr(
        hints.cache, "set", lambda key, value, timeout: (key.startswith("hint:") and timeouts.append(timeout)) or real_set(key, value, timeout)
    )
    counted_solver.result = "gave_up"
    game = services.create_game(player=alice, deal="ms:5", autoplay="safe")
    for _ in range(2):
        body = alice_client.get(f"/api/games/{game.pk}/hint/").json()
        assert body == {"move": None, "result": "gave_up"}
    assert counted_solver.runs == 1 and timeouts == [hints.GAVE_UP_SECONDS] and hints.GAVE_UP_SECONDS <= 600


def test_a_hint_that_finds_the_solver_busy_is_rate_limited_not_queued(alice, alice_client, counted_solver, settings):
    from games.play import hints

    settings.HINT_WAIT_SECONDS = 0.05
    game = services.create_game(player=alice, deal="ms:5", autoplay="safe")
    slots = hints.solver_slots()
    taken = 0
    while slots.acquire(blocking=False):  # every slot busy with other players' hints
        taken += 1
    try:
        answer = alice_client.get(f"/api/games/{game.pk}/hint/")
    finally:
        for _ in range(taken):
            slots.release()
    assert taken >= 1 and answer.status_code == 429, answer.content
    assert answer.json()["error"]["code"] == "rate_limited" and answer.json()["error"]["retry_after"] > 0
    assert counted_solver.runs == 0
    assert alice_client.get(f"/api/games/{game.pk}/hint/").json()["result"] == "solved"  # free again


def test_hints_have_their_own_throttle(alice, alice_client, counted_solver, settings):
    from rest_framework.throttling import ScopedRateThrottle

    game = services.create_game(player=alice, deal="ms:5", autoplay="safe")
    ScopedRateThrottle.THROTTLE_RATES = {**ScopedRateThrottle.THROTTLE_RATES, "hint": "2/min"}
    try:
        codes = [alice_client.get(f"/api/games/{game.pk}/hint/").status_code for _ in range(3)]
        verify = alice_client.post("/api/solutions/verify/", {"deal": "ms:5", "moves": ""}, format="json")
    finally:
        ScopedRateThrottle.THROTTLE_RATES = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    assert codes == [200, 200, 429] and verify.status_code == 200  # verify keeps its own budget


def test_a_player_whose_hints_kept_the_solver_busy_waits_and_others_do_not(alice, bob, alice_client, bob_client, counted_solver, settings):
    """The throttle counts hints, not their cost: 20 hard positions a minute would hold the worker."""
    settings.HINT_SECONDS_PER_MINUTE = 0.25
    counted_solver.seconds = 0.15
    games = [services.create_game(player=alice, deal=f"ms:{n}", autoplay="safe") for n in (5, 6, 7)]
    answers = [alice_client.get(f"/api/games/{game.pk}/hint/") for game in games]
    assert [a.status_code for a in answers] == [200, 200, 429] and counted_solver.runs == 2
    error = answers[2].json()["error"]
    assert error["code"] == "rate_limited" and 1 <= error["retry_after"] <= 60, error
    assert alice_client.get(f"/api/games/{games[0].pk}/hint/").status_code == 200  # remembered: free
    other = services.create_game(player=bob, deal="ms:7", autoplay="safe")
    assert bob_client.get(f"/api/games/{other.pk}/hint/").status_code == 200 and counted_solver.runs == 3


def test_a_hint_works_while_the_cache_is_away(alice, alice_client, counted_solver, monkeypatch):
    from django.core.cache import cache

    def down(*args, **kwargs):
        raise ConnectionError("redis is away")

    game = services.create_game(player=alice, deal="ms:5", autoplay="safe")
    monkeypatch.setattr(cache, "get", down)
    monkeypatch.setattr(cache, "set", down)
    monkeypatch.setattr("freecell_site.throttling.ScopedRateThrottle.allow_request", lambda self, request, view: True)
    assert alice_client.get(f"/api/games/{game.pk}/hint/").json()["result"] == "solved"


def test_there_are_no_hints_in_a_race(alice, bob, alice_client, settings):
    from games.races import services as races
    from games.races.selectors import get_race

    settings.RACE_COUNTDOWN_S = 0
    race = races.create_race(owner=alice, deal="ms:5")
    races.join(code=race.code, user=bob)
    races.start(code=race.code, user=alice)
    game = get_race(race.code).entries.get(player=alice).game
    answer = alice_client.get(f"/api/games/{game.pk}/hint/")
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "forbidden", answer.content
    assert "race" in answer.json()["error"]["message"]


def test_no_hints_in_a_casual_game_of_the_deal_of_a_race_the_player_is_in_until_it_is_over(alice, bob, alice_client, bob_client, counted_solver):
    from games.play import services
    from games.races import services as races

    race = races.create_race(owner=alice, deal="ms:5")  # still open: the deal id is known, no board shown
    side_game = services.create_game(player=alice, deal="ms:5")
    answer = alice_client.get(f"/api/games/{side_game.pk}/hint/")
    assert answer.status_code == 403 and "race" in answer.json()["error"]["message"]
    stranger_game = services.create_game(player=bob, deal="ms:5")  # bob is in no race of ms:5
    assert bob_client.get(f"/api/games/{stranger_game.pk}/hint/").status_code == 200
    races.resign(code=race.code, user=alice)  # the owner leaving cancels (finishes) the race
    assert alice_client.get(f"/api/games/{side_game.pk}/hint/").status_code == 200


def test_manage_py_solve_prints_json_and_exits_0_for_a_solved_deal():
    result = subprocess.run(
        [sys.executable, "manage.py", "solve", "ms:1", "--json", "--autoplay", "none"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["deal"] == "ms:1" and body["result"] == "solved" and body["count"] == len(body["moves"])
    board = Board.from_deal("ms:1")
    for move in body["moves"]:
        board.play(move)
    assert board.is_won()
