"""The games API: creating games, moves, undo, resign, history, verify, deals, export, each error code."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.daily.services import played_as, today
from games.engine import Board
from games.models import Action, Game
from games.play import services
from tests.support.daily import make_test_daily, ranked_game
from tests.support.lines import winning_line
from tests.support.players import code_of


def new_game(client, deal="ms:1", autoplay="none") -> dict:
    response = client.post("/api/games/", {"deal": deal, "autoplay": autoplay}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def move(client, game_id, notation, ply, **extra):
    return client.post(f"/api/games/{game_id}/moves/", {"move": notation, "ply": ply, **extra}, format="json")


class TestCreating:
    def test_it_creates_a_game_with_the_spec_fields(self, alice_client):
        game = new_game(alice_client, "ms:1")
        assert {"id", "deal", "player", "status", "ply", "moves", "undos", "autoplay", "state", "created_at", "finished_at", "elapsed_ms"} <= set(game)
        assert game["deal"] == "ms:1" and game["player"] == "alice" and game["status"] == "playing"
        assert game["state"]["columns"][0] == ["JD", "KD", "2S", "4C", "3S", "6D", "6S"]
        assert game["state"]["cells"] == [None, None, None, None]
        assert game["state"]["foundations"] == {"C": 0, "D": 0, "H": 0, "S": 0}

    def test_it_creates_seeded_deals(self, alice_client):
        game = new_game(alice_client, "seed:12345")
        assert game["deal"] == "seed:12345"
        assert sum(len(c) for c in game["state"]["columns"]) == 52

    @pytest.mark.parametrize("deal", ["ms:0", "ms:8589934592", "foo:1", "ms:-3", "seed:x", "ms:" + "0" * 60 + "1", "x" * 5000])
    def test_it_refuses_invalid_deals(self, alice_client, deal):
        response = alice_client.post("/api/games/", {"deal": deal}, format="json")
        assert response.status_code == 400
        assert code_of(response) == "invalid_deal"
        assert len(response.json()["error"]["message"]) < 200  # a long id is not echoed whole

    def test_a_missing_or_empty_deal_is_an_invalid_request(self, alice_client):
        for body in ({}, {"deal": ""}):
            assert code_of(alice_client.post("/api/games/", body, format="json")) == "invalid_request"

    def test_a_deal_with_leading_zeros_is_the_same_deal(self, alice_client):
        assert new_game(alice_client, "ms:" + "0" * 20 + "617")["deal"] == "ms:617"

    def test_it_refuses_a_bad_autoplay_mode(self, alice_client):
        response = alice_client.post("/api/games/", {"deal": "ms:1", "autoplay": "always"}, format="json")
        assert response.status_code == 400 and code_of(response) == "invalid_request"

    def test_safe_autoplay_plays_aces_already_exposed_on_the_deal(self, alice_client):
        # seed deals vary; look for one with an exposed ace through the engine.
        for seed in range(200):
            board = Board.from_deal(f"seed:{seed}")
            if board.safe_autoplay():
                break
        game = new_game(alice_client, f"seed:{seed}", autoplay="safe")
        assert game["cards_home"] >= 1 and game["ply"] == 0
        history = alice_client.get(f"/api/games/{game['id']}/history/").json()
        assert len(history["prelude"]) == game["cards_home"] and history["actions"] == []
        assert history["line"] == " ".join(history["prelude"])


class TestPlaying:
    def test_a_move_is_applied_counted_and_stored(self, alice_client):
        game = new_game(alice_client)
        response = move(alice_client, game["id"], "3a", 0)
        assert response.status_code == 200
        body = response.json()
        assert body["ply"] == 1 and body["moves"] == 1 and body["state"]["cells"][0] == "2H"
        assert body["action"]["move"] == "3a" and body["repeated"] is False
        assert Action.objects.filter(game_id=game["id"]).count() == 1

    def test_it_reports_bad_notation_and_stores_nothing(self, alice_client):
        game = new_game(alice_client)
        # The spec: a string that does not parse is bad_notation, the empty one and a long one too.
        for text in ["zz", "9a", "3", "a", "3e", "hh", "3a3a", " ", "", "3a" * 500]:
            response = move(alice_client, game["id"], text, 0)
            assert response.status_code == 400, text
            assert code_of(response) == "bad_notation", text
            assert len(response.json()["error"]["message"]) < 200  # a long input is not echoed whole
        assert Game.objects.get(pk=game["id"]).ply == 0

    def test_it_reports_an_illegal_move_with_a_reason(self, alice_client):
        game = new_game(alice_client)
        response = move(alice_client, game["id"], "1h", 0)
        assert response.status_code == 422 and code_of(response) == "illegal_move"
        assert "spades" in response.json()["error"]["message"]
        assert Game.objects.get(pk=game["id"]).ply == 0

    def test_it_rejects_a_stale_ply_with_the_current_game(self, alice_client):
        game = new_game(alice_client)
        assert move(alice_client, game["id"], "3a", 0).status_code == 200
        assert move(alice_client, game["id"], "3b", 1).status_code == 200
        response = move(alice_client, game["id"], "4c", 0)
        assert response.status_code == 409 and code_of(response) == "ply_conflict"
        assert response.json()["error"]["game"]["ply"] == 2

    def test_it_rejects_a_ply_from_the_future(self, alice_client):
        game = new_game(alice_client)
        response = move(alice_client, game["id"], "3a", 5)
        assert response.status_code == 409 and code_of(response) == "ply_conflict"

    def test_a_resend_of_the_last_move_is_answered_again_not_applied_twice(self, alice_client):
        game = new_game(alice_client)
        first = move(alice_client, game["id"], "3a", 0, client_id="c-1")
        again = move(alice_client, game["id"], "3a", 0, client_id="c-1")
        assert again.status_code == 200 and again.json()["repeated"] is True
        assert again.json()["state"] == first.json()["state"] and again.json()["ply"] == 1
        assert Action.objects.filter(game_id=game["id"]).count() == 1

    def test_a_different_move_with_the_last_ply_is_a_conflict(self, alice_client):
        game = new_game(alice_client)
        move(alice_client, game["id"], "3a", 0)
        response = move(alice_client, game["id"], "4a", 0)
        assert response.status_code == 409 and code_of(response) == "ply_conflict"

    def test_undo_takes_back_the_move_and_counts(self, alice_client):
        game = new_game(alice_client)
        start = game["state"]
        move(alice_client, game["id"], "3a", 0)
        response = alice_client.post(f"/api/games/{game['id']}/undo/", {"ply": 1}, format="json")
        assert response.status_code == 200
        body = response.json()
        assert body["state"] == start and body["ply"] == 2 and body["moves"] == 2 and body["undos"] == 1

    def test_undo_with_nothing_to_undo_is_illegal(self, alice_client):
        game = new_game(alice_client)
        response = alice_client.post(f"/api/games/{game['id']}/undo/", {"ply": 0}, format="json")
        assert response.status_code == 422 and code_of(response) == "illegal_move"

    def test_a_resent_undo_is_not_applied_twice(self, alice_client):
        game = new_game(alice_client)
        move(alice_client, game["id"], "3a", 0)
        move(alice_client, game["id"], "3b", 1)
        alice_client.post(f"/api/games/{game['id']}/undo/", {"ply": 2}, format="json")
        again = alice_client.post(f"/api/games/{game['id']}/undo/", {"ply": 2}, format="json")
        assert again.status_code == 200 and again.json()["repeated"] is True
        assert again.json()["undos"] == 1 and again.json()["state"]["cells"][:2] == ["2H", None]

    def test_resign_ends_the_game_and_further_moves_are_game_over(self, alice_client):
        game = new_game(alice_client)
        response = alice_client.post(f"/api/games/{game['id']}/resign/")
        assert response.status_code == 200 and response.json()["status"] == "resigned"
        assert response.json()["finished_at"] is not None
        response = move(alice_client, game["id"], "3a", 0)
        assert response.status_code == 409 and code_of(response) == "game_over"

    @pytest.mark.parametrize("body", [{}, {"move": "3a"}, {"ply": 0}, {"move": "3a", "ply": -1}, {"move": "3a", "ply": "one"}, {"move": ["3a"], "ply": 0}, {"move": "3a", "ply": 10**12}])
    def test_malformed_move_bodies_are_invalid_requests(self, alice_client, body):
        game = new_game(alice_client)
        response = alice_client.post(f"/api/games/{game['id']}/moves/", body, format="json")
        assert response.status_code == 400
        assert code_of(response) in {"invalid_request", "bad_notation"}

    def test_a_full_game_through_rest_ends_won_with_its_score(self, alice_client):
        line = winning_line("ms:1")
        game = new_game(alice_client, "ms:1", autoplay="none")
        for ply, notation in enumerate(line):
            response = move(alice_client, game["id"], notation, ply)
            assert response.status_code == 200, (ply, notation, response.content)
        body = response.json()
        assert body["status"] == "won" and body["cards_home"] == 52 and body["moves"] == len(line)
        assert body["finished_at"] is not None and body["elapsed_ms"] >= 0
        assert code_of(move(alice_client, game["id"], "1a", len(line))) == "game_over"

    def test_the_text_history_replays_to_the_same_position(self, alice_client):
        line = winning_line("ms:1")
        game = new_game(alice_client, "ms:1", autoplay="safe")
        ply = 0
        # Under safe autoplay some moves of the autoplay-none line are made by autoplay: skip those.
        board = Board.from_deal("ms:1")
        board.safe_autoplay()
        for notation in line[:40]:
            try:
                board.check(notation)
            except Exception:
                continue
            board.play(notation, autoplay="safe")
            assert move(alice_client, game["id"], notation, ply).status_code == 200
            ply += 1
        alice_client.post(f"/api/games/{game['id']}/undo/", {"ply": ply}, format="json")
        text = alice_client.get(f"/api/games/{game['id']}/history/?format=text")
        assert text.status_code == 200 and text["Content-Type"].startswith("text/plain")
        verdict = alice_client.post("/api/solutions/verify/", {"deal": "ms:1", "moves": text.content.decode(), "autoplay": "none"}, format="json").json()
        assert verdict["valid"] is True
        replayed = Board.from_deal("ms:1")
        for notation in text.content.decode().split():
            replayed.play(notation)
        assert replayed.state() == Game.objects.get(pk=game["id"]).state

    def test_an_empty_text_history_is_still_text_plain(self, alice_client):
        """A game with no moves yet (or all undone) has an empty line: DRF dropped its Content-Type."""
        game = new_game(alice_client)
        for _ in range(2):
            text = alice_client.get(f"/api/games/{game['id']}/history/?format=text")
            assert text.status_code == 200 and text.content == b"" and text["Content-Type"] == "text/plain; charset=utf-8"
            move(alice_client, game["id"], "3a", 0)
            alice_client.post(f"/api/games/{game['id']}/undo/", {"ply": 1}, format="json")

    def test_a_bad_query_parameter_names_its_field(self, alice_client):
        body = alice_client.get("/api/games/?status=bogus").json()["error"]
        assert body["code"] == "invalid_request" and "status must be one of" in body["fields"]["status"][0]

    def test_the_json_history_lists_every_action_with_autoplay_and_time(self, alice_client):
        game = new_game(alice_client)
        move(alice_client, game["id"], "3a", 0)
        alice_client.post(f"/api/games/{game['id']}/undo/", {"ply": 1}, format="json")
        history = alice_client.get(f"/api/games/{game['id']}/history/").json()
        assert [(a["index"], a["kind"], a["move"]) for a in history["actions"]] == [(0, "move", "3a"), (1, "undo", "3a")]
        assert all(a["at"].endswith("Z") for a in history["actions"]) and history["line"] == ""


class TestBoardText:
    """Spec 3: any position can be pasted into or out of other FreeCell tools."""

    def test_a_game_gives_its_position_as_board_text_and_verify_takes_it_back(self, alice_client, anon_client):
        from games.engine.solver import solve

        game = new_game(alice_client, "ms:5")
        for ply, notation in enumerate(["5a", "5b"]):
            assert move(alice_client, game["id"], notation, ply).status_code == 200
        shown = alice_client.get(f"/api/games/{game['id']}/").json()
        assert "Freecells:" in shown["board"]
        position = Board.from_text(shown["board"])
        assert position.state() == Board.from_state(shown["state"]).state()
        line = [str(m) for m in solve(position, autoplay="none").moves]
        answer = anon_client.post("/api/solutions/verify/", {"board": shown["board"], "moves": line}, format="json")
        assert answer.json() == {"valid": True, "won": True, "moves": len(line)}
        # The same line from the deal itself is not a win: verify did start from the pasted position.
        assert anon_client.post("/api/solutions/verify/", {"deal": "ms:5", "moves": line}, format="json").json()["won"] is False

    @pytest.mark.parametrize(
        ("body", "code"),
        [
            ({"board": "KS KH\n", "moves": "1a"}, "bad_board"),
            ({"board": 5, "moves": "1a"}, "invalid_request"),  # a string that is no board is bad_board; a number is no string
            ({"deal": "ms:1", "board": "x", "moves": "1a"}, "invalid_request"),
            ({"moves": "1a"}, "invalid_request"),
        ],
    )
    def test_verify_wants_a_valid_board_or_a_deal(self, anon_client, db, body, code):
        answer = anon_client.post("/api/solutions/verify/", body, format="json")
        assert (answer.status_code, code_of(answer)) == (400, code), answer.json()


class TestVerify:
    def test_it_accepts_a_winning_line_without_an_account(self, anon_client, db):
        line = " ".join(winning_line("ms:1"))
        response = anon_client.post("/api/solutions/verify/", {"deal": "ms:1", "moves": line, "autoplay": "none"}, format="json")
        assert response.status_code == 200
        assert response.json() == {"valid": True, "won": True, "moves": len(line.split())}

    def test_it_names_the_first_bad_move(self, anon_client, db):
        response = anon_client.post("/api/solutions/verify/", {"deal": "ms:1", "moves": "3a 3b xx 1h"}, format="json")
        body = response.json()
        assert body["valid"] is False and body["error"]["index"] == 2 and body["error"]["code"] == "bad_notation"
        response = anon_client.post("/api/solutions/verify/", {"deal": "ms:1", "moves": "3a 1h"}, format="json")
        assert response.json()["error"] | {"message": ""} == {"index": 1, "move": "1h", "code": "illegal_move", "message": ""}

    def test_it_takes_the_line_as_a_list_of_moves_too(self, anon_client, db):
        line = winning_line("ms:1")
        response = anon_client.post("/api/solutions/verify/", {"deal": "ms:1", "moves": line, "autoplay": "none"}, format="json")
        assert response.status_code == 200
        assert response.json() == {"valid": True, "won": True, "moves": len(line)}
        # an empty or spaced item is a bad move at its own index, not a shift of the ones after it
        response = anon_client.post("/api/solutions/verify/", {"deal": "ms:1", "moves": ["3a", "", "1h"]}, format="json")
        assert response.json()["error"]["index"] == 1 and response.json()["error"]["code"] == "bad_notation"

    @pytest.mark.parametrize(
        "moves, words",
        [(["3a", 5], "move 1"), (["3a"] * 5101, "5100"), ({"a": 1}, "list"), (7, "int"), ("3a " * 11000, "32000")],
    )
    def test_a_line_of_the_wrong_shape_is_invalid_request_saying_why(self, anon_client, db, moves, words):
        response = anon_client.post("/api/solutions/verify/", {"deal": "ms:1", "moves": moves}, format="json")
        assert response.status_code == 400 and code_of(response) == "invalid_request"
        assert words in response.json()["error"]["message"], response.json()

    def test_the_longest_line_a_game_can_have_fits_what_verify_takes(self):
        """A game's text history is "replayable by /api/solutions/verify/" (docs/api.md, "The contract"): its moves, at most
        MAX_ACTIONS, plus the autoplay written out (52 cards at most), each at most "12v13" long."""
        from games.play import services
        from games.play.serializers import MAX_LINE_CHARS, MAX_LINE_MOVES

        longest = services.MAX_ACTIONS + 52
        assert longest <= MAX_LINE_MOVES and longest * len("12v13 ") <= MAX_LINE_CHARS

    def test_it_refuses_an_invalid_deal(self, anon_client, db):
        response = anon_client.post("/api/solutions/verify/", {"deal": "ms:0", "moves": ""}, format="json")
        assert response.status_code == 400 and code_of(response) == "invalid_deal"


class TestDeals:
    def test_it_shows_a_deal_with_columns_and_board_text(self, anon_client, db):
        body = anon_client.get("/api/deals/ms:617/").json()
        assert body["deal"] == "ms:617" and len(body["columns"]) == 8
        assert Board.from_text(body["board"]).state()["columns"] == body["columns"]

    def test_an_invalid_deal_is_invalid_deal(self, anon_client, db):
        response = anon_client.get("/api/deals/ms:8589934592/")
        assert response.status_code == 400 and code_of(response) == "invalid_deal"

    def test_the_deal_endpoint_is_throttled(self, anon_client, db, settings):
        from rest_framework.throttling import ScopedRateThrottle

        ScopedRateThrottle.THROTTLE_RATES = {**ScopedRateThrottle.THROTTLE_RATES, "verify": "3/min"}
        try:
            codes = [anon_client.get("/api/deals/ms:1/").status_code for _ in range(5)]
        finally:
            ScopedRateThrottle.THROTTLE_RATES = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
        assert codes[:3] == [200, 200, 200] and codes[3] == 429


class TestWhoMaySeeWhat:
    """Owner alice, friend bob, stranger charlie, and anonymous, over every game endpoint."""

    @pytest.fixture
    def game(self, alice_client, bob, charlie):
        return new_game(alice_client)

    @pytest.mark.parametrize("who", ["bob_client", "charlie_client"])
    def test_only_the_player_plays(self, request, game, who):
        other = request.getfixturevalue(who)
        assert code_of(move(other, game["id"], "3a", 0)) == "forbidden"
        assert code_of(other.post(f"/api/games/{game['id']}/undo/", {"ply": 0}, format="json")) == "forbidden"
        assert code_of(other.post(f"/api/games/{game['id']}/resign/")) == "forbidden"
        assert Game.objects.get(pk=game["id"]).ply == 0

    def test_anonymous_cannot_play(self, anon_client, game):
        assert move(anon_client, game["id"], "3a", 0).status_code == 401

    @pytest.mark.parametrize("who", ["alice_client", "bob_client", "charlie_client", "anon_client"])
    def test_everyone_may_watch_a_casual_game_and_its_history(self, request, game, who):
        viewer = request.getfixturevalue(who)
        assert viewer.get(f"/api/games/{game['id']}/").status_code == 200
        assert viewer.get(f"/api/games/{game['id']}/history/").status_code == 200

    def test_a_ranked_daily_game_of_someone_else_stays_hidden_until_the_day_is_over(self, alice, alice_client, bob_client, charlie_client, anon_client, monkeypatch):
        import datetime as dt

        from games.daily import services as daily
        from games.models import DailyChallenge

        today = daily.today()
        deal = services.get_deal("seed:99")
        challenge = DailyChallenge.objects.create(date=today, deal=deal)
        ranked = ranked_game(alice, challenge)
        for viewer in (bob_client, charlie_client, anon_client):
            assert viewer.get(f"/api/games/{ranked.pk}/").status_code == 404
            assert viewer.get(f"/api/games/{ranked.pk}/history/").status_code == 404
        assert alice_client.get(f"/api/games/{ranked.pk}/").status_code == 200
        monkeypatch.setattr("games.daily.services.today", lambda: today + dt.timedelta(days=1))
        for viewer in (bob_client, charlie_client, anon_client):
            assert viewer.get(f"/api/games/{ranked.pk}/").status_code == 200

    def test_hints_are_for_the_player_of_a_casual_game(self, game, bob_client):
        assert code_of(bob_client.get(f"/api/games/{game['id']}/hint/")) == "forbidden"


class TestExport:
    def test_it_streams_a_players_finished_games_with_their_lines_as_ndjson(self, alice, alice_client, anon_client):
        first = new_game(alice_client)
        move(alice_client, first["id"], "3a", 0)
        alice_client.post(f"/api/games/{first['id']}/resign/")
        new_game(alice_client)  # still playing: not exported
        response = anon_client.get("/api/users/alice/games/?format=ndjson")
        assert response.status_code == 200 and response["Content-Type"] == "application/x-ndjson"
        rows = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
        assert [(r["id"], r["status"], r["line"]) for r in rows] == [(first["id"], "resigned", "3a")]

    def test_the_json_export_is_paginated(self, alice, alice_client, anon_client):
        for _ in range(3):
            game = new_game(alice_client)
            alice_client.post(f"/api/games/{game['id']}/resign/")
        body = anon_client.get("/api/users/alice/games/?page_size=2").json()
        assert body["count"] == 3 and len(body["results"]) == 2 and body["next"]
        assert len(anon_client.get("/api/users/alice/games/?page_size=2&page=2").json()["results"]) == 1
        for page in ("0", "-1", "x", "1.5", "２"):
            response = anon_client.get(f"/api/users/alice/games/?page={page}")
            assert response.status_code == 400 and code_of(response) == "invalid_request", (page, response.json())
        assert code_of(anon_client.get("/api/users/alice/games/?page=9")) == "not_found"
        last = anon_client.get("/api/users/alice/games/?page_size=2&page=last").json()
        assert len(last["results"]) == 1  # `last` is page 2 of 3 games by 2
        assert last["previous"] and last["next"] is None

    def test_a_page_of_the_export_reads_that_page_only(self, alice, alice_client, anon_client):
        """A player may have thousands of games: a page must not load them all (it did, 0.85 s for 10,000)."""

        for _ in range(5):
            game = new_game(alice_client)
            alice_client.post(f"/api/games/{game['id']}/resign/")
        with CaptureQueriesContext(connection) as queries:
            body = anon_client.get("/api/users/alice/games/?page_size=2&page=2").json()
        assert body["count"] == 5 and len(body["results"]) == 2
        reads = [q["sql"] for q in queries.captured_queries if '"line"' in q["sql"] and "games_game" in q["sql"]]
        assert reads and all("LIMIT 2" in sql for sql in reads), reads

    @pytest.mark.parametrize("url", ["/api/users/alice/games/", "/api/games/", "/api/daily/archive/"])
    def test_every_list_refuses_a_page_size_outside_1_to_200(self, alice, alice_client, url):
        for size in ("0", "201", "abc", "-5", "1e2"):
            response = alice_client.get(url, {"page_size": size})
            assert response.status_code == 400 and code_of(response) == "invalid_request", (size, response.json())
            assert "page_size" in response.json()["error"]["message"]
        assert alice_client.get(url, {"page_size": "200"}).status_code == 200
        assert alice_client.get(url, {"page": "1"}).status_code == 200  # page 1 of an empty list is empty, not 404
        assert alice_client.get(url, {"page": "last"}).status_code == 200

    def test_the_player_is_found_in_any_case(self, alice, anon_client):
        assert anon_client.get("/api/users/ALICE/games/").status_code == 200

    def test_an_unknown_player_is_not_found(self, anon_client, db):
        assert code_of(anon_client.get("/api/users/nobody/games/?format=ndjson")) == "not_found"

    def test_an_error_is_json_with_its_own_message_whatever_format_was_asked(self, anon_client, db):
        for url, headers, message in [
            ("/api/users/nobody/games/?format=ndjson", {}, "no player named 'nobody'"),
            ("/api/games/999999/history/?format=text", {}, "no game 999999"),
            ("/api/games/999999/history/", {"HTTP_ACCEPT": "text/plain"}, "no game 999999"),
        ]:
            response = anon_client.get(url, **headers)
            assert response.status_code == 404 and response["Content-Type"] == "application/json", url
            assert response.json()["error"] == {"code": "not_found", "message": message}, url


class TestActionsPerGame:
    def test_a_game_takes_at_most_max_actions_then_only_a_resign(self, alice_client, monkeypatch):
        from games.play import services

        monkeypatch.setattr(services, "MAX_ACTIONS", 3)
        game = new_game(alice_client)
        assert [move(alice_client, game["id"], m, ply).status_code for ply, m in enumerate(["3a", "3b", "3c"])] == [200] * 3
        for refused in (move(alice_client, game["id"], "3d", 3), alice_client.post(f"/api/games/{game['id']}/undo/", {"ply": 3}, format="json")):
            assert refused.status_code == 409 and code_of(refused) == "too_many_actions", refused.content
            assert refused.json()["error"]["game"]["ply"] == 3
        assert Game.objects.get(pk=game["id"]).ply == 3
        assert alice_client.post(f"/api/games/{game['id']}/resign/").json()["status"] == "resigned"


class TestActionRateLimit:
    def test_an_account_over_its_moves_per_second_is_rate_limited(self, alice_client, settings, monkeypatch):
        from games.play import ratelimit

        settings.ACTIONS_PER_SECOND = 3
        monkeypatch.setattr(ratelimit.time, "time", lambda: 5_000_000.0)
        game = new_game(alice_client)
        answers = [move(alice_client, game["id"], m, ply) for ply, m in enumerate(["3a", "3b", "3c"])]
        assert [a.status_code for a in answers] == [200, 200, 200]
        refused = move(alice_client, game["id"], "3d", 3)
        assert refused.status_code == 429 and code_of(refused) == "rate_limited"
        assert refused.json()["error"]["retry_after"] == 1 and refused["Retry-After"] == "1"  # it said neither
        assert Game.objects.get(pk=game["id"]).ply == 3
        monkeypatch.setattr(ratelimit.time, "time", lambda: 5_000_001.0)
        assert move(alice_client, game["id"], "3d", 3).status_code == 200


class TestMyGames:
    def test_it_lists_the_callers_games_newest_first_with_a_status_filter(self, alice_client, bob_client):
        first, second = new_game(alice_client), new_game(alice_client)
        new_game(bob_client)
        alice_client.post(f"/api/games/{first['id']}/resign/")
        body = alice_client.get("/api/games/").json()
        assert body["count"] == 2 and [g["id"] for g in body["results"]] == [second["id"], first["id"]]
        resigned = alice_client.get("/api/games/?status=resigned").json()
        assert [g["id"] for g in resigned["results"]] == [first["id"]]
        assert code_of(alice_client.get("/api/games/?status=lost")) == "invalid_request"


def _games_of_each_kind(player, days) -> None:
    """For each day: a ranked daily game, a casual game asked for by the daily's id, and a plain game, all finished."""

    for date in days:
        day = make_test_daily(date)
        ranked_game(player, day)
        services.create_game(player=player, deal=day.deal, record=played_as(day.date))
        services.create_game(player=player, deal="ms:1")
    Game.objects.filter(player=player).update(status=Game.Status.RESIGNED, finished_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC), elapsed_ms=1000)


@pytest.mark.parametrize("url", ["/api/games/?page_size=200", "/api/users/alice/games/?page_size=200", "/api/users/alice/games/?format=ndjson", "/api/users/alice/daily/"])
def test_lists_of_games_read_the_dailys_rows_with_the_games_not_one_by_one(alice, alice_client, url):
    """A game's `deal` and `ranked` come from the daily's row beside it (games.daily.models.DailyGame): a list
    reads those rows with its games, so three times the games cost no query more."""


    alice_client.get(url)  # the first request of a client reads what later ones have cached
    counts = []
    for days in ([today() - dt.timedelta(days=10 + k) for k in range(2)], [today() - dt.timedelta(days=20 + k) for k in range(4)]):
        _games_of_each_kind(alice, days)
        with CaptureQueriesContext(connection) as queries:
            answer = alice_client.get(url)
            body = answer.content if answer.streaming is False else b"".join(answer.streaming_content)
        assert answer.status_code == 200, body
        counts.append(len(queries.captured_queries))
    assert counts[0] == counts[1], counts
    if url == "/api/games/?page_size=200":
        shown = {(game["deal"].split(":")[0], game["ranked"]) for game in answer.json()["results"]}
        assert shown == {("daily", True), ("daily", False), ("ms", False)}
