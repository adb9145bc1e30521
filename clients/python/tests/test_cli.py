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
from urllib.parse import parse_qs, urlsplit

import pytest

from freecell_client import ApiError, FreeCellClient
from freecell_client.cli import main

from browser import Browser
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


def start_login(args: list[str], env: dict) -> tuple[subprocess.Popen, str]:
    """Runs `freecell login --no-browser ...` and reads the consent link it prints."""
    script = shutil.which("freecell", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "freecell_client"]
    process = subprocess.Popen(command + ["login", "--no-browser", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    for line in process.stdout:
        if "/oauth/authorize/?" in line:
            return process, line.strip()
    process.kill()
    raise AssertionError(f"no link printed: {process.stderr.read()}")


def test_login_signs_in_through_the_browser_and_saves_the_token(server, new_player, cli_env):
    _, username = new_player()
    process, link = start_login([], cli_env)
    query = parse_qs(urlsplit(link).query)
    assert query["client_id"] == ["freecell-cli"] and query["code_challenge_method"] == ["S256"]
    assert query["redirect_uri"][0].startswith("http://127.0.0.1:") and "password" not in link
    browser = Browser(server.url)
    browser.sign_in(username, PASSWORD)
    consent = browser.open(link)
    assert 'data-testid="oauth-client">freecell-cli<' in consent
    assert all(f"(<code>{scope}</code>)</li>" in consent for scope in ("read", "play", "race")) and "<code>account</code>" not in consent
    assert "<p>Signed in.</p>" in browser.answer_consent(consent, allow=True)  # the CLI's own page
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert f"signed in as {username} on {server.url} with scopes read play race" in out
    path = Path(cli_env["XDG_CONFIG_HOME"]) / "freecell" / "config.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    saved = json.loads(path.read_text())
    assert saved["url"] == server.url and saved["scopes"] == ["read", "play", "race"]
    client = FreeCellClient(server.url, saved["token"])
    assert saved["token"].startswith("fco_") and client.me()["username"] == username
    with pytest.raises(ApiError) as refused:
        client.update_me(bio="not allowed")  # no `account` scope asked
    assert refused.value.code == "missing_scope"


def test_logout_revokes_the_saved_token_and_forgets_it(server, new_player, cli_env):
    _, username = new_player()
    process, link = start_login(["--scopes", "read"], cli_env)
    browser = Browser(server.url)
    browser.sign_in(username, PASSWORD)
    browser.answer_consent(browser.open(link), allow=True)
    assert process.wait(timeout=60) == 0
    path = Path(cli_env["XDG_CONFIG_HOME"]) / "freecell" / "config.json"
    token = json.loads(path.read_text())["token"]
    done = freecell(["logout"], "", cli_env)
    assert done.returncode == 0 and "signed out" in done.stdout, done.stderr
    saved = json.loads(path.read_text())
    assert "token" not in saved and saved["url"] == server.url
    with pytest.raises(ApiError) as gone:
        FreeCellClient(server.url, token).me()
    assert gone.value.status == 401
    again = freecell(["logout"], "", cli_env)
    assert again.returncode == 0 and "not signed in" in again.stdout


def test_login_refused_in_the_browser_fails_and_saves_nothing(server, new_player, cli_env):
    _, username = new_player()
    process, link = start_login(["--scopes", "read"], cli_env)
    browser = Browser(server.url)
    browser.sign_in(username, PASSWORD)
    consent = browser.open(link)
    assert "Sign-in refused: access_denied" in browser.answer_consent(consent, allow=False)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and "access_denied" in err
    assert not (Path(cli_env["XDG_CONFIG_HOME"]) / "freecell" / "config.json").exists()


def test_the_token_from_login_is_listed_and_revocable(server, new_player, cli_env):
    owner, username = new_player()
    process, link = start_login(["--scopes", "read,play"], cli_env)
    browser = Browser(server.url)
    browser.sign_in(username, PASSWORD)
    browser.answer_consent(browser.open(link), allow=True)
    assert process.wait(timeout=60) == 0
    token = json.loads((Path(cli_env["XDG_CONFIG_HOME"]) / "freecell" / "config.json").read_text())["token"]
    listed = [t for t in owner.tokens() if t.name == "freecell-cli"]
    assert len(listed) == 1 and listed[0].scopes == ["read", "play"]
    owner.revoke_token(listed[0].id)
    with pytest.raises(ApiError) as gone:
        FreeCellClient(server.url, token).me()
    assert gone.value.status == 401


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
