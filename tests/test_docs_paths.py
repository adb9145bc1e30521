"""Every path, module and link that README.md, docs/*.md and the Python client's README name exists: files
and folders in the repository, dotted modules (and their attributes) importable, links to files or
to the site's URLs answered by the URL resolver. A renamed module or a moved file fails here, not in
a reader's hands."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from django.urls import Resolver404, resolve

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "clients" / "python" / "README.md"]
TOP = ("games", "accounts", "freecell_site", "frontend", "tests", "bench", "docs", "deploy", "clients", ".ci")
PACKAGES = ("games", "accounts", "freecell_site", "frontend", "tests", "freecell_client")

_FILE = re.compile(rf"(?<![\w./-])((?:{'|'.join(re.escape(t) for t in TOP)})/[\w./-]*[\w/])")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_SPAN = re.compile(r"`([^`\n]+)`")
_MODULE = re.compile(rf"^(?:{'|'.join(PACKAGES)})(?:\.\w+)+$")
_URL = re.compile(r"^(?:(?:GET|POST|PATCH|PUT|DELETE|HEAD)\s+)?(/(?:api|ws|developers|oauth|healthz|metrics|staff|u|daily|races|replay|account|play|games)\b[^\s?`]*)")
#: What a placeholder of a documented URL stands for, tried in turn.
SAMPLES = ("1", "ms:1", "alice", "2026-12-01", "2026-12", "ABCDEF", "x")
#: What a bench or a build writes (not kept in the repository).
OUTPUTS = ("bench/out/", "bench/optimal/build/")
#: Names a document gives on purpose though they name nothing here, each with its reason.
NAMED_ON_PURPOSE = {
    # Examples of paths that are no socket (answered not_found, 4404), and the benchmark's own route
    # (bench/echo.py), which the service has not.
    "docs/websocket.md": {"/ws/games/abc/", "/ws/races/", "/ws/nothing/", "/ws/echo/<room>/"},
    # The record of what was measured on code since removed; its sections say so.
    # ... and the benchmark's floor route (bench/echo.py).
    "docs/performance.md": {"games/consumers.py", "games/store.py", "tests/test_store.py", "games.play.signals", "/ws/floor/"},
    # Made by the browser tests when they run (git-ignored): a fresh clone has none before them.
    "docs/frontend.md": {"tests/artifacts/"},
}
#: Answered before the URL resolver (freecell_site.metrics, to the allowed addresses only).
NOT_ROUTED = {"/metrics"}


def _strip_code_blocks(text: str) -> str:
    """The text without fenced code blocks (commands and programs, whose paths are the reader's own)."""
    return re.sub(r"```.*?```", "", text, flags=re.S)


def file_faults(document: Path) -> list[str]:
    text = _strip_code_blocks(document.read_text())
    base = document.parent
    faults = []
    for name in sorted(set(_FILE.findall(text))):
        if "<" in name or "*" in name or name.startswith(OUTPUTS):
            continue
        if not file_exists(name, base):
            faults.append(f"{name}: no such file or folder")
    for target in sorted(set(_LINK.findall(text))):
        target = target.split("#")[0]
        if not target or re.match(r"^[a-z]+:", target):
            continue
        if target.startswith("/"):
            if not url_resolves(target):
                faults.append(f"link {target}: no such URL")
        elif not (base / target).exists():
            faults.append(f"link {target}: no such file")
    return faults


def file_exists(name: str, base: Path) -> bool:
    """A file or folder; a module's attribute written with slashes (`tests/support/openapi.strict`); a
    migration by its Django name (`accounts/0005_access_tokens`); or the start of file names
    (`tests/test_browser` for tests/test_browser*.py)."""
    if (ROOT / name).exists() or (base / name).exists():
        return True
    module, _, attribute = name.rpartition(".")
    if attribute.isidentifier() and (ROOT / f"{module}.py").is_file():
        return re.search(rf"^(?:def|class|async def)\s+{attribute}\b|^{attribute}\s*[:=]", (ROOT / f"{module}.py").read_text(), re.M) is not None
    app, _, migration = name.partition("/")
    if re.fullmatch(r"\d{4}_\w+", migration) and (ROOT / app / "migrations" / f"{migration}.py").is_file():
        return True
    folder, _, start = name.rpartition("/")
    return bool(start) and any((ROOT / folder).glob(f"{start}*"))


def url_resolves(path: str) -> bool:
    """Whether the site answers a documented URL (`/api/games/<id>/moves/`): its placeholders are
    filled with sample values until one resolves (websockets: games.routing's patterns)."""
    path = path.rstrip(".,;:)")
    if path in NOT_ROUTED:
        return True
    if path.endswith("..."):
        path = path[:-3]
    if path.endswith("/") and _starts_a_route(path):
        return True
    placeholders = re.findall(r"<[^>]+>|\{[^}]+\}", path)
    for sample in SAMPLES:
        concrete = path
        for placeholder in placeholders:
            concrete = concrete.replace(placeholder, sample)
        if concrete.startswith("/ws/"):
            if _socket_resolves(concrete):
                return True
            continue
        try:
            resolve(concrete if concrete.endswith("/") or "." in concrete.rsplit("/", 1)[-1] else concrete + "/")
            return True
        except Resolver404:
            try:
                resolve(concrete)
                return True
            except Resolver404:
                continue
    return False


def _routes(patterns=None, prefix: str = "/") -> list[str]:
    from django.urls import get_resolver

    found = []
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern)
        if hasattr(pattern, "url_patterns"):
            found += _routes(pattern.url_patterns, route)
        else:
            found.append(route)
    return found


def _starts_a_route(path: str) -> bool:
    """Whether a documented prefix (`/api/stream/`) starts some URL of the site."""
    return any(route.startswith(path) for route in _routes())


def _socket_resolves(path: str) -> bool:
    from games.routing import websocket_urlpatterns

    return any(pattern.pattern.match(path.lstrip("/")) for pattern in websocket_urlpatterns)


def name_faults(document: Path) -> list[str]:
    """Dotted modules (`games.play.ratelimit`, `accounts.services.MAX_TOKENS`) and site URLs in code spans."""
    faults = []
    for span in sorted(set(_SPAN.findall(_strip_code_blocks(document.read_text())))):
        span = span.strip()
        span = span.removesuffix("()")
        if _MODULE.match(span) and not importable(span):
            faults.append(f"{span}: no such module or attribute")
        found = _URL.match(span)
        if found and not url_resolves(found.group(1)):
            faults.append(f"{span}: no such URL")
    return faults


def importable(dotted: str) -> bool:
    parts = dotted.split(".")
    if parts[0] == "freecell_client":
        import sys

        sys.path.insert(0, str(ROOT / "clients" / "python"))
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_file_and_link_a_document_names_exists(document):
    assert on_purpose_aside(document, file_faults(document)) == []


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_module_and_url_a_document_names_exists(document):
    assert on_purpose_aside(document, name_faults(document)) == []


def on_purpose_aside(document: Path, faults: list[str]) -> list[str]:
    named = NAMED_ON_PURPOSE.get(str(document.relative_to(ROOT)), set())
    return [fault for fault in faults if fault.split(": ")[0] not in named]


def test_a_wrong_name_is_found(tmp_path):
    """The checks can fail: a missing file, a missing module attribute, an unknown URL."""
    doc = tmp_path / "x.md"
    doc.write_text(
        "See games/play/nowhere.py and [a](missing.md). `games.play.ratelimit.nothing`, `GET /api/nothing/<id>/`,"
        " `games.play.ratelimit.budget`, `POST /api/games/<id>/moves/`, `/ws/races/<code>/`.\n"
    )
    assert file_faults(doc) == ["games/play/nowhere.py: no such file or folder", "link missing.md: no such file"]
    assert name_faults(doc) == ["GET /api/nothing/<id>/: no such URL", "games.play.ratelimit.nothing: no such module or attribute"]


#: Files that still cite the product spec, each to be reworded by its owner (the lead's move path;
#: a migration's docstring; the operations doc).
SPEC_CITED: set[str] = set()


def test_nothing_cites_a_spec_a_reader_of_the_repository_cannot_open():
    """The repository states its contract in its own docs (docs/api.md, "The contract"; served at
    /developers/docs/): a "SPEC section N" or ../shared/SPEC.md names a file outside it."""
    import subprocess

    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    citing = []
    for name in listed:
        path = ROOT / name
        if name in SPEC_CITED or name == "tests/test_docs_paths.py" or path.suffix not in {".py", ".md", ".js", ".html", ".css", ".json", ".c", ".yml"} or not path.is_file():
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
            if re.search(r"\bSPEC\b(?!TACULAR)", line):
                citing.append(f"{name}:{number}")
    assert citing == [], "cite the repository's docs (docs/*.md) instead of the product spec"
