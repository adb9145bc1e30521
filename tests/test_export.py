"""A player's games export (GET /api/users/<u>/games/): the filters max, ids, deal, result, since and
until in every format (JSON pages, ndjson, text), and each bad value refused."""

from __future__ import annotations

import json

import pytest

from games.daily import services as daily
from games.engine import Board
from games.models import DailyChallenge, Game
from games.play import services
from tests.support.boards import casual_deal, win_casual
from tests.support.daily import win_daily
from tests.support.players import code_of

URL = "/api/users/alice/games/"


def resigned(user, deal: str = "ms:1", moves: tuple[str, ...] = ()) -> Game:
    game = services.create_game(player=user, deal=deal, autoplay="none")
    for ply, move in enumerate(moves):
        services.play_move(game_id=game.pk, user=user, move=move, ply=ply)
    services.resign(game_id=game.pk, user=user)
    return Game.objects.get(pk=game.pk)


def ids_of(client, query: str) -> list[int]:
    response = client.get(URL + query)
    assert response.status_code == 200, response.json()
    return [row["id"] for row in response.json()["results"]]


def ndjson_ids(client, query: str) -> list[int]:
    response = client.get(URL + query + ("&" if "?" in query else "?") + "format=ndjson")
    assert response.status_code == 200 and response["Content-Type"] == "application/x-ndjson"
    return [json.loads(line)["id"] for line in b"".join(response.streaming_content).decode().splitlines()]


@pytest.fixture
def games(alice):
    """Alice's finished games, oldest first: resigned ms:1, won seed:101, resigned ms:2, won seed:101,
    and one still playing (never exported)."""
    made = [resigned(alice, "ms:1", ("3a",)), win_casual(alice), resigned(alice, "ms:2"), win_casual(alice)]
    services.create_game(player=alice, deal="ms:3", autoplay="none")
    for minute, game in enumerate(made):  # a won game's clock is set back (tests.support.daily.play): order them again
        Game.objects.filter(pk=game.pk).update(created_at=f"2026-11-01T10:{minute:02}:00Z")
    return [game.pk for game in made]


class TestMax:
    def test_max_caps_the_games_in_the_order_asked(self, games, anon_client):
        assert ids_of(anon_client, "?max=2") == games[::-1][:2]
        assert ids_of(anon_client, "?max=3&order=oldest") == games[:3]
        assert ndjson_ids(anon_client, "?max=1") == games[-1:]

    def test_a_capped_list_counts_and_pages_only_its_games(self, games, anon_client):
        body = anon_client.get(URL + "?max=3&page_size=2").json()
        assert body["count"] == 3 and len(body["results"]) == 2
        assert [row["id"] for row in anon_client.get(URL + "?max=3&page_size=2&page=2").json()["results"]] == [games[1]]

    def test_max_above_the_games_gives_them_all(self, games, anon_client):
        assert ids_of(anon_client, "?max=500") == games[::-1]

    @pytest.mark.parametrize("value", ["0", "-1", "x", "1.5", "２", "99999999", " 3"])
    def test_a_bad_max_is_an_invalid_request(self, games, anon_client, value):
        response = anon_client.get(URL, {"max": value})
        assert response.status_code == 400 and code_of(response) == "invalid_request"
        assert "max" in response.json()["error"]["fields"]


class TestIds:
    def test_ids_keep_only_those_games(self, games, anon_client):
        assert ids_of(anon_client, f"?ids={games[0]},{games[2]}") == [games[2], games[0]]
        assert ndjson_ids(anon_client, f"?ids={games[3]}") == [games[3]]

    def test_ids_of_other_players_or_unfinished_games_are_left_out(self, games, alice, bob, anon_client):
        bobs = resigned(bob)
        playing = Game.objects.get(player=alice, status="playing")
        assert ids_of(anon_client, f"?ids={bobs.pk},{playing.pk},{games[1]}") == [games[1]]

    @pytest.mark.parametrize("value", ["x", "1,,2", "1;2", "-4", ",".join(["1"] * 301), "9" * 19])
    def test_bad_ids_are_an_invalid_request(self, games, anon_client, value):
        response = anon_client.get(URL, {"ids": value})
        assert response.status_code == 400 and code_of(response) == "invalid_request"
        assert "ids" in response.json()["error"]["fields"]


class TestDealAndResult:
    def test_deal_keeps_that_deals_games(self, games, anon_client):
        assert ids_of(anon_client, "?deal=ms:2") == [games[2]]
        assert ids_of(anon_client, "?deal=seed:101") == [games[3], games[1]]
        assert ids_of(anon_client, "?deal=ms:00001") == [games[0]]  # the deal's id as parse_deal writes it
        assert ids_of(anon_client, "?deal=ms:617") == []

    def test_a_daily_is_found_by_its_date_not_its_seed(self, alice, alice_client):
        casual = win_casual(alice)  # seed:101, before it is today's daily's deal (not dealt casually then)
        today = DailyChallenge.objects.create(date=daily.today(), deal=casual_deal(), par=1, par_line="1b")
        ranked = win_daily(alice)
        assert ids_of(alice_client, f"?deal=daily:{today.date.isoformat()}") == [ranked.pk]
        assert ids_of(alice_client, "?deal=seed:101") == [casual.pk]

    def test_result_keeps_games_that_ended_so(self, games, anon_client):
        assert ids_of(anon_client, "?result=won") == [games[3], games[1]]
        assert ids_of(anon_client, "?result=resigned&max=1") == [games[2]]
        assert ndjson_ids(anon_client, "?result=resigned&order=oldest") == [games[0], games[2]]

    def test_filters_combine(self, games, anon_client):
        assert ids_of(anon_client, f"?deal=seed:101&result=won&ids={games[1]},{games[2]}") == [games[1]]
        assert ids_of(anon_client, "?deal=ms:1&result=won") == []

    @pytest.mark.parametrize("query", [{"deal": "random"}, {"deal": "ms:0"}, {"deal": "foo"}, {"result": "lost"}, {"result": "WON"}])
    def test_a_bad_deal_or_result_is_an_invalid_request(self, games, anon_client, query):
        response = anon_client.get(URL, query)
        assert response.status_code == 400 and code_of(response) == "invalid_request"
        assert set(query) == set(response.json()["error"]["fields"])

    def test_an_unknown_parameter_is_a_bad_filter(self, games, anon_client):
        response = anon_client.get(URL, {"limit": "3"})
        assert response.status_code == 400 and code_of(response) == "bad_filter"

    def test_since_and_until_still_filter(self, games, anon_client):
        first = Game.objects.get(pk=games[0])
        Game.objects.filter(pk=first.pk).update(created_at="2026-01-05T10:00:00Z")  # the only one before November
        assert ids_of(anon_client, "?until=2026-01-05") == [games[0]]
        assert games[0] not in ids_of(anon_client, "?since=2026-01-06")


class TestText:
    def text(self, client, query: str = "", **headers) -> str:
        response = client.get(URL + query, **headers)
        assert response.status_code == 200, response.content
        assert response["Content-Type"].startswith("text/plain")
        return b"".join(response.streaming_content).decode()

    def test_each_game_is_its_board_text_then_its_line(self, games, anon_client):
        text = self.text(anon_client, "?format=text&order=oldest&deal=ms:1")
        assert text == Board.from_deal("ms:1").to_text() + "3a\n\n"

    def test_games_are_separated_by_a_blank_line_and_their_boards_parse(self, games, anon_client):
        blocks = self.text(anon_client, "?format=text&order=oldest").split("\n\n")
        assert blocks[-1] == "" and len(blocks) == 5
        rows = anon_client.get(URL + "?order=oldest").json()["results"]
        for block, row in zip(blocks, rows, strict=False):
            rows_of_block = block.split("\n")
            assert len(rows_of_block) == (11 if row["line"] else 10)  # the board's 10 lines, then the line if any
            assert (rows_of_block[10:] or [""])[0] == row["line"]
            assert Board.from_text("\n".join(rows_of_block[:10])).to_text() == anon_client.get(f"/api/deals/{row['deal']}/").json()["board"]
        assert blocks[2].count("\n") == 9  # ms:2 resigned without a move: its board alone

    def test_accept_text_plain_chooses_the_text_and_filters_apply(self, games, anon_client):
        text = self.text(anon_client, "?result=won&max=1", HTTP_ACCEPT="text/plain")
        assert text.count("Foundations:") == 1 and text.endswith("\n\n")

    def test_accept_ndjson_chooses_the_ndjson(self, games, anon_client):
        response = anon_client.get(URL + "?max=1", HTTP_ACCEPT="application/x-ndjson")
        assert response["Content-Type"] == "application/x-ndjson"
        assert [json.loads(line)["id"] for line in b"".join(response.streaming_content).decode().splitlines()] == games[-1:]

    def test_a_bad_filter_in_text_is_still_refused(self, games, anon_client):
        response = anon_client.get(URL + "?format=text&max=0")
        assert response.status_code == 400 and json.loads(response.content)["error"]["code"] == "invalid_request"

    def test_no_games_is_an_empty_text(self, alice, anon_client):
        assert self.text(anon_client, "?format=text") == ""


def test_the_docs_text_example(alice, anon_client):
    """docs/api.md's example of the text export is this call's answer, byte for byte."""
    import re
    from pathlib import Path

    resigned(alice, "ms:617", ("3a", "4b"))
    resigned(alice, "ms:1")
    response = anon_client.get(URL + "?format=text&order=oldest&result=resigned")
    answer = b"".join(response.streaming_content).decode()
    docs = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    section = docs.split("### A player's games: `GET /api/users/<username>/games/`", 1)[1]
    assert "GET /api/users/alice/games/?format=text&order=oldest&result=resigned" in section
    assert re.search(r"```text\n(.*?)```", section, re.S).group(1) == answer
