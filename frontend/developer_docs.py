"""The repository's docs (docs/*.md) served to developers at /developers/docs/<name>/, rendered from Markdown.

The API's references (/api/docs/, the AsyncAPI document, /developers/) link these pages, so a developer
reads the same words the repository keeps, without a checkout. Markdown is rendered by markdown-it-py
with raw HTML off (a doc's text is escaped, never trusted as markup); links and code spans that name
another doc (`docs/streams.md`, `websocket.md#limits`) lead to its page here.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from django.conf import settings
from django.utils.html import escape
from markdown_it import MarkdownIt

#: A doc's name: its file name without `.md` (lower case, digits, hyphens).
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def folder() -> Path:
    return Path(settings.BASE_DIR) / "docs"


def names() -> list[str]:
    """Every doc served, by name, in file order."""
    return sorted(path.stem for path in folder().glob("*.md") if NAME.match(path.stem))


def title_of(name: str) -> str:
    """A doc's first heading (its title), or its name."""
    for line in (folder() / f"{name}.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return name


def exists(name: str) -> bool:
    return bool(NAME.match(name)) and (folder() / f"{name}.md").is_file()


def url_of(name: str, anchor: str = "") -> str:
    return f"/developers/docs/{name}/{anchor}"


@cache
def _renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table")


_LINK = re.compile(r'href="(?:\.\./)?(?:\./)?(?:docs/)?([a-z0-9-]+)\.md(#[^"]*)?"')
_CODE = re.compile(r"<code>(docs/([a-z0-9-]+)\.md)</code>")
_TEXT = re.compile(r"(?<=[\s(])docs/([a-z0-9-]+)\.md\b")


def render(name: str) -> str:
    """The doc `name` as HTML, its links to other docs pointing at their pages here."""
    html = _renderer().render((folder() / f"{name}.md").read_text(encoding="utf-8"))
    html = _LINK.sub(lambda m: f'href="{url_of(m.group(1), m.group(2) or "")}"' if exists(m.group(1)) else m.group(0), html)
    html = _CODE.sub(
        lambda m: f'<a href="{url_of(m.group(2))}"><code>{escape(m.group(1))}</code></a>' if exists(m.group(2)) else m.group(0),
        html,
    )
    return _TEXT.sub(lambda m: f'<a href="{url_of(m.group(1))}">{m.group(0)}</a>' if exists(m.group(1)) else m.group(0), html)
