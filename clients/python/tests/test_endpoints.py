"""The client's methods for the rest of the API against a live server: the games export with its filters
and formats, the game and record-board sockets, restart, reports and reviews, the fair-play policy, bot
accounts, account closing and the API's own documents."""

from __future__ import annotations

import asyncio

import pytest

from freecell_client import ApiError

from conftest import PASSWORD


def finished_games(client) -> list[int]:
    """Three finished games, oldest first: ms:1 resigned after 3a, ms:2 resigned at once, ms:1 resigned at once."""
    ids = []
    for deal, moves in (("ms:1", ["3a"]), ("ms:2", []), ("ms:1", [])):
        game = client.create_game(deal, autoplay="none")
        for ply, move in enumerate(moves):
            client.play_move(game.id, move, ply)
        client.resign(game.id)
        ids.append(game.id)
    return ids


def test_the_export_with_its_filters_and_formats(new_player):
    client, username = new_player("export")
    first, second, third = finished_games(client)
    anyone = type(client)(client.base_url)
    assert [row["id"] for row in anyone.user_games(username).results] == [third, second, first]
    assert [row["id"] for row in anyone.user_games(username, max=2, order="oldest").results] == [first, second]
    assert [row["id"] for row in anyone.user_games(username, ids=[first, third]).results] == [third, first]
    assert [row["id"] for row in anyone.user_games(username, deal="ms:2").results] == [second]
    assert anyone.user_games(username, result="won").results == []
    rows = list(anyone.export_games(username, deal="ms:1", order="oldest"))
    assert [(row["id"], row["line"]) for row in rows] == [(first, "3a"), (third, "")]
    text = anyone.export_games_text(username, ids=str(first))
    assert text == anyone.deal("ms:1").board + "3a\n\n"
    with pytest.raises(ApiError) as refused:
        anyone.user_games(username, result="lost")
    assert refused.value.status == 400 and refused.value.code == "invalid_request"
    with pytest.raises(ApiError) as unknown:
        anyone.user_games(username, limit=3)
    assert unknown.value.code == "bad_filter"


def test_the_game_socket_sends_the_state_and_acks_a_move(new_player):
    client, _ = new_player("sock")
    game = client.create_game("ms:1", autoplay="none")

    async def play() -> tuple[dict, dict, dict]:
        async with client.game_socket(game.id) as socket:
            state = await socket.recv(10)
            await socket.move("3a", state["game"]["ply"])
            ack = await socket.recv(10)
            await socket.move("zz", ack["game"]["ply"])
            error = await socket.recv(10)
            return state, ack, error

    state, ack, error = asyncio.run(asyncio.wait_for(play(), 30))
    assert state["type"] == "state" and state["game"]["id"] == game.id and state["game"]["ply"] == 0
    assert ack["type"] == "ack" and ack["game"]["ply"] == 1 and ack["action"]["move"] == "3a"
    assert error["type"] == "error" and error["code"] == "bad_notation"


def test_the_records_socket_shows_the_board_and_refuses_a_bad_query(new_player):
    client, _ = new_player("rec")

    async def watch(**query) -> dict:
        async with client.records_socket("ms:5", **query) as socket:
            return await socket.recv(10)

    frame = asyncio.run(asyncio.wait_for(watch(autoplay="none"), 30))
    assert frame["type"] == "records" and frame["deal"] == "ms:5" and frame["autoplay"] == "none" and frame["players"] == "people"

    async def refused() -> list[dict]:
        seen = []
        async with client.records_socket("ms:5", autoplay="always") as socket:
            while True:
                seen.append(await socket.recv(10))

    with pytest.raises(ApiError) as closed:
        asyncio.run(asyncio.wait_for(refused(), 30))
    assert closed.value.code == "socket_closed" and "4400" in closed.value.message


def test_restart_report_review_and_the_fair_play_policy(new_player):
    client, username = new_player("fair")
    other, _ = new_player("fair")
    game = client.create_game("ms:1", autoplay="none")
    client.play_move(game.id, "3a", 0)
    again = client.restart(game.id)
    assert again.deal == "ms:1" and again.id != game.id and again.ply == 0
    assert client.game(game.id).status == "abandoned"
    assert client.game_review(again.id)["game"] == again.id
    policy = client.fair_play()
    assert policy["signals"]
    with pytest.raises(ApiError) as not_staff:
        other.fair_play_queue()
    assert not_staff.value.status == 403
    with pytest.raises(ApiError) as not_finished:
        other.report_game(again.id, "too fast")
    assert not_finished.value.status in (400, 403, 404, 409)


def test_a_bot_account_and_closing_an_account(new_player):
    client, username = new_player("botacct")
    assert client.become_bot()["bot"] is True
    assert client.user(username)["bot"] is True
    client.request_password_reset("nobody@example.com")  # answered alike for any address
    client.close_account(PASSWORD)
    assert client.token is None


def test_the_api_documents(server):
    from freecell_client import FreeCellClient

    client = FreeCellClient(server.url)
    assert "/api/users/{username}/games/" in client.openapi()["paths"]
    assert client.asyncapi()["asyncapi"].startswith("2.")
