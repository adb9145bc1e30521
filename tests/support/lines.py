"""Winning lines for tests: from the project's solver, else Debian's fc-solve, else the test is skipped."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess

import pytest


@functools.cache
def winning_line(deal: str, autoplay: str = "none") -> tuple[str, ...]:
    from games.engine import Board

    try:
        from games.engine.solver import solve
    except ImportError:
        solve = None
    if solve is not None:
        solution = solve(Board.from_deal(deal), autoplay=autoplay, budget=30)
        if solution.result == "solved":
            return tuple(str(move) for move in solution.moves)
    if autoplay == "none" and deal.startswith("ms:") and shutil.which("fc-solve"):
        layout = subprocess.run(
            ["make-microsoft-freecell-board", "-t", deal[3:]], capture_output=True, text=True, check=True
        ).stdout
        out = subprocess.run(["fc-solve", "-snx", "-p", "-t", "-sam"], input=layout, capture_output=True, text=True).stdout
        return tuple(re.findall(r"^Move: (\S+)", out, flags=re.M))
    pytest.skip(f"no solver available for a winning line of {deal}")
