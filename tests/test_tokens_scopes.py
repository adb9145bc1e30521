"""Scope rules that hold together (issue 40, D13): what anyone may read needs no scope from a token, a
token without `read` reads as a visitor would, and what only its holder may see still needs `read`."""

from __future__ import annotations

from accounts.scopes import ACCOUNT, PLAY, RACE, READ
from tests.support.daily import today_daily  # noqa: F401 (a fixture)
from tests.support.players import client_for, code_of
from tests.support.sockets import new_game
from tests.support.tokens import client_with, key_with


def test_a_play_only_token_reads_a_public_game_as_a_visitor_does(alice, bob, anon_client):
    game = new_game(bob)
    visitor = anon_client.get(f"/api/games/{game.pk}/")
    assert visitor.status_code == 200
    for scopes in ([PLAY], [RACE], [ACCOUNT]):
        answer = client_with(key_with(alice, *scopes)).get(f"/api/games/{game.pk}/")
        assert answer.status_code == 200, (scopes, answer.content)
        assert answer.json() == visitor.json()


def test_a_play_only_bot_reads_its_own_casual_game(alice):
    key = key_with(alice, PLAY)
    made = client_with(key).post("/api/games/", {"deal": "ms:1", "autoplay": "none"}, format="json").json()
    answer = client_with(key).get(f"/api/games/{made['id']}/")
    assert answer.status_code == 200 and answer.json()["id"] == made["id"]
    assert client_with(key).get(f"/api/games/{made['id']}/legal-moves/").status_code == 200
    assert client_with(key).get(f"/api/games/{made['id']}/history/").status_code == 200


def test_without_read_a_board_answers_as_to_a_visitor(alice, anon_client):
    visitor = anon_client.get("/api/deals/ms:1/records/")
    answer = client_with(key_with(alice, PLAY)).get("/api/deals/ms:1/records/")
    assert answer.status_code == visitor.status_code == 200
    assert answer.json() == visitor.json() and answer.json()["me"] is None


def test_what_only_the_holder_may_see_still_needs_read(alice, today_daily):  # noqa: F811
    ranked = client_for(alice).post("/api/daily/play/").json()
    key = key_with(alice, PLAY)
    # Hidden from visitors while it is played: a token without `read` is told what it lacks, not 404.
    hidden = client_with(key).get(f"/api/games/{ranked['id']}/")
    assert hidden.status_code == 403 and code_of(hidden) == "missing_scope", hidden.content
    assert hidden.json()["error"]["scopes"] == [READ]
    assert client_with(key_with(alice, READ)).get(f"/api/games/{ranked['id']}/").status_code == 200
    # A view that serves no visitor at all.
    for path in ("/api/me/", "/api/friends/", "/api/games/"):
        refused = client_with(key).get(path)
        assert refused.status_code == 403 and code_of(refused) == "missing_scope", (path, refused.content)


def test_a_missing_game_is_still_not_found_for_a_token_with_read(alice):
    answer = client_with(key_with(alice, READ)).get("/api/games/999999/")
    assert answer.status_code == 404 and code_of(answer) == "not_found"
