"""Accessibility in a real browser (the fixtures of tests/support/browser.py: Daphne on a fresh SQLite file,
Debian's Chromium): keyboard focus kept across the race page's live redraws, the outcome of a friend
action announced with focus put somewhere sensible, sign-up errors tied to their fields, and the replay's
list of actions one stop of the Tab key.
"""

from __future__ import annotations

import time

import pytest

from tests.support.browser import api_game, ms1_safe_line, new_tab, register, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FOCUSED = """() => {
    const a = document.activeElement;
    return {tag: a ? a.tagName : null, text: a ? a.textContent.trim() : "", id: a ? a.id : "",
            testid: a && a.dataset ? (a.dataset.testid || "") : ""};
}"""


def focused(page) -> dict:
    return page.evaluate(FOCUSED)


def settled_on(page, check: str):
    """Waits (5 s at most) for the focus to satisfy `check`; fails naming where it is."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(check, timeout=5000)
    except PlaywrightTimeout:
        raise AssertionError(f"the focus is on {focused(page)}") from None


def open_race(tab, deal: str = "1") -> str:
    tab.goto("/")
    tab.page.fill("[data-open-race] input[name=deal]", deal)
    tab.page.click("[data-testid=open-race]")
    tab.page.wait_for_url("**/races/*/")
    tab.page.wait_for_selector("[data-testid=start-race]")
    return tab.page.inner_text("[data-testid=race-code]")


def test_the_race_page_keeps_the_keyboard_focus_across_joins_and_the_start(browser, site):
    owner = new_tab(browser, site).sign_up("focuser")
    page = owner.page
    code = open_race(owner)

    # Focus on "Copy link" while another player joins over the API: the lobby is redrawn, focus stays.
    page.focus("[data-lobby] button:text-is('Copy link')")
    racer = register(site, "mover")
    site.api("POST", f"/api/races/{code}/join/", {}, token=racer)
    page.wait_for_selector('[data-testid=racers] [data-username="mover"]')
    assert focused(page)["text"] == "Copy link", focused(page)
    page.wait_for_function("() => document.querySelector('[data-testid=race-status]').textContent.includes('2 racers')")
    # The status line is a polite live region that said so.
    live = page.locator("[data-testid=race-status] [role=status]")
    assert live.count() == 1 and "Start the race" in live.inner_text()

    # A third player joins with the keyboard: focus lands on the control that replaced "Join the race".
    guest = new_tab(browser, site).sign_up("joiner3")
    guest.goto(f"/races/{code}/")
    guest.page.focus("[data-testid=join-race]")
    guest.page.keyboard.press("Enter")
    guest.page.wait_for_selector('[data-testid=racers] [data-username="joiner3"]')
    guest.page.wait_for_selector("[data-lobby] button:text-is('Leave')")
    # The join's answer and the race socket's redraw come in either order: the focus ends on "Leave".
    settled_on(guest.page, "() => document.activeElement.textContent.trim() === 'Leave'")
    guest.page.keyboard.press("Enter")  # leaves: "Join the race" takes the focus back
    guest.page.wait_for_selector("[data-testid=join-race]")
    page.wait_for_function("() => !document.querySelector('[data-testid=racers] [data-username=joiner3]')")
    settled_on(guest.page, "() => document.activeElement.dataset.testid === 'join-race'")

    # The countdown's text is written when it changes, not ten times a second.
    page.evaluate(
        """() => {
            window.countdownWrites = 0;
            new MutationObserver((list) => { window.countdownWrites += list.length; })
                .observe(document.querySelector('[data-testid=countdown]'), {childList: true, characterData: true, subtree: true});
        }"""
    )
    page.focus("[data-testid=start-race]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-game-panel]:not([hidden])", timeout=20000)
    owner.wait_live()
    assert focused(page)["tag"] not in ("BODY", None), focused(page)
    assert page.evaluate("() => window.countdownWrites") <= 8
    page.wait_for_function("() => document.querySelector('[data-testid=race-status] [role=status]').textContent.startsWith('Go!')")

    for tab in (owner, guest):
        tab.assert_clean()
        tab.context.close()


def test_the_race_page_keeps_the_focus_while_other_racers_move(browser, site):
    """Every progress frame redrew the lobby and the racers: focus on Resign or a watch link fell to <body>."""
    owner_token = register(site, "leader")
    racer = register(site, "chaser")
    code = site.api("POST", "/api/races/", {"deal": "ms:1"}, token=owner_token)["code"]
    site.api("POST", f"/api/races/{code}/join/", {}, token=racer)
    owner = sign_in(new_tab(browser, site), "leader").goto(f"/races/{code}/")
    page = owner.page
    page.wait_for_selector("[data-testid=start-race]")
    site.api("POST", f"/api/races/{code}/start/", {}, token=owner_token)
    page.wait_for_selector("[data-game-panel]:not([hidden])", timeout=20000)
    owner.wait_live()
    game = next(r["game"] for r in site.api("GET", f"/api/races/{code}/", token=racer)["racers"] if r["username"] == "chaser")
    line = ms1_safe_line()
    page.focus("[data-game-panel] [data-action=resign]")
    site.api("POST", f"/api/games/{game}/moves/", {"move": line[0], "ply": 0}, token=racer)
    page.wait_for_selector('[data-testid=racers] [data-username="chaser"] [data-testid=racer-moves]:text-is("1 move")')
    assert focused(page)["text"] == "Resign", focused(page)
    # Nobody gets a link to a racer's game while the race runs (docs/races.md): the watcher's list
    # has none, and it keeps none as the racers move.
    watcher = new_tab(browser, site).goto(f"/races/{code}/")
    watching = watcher.page
    watching.wait_for_selector('[data-testid=racers] [data-username="chaser"]')
    time.sleep(0.1)  # under the per-account rate of moves
    site.api("POST", f"/api/games/{game}/moves/", {"move": line[1], "ply": 1}, token=racer)
    watching.wait_for_selector('[data-testid=racers] [data-username="chaser"] [data-testid=racer-moves]:text-is("2 moves")')
    assert watching.locator('[data-testid=racers] [data-username="chaser"] a').count() == 0
    page.wait_for_selector('[data-testid=racers] [data-username="chaser"] [data-testid=racer-moves]:text-is("2 moves")')
    assert focused(page)["text"] == "Resign", focused(page)
    for tab in (owner, watcher):
        tab.assert_clean()
        tab.context.close()


def test_the_race_page_fits_a_narrow_phone(browser, site):
    """320 px: the long join link wraps instead of scrolling the page sideways."""
    owner = new_tab(browser, site, viewport={"width": 320, "height": 640}).sign_up("narrow")
    code = open_race(owner, "3")
    assert code
    width = owner.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 320
    owner.assert_clean()
    owner.context.close()


def test_a_race_under_way_shows_the_table_on_a_small_phones_first_screen(browser, site):
    """320 x 568: the race's panel (heading, status, a second Resign) pushed the table to the bottom edge."""
    owner = new_tab(browser, site, viewport={"width": 320, "height": 568}, is_mobile=True, has_touch=True).sign_up("pocket")
    page = owner.page
    open_race(owner, "3")
    page.click("[data-testid=start-race]")
    owner.wait_live()
    owner.settle()
    page.evaluate("() => window.scrollTo(0, 0)")
    assert page.locator("[data-lobby] button", has_text="Resign").count() == 0  # the table's own is the one
    assert page.locator("[data-game-panel] [data-action=resign]").is_visible()
    owner.shot("race-phone.png")
    lowest = max(box["y"] + box["height"] for box in (owner.card_locator(str(i)).bounding_box() for i in range(1, 9)))
    assert lowest <= 568, lowest  # every column's exposed card, without scrolling
    owner.assert_clean()
    owner.context.close()


def test_a_friend_action_is_announced_and_keeps_the_focus(browser, site):
    register(site, "befriended")
    visitor = new_tab(browser, site).sign_up("visiting")
    page = visitor.page
    visitor.goto("/u/befriended/")
    page.focus("button:text-is('Add befriended as a friend')")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Friend request sent.")
    now = focused(page)
    assert now["tag"] != "BODY" and "Friend request sent" in now["text"], now
    status = page.locator("[role=status]", has_text="Friend request sent.")
    assert status.count() == 1

    # One's own page: a request to accept, then one to send to nobody.
    third = register(site, "asker")
    site.api("POST", "/api/friends/requests/", {"username": "visiting"}, token=third)
    visitor.goto("/u/visiting/")
    page.focus("[data-friends] button:text-is('Accept')")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-friends] li a:text-is('asker')")
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent.includes('asker is now your friend')")
    assert page.locator("[role=status]", has_text="asker is now your friend").count() == 1

    field = page.locator("[data-friends] input[name=username]")
    field.fill("nobody-of-that-name")
    field.press("Enter")
    page.wait_for_selector("[data-friends] input[name=username][aria-invalid=true]")
    described = field.get_attribute("aria-describedby")
    assert described and "no player" in page.inner_text(f"#{described}")
    assert focused(page)["tag"] == "INPUT"

    # A friend can be removed again (the page had no way to), after a confirm.
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("[data-friends] button[aria-label='Remove asker from your friends']")
    page.wait_for_selector("[role=status]:has-text('asker is no longer your friend.')")
    assert page.locator("[data-friends] li a:text-is('asker')").count() == 0
    assert [e for e in visitor.errors if "404" not in e] == []  # the refused request's answer only
    visitor.context.close()


def test_a_refused_sign_up_ties_each_error_to_its_field(browser, site):
    tab = new_tab(browser, site)
    page = tab.page
    tab.goto("/signup/")
    rules = page.locator("input[name=password]").get_attribute("aria-describedby")
    assert rules and "at least 8 characters" in page.inner_text(f"#{rules.split()[0]}")
    page.fill("input[name=username]", "hopeful")
    page.fill("input[name=password]", "hopeful-2024")
    page.fill("input[name=password2]", "hopeful-2024")
    page.click("form.stack button[type=submit]")
    page.wait_for_selector("[data-testid=form-errors]")
    assert page.title().startswith("Error:")
    password = page.locator("input[name=password]")
    assert password.get_attribute("aria-invalid") == "true"
    error_id = password.get_attribute("aria-describedby").split()[-1]
    assert "username" in page.inner_text(f"#{error_id}")
    assert focused(page)["tag"] == "INPUT" and page.evaluate("() => document.activeElement.name") == "password"
    assert page.locator("input[name=username]").get_attribute("aria-invalid") is None
    assert [e for e in tab.errors if "400" not in e] == []  # the refused form's answer only
    tab.context.close()


def test_the_replays_list_of_actions_is_one_tab_stop_walked_by_the_arrows(browser, site):
    """A game of thousands of actions put thousands of Tabs between the replay's controls and its links."""
    token = register(site, "replayer")
    game = api_game(site, token, ms1_safe_line()[:6])
    tab = new_tab(browser, site)
    page = tab.page
    tab.goto(f"/replay/{game['id']}/")
    page.wait_for_selector("[data-replay][data-ready=true]")
    assert page.locator("[data-testid=replay-actions] button").count() == 6
    page.focus("[data-testid=replay-slider]")
    page.keyboard.press("Tab")
    assert focused(page)["text"] == ms1_safe_line()[0]  # the first action, at the deal
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    settled_on(page, "() => document.activeElement.getAttribute('aria-current') === 'step'")
    assert focused(page)["text"] == ms1_safe_line()[1]
    assert page.inner_text("[data-testid=replay-step]") == "Action 2 of 6"
    page.keyboard.press("Tab")
    assert focused(page) == {"tag": "A", "text": "The game's page", "id": "", "testid": ""}
    page.keyboard.press("Shift+Tab")
    assert focused(page)["text"] == ms1_safe_line()[1]  # back to the current action, not the last
    assert tab.errors == []
    tab.context.close()
