"""Open play in a real browser (docs/races.md): a quick race between two browser contexts, found from the home
page and started by itself; a challenge seen live on the challenged player's page from their events
stream, accepted there, which takes both players to the race."""

from __future__ import annotations

import os
import time

import pytest

from tests.support.browser import new_tab
from tests.test_browser_table_fixes import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module", autouse=True)
def _short_public_countdown():
    """The module's server (the `site` fixture copies the environment) counts public races down in 8 s:
    time for a third player to come in during the countdown."""
    before = os.environ.get("RACE_PUBLIC_COUNTDOWN_S")
    os.environ["RACE_PUBLIC_COUNTDOWN_S"] = "8"
    yield
    if before is None:
        os.environ.pop("RACE_PUBLIC_COUNTDOWN_S", None)
    else:
        os.environ["RACE_PUBLIC_COUNTDOWN_S"] = before


def daily_made(site, wait_s: float = 90) -> None:
    """Today's daily is made before the pages ask for it: until a fresh server's sweeper has made it,
    the home page's read answers 503 daily_pending, a console error."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            site.api("GET", "/api/daily/")
            return
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


def racers_of(tab) -> list[str]:
    return tab.page.eval_on_selector_all("[data-testid=racers] li", "items => items.map(li => li.dataset.username)")


def wait_running(tab) -> None:
    """The race has started on this page: its status and the player's own table are shown."""
    tab.page.wait_for_selector("[data-race-root][data-status=running]", timeout=30000)
    tab.page.wait_for_selector("[data-game-panel]:not([hidden])", timeout=20000)


def test_players_meet_in_a_quick_race_that_starts_by_itself(browser, site):
    daily_made(site)
    alice = new_tab(browser, site).sign_up("quickalice")
    bob = new_tab(browser, site).sign_up("quickbob")
    carol = new_tab(browser, site).sign_up("quickcarol")

    alice.page.click("button[data-testid=quick-race]")
    alice.page.wait_for_url("**/races/*/")
    code = alice.page.inner_text("[data-testid=race-code]")
    alice.page.locator("[data-race-said]", has_text="starts by itself").wait_for()
    assert alice.page.locator("[data-testid=start-race]").count() == 0  # nobody starts a public race

    bob.goto("/")
    bob.page.locator("[data-testid=public-races-list] li", has_text=code).wait_for()
    assert axe_violations(bob.page) == []
    assert axe_violations(alice.page) == []  # the public race's lobby
    bob.page.click("button[data-testid=quick-race]")
    bob.page.wait_for_url(f"**/races/{code}/")

    # The countdown has begun; a third player comes by the link and joins before the start.
    carol.goto(f"/races/{code}/")
    carol.page.locator("[data-race-said]", has_text="Others may still join").wait_for()
    carol.page.click("[data-testid=join-race]")
    carol.page.locator("[data-testid=racers] li[data-username=quickcarol]").wait_for()

    for tab in (alice, bob, carol):
        wait_running(tab)
        assert racers_of(tab) == ["quickalice", "quickbob", "quickcarol"]
    race = site.api("GET", f"/api/races/{code}/")
    assert race["public"] is True and race["status"] == "running"
    assert all(r["game"] for r in race["racers"])
    for tab in (alice, bob, carol):
        tab.assert_clean()
        tab.context.close()


def test_a_challenge_seen_on_the_events_stream_is_accepted_and_both_go_to_the_race(browser, site):
    daily_made(site)
    carol = new_tab(browser, site).sign_up("carolchallenger")
    dave = new_tab(browser, site).sign_up("davechallenged")
    dave.goto("/challenges/")
    dave.page.locator("[data-testid=challenges-received]", has_text="No challenges to you.").wait_for()

    carol.goto("/")
    carol.page.click("[data-testid=challenges-link]")
    carol.page.wait_for_url("**/challenges/")
    carol.page.fill("[data-testid=challenge-username]", "davechallenged")
    carol.page.fill("[data-testid=challenge-deal]", "7")
    carol.page.click("[data-testid=send-challenge]")
    carol.page.locator("[data-testid=challenges-sent] li[data-status=open]", has_text="davechallenged").wait_for()

    # Dave's page was not reloaded: the challenge came on his events stream.
    offer = dave.page.locator("[data-testid=challenges-received] li[data-status=open]", has_text="carolchallenger")
    offer.wait_for()
    assert "ms:7" in offer.inner_text()
    assert axe_violations(dave.page) == []
    offer.locator("[data-testid=accept-challenge]").click()

    dave.page.wait_for_url("**/races/*/")
    code = dave.page.inner_text("[data-testid=race-code]")
    carol.page.wait_for_url(f"**/races/{code}/")  # told of the answer on her events stream
    for tab in (carol, dave):
        wait_running(tab)
        assert racers_of(tab) == ["carolchallenger", "davechallenged"]
    race = site.api("GET", f"/api/races/{code}/")
    assert race["deal"] == "ms:7" and race["owner"] == "carolchallenger"
    # Another challenge waits on dave's home page for his answer.
    carol.page.evaluate("""async () => {
        const csrf = document.cookie.match(/csrftoken=([^;]+)/)[1];
        await fetch("/api/challenges/", {method: "POST", headers: {"Content-Type": "application/json", "X-CSRFToken": csrf},
                                         body: JSON.stringify({username: "davechallenged", deal: "ms:8"})});
    }""")
    dave.goto("/")
    waiting = dave.page.locator("[data-testid=challenge-waiting]", has_text="carolchallenger challenges you to ms:8")
    waiting.wait_for()
    waiting.locator("a").click()
    dave.page.locator("[data-testid=challenges-received] li[data-status=open]", has_text="ms:8").wait_for()
    for tab in (carol, dave):
        tab.assert_clean()
        tab.context.close()
