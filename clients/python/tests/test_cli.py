"""The `freecell` command against a live server: sign-in, a game played from stdin, verify, export, daily."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from freecell_client import FreeCellClient
from freecell_client.cli import main

from conftest import PASSWORD


def freecell(args: list[str], stdin: str, env: dict) -> subprocess.CompletedProcess:
    """The installed console script (else `python -m freecell_client`), as a player runs it."""
    script = shutil.which("freecell", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "freecell_client"]
    return subprocess.run(command + args, input=stdin, capture_output=True, text=True, env=env, timeout=60)


@pytest.fixture
def cli_env(server, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("FREECELL_")}
    env.update(FREECELL_URL=server.url, XDG_CONFIG_HOME=str(tmp_path / "config"))
    return env


def test_login_saves_the_token_readable_by_its_owner_only(server, new_player, cli_env):
    _, username = new_player()
    done = freecell(["login"], f"{username}\n{PASSWORD}\n", cli_env)
    assert done.returncode == 0, done.stderr
    assert f"signed in as {username}" in done.stdout
    path = Path(cli_env["XDG_CONFIG_HOME"]) / "freecell" / "config.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    saved = json.loads(path.read_text())
    assert saved["url"] == server.url
    assert FreeCellClient(server.url, saved["token"]).me()["username"] == username
    wrong = freecell(["login"], f"{username}\nnot it\n", cli_env)
    assert wrong.returncode == 2 and "authentication_failed" in wrong.stderr


def test_play_reads_moves_from_stdin(server, new_player, cli_env):
    client, _ = new_player()
    cli_env["FREECELL_TOKEN"] = client.token
    done = freecell(["play", "ms:1", "--autoplay", "none"], "3a\nzz\n1h\n32\nu\nq\n", cli_env)
    assert done.returncode == 0, done.stderr
    shown = done.stdout
    game_id = int(re.search(r"game (\d+)  ms:1", shown).group(1))
    assert "error: bad_notation" in shown and "error: illegal_move" in shown
    # The board after 3a: 2H in the first free cell, column 3 one card shorter.
    assert re.search(r"^ 2H  \.\.  \.\.  \.\.  \|", shown, re.M)
    assert f"game {game_id}  ms:1  moves 3  undos 1  home 0/52" in shown
    game = client.game(game_id)
    assert (game.ply, game.undos, game.status) == (3, 1, "playing")
    assert [a.move for a in client.history(game_id).actions] == ["3a", "32", "32"]


def test_verify_command(server, cli_env):
    out = io.StringIO()
    assert main(["--url", server.url, "verify", "ms:1", "3a", "32"], out) == 0
    assert out.getvalue() == "valid: 2 moves, not won\n"
    out = io.StringIO()
    assert main(["--url", server.url, "verify", "ms:1", "3a 1h"], out) == 1
    assert out.getvalue().startswith("invalid at move 2 (1h): illegal_move")


def test_export_prints_board_text_and_the_line(server, new_player):
    client, _ = new_player()
    game = client.create_game("ms:1", autoplay="safe")
    for move in ("3a", "32", "6b", "6c"):  # then safe autoplay takes AC, 2C and AS home
        game = client.play_move(game.id, move, game.ply)
    out = io.StringIO()
    assert main(["--url", server.url, "--token", client.token, "export", str(game.id)], out) == 0
    board, blank, line = out.getvalue().partition("\n\n")
    assert blank
    columns = [row for row in board.splitlines() if row.startswith(":")]
    assert len(columns) == 8 and sum(len(row.split()) - 1 for row in columns) == 52
    # The board text is the deal: replaying the line from it (autoplay written out) gives the game.
    check = FreeCellClient(server.url).verify(line.strip(), board=board + "\n")
    assert check.valid and check.moves == len(line.split()) == 4 + 3
    assert line.strip() == client.history_text(game.id)


def test_daily_command(server, new_player):
    client, _ = new_player()
    out = io.StringIO()
    assert main(["--url", server.url, "--token", client.token, "daily"], out) == 0
    assert re.fullmatch(r"daily \d{4}-\d\d-\d\d: daily:\S+  par \S+  players \d+\n", out.getvalue())
