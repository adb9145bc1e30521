"""The browser tests' plumbing: Daphne on a fresh SQLite file (`site`), Debian's Chromium (`browser`), tabs and API helpers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from games.engine import Board
from games.engine.errors import IllegalMove
from tests.support.players import PASSWORD
from tests.support.servers import free_port

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
DESKTOP = {"width": 1280, "height": 860}

# A winning line of ms:1 under safe autoplay, for when the project's solver is not importable: made with
# `make-microsoft-freecell-board -t 1 | fc-solve -snx -p -t -sam -l ve`, its foundation moves that safe
# autoplay makes by itself left out (checked by the engine below before use).
MS1_SAFE_LINE = (
    "6a 6b 7c 7d 7b d6 86 8d 83 8h 8h 81 c8 d8 5c 5d 5h 1h 4h d2 5d 18 13 58 15 1h 5h 47 45 d4 54 61v3 6h 2h "
    "2d 25 26 2h ch d6 2c 2d 8h 3h 7a 7b 82 8h 6h 1h 37 3h 38 3h 6h 36 3h 4h 1h 43 4h bh 4b 1h ah 1a"
).split()


def winning_line(board: Board, fallback: list[str] | None = None) -> list[str]:
    """A line that wins `board` under safe autoplay: the project's solver, else the fallback."""
    try:
        from games.engine.solver import solve
    except ImportError:
        solve = None
    if solve is not None:
        solution = solve(board.copy(history=False), autoplay="safe", budget=30)
        if solution.result == "solved":
            return [str(m) for m in solution.moves]
    if fallback is None:
        pytest.skip("no solver available to find a winning line")
    return fallback


def ms1_safe_line() -> list[str]:
    """A winning line of ms:1 under safe autoplay, from the deal as safe autoplay leaves it."""
    board = Board.from_deal("ms:1")
    board.safe_autoplay()
    return winning_line(board, MS1_SAFE_LINE)


# --- the server and the browser --------------------------------------------------------------------


@dataclass
class Site:
    base: str
    log: Path

    def url(self, path: str) -> str:
        return self.base + path

    def api(self, method: str, path: str, body: dict | None = None, token: str | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url(path), data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Token {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read()
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{method} {path}: {exc.code} {exc.read()[:300]!r}") from None
        return json.loads(text) if text else {}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Daphne serving the project on a free port, on a freshly migrated SQLite file."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium)")
    folder = tmp_path_factory.mktemp("site")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS")}
    env.update(
        SQLITE_PATH=str(folder / "db.sqlite3"),
        DJANGO_SETTINGS_MODULE="freecell_site.settings",
        DEBUG="1",
        PYTHONUNBUFFERED="1",
        LOG_LEVEL="WARNING",
        FAIR_PLAY_REVIEW=os.environ.get("SITE_FAIR_PLAY_REVIEW", "0"),  # scripted play is a machine's
        DAILY_PAR_BUDGET="0.2",  # the sweeper makes today's and tomorrow's dailies at start: a short par search
    )
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True, timeout=180)
    port = free_port()
    daphne = Path(sys.executable).with_name("daphne")
    command = [str(daphne)] if daphne.exists() else [sys.executable, "-m", "daphne"]
    log = folder / "daphne.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [*command, "-b", "127.0.0.1", "-p", str(port), "freecell_site.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 40
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"daphne exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            server.kill()
            raise RuntimeError(f"daphne did not answer: {log.read_text()[-2000:]}")
        time.sleep(0.2)
    yield Site(base, log)
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()


@pytest.fixture(scope="module")
def browser(site):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Tab:
    """A page with its console errors collected, and the table's helpers."""

    def __init__(self, context, site: Site):
        self.context = context
        self.site = site
        self.page = context.new_page()
        self.page.set_default_timeout(15000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.page.on("console", lambda msg: msg.type == "error" and self.errors.append(f"console: {msg.text}"))
        self.sent: list[str] = []  # the moves and undos sent on the game socket, for failure messages
        self.page.on("websocket", lambda ws: ws.on("framesent", self._record))

    def _record(self, payload):
        try:
            frame = json.loads(payload)
        except (TypeError, ValueError):
            return
        if frame.get("type") in ("move", "undo"):
            self.sent.append(frame.get("move") or "undo")

    def goto(self, path: str):
        self.page.goto(self.site.url(path))
        return self

    def deal(self, path: str):
        """Opens a /play/ start page and presses Deal: a fresh game of the signed-in player."""
        self.goto(path)
        self.page.click("[data-testid=start]")
        self.page.wait_for_url("**/games/*/")
        return self

    def sign_up(self, username: str):
        page = self.page
        self.goto("/signup/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORD)
        page.fill("input[name=password2]", PASSWORD)
        page.click("form.stack button[type=submit]")
        page.wait_for_url(self.site.url("/"))
        assert page.inner_text("[data-testid=me]") == username
        return self

    # --- the table ---

    def wait_live(self):
        self.page.wait_for_selector("[data-game-panel][data-live=on]", timeout=20000)

    def text(self, testid: str) -> str:
        return self.page.inner_text(f"[data-game-panel]:not([hidden]) [data-testid={testid}]")

    def counters(self) -> tuple[int, int]:
        return int(self.text("moves")), int(self.text("undos"))

    def wait_ply(self, ply: int):
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            self.page.wait_for_function(
                "ply => window.fc && window.fc.client.confirmed.ply === ply && !window.fc.client.pending.length", arg=ply
            )
        except PlaywrightTimeout:
            seen = self.page.evaluate(
                "() => ({ply: window.fc.client.confirmed.ply, pending: window.fc.client.pending.map((p) => p.move || p.kind),"
                " message: document.querySelector('[data-testid=message]').textContent,"
                " typed: document.querySelector('[data-testid=typed]').textContent})"
            )
            raise AssertionError(f"the game did not reach ply {ply}: {seen}") from None

    def server_state(self) -> dict:
        return self.page.evaluate("() => window.fc.client.confirmed.state")

    def shown_state(self) -> dict:
        return self.page.evaluate(
            """() => {
                const cards = (sel) => [...document.querySelectorAll(sel)].map((e) => e.dataset.card);
                const foundations = {};
                for (const pile of document.querySelectorAll('[data-pile="h"]')) {
                    foundations[pile.dataset.suit] = pile.querySelectorAll('[data-card]').length;
                }
                return {
                    columns: [1, 2, 3, 4, 5, 6, 7, 8].map((i) => cards(`[data-pile="${i}"] > [data-card]`)),
                    cells: ["a", "b", "c", "d"].map((c) => cards(`[data-pile="${c}"] > [data-card]`)[0] || null),
                    foundations,
                };
            }"""
        )

    def card_locator(self, pile: str, from_top: int = 1):
        cards = self.page.locator(f'[data-pile="{pile}"] > [data-card]')
        return cards.nth(cards.count() - from_top)

    def click_move(self, move: str):
        """Plays a move the way a player clicks it: the card (the run's bottom card for a counted move to
        an empty column), then the destination pile."""
        source, dest = move[0], move[1]
        count = int(move.split("v")[1], 16) if "v" in move else 1
        # Aim at cards where they are drawn once the last autoplay animation has landed, as a player
        # would; covered cards show only their top strip, so click there.
        self.settle()
        self.card_locator(source, count).click(position={"x": 12, "y": 8})
        if dest == "h":
            self.page.locator('[data-pile="h"]').first.click()
        else:
            self.page.click(f'[data-pile="{dest}"]')

    def type_move(self, move: str):
        self.page.evaluate("() => document.activeElement && document.activeElement.blur()")
        self.page.keyboard.type(move)
        if len(move) == 2 and move[1] in "12345678":
            # A move to a column that may be empty could still take a count (24v3): Enter sends it now.
            self.page.keyboard.press("Enter")

    def settle(self):
        """Waits for card animations to end (before a screenshot or a position check)."""
        self.page.wait_for_function("() => !document.querySelector('.card.moving') && !document.querySelector('.autoplaying')")

    def shot(self, name: str, full_page: bool = False):
        ARTIFACTS.mkdir(exist_ok=True)
        self.settle()
        if full_page:
            self.page.evaluate("() => window.scrollTo(0, 0)")  # so sticky headers sit at the top
        self.page.screenshot(path=str(ARTIFACTS / name), full_page=full_page)

    def assert_clean(self):
        assert not [e for e in self.errors if "favicon" not in e], self.errors


def state_of(board: Board) -> dict:
    state = board.state()
    return {"columns": state["columns"], "cells": state["cells"], "foundations": state["foundations"]}


def new_tab(browser, site, **options) -> Tab:
    context = browser.new_context(viewport=options.pop("viewport", DESKTOP), **options)
    return Tab(context, site)


def capacity_refusal(board: Board) -> tuple[str, str] | None:
    """A column-to-column move the capacity rule forbids in this position, with the engine's reason."""
    for source in "12345678":
        for dest in "12345678":
            if source == dest or not board.columns[int(dest) - 1]:
                continue
            try:
                board.check(source + dest)
            except IllegalMove as exc:
                if "can move with" in str(exc):
                    return source + dest, str(exc)
    return None


def meets_capacity_refusal(board: Board, line: list[str]) -> bool:
    """Whether some position of the line (after its first five moves) has a capacity refusal to try."""
    board = board.copy(history=False)
    for index, move in enumerate(line):
        if index >= 5 and capacity_refusal(board):
            return True
        board.play(move, autoplay="safe")
    return False




def sign_in(tab: Tab, username: str) -> Tab:
    tab.goto("/login/")
    tab.page.fill("input[name=username]", username)
    tab.page.fill("input[name=password]", PASSWORD)
    tab.page.click("form.stack button[type=submit]")
    tab.page.wait_for_url(tab.site.url("/"))
    return tab


def api_game(site: Site, token: str, moves: list[str], deal: str = "ms:1") -> dict:
    """A safe-autoplay game made and played over the REST API at a pace under the rate limit."""
    game = site.api("POST", "/api/games/", {"deal": deal, "autoplay": "safe"}, token=token)
    for ply, move in enumerate(moves):
        game = site.api("POST", f"/api/games/{game['id']}/moves/", {"move": move, "ply": ply}, token=token)
        time.sleep(0.06)
    return game


def register(site: Site, username: str) -> str:
    """A new player signed up over the API; their token."""
    return site.api("POST", "/api/auth/register/", {"username": username, "password": PASSWORD})["token"]


def ranked_game(site: Site, token: str, *, wait_s: float = 90) -> dict:
    """The player's ranked game of today's daily (POST /api/daily/play/), waiting while the server's
    sweeper makes the daily (503 daily_pending)."""
    started = time.monotonic()
    while True:
        try:
            return site.api("POST", "/api/daily/play/", {}, token=token)
        except AssertionError as exc:
            if "daily_pending" not in str(exc) or time.monotonic() - started > wait_s:
                raise
            time.sleep(1)
