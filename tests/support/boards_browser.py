"""The boards' browser tests: games of a deal won over the REST API with a chosen score, friends made over the API."""

from __future__ import annotations

import time

from games.engine import Board
from tests.support.browser import Site, winning_line


def safe_line(deal: str) -> list[str]:
    """A winning line of `deal` under safe autoplay (the project's solver), from the dealt position."""
    board = Board.from_deal(deal)
    board.safe_autoplay()
    return winning_line(board)


def won_game(site: Site, token: str, deal: str, line: list[str], *, detours: int = 0) -> dict:
    """A safe-autoplay game of `deal` won over the REST API in len(line) + 2 * detours actions: each
    detour plays the line's first move and undoes it, so every detour costs two moves (undos count)."""
    game = site.api("POST", "/api/games/", {"deal": deal, "autoplay": "safe"}, token=token)
    ply = 0
    for _ in range(detours):
        site.api("POST", f"/api/games/{game['id']}/moves/", {"move": line[0], "ply": ply}, token=token)
        site.api("POST", f"/api/games/{game['id']}/undo/", {"ply": ply + 1}, token=token)
        ply += 2
        time.sleep(0.06)
    for move in line:
        game = site.api("POST", f"/api/games/{game['id']}/moves/", {"move": move, "ply": ply}, token=token)
        ply += 1
        time.sleep(0.06)
    assert game["status"] == "won" and game["moves"] == len(line) + 2 * detours, game
    return game


def befriend(site: Site, token: str, friend_token: str, friend: str, username: str) -> None:
    """`username` (by `token`) asks `friend` to be friends, and `friend` (by `friend_token`) accepts."""
    site.api("POST", "/api/friends/requests/", {"username": friend}, token=token)
    site.api("POST", f"/api/friends/requests/{username}/accept/", {}, token=friend_token)
