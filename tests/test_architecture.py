"""The code keeps the shape docs/architecture.md draws: one-way layers, checked by import-linter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from games.models import DailyChallenge, DailyGame, Game

ROOT = Path(__file__).resolve().parent.parent


def test_every_import_linter_contract_is_kept():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert lint, "import-linter is a dev dependency: pip install -e '.[dev]'"
    result = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "BROKEN" not in result.stdout and result.stdout.count("KEPT") >= 4


def test_play_imports_no_domain_above_it():
    """Play calls the follow-ups it is handed (games.play.follow_ups) and asks its policies; it never names races or
    dailies, not even in a lazy import inside a function."""
    for module in sorted((ROOT / "games" / "play").glob("*.py")):
        if module.name in ("views.py", "export.py", "serializers.py"):  # play's transports (REST)
            continue
        text = module.read_text()
        for domain in ("games.races", "games.daily", "games.models", "from games import daily", "from games import races"):
            assert domain not in text, f"games/play/{module.name} names {domain}"


def test_plays_game_keeps_no_column_of_the_daily():
    """The daily's columns of a game (its ranked daily, the past daily it was asked for by) are the daily's own
    table's (games.daily.models.DailyGame): play's Game points at no daily."""

    assert [field.name for field in Game._meta.concrete_fields if field.related_model is DailyChallenge] == []
    assert DailyGame._meta.get_field("game").remote_field.model is Game
