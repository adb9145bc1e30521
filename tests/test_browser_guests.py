"""Guests, Restart and statistics in Chromium (issue 39, docs/frontend.md): a visitor deals and plays at once with
the full table, restarts without a loss, wins, signs up and keeps every game; a guest signing in hands
its games over; the daily invites a guest to sign up; leaving a ranked daily asks first; the profile's
statistics on a desktop and a phone."""

from __future__ import annotations

import pytest

from games.engine import Board
from tests.support.browser import MS1_SAFE_LINE, new_tab, ranked_game, sign_in, winning_line
from tests.support.players import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 390, "height": 844}


def axe_violations(page) -> list:
    """axe-core's violations on the page (the package ships axe-core), with the rule off by default on too."""
    from axe_playwright_python.sync_playwright import Axe

    options = {"rules": {"label-content-name-mismatch": {"enabled": True}}, "resultTypes": ["violations"]}
    found = Axe().run(page, options=options).response["violations"]
    return [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in found]


def game_id_of(tab) -> int:
    return int(tab.page.url.rstrip("/").split("/")[-1])


def type_line(tab, line: list[str], first_ply: int = 1) -> None:
    """Types the moves one by one, each once the last is in, at a player's pace at most: a socket takes
    a burst of WS_MOVE_BURST moves, then WS_MOVE_RATE a second, and a quiet machine types faster."""
    for ply, move in enumerate(line, start=first_ply):
        tab.type_move(move)
        tab.wait_ply(ply)
        tab.page.wait_for_timeout(120)


def game_over_api(site, game_id: int, page) -> dict:
    """The game as the browser's own session reads it (GET /api/games/<id>/)."""
    return page.evaluate("id => fetch(`/api/games/${id}/`).then((r) => r.json())", game_id)


def test_a_visitor_plays_restarts_wins_and_keeps_the_games_on_sign_up(browser, site):
    tab = new_tab(browser, site)
    page = tab.page
    tab.goto("/")
    # The home page's Deal form deals at once, with no account: the table is a guest's.
    page.fill("[data-testid=deal-number]", "1")
    page.click("[data-play-form] button[type=submit]:not([name])")
    page.wait_for_url("**/games/*/")
    first = game_id_of(tab)
    tab.wait_live()
    assert page.inner_text("[data-testid=me]") == "Guest"
    assert tab.text("player") == "Guest"
    assert page.locator("[data-testid=guest-signup]").is_visible()

    board = Board.from_deal("ms:1")
    board.safe_autoplay()
    line = winning_line(board, MS1_SAFE_LINE)
    type_line(tab, line[:3])

    # Restart: no question for a casual game, the same deal dealt again, and the old game is no loss.
    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.click("[data-testid=restart]")
    page.wait_for_url(lambda url: url.rstrip("/").split("/")[-1] != str(first))
    tab.wait_live()
    assert asked == [] and tab.counters() == (0, 0) and page.inner_text("[data-testid=deal]") == "ms:1"
    old = game_over_api(site, first, page)
    assert old["status"] == "abandoned" and old["moves"] == 3

    type_line(tab, line)
    page.wait_for_selector("[data-testid=status][data-status=won]")
    page.wait_for_selector("dialog[data-testid=win][open]", timeout=20000)
    page.click("dialog[data-testid=win] button.primary")
    won = game_id_of(tab)

    # Sign up from the header's link: the same account, so both games stay the player's.
    page.click("[data-testid=guest-signup]")
    page.fill("input[name=username]", "gina")
    page.fill("input[name=password]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("form.stack button[type=submit]")
    page.wait_for_url(f"**/games/{won}/")
    assert page.inner_text("[data-testid=me]") == "gina"
    mine = page.evaluate("() => fetch('/api/games/').then((r) => r.json())")
    assert {g["id"] for g in mine["results"]} == {first, won}
    assert {g["player"] for g in mine["results"]} == {"gina"}

    # Her statistics: one win of one finished game (the restarted one is left out), her win the record.
    tab.goto("/u/gina/")
    panel = page.locator("[data-testid=statistics]")
    assert panel.locator("[data-testid=win-rate]").inner_text() == "100%"
    assert panel.locator("[data-testid=won-of-finished]").inner_text() == "1 of 1"
    assert "1 game not finished" in panel.locator("[data-testid=unfinished]").inner_text()
    row = panel.locator('[data-testid=deal-history] tr[data-deal="ms:1"]')
    assert row.locator("[data-testid=deal-record]").inner_text() == "yours"
    assert row.locator("[data-testid=deal-best]").inner_text().startswith(f"{len(line)} moves")
    assert page.locator("[data-testid=results-chart] rect[data-kind=won]").count() == 1
    assert axe_violations(page) == []
    tab.shot("statistics.png", full_page=True)
    tab.assert_clean()
    tab.context.close()


def test_a_guest_signing_in_hands_its_games_over_and_the_daily_invites_sign_up(browser, site):
    site.api("POST", "/api/auth/register/", {"username": "hugo", "password": PASSWORD})
    tab = new_tab(browser, site)
    page = tab.page
    tab.deal("/play/ms:2/")
    game = game_id_of(tab)
    tab.wait_live()
    move = next(str(m) for m in Board.from_state(tab.server_state()).legal_moves() if not str(m).endswith("h"))
    type_line(tab, [move])

    tab.goto("/daily/")
    assert page.locator("[data-testid=invite]").is_visible()
    assert "come with you" in page.inner_text("[data-testid=invite]")
    assert page.locator("[data-game-panel]").count() == 0  # no ranked game was dealt
    assert axe_violations(page) == []

    sign_in(tab, "hugo")
    assert page.inner_text("[data-testid=me]") == "hugo"
    tab.goto(f"/games/{game}/")
    tab.wait_live()
    assert tab.text("player") == "hugo" and tab.counters() == (1, 0)
    tab.assert_clean()
    tab.context.close()


def test_leaving_a_ranked_daily_asks_first_and_says_what_it_costs(browser, site):
    # Another player's ranked game first: the day's daily is made (its first request waits for the solver).
    ranked_game(site, site.api("POST", "/api/auth/register/", {"username": "jon", "password": PASSWORD})["token"])
    tab = new_tab(browser, site).sign_up("ivy")
    page = tab.page
    tab.goto("/daily/")
    page.wait_for_selector("[data-game-panel]:not([hidden])", timeout=90000)
    tab.wait_live()
    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("[data-game-panel]:not([hidden]) [data-testid=new-game]")
    page.wait_for_timeout(300)
    assert len(asked) == 1 and "clock keeps running" in asked[0]
    assert page.url.endswith("/daily/")  # dismissed: the player stays
    tab.assert_clean()
    tab.context.close()


def test_the_statistics_fit_a_phone(browser, site):
    token = site.api("POST", "/api/auth/register/", {"username": "kim", "password": PASSWORD})["token"]
    game = site.api("POST", "/api/games/", {"deal": "ms:3"}, token=token)
    site.api("POST", f"/api/games/{game['id']}/resign/", {}, token=token)
    tab = new_tab(browser, site, viewport=PHONE, has_touch=True, is_mobile=True)
    page = tab.page
    tab.goto("/u/kim/")
    page.wait_for_selector("[data-testid=statistics]")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    chart = page.locator("[data-testid=results-chart] svg[role=img]")
    box = chart.bounding_box()
    assert box["width"] <= PHONE["width"] and box["height"] > 40
    assert chart.locator("rect[data-kind=lost]").count() == 1
    assert page.inner_text("[data-testid=won-of-finished]") == "0 of 1"
    assert page.inner_text("[data-testid=win-rate]") == "0%"
    row = page.locator('[data-testid=deal-history] tr[data-deal="ms:3"]')
    assert row.locator("[data-testid=deal-best]").inner_text() == "—"
    assert axe_violations(page) == []
    tab.shot("statistics-phone.png", full_page=True)
    tab.assert_clean()
    tab.context.close()
