"""Backups (docs/operations.md, "Backups"): the compose backup service's own script dumps a database with
games (`pg_dump -Fc`), keeps BACKUP_KEEP_DAYS of dumps, notes its success for Prometheus; the restore
steps of the docs bring back every game's history, and `manage.py verify_games` agrees with them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
POSTGRES = os.environ.get("DATABASE_URL", "").startswith("postgres")

pytestmark = [
    pytest.mark.skipif(not POSTGRES, reason="needs PostgreSQL: set DATABASE_URL=postgres://..."),
    pytest.mark.skipif(not (shutil.which("pg_dump") and shutil.which("pg_restore")), reason="needs pg_dump and pg_restore (apt-get install postgresql-client)"),
    pytest.mark.slow,
]

# Games of several shapes: moves, an undo, a resign, a win (the solver's line), a game not begun.
MAKE_GAMES = """
import json
from accounts import services as accounts
from games.play import services
from tests.support.lines import winning_line

ann, _ = accounts.register(username="ann", password="kept-Safe-backup-1")
bob, _ = accounts.register(username="bob", password="kept-Safe-backup-2")
one = services.create_game(player=ann, deal="ms:1", autoplay="none")
for ply, move in enumerate(["7a", "4b", "74"]):
    services.play_move(game_id=one.pk, user=ann, move=move, ply=ply, client_id=f"c{ply}")
services.undo(game_id=one.pk, user=ann, ply=3)
two = services.create_game(player=bob, deal="ms:11982", autoplay="safe")
services.play_move(game_id=two.pk, user=bob, move="1a", ply=0)
services.resign(game_id=two.pk, user=bob)
won = services.create_game(player=ann, deal="ms:1", autoplay="none")
for ply, move in enumerate(winning_line("ms:1")):
    services.play_move(game_id=won.pk, user=ann, move=move, ply=ply)
services.create_game(player=bob, deal="seed:20261204", autoplay="safe")
"""

# Every game with its whole history, as the API's history shows it, and its stored result.
READ_GAMES = """
import json
from games.play import selectors
from games.play.models import Game
from games.play.payloads import action_payload

games = {}
for game in Game.objects.select_related("deal", "player").order_by("pk"):
    games[game.pk] = {
        "player": game.player.username, "deal": game.deal_id, "status": game.status, "version": game.version,
        "line": selectors.line_text(game), "actions": [action_payload(a) for a in selectors.actions_of(game)],
    }
print(json.dumps(games, default=str))
"""


def manage(database_url: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": database_url, "FAIR_PLAY_REVIEW": "0", "ACTIONS_PER_SECOND": "0"}
    env.pop("REDIS_URL", None)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def games_in(database_url: str) -> dict:
    result = manage(database_url, "shell", "-c", READ_GAMES)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])  # the shell says what it imported first


def libpq_env(database_url: str) -> dict:
    """The PG* variables the backup service sets, for the database in `database_url`."""
    from urllib.parse import urlsplit

    parts = urlsplit(database_url)
    return {"PGHOST": parts.hostname or "127.0.0.1", "PGPORT": str(parts.port or 5432), "PGUSER": parts.username or "postgres",
            "PGPASSWORD": parts.password or "", "PGDATABASE": parts.path.strip("/")}


def backup_script() -> str:
    """The backup service's script as the shell sees it (compose turns `$$` into `$`)."""
    service = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["backup"]
    assert service["image"].startswith("postgres:") and service["command"][:2] == ["sh", "-c"]
    assert "pg_dump -Fc" in service["command"][2]
    return service["command"][2].replace("$$", "$")


def test_a_dump_restored_into_a_new_database_has_every_game_and_verify_games_agrees(tmp_path):
    from tests.support.servers import fresh_database

    with fresh_database("freecell_backup") as source:
        made = manage(source, "shell", "-c", MAKE_GAMES)
        assert made.returncode == 0, made.stderr
        before = games_in(source)
        assert len(before) == 4 and {game["status"] for game in before.values()} == {"playing", "won", "resigned"}

        # The service's own script, one pass: a `sleep` that fails ends its loop after the first dump.
        backups, shims = tmp_path / "backups", tmp_path / "bin"
        backups.mkdir()
        shims.mkdir()
        (shims / "sleep").write_text("#!/bin/sh\nexit 1\n")
        (shims / "sleep").chmod(0o755)
        old, recent = backups / "freecell-20000101T000000Z.dump", backups / "freecell-recent.dump"
        old.write_bytes(b"old")
        recent.write_bytes(b"recent")
        eight_days_ago = time.time() - 8 * 86400
        os.utime(old, (eight_days_ago, eight_days_ago))
        env = {**os.environ, **libpq_env(source), "PATH": f"{shims}:{os.environ['PATH']}", "BACKUP_TO": str(backups), "BACKUP_KEEP_DAYS": "7", "BACKUP_EVERY_S": "86400"}
        result = subprocess.run(["sh", "-c", backup_script()], env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        dumps = sorted(backups.glob("freecell-2*.dump"))
        assert not old.exists() and recent.exists(), "dumps older than BACKUP_KEEP_DAYS are deleted, newer ones kept"
        (dump,) = dumps
        assert dump.read_bytes()[:5] == b"PGDMP"  # pg_dump's custom format
        assert not list(backups.glob("*.partial"))
        noted = dict(line.split() for line in (backups / "metrics" / "backup.prom").read_text().splitlines())
        assert abs(float(noted["freecell_backup_last_success_timestamp_seconds"]) - time.time()) < 120
        assert int(noted["freecell_backup_last_size_bytes"]) == dump.stat().st_size

        # The restore of docs/operations.md: a new database, pg_restore into it.
        import psycopg

        from tests.support.servers import with_database

        target_name = libpq_env(source)["PGDATABASE"] + "_restored"
        admin = with_database(source, "postgres").replace("postgres://", "postgresql://", 1)
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{target_name}"')
        target = with_database(source, target_name)
        try:
            restore = subprocess.run(
                ["pg_restore", "--no-owner", "--exit-on-error", "-d", target_name, str(dump)],
                env={**os.environ, **libpq_env(target)}, capture_output=True, text=True, timeout=300,
            )
            assert restore.returncode == 0, restore.stderr
            after = games_in(target)
            assert after == before
            verified = manage(target, "verify_games", "--quiet")
            assert verified.returncode == 0, verified.stdout + verified.stderr
            assert "4 games checked, 0 differ from their history" in verified.stdout
            # And the check would have said so: a game's stored position changed behind its history.
            manage(target, "shell", "-c", "from games.play.models import Game; Game.objects.filter(status='won').update(undos=5)")
            assert manage(target, "verify_games", "--quiet").returncode != 0
        finally:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{target_name}" WITH (FORCE)')
