"""The package builds as a wheel with its version, a changelog section for that version, and the
`freecell` command declared."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import freecell_client

SOURCE = Path(__file__).resolve().parents[1]


def test_the_wheel_has_the_version_the_changelog_and_the_command(tmp_path):
    # Built from a copy: pip builds in the source tree, and a checkout's build/ is no business of a test.
    source = tmp_path / "source"
    shutil.copytree(SOURCE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".pytest_cache"))
    out = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(out), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    version = freecell_client.__version__
    (wheel,) = out.glob("*.whl")
    assert wheel.name == f"freecell_client-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"freecell_client-{version}.dist-info/METADATA").decode()
        entry_points = archive.read(f"freecell_client-{version}.dist-info/entry_points.txt").decode()
        names = archive.namelist()
    assert f"\nVersion: {version}\n" in metadata
    assert "[console_scripts]\nfreecell = freecell_client.cli:main" in entry_points
    assert "freecell_client/bot.py" in names and "freecell_client/sockets.py" in names
    changelog = (SOURCE / "CHANGELOG.md").read_text()
    assert f"\n## {version}\n" in changelog, f"CHANGELOG.md has no section for {version}"


def test_the_user_agent_names_the_version():
    from freecell_client.client import USER_AGENT

    assert USER_AGENT == f"freecell-client/{freecell_client.__version__} (python)"
