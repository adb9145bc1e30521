"""Fair play on the pages in a real browser (docs/fair-play.md; tests/support/browser.py: Daphne on a fresh SQLite
file, Debian's Chromium), over games won through the REST API: the People / Bots switch of the boards
(a bot only under Bots, with its badge; no sideways scrolling on a phone), a player's report of another's
result from its Report link (then "already reported"), the player's own flagged and rejected result said on
its game page, the replay's `via` tags, and a moderator clearing a held result from /staff/reviews/<id>/
(which puts it back on the board), the staff pages a 404 for anyone else.

The site runs with FAIR_PLAY_REVIEW=0 (scripted play is a machine's). No API flags a result, so a
result is flagged by running fair play's own review on it in the site's database (`flag`, through
manage.py with the site's SQLite file); staff accounts are made the same way. Verdicts go through the
API or the staff page. Screenshots land in tests/artifacts/ (fair-play-*.png).
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time

import pytest

from tests.support.boards_browser import safe_line, won_game
from tests.support.browser import ROOT, Site, new_tab, ranked_game, register, sign_in, winning_line

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
SIDEWAYS = "() => document.documentElement.scrollWidth - innerWidth"


def manage_shell(site: Site, code: str) -> str:
    """Runs Python in `manage.py shell` on the site's own SQLite file (the `site` fixture's folder)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(SQLITE_PATH=str(site.log.parent / "db.sqlite3"), DJANGO_SETTINGS_MODULE="freecell_site.settings", DEBUG="1", LOG_LEVEL="WARNING")
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-v", "0", "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def make_staff(site: Site, username: str) -> str:
    """A moderator: signed up over the API, then made staff in the site's database; their token."""
    token = register(site, username)
    manage_shell(site, f"from django.contrib.auth.models import User; User.objects.filter(username={username!r}).update(is_staff=True)")
    return token


def flag(site: Site, game_id: int) -> list[str]:
    """Runs fair play's automatic review on a won game as a site with FAIR_PLAY_REVIEW=1 would have when
    it was won (the boards follow the verdict); returns the signals it crossed."""
    out = manage_shell(
        site,
        "from django.db import transaction\n"
        "from django.test.utils import override_settings\n"
        "from games.fairplay import services\n"
        "from games.models import Game\n"
        "from games.play import follow_ups\n"
        "with override_settings(FAIR_PLAY_REVIEW=True), transaction.atomic():\n"
        f"    game = Game.objects.select_for_update().get(pk={game_id})\n"
        "    services.review_result(game)\n"
        "    follow_ups.after_verdict(game)\n"
        "print(game.review, ' '.join(r['signal'] for r in game.review_reasons))\n",
    )
    review, *signals = out.strip().splitlines()[-1].split()
    assert review == "flagged", out
    return signals


def rows(page, board: str) -> list[str]:
    return page.eval_on_selector_all(f"[data-testid=board-{board}] tbody tr[data-username]", "trs => trs.map((tr) => tr.dataset.username)")


def wait_rows(page, board: str, names: list[str]):
    page.wait_for_function(
        """([board, names]) => JSON.stringify([...document.querySelectorAll(`[data-testid=board-${board}][aria-busy=false] tbody tr[data-username]`)]
            .map((tr) => tr.dataset.username)) === JSON.stringify(names)""",
        arg=[board, names],
    )


def daily_won(site: Site, token: str) -> dict:
    game = ranked_game(site, token)
    from games.engine import Board

    for ply, move in enumerate(winning_line(Board.from_state(game["state"]))):
        game = site.api("POST", f"/api/games/{game['id']}/moves/", {"move": move, "ply": ply}, token=token)
        time.sleep(0.05)
    assert game["status"] == "won", game
    return game


def test_the_people_bots_switch_shows_a_bot_only_under_bots_with_its_badge(browser, site):
    person, bot = register(site, "pia"), register(site, "robo")
    assert site.api("POST", "/api/account/bot/", {}, token=bot)["bot"] is True
    line = safe_line("ms:4")
    won_game(site, person, "ms:4", line)
    won_game(site, bot, "ms:4", line, detours=1)
    daily_won(site, bot)
    today = dt.datetime.now(dt.UTC).date().isoformat()

    tab = new_tab(browser, site, **DESKTOP)  # signed out: no Report links
    page = tab.page
    tab.goto("/leaderboards/?deal=ms:4")
    wait_rows(page, "records", ["pia"])
    assert page.locator("[data-testid=bot-badge]").count() == 0
    page.click("[data-testid=players-switch] button[data-players=bots]")
    wait_rows(page, "records", ["robo"])
    assert page.get_attribute("[data-testid=players-switch] button[data-players=bots]", "aria-pressed") == "true"
    badge = page.locator("[data-testid=board-records] tr[data-username=robo] [data-testid=bot-badge]")
    assert badge.is_visible() and badge.inner_text() == "bot"
    assert "players=bots" in page.url
    # Every board of the page follows the switch: the bot's daily is on the bots' ladder and streaks.
    wait_rows(page, "ladder", ["robo"])
    wait_rows(page, "streaks", ["robo"])
    assert page.locator("[data-testid=report]").count() == 0
    page.click("[data-testid=players-switch] button[data-players=people]")
    wait_rows(page, "records", ["pia"])
    page.wait_for_selector("[data-testid=board-ladder][aria-busy=false] [data-testid=ladder-empty]")
    tab.assert_clean()
    tab.context.close()

    # The day's board has its own switch; a phone scrolls no page sideways.
    phone = new_tab(browser, site, **PHONE)
    page = phone.page
    phone.goto(f"/daily/{today}/")
    page.wait_for_selector("[data-testid=leaderboard][data-players=people]")
    assert page.locator("[data-testid=leaderboard] tr[data-username=robo]").count() == 0
    page.click("[data-testid=players-switch] button[data-players=bots]")
    page.wait_for_selector("[data-testid=leaderboard][data-players=bots] tr[data-username=robo] [data-testid=bot-badge]")
    assert page.evaluate("() => document.activeElement.dataset.players") == "bots"  # the focus stays on the switch
    assert page.evaluate(SIDEWAYS) <= 0
    phone.shot("fair-play-daily-bots-phone.png", full_page=True)
    phone.goto("/leaderboards/?players=bots&deal=ms:4")
    wait_rows(page, "records", ["robo"])
    assert page.evaluate(SIDEWAYS) <= 0
    # The bot's profile says what it is.
    phone.goto("/u/robo/")
    assert page.wait_for_selector("[data-testid=bot-account]").inner_text().startswith("bot account")
    phone.assert_clean()
    phone.context.close()


def test_a_player_reports_another_players_result_once(browser, site):
    tokens = {name: register(site, name) for name in ("ann", "ben")}
    line = safe_line("ms:5")
    won_game(site, tokens["ann"], "ms:5", line)
    won_game(site, tokens["ben"], "ms:5", line, detours=1)

    tab = sign_in(new_tab(browser, site, **DESKTOP), "ben")
    page = tab.page
    tab.goto("/leaderboards/?deal=ms:5")
    wait_rows(page, "records", ["ann", "ben"])
    assert page.locator("[data-testid=board-records] tr[data-username=ben] [data-testid=report]").count() == 0  # not one's own
    report = page.locator("[data-testid=board-records] tr[data-username=ann] [data-testid=report]")
    assert report.get_attribute("aria-label") == "Report ann's result"
    report.click()
    dialog = page.locator("[data-testid=report-dialog]")
    assert dialog.is_visible() and "Report ann's result" in dialog.inner_text()
    assert page.evaluate("() => document.activeElement.dataset.testid") == "report-reason"
    page.keyboard.type("every move 60 ms apart")
    page.click("[data-testid=report-send]")
    said = page.locator("[data-testid=report-status]")
    said.wait_for()
    page.wait_for_function("() => document.querySelector('[data-testid=report-status]').dataset.code")
    assert said.inner_text() == "Reported: the moderators will look.", said.inner_text()
    assert page.evaluate("() => document.activeElement.dataset.testid") == "report-close"  # nothing more to send
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    assert page.evaluate("() => document.activeElement.getAttribute('aria-label')") == "Report ann's result"

    # A second report of the same result, after a reload, is refused in the server's words.
    page.reload()
    wait_rows(page, "records", ["ann", "ben"])
    page.click("[data-testid=board-records] tr[data-username=ann] [data-testid=report]")
    page.fill("[data-testid=report-reason]", "still looks wrong")
    page.click("[data-testid=report-send]")
    page.wait_for_function("() => document.querySelector('[data-testid=report-status]').dataset.code === 'already_reported'")
    assert page.inner_text("[data-testid=report-status]").startswith("Already reported:")
    tab.shot("fair-play-report.png")
    tab.errors = [e for e in tab.errors if "409" not in e]  # the browser logs the refused request
    tab.assert_clean()
    tab.context.close()


def test_a_flagged_result_tells_its_player_why_and_the_verdict_after(browser, site):
    token = register(site, "fly")
    staff = make_staff(site, "modra")
    game = won_game(site, token, "ms:6", safe_line("ms:6"))
    signals = flag(site, game["id"])
    policy = site.api("GET", "/api/fair-play/")
    words = {s["signal"]: s["words"] for s in policy["signals"]}

    tab = sign_in(new_tab(browser, site, **DESKTOP), "fly")
    page = tab.page
    tab.goto(f"/games/{game['id']}/")
    notice = page.wait_for_selector("[data-testid=review][data-review=flagged]")
    text = notice.inner_text()
    assert "held for review" in text
    review = site.api("GET", f"/api/games/{game['id']}/review/", token=token)
    for reason in review["reasons"]:
        assert words[reason["signal"]] in text
        item = page.inner_text(f"[data-testid=review] li[data-signal={reason['signal']}]")
        assert f"{reason['value']:g}" in item and f"{reason['threshold']:g}" in item, item  # as JavaScript writes numbers
    assert {r["signal"] for r in review["reasons"]} == set(signals)
    tab.shot("fair-play-flagged.png")

    # The moderator rejects it with a note (over the API): the page says so, with the note.
    site.api("POST", f"/api/games/{game['id']}/review/", {"verdict": "reject", "note": "a solver's line at an even pace"}, token=staff)
    page.reload()
    notice = page.wait_for_selector("[data-testid=review][data-review=rejected]")
    assert "rejected" in notice.inner_text()
    assert "a solver's line at an even pace" in page.inner_text("[data-testid=review-note]")

    # The replay tags each action with how it came (here all through the API), and fits 1280x800.
    tab.goto(f"/replay/{game['id']}/")
    page.wait_for_selector("[data-replay][data-ready=true]")
    vias = page.eval_on_selector_all("[data-testid=replay-actions] li", "lis => [...new Set(lis.map((li) => li.dataset.via))]")
    assert vias == ["api"]
    assert page.inner_text("[data-testid=replay-actions] li:first-child .via") == "api"
    assert "through the API" in page.inner_text("[data-testid=replay-via]")
    page.click("[data-testid=replay-next]")
    assert "through the API" in page.inner_text("[data-testid=replay-autoplay]")
    # The tags widen no page and the list keeps its height (it scrolls within 9rem).
    page.locator("[data-testid=replay-actions]").scroll_into_view_if_needed()
    tab.shot("fair-play-replay.png")
    size = page.evaluate("() => [document.documentElement.scrollWidth, document.querySelector('[data-testid=replay-actions]').clientHeight]")
    assert size[0] <= 1280 and size[1] <= 150, size
    tab.assert_clean()
    tab.context.close()


def test_a_moderator_clears_a_held_result_and_it_ranks_again(browser, site):
    token = register(site, "gus")
    make_staff(site, "moder")
    game = won_game(site, token, "ms:7", safe_line("ms:7"))
    flag(site, game["id"])
    assert site.api("GET", "/api/deals/ms:7/records/")["entries"] == []

    tab = sign_in(new_tab(browser, site, **DESKTOP), "moder")
    page = tab.page
    tab.goto("/")
    page.click("[data-testid=nav-staff]")
    page.wait_for_url("**/staff/reviews/")
    page.click(f"[data-testid=queue] tr[data-game='{game['id']}'] [data-testid=case-link]")
    page.wait_for_url(f"**/staff/reviews/{game['id']}/")
    assert page.inner_text("[data-testid=case-player]") == "gus"
    assert page.locator("[data-testid=timing-chart] rect.bar").count() == game["moves"]
    assert page.locator("[data-testid=case-signals] tr.crossed").count() >= 1
    assert page.get_attribute("[data-testid=case-replay]", "href") == f"/replay/{game['id']}/"
    tab.shot("fair-play-staff-case.png", full_page=True)
    page.fill("#verdict-note", "a quick hand")
    page.click("[data-testid=clear]")
    page.wait_for_url(f"**/staff/reviews/{game['id']}/")
    assert "Cleared" in page.inner_text("[data-testid=staff-messages]")
    assert page.inner_text("[data-testid=case-review]") == "cleared"
    tab.goto("/leaderboards/?deal=ms:7")
    wait_rows(page, "records", ["gus"])
    tab.assert_clean()
    tab.context.close()

    # On a phone the case page scrolls no page sideways (its tables scroll in their own boxes).
    phone = sign_in(new_tab(browser, site, **PHONE), "moder")
    phone.goto(f"/staff/reviews/{game['id']}/")
    phone.page.wait_for_selector("[data-testid=timing-chart]")
    assert phone.page.evaluate(SIDEWAYS) <= 0
    phone.goto("/staff/reviews/")
    assert phone.page.evaluate(SIDEWAYS) <= 0
    phone.shot("fair-play-staff-phone.png", full_page=True)
    phone.assert_clean()
    phone.context.close()


def test_the_staff_pages_are_a_404_for_a_player(browser, site):
    register(site, "hal")
    tab = sign_in(new_tab(browser, site, **DESKTOP), "hal")
    assert tab.page.locator("[data-testid=nav-staff]").count() == 0
    response = tab.page.goto(site.url("/staff/reviews/"))
    assert response.status == 404
    tab.context.close()
