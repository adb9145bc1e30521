"""A bot that plays a race: waits for the start, then plays its game's moves over the race socket, from
the deal's solver line (`GET /api/deals/<deal>/facts/`, `par_line`) or a simple strategy.

The service gives a racer no help on the deal of a race they are in (no hints, legal moves or par line
until it is over), so a bot on the solver line reads it before it joins (`strategy_for`, then join);
the simple strategy works out its own moves from the position."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TextIO

from freecell_client.client import FreeCellClient
from freecell_client.errors import ApiError

#: The strategies a bot may play: the solver's line of the deal, or a simple one of legal moves.
STRATEGIES = ("line", "simple")


RANKS = "A23456789TJQK"
RED = "DH"


def rank(card: str) -> int:
    return RANKS.index(card[0]) + 1


def goes_on(card: str, under: str) -> bool:
    """Whether `card` may be put on `under` in a column: one rank lower, the other colour."""
    return rank(under) == rank(card) + 1 and (card[1] in RED) != (under[1] in RED)


def single_card_moves(state: dict) -> list[str]:
    """The legal moves of one card at a position (the game object's `state`), in the spec's notation:
    home first, then out of a free cell, then between columns, then into a free cell. A race gives no
    help (its legal-moves and hints are refused), so a bot works them out itself."""
    columns, cells, home = state["columns"], state["cells"], state["foundations"]
    sources = [(str(i + 1), column[-1]) for i, column in enumerate(columns) if column]
    sources += [("abcd"[i], card) for i, card in enumerate(cells) if card]
    homeward = [f"{where}h" for where, card in sources if home[card[1]] == rank(card) - 1]
    onto: list[str] = []
    for where, card in sources:
        for i, column in enumerate(columns):
            target = str(i + 1)
            if target == where:
                continue
            if column and goes_on(card, column[-1]):
                onto.append(where + target)
            elif not column and not (where.isdigit() and len(columns[int(where) - 1]) == 1):  # a lone card to an empty column goes nowhere
                onto.append(where + target)
    free = next(("abcd"[i] for i, card in enumerate(cells) if not card), None)
    to_cell = [f"{where}{free}" for where, _ in sources if where.isdigit() and free]
    out_of_cells = [move for move in onto if move[0].isalpha()]
    return homeward + out_of_cells + [move for move in onto if move[0].isdigit()] + to_cell


class SimpleStrategy:
    """A move a beginner would make: a card home when one can go, else a card out of a free cell, else
    between columns, else into a free cell, never taking back the move before; at most `limit` moves,
    then none (the bot resigns)."""

    def __init__(self, limit: int = 200):
        self.limit = limit
        self.played: list[str] = []

    def __call__(self, game: dict) -> str | None:
        if len(self.played) >= self.limit:
            return None
        last = self.played[-1] if self.played else ""
        back = last[::-1]  # `a3` takes back `3a`, `21` takes back `12`
        choice = next((move for move in single_card_moves(game["state"]) if move != back), None)
        if choice is not None:
            self.played.append(choice)
        return choice


class LineStrategy:
    """The deal's solver line (its facts' `par_line`, for safe autoplay), one move a ply."""

    def __init__(self, moves: list[str]):
        self.moves = moves

    def __call__(self, game: dict) -> str | None:
        return self.moves[game["ply"]] if game["ply"] < len(self.moves) else None


def solver_line(client: FreeCellClient, deal: str, autoplay: str) -> list[str]:
    """The solver's winning line of `deal` for safe autoplay; ApiError `no_line` when there is none to
    play (a race without autoplay, a deal the solver has not solved, or asked once in the race)."""
    if autoplay != "safe":
        raise ApiError(0, "no_line", "the solver's line is for safe autoplay; this race has none: play --play simple")
    try:
        facts = client.deal_facts(deal)
    except ApiError as error:
        if error.status != 403:
            raise
        raise ApiError(0, "no_line", f"no solver line for {deal} once in its race ({error.message}): read it before joining") from error
    if not facts.get("solvable") or not facts.get("par_line"):
        raise ApiError(0, "no_line", f"no solver line for {deal}: {facts.get('result')} ({facts.get('reason') or 'unsolved'})")
    return facts["par_line"].split()


Strategy = Callable[[dict], "str | None"]


def strategy_for(client: FreeCellClient, name: str, deal: str, autoplay: str = "safe") -> Strategy:
    """The strategy `name` (STRATEGIES) for a race on `deal`: ask for it before joining the race."""
    if name == "line":
        return LineStrategy(solver_line(client, deal, autoplay))
    return SimpleStrategy()


async def play_race(client: FreeCellClient, code: str, strategy: Strategy, out: TextIO, *, timeout: float | None = 60) -> dict:
    """Plays the signed-in player's game of race `code` (joined already) with `strategy` until it is over
    (won, or resigned when the strategy has no move left); answers the last game object."""
    race = await asyncio.to_thread(client.race, code)
    choose = strategy
    game: dict | None = None
    waiting = False  # a move is on its way: its ack (or error) comes first
    async with client.race_socket(code) as socket:
        while True:
            frame = await socket.recv(timeout)
            kind = frame.get("type")
            if kind == "race":
                if frame["race"]["status"] != race.raw.get("status"):
                    print(f"race {code}: {frame['race']['status']}", file=out, flush=True)
                race.raw = frame["race"]
                mine = next((r for r in race.raw["racers"] if r["username"] == socket.username and not r.get("ghost")), None)
                if game is not None and mine is not None and mine["status"] in ("won", "resigned") and game["status"] == "playing":
                    game = {**game, "status": mine["status"]}  # a resign is answered by the race frame
                elif frame["race"]["status"] == "finished" and game is None:
                    raise ApiError(0, "race_over", f"race {code} finished before this player's game began")
                waiting = waiting and game is not None and game["status"] == "playing"
            elif kind in ("state", "ack"):
                game = frame["game"]
                waiting = False
            elif kind == "error":
                print(f"error: {frame.get('code')}: {frame.get('message')}", file=out, flush=True)
                if isinstance(frame.get("game"), dict):
                    game = frame["game"]
                waiting = False
            if game is None or waiting:
                continue
            if game["status"] != "playing":
                print(f"{game['status']} in {game['moves']} moves ({game['cards_home']}/52 home)", file=out, flush=True)
                return game
            move = await asyncio.to_thread(choose, game)
            if move is None:
                print("no move left: resigning", file=out, flush=True)
                await socket.resign()
                waiting = True
                continue
            await socket.move(move, game["ply"])
            waiting = True
