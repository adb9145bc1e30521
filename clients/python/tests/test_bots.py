"""Bots against a live server: two bots race, one on the deal's solver line (it wins), one on a simple
strategy; the command line makes scoped tokens, lists and accepts challenges and plays the race, and
exports a player's games."""

from __future__ import annotations

import asyncio
import concurrent.futures
import io
import json
import time

import pytest

from freecell_client import ApiError, FreeCellClient
from freecell_client.bot import SimpleStrategy, play_race, single_card_moves, strategy_for
from freecell_client.cli import main


def run(client: FreeCellClient, args: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    status = main(["--url", client.base_url, "--token", client.token, *args], out)
    return status, out.getvalue()


def test_two_bots_race_and_the_one_on_the_solver_line_wins(new_player):
    owner, owner_name = new_player("linebot")
    guest, guest_name = new_player("simplebot")
    line = strategy_for(owner, "line", "ms:1")  # before the race: no help on its deal once in it
    race = owner.create_race("ms:1")  # safe autoplay: the facts' par_line is a line for it
    with pytest.raises(ApiError) as refused:
        strategy_for(owner, "line", "ms:1")
    assert refused.value.code == "no_line" and "read it before joining" in refused.value.message
    guest.join_race(race.code)
    owner.start_race(race.code)

    async def both() -> list[dict]:
        return await asyncio.gather(
            play_race(owner, race.code, line, io.StringIO(), timeout=30),
            play_race(guest, race.code, strategy_for(guest, "simple", "ms:1"), io.StringIO(), timeout=30),
        )

    won, other = asyncio.run(asyncio.wait_for(both(), 120))
    assert won["status"] == "won" and won["cards_home"] == 52
    assert other["status"] in ("won", "resigned")
    final = owner.race(race.code)
    assert final.racer(owner_name).status == "won" and final.racer(owner_name).rank == 1
    assert final.racer(guest_name).status in ("won", "resigned")


def test_the_simple_strategy_plays_home_first_and_never_takes_back_its_last_move():
    empty = [[] for _ in range(8)]
    state = {
        "columns": [["KS", "AH"], ["9C", "5D"], ["8H"], *empty[3:]],
        "cells": ["7S", None, None, None],
        "foundations": {"C": 0, "D": 0, "H": 0, "S": 0},
    }
    assert single_card_moves(state)[:2] == ["1h", "a3"]  # home first, then out of a cell onto 8H
    assert "2b" in single_card_moves(state) and "31" not in single_card_moves(state)  # 8H does not go on AH
    assert "34" not in single_card_moves(state)  # a lone card to an empty column goes nowhere
    strategy = SimpleStrategy(limit=2)
    assert strategy({"state": state}) == "1h"
    strategy.played[-1] = "3a"  # as if the last move was 3a: a3 would take it back
    assert strategy({"state": state}) == "1h"
    assert strategy({"state": state}) is None  # its limit


def test_the_cli_makes_a_scoped_token_lists_and_revokes_it(new_player):
    client, username = new_player("tok")
    status, out = run(client, ["token", "create", "--name", "my bot", "--scopes", "read,play"])
    assert status == 0
    secret = out.strip()
    assert secret.startswith("fco_")
    bot = FreeCellClient(client.base_url, secret)
    assert bot.me()["username"] == username
    game = bot.create_game("ms:1")  # `play`
    assert game.player == username
    with pytest.raises(ApiError) as refused:
        bot.create_race("ms:1")  # no `race`
    assert refused.value.code == "missing_scope"
    status, listed = run(client, ["token", "list"])
    made = next(line for line in listed.splitlines() if "my bot" in line)
    assert "read play" in made
    status, out = run(client, ["token", "revoke", made.split()[0]])
    assert status == 0 and "revoked" in out
    with pytest.raises(ApiError) as revoked:
        bot.me()
    assert revoked.value.status == 401


def test_the_cli_lists_and_accepts_a_challenge_then_wins_the_race_on_the_solver_line(new_player):
    challenger, challenger_name = new_player("chal")
    challenged, challenged_name = new_player("chal")
    sent = challenger.challenge(challenged_name, "ms:1")
    status, listed = run(challenged, ["challenges"])
    assert status == 0
    assert f"{sent.id:>6}  from {challenger_name}" in listed and "open" in listed
    status, played = run(challenged, ["accept", str(sent.id), "--play", "line", "--timeout", "30"])
    assert status == 0, played
    code = challenged.get_challenge(sent.id).code
    assert f"accepted challenge {sent.id} from {challenger_name}: race {code}" in played
    assert "won in" in played
    assert challenger.race(code).racer(challenged_name).status == "won"


def test_the_cli_plays_a_race_by_code_and_refuses_a_line_without_autoplay(new_player, capsys):
    owner, _ = new_player("clirace")
    guest, guest_name = new_player("clirace")
    race = owner.create_race("ms:1", autoplay="none")
    status, _ = run(guest, ["race", race.code, "--join", "--play", "line"])
    assert status == 2 and "no_line" in capsys.readouterr().err
    assert guest_name not in [r.username for r in owner.race(race.code).racers]  # it found no line before joining
    ranked = owner.create_race("ms:1")
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        playing = pool.submit(run, guest, ["race", ranked.code, "--join", "--play", "line", "--timeout", "30"])
        deadline = time.monotonic() + 30
        while guest_name not in [r.username for r in owner.race(ranked.code).racers]:  # polled: the CLI joins when it is ready
            assert time.monotonic() < deadline and not playing.done(), playing.result() if playing.done() else "not joined"
            time.sleep(0.1)
        owner.start_race(ranked.code)
        status, out = playing.result(timeout=90)
    assert status == 0 and "won in" in out, out
    assert owner.race(ranked.code).racer(guest_name).status == "won"


def test_the_cli_exports_a_players_games(new_player):
    client, username = new_player("cliexp")
    for deal in ("ms:1", "ms:2"):
        client.resign(client.create_game(deal, autoplay="none").id)
    status, out = run(client, ["games", username, "--deal", "ms:2"])
    assert status == 0 and [json.loads(line)["deal"] for line in out.splitlines()] == ["ms:2"]
    status, out = run(client, ["games", username, "--format", "text", "--max", "1", "--order", "oldest"])
    assert out == client.deal("ms:1").board + "\n"  # resigned without a move: the board, then a blank line
