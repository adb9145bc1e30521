"""The boards beyond the day in a real browser (tests/support/browser.py: Daphne on a fresh SQLite file,
Debian's Chromium), over games played through the REST API: the leaderboards page's deal records,
month's ladder and streaks at desktop and phone sizes (no sideways scrolling, the friends scope, the
autoplay switch, the replay one click away, reached by keyboard), and the record to beat on a numbered
deal's table, with the moves so far, following a record that falls elsewhere. Screenshots land in
tests/artifacts/ (boards-desktop.png, boards-phone.png, record-line.png).
"""

from __future__ import annotations

import time

import pytest

from games.engine import Board
from tests.support.boards_browser import befriend, safe_line, won_game
from tests.support.browser import new_tab, ranked_game, register, sign_in, winning_line

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}

# What sticks out sideways: the page itself, or a board's table inside its scroll box.
OVERFLOW = """() => {
    const out = [];
    if (document.documentElement.scrollWidth > innerWidth) out.push(['page', document.documentElement.scrollWidth, innerWidth]);
    for (const box of document.querySelectorAll('.table-scroll')) {
        if (box.scrollWidth > box.clientWidth + 1) out.push([box.closest('[data-board]').dataset.board, box.scrollWidth, box.clientWidth]);
    }
    return out;
}"""


def rows(page, board: str) -> list[tuple[str, str]]:
    """The (rank, username) of each line of a board, the caller's own line under the gap included."""
    return page.eval_on_selector_all(
        f"[data-testid=board-{board}] tbody tr[data-username]", "trs => trs.map((tr) => [tr.dataset.rank, tr.dataset.username])"
    )


def cells(page, board: str, username: str) -> list[str]:
    return page.eval_on_selector_all(
        f"[data-testid=board-{board}] tbody tr[data-username='{username}'] td", "tds => tds.map((td) => td.textContent.trim())"
    )


def wait_rows(page, board: str, expected: list[tuple[str, str]]):
    page.wait_for_function(
        """([board, expected]) => JSON.stringify([...document.querySelectorAll(`[data-testid=board-${board}] tbody tr[data-username]`)]
            .map((tr) => [tr.dataset.rank, tr.dataset.username])) === JSON.stringify(expected)""",
        arg=[board, [list(row) for row in expected]],
    )


def play_the_daily(site, token: str) -> dict:
    """The player's ranked daily, won over the API at a human pace (a faster win is held for review)."""
    game = ranked_game(site, token)
    started = time.monotonic()  # the server's clock starts with the game, after any wait for the daily
    line = winning_line(Board.from_state(game["state"]))
    for ply, move in enumerate(line):
        if ply == len(line) - 1:
            time.sleep(max(0, 0.2 * (ply + 1) - (time.monotonic() - started)))
        game = site.api("POST", f"/api/games/{game['id']}/moves/", {"move": move, "ply": ply}, token=token)
        time.sleep(0.06)
    assert game["status"] == "won", game
    return game


def test_the_leaderboards_page_shows_records_ladder_and_streaks_at_desktop_and_phone_sizes(browser, site):
    tokens = {name: register(site, name) for name in ("ann", "bob", "cat")}
    befriend(site, tokens["ann"], tokens["bob"], "bob", "ann")
    line = safe_line("ms:3")
    n = len(line)
    # ann holds the record; cat (a stranger to both) and bob (ann's friend) took one and two detours.
    games = {
        "ann": won_game(site, tokens["ann"], "ms:3", line),
        "cat": won_game(site, tokens["cat"], "ms:3", line, detours=1),
        "bob": won_game(site, tokens["bob"], "ms:3", line, detours=2),
    }
    play_the_daily(site, tokens["ann"])

    tab = sign_in(new_tab(browser, site, **DESKTOP), "bob")
    page = tab.page
    tab.goto("/")
    page.click("[data-testid=nav-leaderboards]")
    page.wait_for_url("**/leaderboards/")
    page.wait_for_selector("[data-testid=board-records] p.muted")  # no deal chosen yet

    # The deal box is reached by keyboard and takes a deal as a player types it.
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.dataset.testid") == "records-deal":
            break
    else:
        raise AssertionError("Tab never reached the deal box")
    page.keyboard.type(" MS:3 ")
    page.keyboard.press("Enter")
    wait_rows(page, "records", [("1", "ann"), ("2", "cat"), ("3", "bob")])
    assert "deal=ms%3A3" in page.url
    assert cells(page, "records", "ann")[2:4] == [str(n), "0"]
    assert cells(page, "records", "cat")[2:4] == [str(n + 2), "1"]
    assert cells(page, "records", "bob")[2:4] == [str(n + 4), "2"]
    # The record line is marked, in words too; the caller's line is highlighted.
    record = page.locator("[data-testid=board-records] tr.record")
    assert record.count() == 1 and record.get_attribute("data-username") == "ann"
    assert "record" in record.inner_text()
    assert page.locator("[data-testid=board-records] tr.me").get_attribute("data-username") == "bob"

    # The friends scope is one click away: cat goes, ann (bob's friend) and bob stay.
    page.click("[data-testid=records-scope] button[data-scope=friends]")
    wait_rows(page, "records", [("1", "ann"), ("2", "bob")])
    assert page.get_attribute("[data-testid=records-scope] button[data-scope=friends]", "aria-pressed") == "true"
    page.click("[data-testid=records-scope] button[data-scope=all]")
    wait_rows(page, "records", [("1", "ann"), ("2", "cat"), ("3", "bob")])

    # Two lines a page: bob's own line comes under a gap on the first page, and on the second by itself.
    page.evaluate("() => { window.fc.records.pageSize = 2; window.fc.records.load(); }")
    page.wait_for_selector("[data-testid=board-records] tr.gap")
    assert rows(page, "records") == [["1", "ann"], ["2", "cat"], ["3", "bob"]]
    assert page.locator("[data-testid=board-records] tr.me.own").get_attribute("data-username") == "bob"
    assert page.inner_text("[data-testid=records-pager] span") == "page 1 of 2"
    page.click("[data-testid=records-pager] button:has-text('Next')")
    wait_rows(page, "records", [("3", "bob")])
    assert page.locator("[data-testid=board-records] tr.gap").count() == 0
    # The pressed Next went off on the last page; the focus went to Previous.
    assert page.evaluate("() => document.activeElement.textContent") == "Previous"
    page.evaluate("() => { window.fc.records.pageSize = null; window.fc.records.page = 1; window.fc.records.load(); }")
    wait_rows(page, "records", [("1", "ann"), ("2", "cat"), ("3", "bob")])
    page.wait_for_selector("[data-testid=records-pager]", state="hidden")
    assert page.locator("[data-testid=board-records] tr.gap").count() == 0

    # The other autoplay mode is a board of its own, empty here.
    page.check("[data-testid=records-autoplay-none]")
    page.wait_for_selector("[data-testid=records-empty]")
    assert "autoplay=none" in page.url
    page.check("[data-testid=records-autoplay-safe]")
    wait_rows(page, "records", [("1", "ann"), ("2", "cat"), ("3", "bob")])

    # A deal the server does not take is refused in its words; a bad one cannot reach another address.
    for typed in ("ms:0", "ms:1/../../streaks"):
        page.fill("[data-testid=records-deal]", typed)
        page.press("[data-testid=records-deal]", "Enter")
        error = page.wait_for_selector("[data-testid=board-records][aria-busy=false] [data-testid=records-error]")
        assert error.get_attribute("data-code") in ("invalid_deal", "not_found"), (typed, error.inner_text())
    # The browser logs each refused request; those two were asked for.
    tab.errors = [e for e in tab.errors if "Failed to load resource" not in e]
    page.fill("[data-testid=records-deal]", "3")
    page.press("[data-testid=records-deal]", "Enter")
    wait_rows(page, "records", [("1", "ann"), ("2", "cat"), ("3", "bob")])

    # The month's ladder and the streaks hold ann's ranked daily; the points rule comes from the API.
    page.wait_for_selector("[data-testid=board-ladder] tr[data-username=ann]")
    ladder = cells(page, "ladder", "ann")
    assert int(ladder[2]) > 0 and ladder[3:] == ["1", "1"], ladder  # points, played, won
    assert page.inner_text("[data-testid=points-rule]").strip()
    page.wait_for_selector("[data-testid=board-streaks] tr[data-username=ann]")
    assert cells(page, "streaks", "ann")[2:] == ["1", "1"]
    # bob has played no daily: his own board says so, not a line of someone else's.
    assert page.locator("[data-testid=ladder-not-ranked]").is_visible()
    page.click("[data-testid=ladder-scope] button[data-scope=friends]")
    wait_rows(page, "ladder", [("1", "ann")])

    assert page.evaluate(OVERFLOW) == []
    tab.shot("boards-desktop.png", full_page=True)

    # Each game's replay is one click away.
    page.click("[data-testid=board-records] tr[data-username=ann] a.replay-link")
    page.wait_for_url(f"**/replay/{games['ann']['id']}/")
    page.wait_for_selector("[data-replay][data-ready=true]")
    tab.assert_clean()
    tab.context.close()

    # A phone, signed out: the boards fit its width, with no friends scope to offer.
    phone = new_tab(browser, site, **PHONE)
    phone.goto("/leaderboards/?deal=ms:3")
    page = phone.page
    wait_rows(page, "records", [("1", "ann"), ("2", "cat"), ("3", "bob")])
    page.wait_for_selector("[data-testid=board-ladder] tr[data-username=ann]")
    page.wait_for_selector("[data-testid=board-streaks] tr[data-username=ann]")
    assert page.locator("[data-scope=friends]").count() == 0
    assert page.evaluate(OVERFLOW) == []
    replay = page.locator("[data-testid=board-records] tr[data-username=cat] a.replay-link")
    assert replay.is_visible() and replay.get_attribute("aria-label") == "Replay of cat's game"
    assert replay.get_attribute("href") == f"/replay/{games['cat']['id']}/"
    phone.shot("boards-phone.png", full_page=True)

    # The caller's own line, when the page shown does not hold it, comes under a gap.
    own = page.evaluate(
        """() => {
            const line = (rank, username) => ({rank, username, moves: 40 + rank, undos: 0, elapsed_ms: 1000, game: rank});
            const body = {...window.fc.records.body, entries: [line(1, 'ann'), line(2, 'cat')], me: line(7, 'bob'), record: line(1, 'ann')};
            window.fc.records.draw(body);
            return [...document.querySelectorAll('[data-testid=board-records] tbody tr')].map((tr) => tr.className + ':' + (tr.dataset.username || ''));
        }"""
    )
    assert own == ["record:ann", ":cat", "gap:", "own:bob"], own
    phone.assert_clean()
    phone.context.close()


def test_a_numbered_deals_table_shows_the_record_to_beat_and_follows_it_live(browser, site):
    tokens = {name: register(site, name) for name in ("dan", "eve", "fay")}
    line = safe_line("ms:2")
    n = len(line)
    won_game(site, tokens["dan"], "ms:2", line, detours=2)

    tab = sign_in(new_tab(browser, site, **DESKTOP), "eve")
    page = tab.page
    tab.deal("/play/ms:2/")
    tab.wait_live()
    record = "[data-testid=record]"
    page.wait_for_function("n => document.querySelector('[data-testid=record]').dataset.recordMoves === String(n)", arg=n + 4)
    assert page.inner_text(record).startswith(f"Record {n + 4} moves by dan (replay); yours so far 0 · all records")

    # The moves so far follow the player's moves.
    for move in line[:2]:
        tab.type_move(move)
    tab.wait_ply(2)
    page.wait_for_function("() => document.querySelector('[data-testid=record-so-far]').textContent === '; yours so far 2'")

    # A watcher of the deal's board sees the record fall too.
    watcher = new_tab(browser, site, **DESKTOP)
    watcher.goto("/leaderboards/?deal=ms:2")
    wait_rows(watcher.page, "records", [("1", "dan")])
    watcher.page.wait_for_function("() => window.fc.recordSocket && window.fc.recordSocket.isOpen()")
    page.wait_for_function("() => window.fc.record.socket.isOpen()")

    fay = won_game(site, tokens["fay"], "ms:2", line)
    page.wait_for_function("n => document.querySelector('[data-testid=record]').dataset.recordMoves === String(n)", arg=n)
    assert page.inner_text("[data-testid=record-best]") == f"New record: {n} moves by fay"
    assert page.get_attribute("[data-testid=record-replay]", "href") == f"/replay/{fay['id']}/"
    assert page.inner_text("[data-testid=record-so-far]") == "; yours so far 2"
    tab.shot("record-line.png")
    wait_rows(watcher.page, "records", [("1", "fay"), ("2", "dan")])
    watcher.page.wait_for_function("() => document.querySelector('[data-testid=boards-announce]').textContent.includes('fay')")

    tab.assert_clean()
    watcher.assert_clean()
    tab.context.close()
    watcher.context.close()
