"""Moves and undos over REST say the account's action budget in `RateLimit-*` headers, as the docs
promise of every limited endpoint (docs/api.md, "Rate limits"), the 429 past it included."""

from __future__ import annotations

import pytest

from games.play import ratelimit
from tests.support.players import code_of

pytestmark = pytest.mark.django_db


class FrozenClock:
    """`time` for the limit's window: one second that does not end during the test."""

    @staticmethod
    def time() -> float:
        return 1_800_000_000.25


def headers(answer) -> tuple[str, str, str] | None:
    if "RateLimit-Limit" not in answer:
        return None
    return answer["RateLimit-Limit"], answer["RateLimit-Remaining"], answer["RateLimit-Reset"]


def test_moves_and_undos_carry_the_action_budget(alice_client, settings, monkeypatch):
    settings.ACTIONS_PER_SECOND = 3
    monkeypatch.setattr(ratelimit, "time", FrozenClock)
    ratelimit.forget()
    game = alice_client.post("/api/games/", {"deal": "ms:1", "autoplay": "none"}, format="json").json()["id"]
    moves = f"/api/games/{game}/moves/"
    answers = [
        alice_client.post(moves, {"move": "5a", "ply": 0}, format="json"),
        alice_client.post(f"/api/games/{game}/undo/", {"ply": 1}, format="json"),
        alice_client.post(moves, {"move": "5a", "ply": 2}, format="json"),
        alice_client.post(moves, {"move": "5b", "ply": 3}, format="json"),
    ]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert code_of(answers[3]) == "rate_limited"
    assert [headers(a) for a in answers] == [("3", "2", "1"), ("3", "1", "1"), ("3", "0", "1"), ("3", "0", "1")]
    ratelimit.forget()


def test_without_a_limit_no_budget_is_claimed(alice_client, settings):
    settings.ACTIONS_PER_SECOND = 0
    game = alice_client.post("/api/games/", {"deal": "ms:1", "autoplay": "none"}, format="json").json()["id"]
    answer = alice_client.post(f"/api/games/{game}/moves/", {"move": "5a", "ply": 0}, format="json")
    assert answer.status_code == 200 and headers(answer) is None
