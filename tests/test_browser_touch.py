"""Touch play on phones in a real browser (the fixtures of tests/support/browser.py): a swipe or a pinch is
no tap, a quick second tap on a card that cannot go home drops the selection, and a phone held sideways
shows the whole deal."""

from __future__ import annotations

import time

import pytest

from tests.support.browser import new_tab

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"viewport": {"width": 412, "height": 839}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


def centre(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + 8  # the top strip: the part of a covered card shown


def touch(cdp, kind: str, points: list[tuple[float, float]]):
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})


def selected(tab) -> list[str]:
    return tab.page.evaluate("() => [...document.querySelectorAll('.card.selected')].map((c) => c.dataset.card)")


def no_move_sent(tab):
    time.sleep(0.5)  # a move would be on its way by now
    assert tab.page.evaluate("() => window.fc.client.pending.length") == 0
    assert tab.counters() == (0, 0)


def test_a_swipe_or_a_pinch_over_the_cards_plays_no_move(browser, site):
    tab = new_tab(browser, site, **PHONE).sign_up("swiper")
    tab.deal("/play/1/?autoplay=none")
    tab.wait_live()
    cdp = tab.context.new_cdp_session(tab.page)
    exposed = tab.card_locator("1")
    exposed.tap()
    assert selected(tab) == [exposed.get_attribute("data-card")]

    # A swipe up from a covered card of column 2 (one that is no run: it cannot be picked up), as to
    # scroll: where the finger lifts is no destination.
    x, y = centre(tab.card_locator("2", 3))
    touch(cdp, "touchStart", [(x, y)])
    for step in range(1, 10):
        touch(cdp, "touchMove", [(x, y - 20 * step)])
    touch(cdp, "touchEnd", [])
    no_move_sent(tab)
    assert selected(tab) == [exposed.get_attribute("data-card")]  # no drop was tried either

    # A pinch over columns 2 and 3: neither finger's lifting is a tap on its column.
    (x2, y2), (x3, y3) = centre(tab.card_locator("2", 2)), centre(tab.card_locator("3", 2))
    touch(cdp, "touchStart", [(x2, y2)])
    touch(cdp, "touchStart", [(x2, y2), (x3, y3)])
    touch(cdp, "touchMove", [(x2 - 30, y2 - 30), (x3 + 30, y3 + 30)])
    touch(cdp, "touchEnd", [(x3 + 30, y3 + 30)])
    touch(cdp, "touchEnd", [])
    no_move_sent(tab)
    assert selected(tab) == [exposed.get_attribute("data-card")]

    # A plain tap still plays: the selection onto free cell a.
    tab.page.tap('[data-pile="a"]')
    tab.wait_ply(1)
    tab.assert_clean()
    tab.context.close()


def test_a_quick_second_tap_drops_a_selection_that_cannot_go_home(browser, site):
    tab = new_tab(browser, site, **PHONE).sign_up("untapper")
    tab.deal("/play/1/?autoplay=none")
    tab.wait_live()
    card = tab.card_locator("1")
    assert card.get_attribute("data-card")[0] != "A"  # ms:1's column 1 ends in a card that cannot go home
    x, y = centre(card)
    tab.page.touchscreen.tap(x, y)
    tab.page.touchscreen.tap(x, y)  # well within the double tap's 400 ms
    assert selected(tab) == []
    no_move_sent(tab)
    assert tab.text("message") == ""  # no refusal either: nothing was sent
    tab.assert_clean()
    tab.context.close()


@pytest.mark.parametrize("viewport", [{"width": 844, "height": 390}, {"width": 568, "height": 320}])
def test_a_phone_held_sideways_shows_the_cells_and_every_column_of_the_deal(browser, site, viewport):
    tab = new_tab(browser, site, **{**PHONE, "viewport": viewport}).sign_up(f"sideways{viewport['width']}")
    tab.deal("/play/3/")
    tab.wait_live()
    # The player scrolls the table into view: nothing stays over it, and the deal fits the screen.
    tab.page.evaluate("() => window.scrollTo(0, document.querySelector('[data-table]').getBoundingClientRect().top + window.scrollY)")
    tab.settle()
    tab.shot(f"sideways-{viewport['width']}.png")
    cell = tab.page.locator('[data-pile="a"]').bounding_box()
    on_top = tab.page.evaluate(f"() => document.elementFromPoint({cell['x'] + 5}, {cell['y'] + 5}).closest('[data-pile]')?.dataset.pile")
    assert cell["y"] >= -1 and on_top == "a", (cell, on_top)  # not under the status bar
    lowest = max(box["y"] + box["height"] for box in (tab.card_locator(str(i)).bounding_box() for i in range(1, 9)))
    assert lowest <= viewport["height"], lowest
    tab.assert_clean()
    tab.context.close()


def test_a_phone_has_no_key_hints_finger_sized_links_and_no_stale_network_message(browser, site):
    tab = new_tab(browser, site, **PHONE).sign_up("fingers")
    page = tab.page
    tab.deal("/play/1/")
    tab.wait_live()
    assert not page.locator("[data-action=undo] kbd").is_visible()  # "u" means nothing without keys
    for link in page.locator(".site-header nav a, .site-header nav button").all():
        assert link.bounding_box()["height"] >= 24, link.inner_text()
    # The header is one row (the suits stand for the site's name, which screen readers still get), so
    # the table starts higher; it took two rows, brand above links, on phones up to 480 px wide.
    brand = page.get_by_role("link", name="FreeCell Online")
    nav = page.locator(".site-header nav").bounding_box()
    assert nav["y"] < brand.bounding_box()["y"] + brand.bounding_box()["height"], (brand.bounding_box(), nav)
    assert page.locator(".site-header").bounding_box()["height"] < 50

    # A move sent while the server was away said so; once the socket is back, that is over.
    page.evaluate("() => window.fc.client.say('the server cannot be reached', 'error', 'network')")
    page.evaluate("() => window.fc.client.socket.drop()")
    page.wait_for_selector("[data-testid=connection]:not([hidden])", timeout=5000)
    page.wait_for_selector("[data-testid=connection]", state="hidden", timeout=15000)
    assert tab.text("message") == ""
    tab.assert_clean()
    tab.context.close()
