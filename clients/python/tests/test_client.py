"""The REST client against a live server: sign-up and sign-in, games and moves, safe resends, retries
that honour Retry-After, verification and the daily."""

from __future__ import annotations

import http.server
import threading
import time
import urllib.error
import urllib.request
import uuid

import pytest

from freecell_client import ApiError, FreeCellClient, Game

from conftest import PASSWORD, VERIFY_RATE


def test_register_then_sign_in_gets_a_working_token(server, new_player):
    client, username = new_player()
    assert client.me()["username"] == username
    # Today's server reads `Token` only; the client falls back to it from `Bearer` by itself.
    assert client.transport.scheme in ("Bearer", "Token")
    other = FreeCellClient(server.url)
    token = other.login(username, PASSWORD)
    assert token and other.me()["username"] == username
    with pytest.raises(ApiError) as refused:
        FreeCellClient(server.url).login(username, "not the password")
    assert (refused.value.status, refused.value.code) == (401, "authentication_failed")


def test_a_bad_token_is_refused_with_the_spec_error(server):
    with pytest.raises(ApiError) as refused:
        FreeCellClient(server.url, token="0" * 40).me()
    assert refused.value.status == 401
    assert refused.value.code in ("authentication_failed", "not_authenticated")
    assert refused.value.body["error"]["message"]


def test_create_a_game_and_play_moves(new_player):
    client, username = new_player()
    game = client.create_game("ms:1", autoplay="none")
    assert isinstance(game, Game) and game.player == username and game.ply == 0
    assert game.state.columns[2][-1] == "2H"
    game = client.play_move(game.id, "3a", game.ply)
    assert game.ply == 1 and game.state.cells[0] == "2H" and game.repeated is False
    game = client.undo(game.id, game.ply)
    assert (game.ply, game.undos, game.state.cells[0]) == (2, 1, None)
    with pytest.raises(ApiError) as illegal:
        client.play_move(game.id, "1h", game.ply)  # 6S is not an ace
    assert (illegal.value.status, illegal.value.code) == (422, "illegal_move")
    with pytest.raises(ApiError) as stale:
        client.play_move(game.id, "3a", 0)
    assert stale.value.code == "ply_conflict" and stale.value.detail["game"]["ply"] == 2
    read = client.game(game.id)
    assert read.ply == 2 and read.board.splitlines()[2] == ": JD KD 2S 4C 3S 6D 6S"
    assert [g.id for g in client.games(status="playing").results] == [game.id]
    history = client.history(game.id)
    assert [(a.kind, a.move) for a in history.actions] == [("move", "3a"), ("undo", "3a")]
    assert client.history_text(game.id) == ""  # the undone move is left out of the line
    assert client.resign(game.id).status == "resigned"


def test_a_resend_with_the_same_client_id_is_not_applied_twice(new_player):
    client, _ = new_player()
    game = client.create_game("ms:1", autoplay="none")
    client_id = uuid.uuid4().hex
    first = client.play_move(game.id, "3a", 0, client_id=client_id)
    again = client.play_move(game.id, "3a", 0, client_id=client_id)
    assert (first.ply, first.repeated) == (1, False)
    assert (again.ply, again.repeated) == (1, True)
    assert client.game(game.id).ply == 1
    assert [a.move for a in client.history(game.id).actions] == ["3a"]


class FlakyProxy:
    """Forwards to the server, but answers the first move it forwards with a 502, as a balancer whose
    upstream answer was lost would: the move was stored, and the client does not know it."""

    def __init__(self, target: str):
        self.target = target
        self.moves_seen: list[bytes] = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.forward(None)

            def do_POST(self):
                self.forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

            def forward(self, body):
                headers = {k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type", "accept")}
                request = urllib.request.Request(proxy.target + self.path, data=body, method=self.command, headers=headers)
                try:
                    with urllib.request.urlopen(request) as answer:
                        status, answer_headers, data = answer.status, answer.headers, answer.read()
                except urllib.error.HTTPError as error:
                    status, answer_headers, data = error.code, error.headers, error.read()
                if self.path.endswith("/moves/"):
                    proxy.moves_seen.append(body)
                    if len(proxy.moves_seen) == 1:
                        status, data = 502, b"bad gateway"
                        answer_headers = {"Content-Type": "text/plain"}
                self.send_response(status)
                self.send_header("Content-Type", answer_headers.get("Content-Type", "application/json"))
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_move_lost_behind_a_5xx_is_resent_and_answered_repeated(server, new_player):
    client, _ = new_player()
    proxy = FlakyProxy(server.url)
    try:
        waits: list[float] = []
        flaky = FreeCellClient(proxy.url, client.token, sleep=waits.append)
        game = flaky.create_game("ms:1", autoplay="none")
        answer = flaky.play_move(game.id, "3a", 0)
    finally:
        proxy.close()
    assert len(proxy.moves_seen) == 2 and proxy.moves_seen[0] == proxy.moves_seen[1]  # the very same body
    assert waits, "the client waits before it resends"
    assert answer.repeated is True and answer.ply == 1
    assert client.game(game.id).ply == 1  # stored once


def test_429_retry_after_is_honoured(server):
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    patient = FreeCellClient(server.url, sleep=sleep, max_retry_wait=5)
    impatient = FreeCellClient(server.url, retries=0)
    # Over the rate, the patient client waited what the server said and got through every time; the
    # one that may not retry is refused.
    for _ in range(VERIFY_RATE + 2):
        assert patient.verify("3a", deal="ms:1").valid
    with pytest.raises(ApiError) as refused:
        for _ in range(VERIFY_RATE + 1):
            impatient.verify("3a", deal="ms:1")
    assert (refused.value.status, refused.value.code) == (429, "rate_limited")
    assert waits and all(0 < wait <= 5 for wait in waits)


def test_a_wait_longer_than_allowed_is_not_waited(server):
    waits: list[float] = []
    hasty = FreeCellClient(server.url, sleep=waits.append, max_retry_wait=0.001)
    with pytest.raises(ApiError) as refused:
        for _ in range(VERIFY_RATE + 1):
            hasty.verify("3a", deal="ms:1")
    assert refused.value.status == 429 and waits == []


def test_verify(server):
    client = FreeCellClient(server.url)
    good = client.verify(["3a", "32"], deal="ms:1")
    assert (good.valid, good.won, good.moves) == (True, False, 2)
    bad = client.verify("3a 1h", deal="ms:1")
    assert bad.valid is False and bad.error["index"] == 1 and bad.error["code"] == "illegal_move"
    with pytest.raises(ApiError) as invalid:
        client.verify("3a", deal="ms:0")
    assert (invalid.value.status, invalid.value.code) == (400, "invalid_deal")


def test_daily(new_player):
    client, username = new_player()
    daily = client.daily()
    assert daily.deal == f"daily:{daily.date}" and daily.players >= 0
    game = client.daily_play()
    assert game.ranked is True and game.deal == daily.deal and game.autoplay == "safe"
    assert client.daily_play().id == game.id  # one ranked game a day
    board = client.daily_leaderboard(daily.date)
    assert isinstance(board.entries, list)


def test_deal_and_profile(new_player):
    client, username = new_player()
    deal = client.deal("ms:1")
    assert deal.columns[0] == ["JD", "KD", "2S", "4C", "3S", "6D", "6S"] and deal.board.endswith("TC\n")
    assert client.user(username)["username"] == username
    with pytest.raises(ApiError) as missing:
        client.user(username + "-nobody")
    assert (missing.value.status, missing.value.code) == (404, "not_found")


def test_friends(new_player):
    alice, alice_name = new_player("alice")
    bob, bob_name = new_player("bob")
    alice.request_friend(bob_name)
    bob.accept_friend(alice_name)
    assert bob_name in str(alice.friends())
    alice.remove_friend(bob_name)
    assert bob_name not in str(alice.friends())
