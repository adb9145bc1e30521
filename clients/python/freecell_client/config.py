"""Where the command line keeps its sign-in: FREECELL_URL / FREECELL_TOKEN, else the config file
(~/.config/freecell/config.json, readable by its owner only)."""

from __future__ import annotations

import json
import os
from pathlib import Path

DEFAULT_URL = "http://127.0.0.1:8000"


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "freecell" / "config.json"


def load() -> dict:
    path = config_path()
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def save(values: dict) -> Path:
    """Writes the config with mode 0600 from its creation on, so the token is never readable by others."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(values, out, indent=2)
    os.chmod(path, 0o600)  # an older file made with other permissions
    return path


def settings(url: str | None = None, token: str | None = None) -> tuple[str, str | None]:
    """The server and token to use: given ones first, then the environment, then the config file."""
    stored = load()
    url = url or os.environ.get("FREECELL_URL") or stored.get("url") or DEFAULT_URL
    token = token or os.environ.get("FREECELL_TOKEN") or stored.get("token")
    return url, token
