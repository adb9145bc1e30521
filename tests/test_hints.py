"""Hints over REST and the solver from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from games import services
from games.engine import Board
from games.models import DailyChallenge

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
    game = services.create_game(player=alice, deal=deal, daily=daily)
    answer = alice_client.get(f"/api/games/{game.pk}/hint/")
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "forbidden"


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
