"""The text board of the command line: free cells and foundations on top, the eight columns side by side."""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "CDHS"
RED = "DH"


def pile(card: str | None, color: bool = False) -> str:
    """One pile's 4 characters: ` 7D `, or ` .. ` when empty."""
    if not card:
        return " .. "
    if color and card[-1] in RED:
        return f" \x1b[31m{card}\x1b[0m "
    return f" {card} "


def foundation_card(suit: str, rank: int) -> str | None:
    return f"{RANKS[rank - 1]}{suit}" if rank else None


def render(state: dict, *, color: bool = False) -> str:
    """The position `state` (`{columns, cells, foundations}` as the API gives it) as lines of text:

          a   b   c   d  |   C   D   H   S
         ..  7D  ..  ..  |  3C  ..  AH  ..

          1   2   3   4   5   6   7   8
         JD  2D  9H  JC  5D  7H  7C  5H
         ...

    Each column reads down from the card dealt first to the exposed card, as on a table."""
    cells = (list(state["cells"]) + [None] * 4)[:4]
    foundations = state["foundations"]
    lines = [
        "".join(f"  {name} " for name in "abcd") + " | " + "".join(f"  {suit} " for suit in SUITS),
        "".join(pile(card, color) for card in cells) + " | " + "".join(pile(foundation_card(s, foundations.get(s, 0)), color) for s in SUITS),
        "",
    ]
    columns = state["columns"]
    lines.append("".join(f"  {n} " for n in range(1, len(columns) + 1)))
    for row in range(max((len(col) for col in columns), default=0)):
        lines.append("".join(pile(col[row], color) if row < len(col) else "    " for col in columns))
    return "\n".join(line.rstrip() for line in lines) + "\n"


def status_line(game: dict) -> str:
    """Moves, undos, cards home and status of a game object."""
    parts = [f"game {game['id']}", game["deal"], f"moves {game['moves']}", f"undos {game['undos']}", f"home {game.get('cards_home', 0)}/52"]
    if game["status"] != "playing":
        parts.append(game["status"].upper())
    elif game.get("stuck"):
        parts.append("stuck: no legal move left (u to undo)")
    return "  ".join(parts)
