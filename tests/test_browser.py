"""The site in a real browser: Playwright drives Debian's Chromium against a Daphne server (HTTP and websockets)
started by the fixtures of tests/support/browser.py, on a fresh SQLite file. Screenshots land in tests/artifacts/.

Scenarios: sign up and win a Microsoft deal by clicking (with undo, keyboard moves, a capacity refusal,
and the replay of the game afterwards); drag and drop, double-click, refusals, a dropped connection,
two tabs and a phone; a race in two browser contexts; the daily from its start to its leaderboard.
"""

from __future__ import annotations

import re
import time

import pytest

from games.engine import Board, verify
from games.engine.errors import IllegalMove
from tests.support.browser import (
    MS1_SAFE_LINE,
    Tab,
    api_game,
    capacity_refusal,
    meets_capacity_refusal,
    ms1_safe_line,
    new_tab,
    ranked_game,
    sign_in,
    state_of,
    winning_line,
)
from tests.support.players import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_sign_up_and_win_a_microsoft_deal_by_clicking(browser, site):
    tab = new_tab(browser, site).sign_up("ada")
    page = tab.page
    tab.deal("/play/1/")
    game_id = int(page.url.rstrip("/").split("/")[-1])
    tab.wait_live()

    board = Board.from_deal("ms:1")
    board.safe_autoplay()
    line = winning_line(board, MS1_SAFE_LINE)
    if not meets_capacity_refusal(board, line):
        line = MS1_SAFE_LINE  # this one does, so the refusal below is always tried
    assert verify("ms:1", " ".join(line), autoplay="safe").won

    # The test hooks: 52 cards, 8 columns, 4 cells, 4 foundations, and the counters.
    assert page.locator("[data-card]").count() == 52
    assert page.locator('[data-pile="h"]').count() == 4
    assert page.get_attribute('[data-card="TD"]', "aria-label") == "ten of diamonds"
    assert tab.shown_state()["columns"][0] == ["JD", "KD", "2S", "4C", "3S", "6D", "6S"]
    assert tab.counters() == (0, 0)
    assert tab.text("status") == "Playing"

    # Three moves by clicking, then undo by keyboard and by button: undos count as moves.
    for ply, move in enumerate(line[:3], start=1):
        tab.click_move(move)
        tab.wait_ply(ply)
    page.keyboard.press("u")
    tab.wait_ply(4)
    page.click("[data-action=undo]")
    tab.wait_ply(5)
    assert tab.counters() == (5, 2)
    replayed = Board.from_deal("ms:1")
    replayed.safe_autoplay()
    replayed.play(line[0], autoplay="safe")
    tab.settle()
    assert tab.shown_state() == state_of(replayed)

    ply = 5
    refused = False
    for index in range(1, len(line)):
        if not refused and index >= 5 and (found := capacity_refusal(replayed)):
            # A run the capacity rule forbids, typed on the keyboard: refused with the server's reason.
            move, reason = found
            tab.type_move(move)
            page.wait_for_selector("[data-testid=message][data-code=illegal_move]")
            assert tab.text("message") == reason
            tab.settle()
            assert tab.shown_state() == state_of(replayed)
            assert tab.counters()[0] == ply
            refused = True
            tab.shot("table.png", full_page=True)
        move = line[index]
        if index % 4 == 1:
            tab.type_move(move)  # some moves typed in the notation
        else:
            tab.click_move(move)
        ply += 1
        tab.wait_ply(ply)
        replayed.play(move, autoplay="safe")
        assert tab.server_state() == state_of(replayed), f"move {index} ({move}) did not play as meant; sent {tab.sent[-4:]}"
    assert refused, "the line never met a capacity refusal to try"

    page.wait_for_selector("[data-testid=status][data-status=won]")
    assert tab.counters() == (len(line) + 4, 2)
    page.wait_for_selector("dialog[data-testid=win][open]", timeout=20000)
    headline = page.inner_text("dialog[data-testid=win] .headline")
    assert f"won in {len(line) + 4} moves" in headline
    share = page.input_value("dialog[data-testid=win] [data-testid=share]")
    assert share.startswith("FreeCell Online ms:1: won in") and f"/replay/{game_id}/" in share
    tab.shot("win.png")
    page.click("dialog[data-testid=win] button.primary")

    # The replay steps through every action, autoplay included, forward and back.
    tab.goto(f"/replay/{game_id}/")
    page.wait_for_selector("[data-replay][data-ready=true]")
    assert tab.shown_state()["columns"][0] == ["JD", "KD", "2S", "4C", "3S", "6D", "6S"]
    page.click("[data-testid=replay-next]")
    page.wait_for_function("() => document.querySelector('[data-testid=moves]').textContent === '1'")
    tab.settle()
    one = Board.from_deal("ms:1")
    one.safe_autoplay()
    one.play(line[0], autoplay="safe")
    assert tab.shown_state() == state_of(one)
    page.click("[data-testid=replay-prev]")
    tab.settle()
    assert tab.shown_state()["columns"][0] == ["JD", "KD", "2S", "4C", "3S", "6D", "6S"]
    frames = page.evaluate("() => window.fc.frames().map((f) => ({kind: f.kind || null, autoplay: f.autoplay}))")
    assert len(frames) == len(line) + 4 + 1
    assert [f["kind"] for f in frames[1:]].count("undo") == 2
    with_autoplay = next(i for i, f in enumerate(frames) if i and f["autoplay"])
    page.evaluate("i => window.fc.show(i - 1, {animate: false})", with_autoplay)
    page.click("[data-testid=replay-next]")
    assert "Autoplay:" in page.inner_text("[data-testid=replay-autoplay]")
    page.keyboard.press("End")
    tab.settle()
    assert page.inner_text("[data-testid=status]").lower() == "won"
    assert sum(tab.shown_state()["foundations"].values()) == 52
    tab.shot("replay.png")

    tab.goto("/u/ada/")
    assert page.inner_text("[data-testid=won-of-finished]") == "1 of 1"
    tab.assert_clean()
    tab.context.close()


def test_drag_double_click_refusals_reconnect_tabs_and_phone(browser, site):
    tab = new_tab(browser, site).sign_up("bea")
    page = tab.page
    # No autoplay, so the aces wait for a double-click.
    tab.deal("/play/1/?autoplay=none")
    game_path = page.url.removeprefix(site.base)
    tab.wait_live()

    # Drag the 3 of diamonds (column 6) to free cell a.
    card = page.locator('[data-card="3D"]').bounding_box()
    cell = page.locator('[data-pile="a"]').bounding_box()
    page.mouse.move(card["x"] + card["width"] / 2, card["y"] + card["height"] / 2)
    page.mouse.down()
    page.mouse.move(card["x"] + 30, card["y"] + 10, steps=4)
    page.mouse.move(cell["x"] + cell["width"] / 2, cell["y"] + cell["height"] / 2, steps=8)
    page.mouse.up()
    tab.wait_ply(1)
    assert page.locator('[data-pile="a"] > [data-card="3D"]').count() == 1

    # Keyboard: the 2 of clubs to free cell b; then double-clicks send the ace and the two home.
    tab.type_move("6b")
    tab.wait_ply(2)
    page.dblclick('[data-card="AC"]')
    tab.wait_ply(3)
    page.dblclick('[data-pile="b"] [data-card="2C"]')
    tab.wait_ply(4)
    assert page.locator('[data-pile="h"][data-suit="C"] [data-card]').count() == 2

    # A refused move shows the server's reason and the cards stay where they were.
    before = tab.shown_state()
    tab.type_move("1h")
    page.wait_for_selector("[data-testid=message][data-code=illegal_move]")
    board = Board.from_deal("ms:1")
    for move in ("6a", "6b", "6h", "bh"):
        board.play(move)
    with pytest.raises(IllegalMove) as refusal:
        board.check("1h")
    assert tab.text("message") == str(refusal.value)
    tab.settle()
    assert tab.shown_state() == before and tab.counters() == (4, 0)

    # A dropped connection shows the banner, comes back by itself, and play goes on.
    page.evaluate("() => window.fc.client.socket.drop()")
    page.wait_for_selector("[data-testid=connection]:not([hidden])", timeout=5000)
    assert "Reconnecting" in page.inner_text("[data-testid=connection]")
    assert "your moves still go to the server" in page.inner_text("[data-testid=connection]")
    page.wait_for_selector("[data-testid=connection]", state="hidden", timeout=15000)
    tab.wait_live()
    # A watcher's banner promises no moves: it has none to send.
    watcher = new_tab(browser, site).goto(game_path)
    watcher.wait_live()
    watcher.page.evaluate("() => window.fc.client.socket.drop()")
    watcher.page.wait_for_selector("[data-testid=connection]:not([hidden])", timeout=5000)
    said = watcher.page.inner_text("[data-testid=connection]")
    assert "Reconnecting" in said and "your moves" not in said, said
    watcher.context.close()
    tab.click_move("6h")  # the ace of spades, now exposed
    tab.wait_ply(5)

    # A second tab on the same game sees the first tab's moves live, and the reverse.
    other = Tab(tab.context, site).goto(game_path)
    other.wait_live()
    ply = int(tab.text("moves"))
    other.type_move("u")
    tab.wait_ply(ply + 1)
    other.wait_ply(ply + 1)
    tab.settle()
    other.settle()
    assert tab.shown_state() == other.shown_state()
    other.assert_clean()
    other.page.close()

    # A phone: the table fits the narrow screen and plays by tapping.
    phone = new_tab(browser, site, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2)
    phone.goto("/login/")
    phone.page.fill("input[name=username]", "bea")
    phone.page.fill("input[name=password]", PASSWORD)
    phone.page.click("form.stack button[type=submit]")
    phone.page.wait_for_url(site.url("/"))
    phone.goto(game_path)
    phone.wait_live()
    assert phone.page.evaluate("() => document.documentElement.scrollWidth") <= 390
    ply = int(phone.text("moves"))
    top = phone.card_locator("8")
    top.tap()
    phone.page.tap('[data-pile="c"]')
    phone.wait_ply(ply + 1)
    assert phone.page.locator('[data-pile="c"] > [data-card]').count() == 1
    phone.shot("phone.png")
    phone.assert_clean()
    phone.context.close()

    # A position with no legal move left is said, and undo still works.
    tab.deal("/play/1/?autoplay=none")
    tab.wait_live()
    for ply, move in enumerate(["1a", "1b", "1c", "1d", "16"], start=1):
        tab.type_move(move)
        tab.wait_ply(ply)
    page.wait_for_selector("[data-testid=status][data-status=stuck]")
    assert "no legal move" in tab.text("status")
    page.keyboard.press("u")
    tab.wait_ply(6)
    assert tab.text("status") == "Playing"
    tab.assert_clean()
    tab.context.close()


def test_a_race_in_two_browsers(browser, site):
    alice = new_tab(browser, site).sign_up("alice")
    bob = new_tab(browser, site).sign_up("bob")

    # Alice opens a race from the home page; Bob joins by its link.
    alice.page.fill("[data-open-race] input[name=deal]", "1")  # a known deal: a known winning line
    alice.page.click("[data-testid=open-race]")
    alice.page.wait_for_url("**/races/*/")
    code = alice.page.inner_text("[data-testid=race-code]")
    bob.goto(f"/races/{code}/")
    bob.page.click("[data-testid=join-race]")
    alice.page.wait_for_selector('[data-testid=racers] [data-username="bob"]')  # live, over the socket
    alice.shot("race-lobby.png")

    alice.page.click("[data-testid=start-race]")
    for tab in (alice, bob):
        tab.page.wait_for_selector("[data-game-panel]:not([hidden])", timeout=20000)
        tab.wait_live()
    assert alice.page.evaluate("() => window.fc.race().deal") == "ms:1"
    line = ms1_safe_line()

    # A move in one browser shows in the other's view of the race.
    for ply, move in enumerate(line[:3], start=1):
        alice.click_move(move)
        alice.wait_ply(ply)
    bob.page.wait_for_selector('[data-testid=racers] [data-username="alice"] [data-testid=racer-moves]:text-is("3 moves")')
    bob.click_move(line[0])
    bob.wait_ply(1)
    alice.page.wait_for_selector('[data-testid=racers] [data-username="bob"] [data-testid=racer-moves]:text-is("1 move")')
    alice.shot("race.png")

    for ply, move in enumerate(line[3:], start=4):
        alice.click_move(move)
        alice.wait_ply(ply)
    bob.page.wait_for_selector('[data-testid=finish-order] [data-username="alice"]', timeout=20000)
    alice.page.wait_for_selector("dialog[data-testid=win][open]", timeout=20000)
    # The winner is told their place, in the dialog and under the table, once the race frame says it.
    alice.page.wait_for_selector('dialog[data-testid=win] [data-testid=race-place]:text-is("You finished 1st of 2 in this race.")')
    # The share text carries the place too (written before the race frame brought it, then rewritten).
    share = alice.page.input_value("dialog[data-testid=win] [data-testid=share]")
    assert share.startswith("FreeCell Online ms:1: won in") and ", 1st of 2 in a race\n" in share
    alice.page.click("dialog[data-testid=win] button.primary")
    assert alice.page.inner_text("[data-testid=result] [data-testid=race-place]") == "You finished 1st of 2 in this race."
    assert alice.page.input_value("[data-testid=result] [data-testid=share]") == share
    progress = bob.page.get_attribute('[data-testid=racers] [data-username="alice"] [data-testid=progress]', "aria-valuenow")
    assert progress == "52"

    bob.page.on("dialog", lambda dialog: dialog.accept())
    bob.page.click("[data-game-panel] [data-action=resign]")  # the table's own Resign ends the race for bob too
    for tab in (alice, bob):
        tab.page.wait_for_selector("[data-testid=race-status][data-status=finished]", timeout=20000)
    assert alice.page.inner_text("[data-testid=finish-order] li:first-child").startswith("alice")
    alice.shot("race-finished.png", full_page=True)
    for tab in (alice, bob):
        tab.assert_clean()
        tab.context.close()


def win_the_daily_over_the_api(site, username: str) -> str:
    """A new player who wins today's daily over REST at a human pace, with two undos; their token."""
    dan = site.api("POST", "/api/auth/register/", {"username": username, "password": PASSWORD})["token"]
    game = ranked_game(site, dan)
    created = time.monotonic()
    board = Board.from_state(game["state"])
    line = winning_line(board)
    ply = 0
    for index, move in enumerate(line):
        if index in (2, 5):  # two undos, each followed by the move again
            site.api("POST", f"/api/games/{game['id']}/undo/", {"ply": ply}, token=dan)
            ply += 1
            site.api("POST", f"/api/games/{game['id']}/moves/", {"move": line[index - 1], "ply": ply}, token=dan)
            ply += 1
        if index == len(line) - 1:
            time.sleep(max(0, 0.2 * (ply + 1) - (time.monotonic() - created)))  # a human pace, not flagged
        site.api("POST", f"/api/games/{game['id']}/moves/", {"move": move, "ply": ply}, token=dan)
        ply += 1
        time.sleep(0.06)  # under the API's per-account rate of moves
    return dan


def test_the_daily_from_start_to_leaderboard(browser, site):
    # Another player's ranked result first, so the board has two rows and the histogram two bars.
    win_the_daily_over_the_api(site, "dan")
    carol = new_tab(browser, site).sign_up("carol")
    page = carol.page
    carol.goto("/daily/")
    page.wait_for_selector("[data-game-panel]:not([hidden])", timeout=90000)
    carol.wait_live()
    t0 = time.monotonic()
    state = page.evaluate("() => window.fc.client.confirmed.state")
    line = winning_line(Board.from_state(state))
    for ply, move in enumerate(line, start=1):
        carol.type_move(move)
        carol.wait_ply(ply)
        # The server holds back wins faster than a person can play; keep a human pace.
        time.sleep(max(0, 0.2 * ply - (time.monotonic() - t0)))
    page.wait_for_selector("[data-testid=status][data-status=won]")
    page.wait_for_selector("dialog[data-testid=win][open]", timeout=20000)
    share = page.input_value("dialog[data-testid=win] [data-testid=share]")
    assert share.startswith("FreeCell Online daily") and "rank 1 of 2" in share
    # The text links to the result's page, which the dialog links to as well (the replay waits for the day's end).
    assert re.search(r"/daily/\d{4}-\d\d-\d\d/result/carol/$", share), share
    href = page.get_attribute("dialog[data-testid=win] [data-testid=result-page]", "href")
    assert href.startswith("/daily/") and share.split("\n")[-1].endswith(href), (href, share)
    page.click("dialog[data-testid=win] button.primary")

    # The leaderboard: carol first and highlighted, dan second; the histogram marks carol's bar.
    page.wait_for_selector("[data-leaderboard-section]:not([hidden]) table.board tr.me")
    rows = page.locator("[data-testid=leaderboard] tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).get_attribute("data-username") == "carol"
    assert "me" in rows.nth(0).get_attribute("class")
    assert rows.nth(1).get_attribute("data-username") == "dan"
    assert page.locator("[data-testid=histogram] rect.bar").count() == 2
    assert page.locator("[data-testid=histogram] rect.bar.me").get_attribute("data-moves") == str(len(line))
    page.locator("[data-leaderboard-section]").scroll_into_view_if_needed()
    carol.shot("leaderboard.png", full_page=True)

    # The day's own page shows the same board, par and histogram.
    date = page.evaluate("() => window.fc.client.confirmed.deal.slice(6)")
    carol.goto(f"/daily/{date}/")
    page.wait_for_selector("[data-testid=leaderboard] tr.me")
    assert page.inner_text("[data-testid=par]").strip().isdigit()
    assert page.locator("[data-testid=histogram] rect.bar.me").count() == 1
    carol.shot("daily-day.png", full_page=True)
    carol.assert_clean()
    carol.context.close()



def test_a_player_who_resigned_the_daily_sees_the_board_without_others_replays_and_on_a_phone(browser, site):
    """Others' ranked games open once the day is over (docs/daily.md); the page offered their replay
    links after a resign, and they answered 404. On a phone the table scrolls in its own box."""
    win_the_daily_over_the_api(site, "winnie")
    tab = new_tab(browser, site, viewport={"width": 375, "height": 740}).sign_up("quinn")
    page = tab.page
    tab.goto("/daily/")
    page.wait_for_selector("[data-game-panel]:not([hidden])", timeout=90000)
    tab.wait_live()
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("[data-action=resign]")
    page.wait_for_selector("[data-leaderboard-section]:not([hidden]) tr[data-username=winnie]")
    assert page.locator("[data-testid=leaderboard] a[href^='/replay/']").count() == 0
    assert page.locator("[data-testid=leaderboard] .table-scroll table.board").count() == 1
    # The histogram is drawn for the phone's width: its labels were 6 px tall, a 640-wide drawing shrunk.
    label_heights = page.evaluate("() => [...document.querySelectorAll('[data-testid=histogram] text')].map((t) => t.getBoundingClientRect().height)")
    assert label_heights and min(label_heights) >= 9, label_heights
    wide = page.evaluate(
        "() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 375)"
        ".map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)"
    )
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375, wide
    tab.assert_clean()
    tab.context.close()


def test_a_profile_offers_ghost_races_and_friend_requests_only_as_they_can_be_made(browser, site):
    token = win_the_daily_over_the_api(site, "ghostly")  # today's: no ghost race before its day is over
    api_game(site, token, ms1_safe_line())
    api_game(site, token, ["5a"], deal="ms:2")  # still in play: counted, not listed
    visitor = new_tab(browser, site).sign_up("visitor")
    page = visitor.page
    visitor.goto("/u/ghostly/")
    page.locator("[data-testid=games] tbody tr").first.wait_for()
    # The statistics count today's daily, which a stranger sees once the day is over, and leave the game
    # in play out; the list says why it has fewer games.
    assert page.inner_text("[data-testid=won-of-finished]") == "2 of 2"
    assert page.locator("[data-testid=games] tbody tr").count() == 1
    assert page.inner_text("[data-testid=games-unlisted]").startswith("2 more games are not listed: still in play")
    assert page.locator("[data-testid=games] button", has_text="race this ghost").count() == 0  # not a friend
    page.click("button:has-text('Add ghostly as a friend')")
    page.wait_for_selector("text=Friend request sent.")
    visitor.goto("/u/ghostly/")  # after a reload: pending, not offered again
    page.wait_for_selector("text=Friend request sent: waiting for ghostly to accept.")
    assert page.locator("button:has-text('Add ghostly as a friend')").count() == 0
    site.api("POST", "/api/friends/requests/visitor/accept/", {}, token=token)
    visitor.goto("/u/ghostly/")
    page.wait_for_selector("text=ghostly is your friend.")
    page.locator("[data-testid=games] button", has_text="race this ghost").first.wait_for()
    rows = page.locator("[data-testid=games] tbody tr")
    # ms:1 only: today's daily stays hidden from a friend too until its day is over (can_view_game).
    assert rows.count() == 1 and rows.first.locator("button", has_text="race this ghost").count() == 1
    assert page.inner_text("[data-testid=games-unlisted]").startswith("2 more games are not listed")
    visitor.assert_clean()
    visitor.context.close()
    owner = sign_in(new_tab(browser, site), "ghostly").goto("/u/ghostly/")
    owner.page.wait_for_selector("[data-testid=games-unlisted]")
    assert owner.page.inner_text("[data-testid=games-unlisted]") == "1 game still in play is not listed."
    owner.assert_clean()
    owner.context.close()


def test_a_player_edits_their_account_then_closes_it(browser, site):
    tab = new_tab(browser, site).sign_up("leaving")
    page = tab.page
    tab.goto("/u/leaving/")
    page.click("[data-testid=account-link]")
    page.wait_for_url(site.url("/account/"))
    page.wait_for_selector("text=You have given no e-mail address")

    def error_of(form, name):
        """The field's error: shown under it, and the field marked, described by it and focused."""
        field = form.locator(f"[name={name}]:not([hidden])")
        error = form.locator(f"#{field.get_attribute('aria-describedby').split()[0]}")
        assert field.get_attribute("aria-invalid") == "true"
        assert page.evaluate("document.activeElement.name") == name
        return error.inner_text()

    # Profile: a bio of two lines in a right-to-left script keeps both
    profile = page.locator("[data-testid=profile-form]")
    profile.locator("input[name=display_name]").fill("x" * 41)
    profile.locator("button[type=submit]").click()
    page.wait_for_selector("#display_name-error:not([hidden])")
    assert "40 characters" in error_of(profile, "display_name")
    assert "display_name" not in page.inner_text("#display_name-error"), "the message, not the field's code name"
    profile.locator("input[name=display_name]").fill("Lea Ving")
    profile.locator("textarea[name=bio]").fill("שלום\nOff soon.")
    profile.locator("button[type=submit]").click()
    profile.locator("text=Profile saved.").wait_for()
    assert profile.locator("input[name=display_name]").get_attribute("aria-invalid") is None
    assert profile.locator("input[name=display_name]").get_attribute("aria-describedby") == "display_name-help"
    # E-mail: a wrong password is said under it; the same address again is not a change
    email = page.locator("[data-testid=email-form]")
    email.locator("input[name=email]").fill("lea@example.com")
    email.locator("input[name=password]").fill("not the password 1")
    email.locator("button[type=submit]").click()
    page.wait_for_selector("#email-password-error:not([hidden])")
    assert "wrong password" in error_of(email, "password")
    email.locator("input[name=email]").fill("lea@example.com")
    email.locator("input[name=password]").fill(PASSWORD)
    email.locator("button[type=submit]").click()
    page.wait_for_selector("text=Your address is lea@example.com.")
    email.locator("input[name=email]").fill("lea@example.com")
    email.locator("input[name=password]").fill("anything at all 1")
    email.locator("button[type=submit]").click()
    page.wait_for_selector("text=That is already your address.")
    # Password: the error is right under the field, above the rules; the rules stay linked to it
    form = page.locator("[data-testid=password-form]")
    new = "a brand new secret 77"
    form.locator("input[name=old_password]").fill(PASSWORD)
    form.locator("input[name=new_password]").fill("leaving leaving 1")
    form.locator("input[name=new_password2]").fill("leaving leaving 1")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#new_password-error:not([hidden])")
    assert "username" in error_of(form, "new_password")
    assert form.locator("input[name=new_password]").get_attribute("aria-describedby") == "new_password-error new-password-help"
    error_box = page.locator("#new_password-error").bounding_box()
    assert error_box["y"] < page.locator("#new-password-help").bounding_box()["y"]
    form.locator("input[name=new_password]").fill(new)
    form.locator("input[name=new_password2]").fill(new + "x")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("text=The two new passwords differ.")
    assert page.evaluate("document.activeElement.name") == "new_password2"
    form.locator("input[name=new_password2]").fill(new)
    form.locator("button[type=submit]").click()
    form.locator("text=Password changed.").wait_for()
    assert form.locator("input[name=new_password]").get_attribute("aria-describedby") == "new-password-help"
    tab.goto("/u/leaving/")
    page.wait_for_selector("text=Lea Ving")
    assert page.locator("p.bio").inner_text() == "שלום\nOff soon." and page.locator("p.bio").get_attribute("dir") == "auto"
    assert page.inner_text("[data-testid=me]") == "leaving"
    # Closing: asked once more, then signed out on the home page, which says so
    tab.goto("/account/")
    answers = []
    page.on("dialog", lambda dialog: (answers.append(dialog.message), dialog.accept()))
    close = page.locator("[data-testid=close-account]")
    close.locator("input[name=password]").fill(PASSWORD)  # the old one: refused
    close.locator("button[type=submit]").click()
    page.wait_for_selector("#close-password-error:not([hidden])")
    assert "wrong password" in error_of(close, "password")
    close.locator("input[name=password]").fill(new)
    close.locator("button[type=submit]").click()
    page.wait_for_url(site.url("/?closed=1"))
    page.locator("[data-testid=closed-notice]").wait_for()
    assert page.locator("[data-testid=me]").count() == 0, "signed out"
    assert len(answers) == 2 and "for good" in answers[0]
    assert page.request.get(site.url("/u/leaving/")).status == 404
    tab.errors = [e for e in tab.errors if "status of 400" not in e]  # the refusals above, shown on the page
    tab.assert_clean()
    tab.context.close()


def test_a_password_changed_in_another_tab_keeps_this_browsers_game_playing(browser, site):
    """The session that changes the password stays signed in under a new key; its other tabs' sockets
    close (4401) and come back with it. The game tab took that close for a sign-out and only watched."""
    game_tab = new_tab(browser, site).sign_up("pwtabs")
    game_tab.deal("/play/ms:7/")
    game_tab.wait_live()
    account = Tab(game_tab.context, site)  # the same browser: the same session
    account.goto("/account/")
    form = account.page.locator("[data-testid=password-form]")
    new = "another fine secret 31"
    form.locator("input[name=old_password]").fill(PASSWORD)
    form.locator("input[name=new_password]").fill(new)
    form.locator("input[name=new_password2]").fill(new)
    form.locator("button[type=submit]").click()
    form.locator("text=Password changed.").wait_for()
    game_tab.page.wait_for_timeout(3000)  # the close, the check a moment later, the reconnect
    game_tab.wait_live()
    assert "signed out" not in game_tab.page.inner_text("[data-testid=message]")
    ply = game_tab.counters()[0]
    move = str(Board.from_state(game_tab.server_state()).legal_moves()[0])
    game_tab.type_move(move)
    game_tab.wait_ply(ply + 1)
    for tab in (game_tab, account):
        tab.assert_clean()
    game_tab.context.close()


def test_a_sign_out_in_another_tab_turns_this_game_tab_to_watching(browser, site):
    game_tab = new_tab(browser, site).sign_up("leavetab")
    game_tab.deal("/play/ms:8/")
    game_tab.wait_live()
    other = Tab(game_tab.context, site)
    other.goto("/")
    other.page.click("header form button[type=submit]")  # Sign out
    other.page.wait_for_url(site.url("/"))
    game_tab.page.wait_for_selector("text=You were signed out (in another tab or on another device)")
    assert game_tab.page.is_disabled("[data-game-panel] button[data-action=undo]")
    game_tab.errors = [e for e in game_tab.errors if "status of 401" not in e and "status of 403" not in e]  # the check
    game_tab.assert_clean()
    game_tab.context.close()


def test_the_account_page_says_when_its_player_was_signed_out_meanwhile(browser, site):
    tab = new_tab(browser, site).sign_up("signedout")
    page = tab.page
    tab.goto("/account/")
    profile = page.locator("[data-testid=profile-form]")
    page.wait_for_selector("[data-testid=profile-form] fieldset:not([disabled])")
    tab.context.clear_cookies(name="sessionid")
    profile.locator("button[type=submit]").click()
    status = profile.locator("[data-status]")
    status.locator("a[href='/login/?next=/account/']").wait_for()
    assert "signed out" in status.inner_text()
    assert profile.locator("[aria-invalid]").count() == 0, "no field is at fault"
    tab.errors = [e for e in tab.errors if "status of 401" not in e and "status of 403" not in e]
    tab.assert_clean()
    tab.context.close()


def test_a_ghost_race_lobby_counts_its_racers_without_the_ghost(browser, site):
    token = site.api("POST", "/api/auth/register/", {"username": "haunted", "password": PASSWORD})["token"]
    won = api_game(site, token, ms1_safe_line())
    race = site.api("POST", "/api/races/ghost/", {"game": won["id"]}, token=token)
    tab = sign_in(new_tab(browser, site), "haunted")
    tab.goto(f"/races/{race['code']}/")
    said = tab.page.locator("[data-testid=race-status]")
    tab.page.wait_for_selector("text=against the ghost of haunted")
    assert said.inner_text().startswith("Start the race when everyone is in. 1 racer is in, against the ghost of haunted.")
    tab.assert_clean()
    tab.context.close()


def test_the_profile_lists_the_newest_finished_games_first_even_when_the_last_page_is_short(browser, site):
    """21 finished games: the newest 20 show, newest first (the export's last page holds only one)."""
    token = site.api("POST", "/api/auth/register/", {"username": "archivist", "password": PASSWORD})["token"]
    finished = []
    for number in range(1, 22):
        game = site.api("POST", "/api/games/", {"deal": f"ms:{number}", "autoplay": "safe"}, token=token)
        site.api("POST", f"/api/games/{game['id']}/resign/", token=token)
        finished.append(game["id"])
    tab = new_tab(browser, site).goto("/u/archivist/")
    rows = tab.page.locator("[data-testid=games] tbody tr")
    rows.first.wait_for()
    assert rows.count() == 20
    replays = [rows.nth(i).locator("a", has_text="replay").get_attribute("href") for i in range(20)]
    assert replays == [f"/replay/{game_id}/" for game_id in reversed(finished[1:])]
    assert not tab.errors, tab.errors
    tab.context.close()


# --- fixes after the QA pass ------------------------------------------------------------------------

# ms:1 under safe autoplay, played to where column 2 ends 8S 9C 8H 7S 6D and column 3 ends 4S 8D, with
# no free cell empty and column 1 empty: the 9 of clubs picks up a run of four that fits nowhere.
MS1_RUN_POSITION = "5a 52 6b 6c 8c 18 87v2 18 15 82v2 8h 81 18v2 61 a6 86v3 78v3 71 7a 5h 4d 47 45 b6 54v2 58 1b".split()


def open_run_position(tab: Tab):
    """A fresh ms:1 game of the signed-in player, played by keyboard to MS1_RUN_POSITION."""
    tab.deal("/play/ms:1/")
    tab.wait_live()
    for ply, move in enumerate(MS1_RUN_POSITION, start=1):
        tab.type_move(move)
        tab.wait_ply(ply)
        time.sleep(0.06)  # under the per-account rate of moves
    tab.settle()
    columns = tab.shown_state()["columns"]
    assert columns[1][-5:] == ["8S", "9C", "8H", "7S", "6D"] and columns[2][-2:] == ["4S", "8D"], columns
    return len(MS1_RUN_POSITION)


def test_a_picked_run_moves_whole_or_not_at_all(browser, site):
    tab = new_tab(browser, site).sign_up("runner")
    page = tab.page
    ply = open_run_position(tab)
    before = tab.shown_state()

    def targets():
        return page.eval_on_selector_all(".pile.target", "piles => piles.map((p) => p.dataset.pile)")

    def selected():
        return page.eval_on_selector_all(".card.selected", "cards => cards.map((c) => c.dataset.card)")

    # Clicking the 9 of clubs picks up four cards; the 8 of diamonds is no place for the 9.
    tab.card_locator("2", 4).click(position={"x": 12, "y": 8})
    assert selected() == ["9C", "8H", "7S", "6D"]
    assert "3" not in targets()
    page.click('[data-pile="3"]')
    page.wait_for_function("() => document.querySelector('[data-testid=message]').textContent.includes('nine of clubs')")
    assert tab.text("message") == "the nine of clubs cannot go on the eight of diamonds"
    assert selected() == []
    page.wait_for_timeout(300)  # nothing was sent, so nothing comes back
    tab.settle()
    assert tab.shown_state() == before and tab.counters()[0] == ply and not tab.sent[len(MS1_RUN_POSITION):]

    # Dragging the same four cards there is refused the same way, and they slide back.
    page.evaluate("() => { document.querySelector('[data-testid=message]').textContent = ''; }")
    card = tab.card_locator("2", 4).bounding_box()
    dest = tab.card_locator("3").bounding_box()
    page.mouse.move(card["x"] + 12, card["y"] + 8)
    page.mouse.down()
    page.mouse.move(card["x"] + 40, card["y"] + 20, steps=4)
    page.mouse.move(dest["x"] + dest["width"] / 2, dest["y"] + dest["height"] / 2, steps=8)
    page.mouse.up()
    page.wait_for_function("() => document.querySelector('[data-testid=message]').textContent.includes('nine of clubs')")
    page.wait_for_timeout(300)
    tab.settle()
    assert tab.shown_state() == before and tab.counters()[0] == ply and not tab.sent[len(MS1_RUN_POSITION):]

    # The run that does fit (7S 6D) still goes by clicking its bottom card: both cards, as picked.
    tab.card_locator("2", 2).click(position={"x": 12, "y": 8})
    assert selected() == ["7S", "6D"] and "3" in targets()
    page.click('[data-pile="3"]')
    tab.wait_ply(ply + 1)
    assert tab.sent[-1] == "23v2"  # the count picked up, which the server checks
    tab.settle()
    assert tab.shown_state()["columns"][2][-3:] == ["8D", "7S", "6D"]
    assert tab.shown_state()["columns"][1][-3:] == ["8S", "9C", "8H"]
    tab.assert_clean()
    tab.context.close()


def test_a_resigned_game_shows_no_stray_text(browser, site):
    token = site.api("POST", "/api/auth/register/", {"username": "quitter", "password": PASSWORD})["token"]
    game = api_game(site, token, ["5a"])
    tab = sign_in(new_tab(browser, site), "quitter")
    page = tab.page
    tab.goto(f"/games/{game['id']}/")
    tab.wait_live()
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("[data-action=resign]")
    page.wait_for_selector("[data-testid=result]:not([hidden]) [data-testid=result-headline]")
    # The panel holds the headline and the links, nothing else (no "null" where a share box would be).
    assert "null" not in page.inner_text("[data-testid=result]")
    assert page.eval_on_selector("[data-testid=result]", "r => [...r.childNodes].every((n) => n.nodeType === 1)")
    assert page.locator("[data-testid=result] .links :is(a, button)").count() == 3
    # The same after a reload, and for watchers, whose links say what they lead to.
    site.api("POST", "/api/auth/register/", {"username": "onlooker2", "password": PASSWORD})
    viewers = {
        "player": (tab, ["Watch the replay", "Play this deal again", "New random deal"]),
        "watcher": (sign_in(new_tab(browser, site), "onlooker2"), ["Watch the replay", "Play this deal", "New random deal"]),
        "stranger": (new_tab(browser, site), ["Watch the replay", "Play this deal", "New random deal"]),
    }
    for viewer, links in viewers.values():
        viewer.goto(f"/games/{game['id']}/")
        viewer.page.wait_for_selector("[data-testid=result]:not([hidden]) [data-testid=result-headline]")
        assert "null" not in viewer.page.inner_text("[data-testid=result]")
        shown = viewer.page.locator("[data-testid=result] .links :is(a, button)")
        assert [shown.nth(i).inner_text() for i in range(shown.count())] == links
    stranger = viewers["stranger"][0].page
    stranger.click("[data-testid=result] button:has-text('Play this deal')")  # a visitor plays it as a guest
    stranger.wait_for_url(lambda url: "/games/" in url and not url.rstrip("/").endswith(f"/{game['id']}"))
    for viewer, _links in viewers.values():
        viewer.assert_clean()
        viewer.context.close()


def one_move_from_the_win(browser, site, username: str) -> tuple[Tab, str]:
    """A new player's ms:1 game, played over the API to one move before the win, open in a live tab;
    and that last move."""
    token = site.api("POST", "/api/auth/register/", {"username": username, "password": PASSWORD})["token"]
    line = ms1_safe_line()
    game = api_game(site, token, line[:-1])
    tab = sign_in(new_tab(browser, site), username).goto(f"/games/{game['id']}/")
    tab.wait_live()
    return tab, line[-1]


def test_closing_the_win_dialog_leaves_the_links_under_the_table(browser, site):
    tab, last = one_move_from_the_win(browser, site, "finisher")
    page = tab.page
    tab.type_move(last)
    page.wait_for_selector("dialog[data-testid=win][open]", timeout=20000)
    assert page.locator("dialog[data-testid=win] .links :is(a, button)").count() == 3
    page.click("dialog[data-testid=win] button.primary")
    # Closed, the dialog hands the keyboard to the result under the table, not to the top of the page.
    page.wait_for_function("() => document.activeElement === document.querySelector('[data-testid=result]')")
    links = page.locator("[data-testid=result] .links :is(a, button)")
    assert [links.nth(i).inner_text() for i in range(links.count())] == [
        "Watch the replay", "Play this deal again", "New random deal",
    ]
    assert page.locator("[data-testid=result] [data-testid=share]").count() == 1
    # "Play this deal again" deals a fresh game of the same deal and autoplay.
    won_at = page.url
    page.click("[data-testid=result] button:has-text('Play this deal again')")
    page.wait_for_url(lambda url: url != won_at and "/games/" in url)
    assert page.inner_text("[data-testid=deal]") == "ms:1"
    tab.assert_clean()
    tab.context.close()


def test_the_home_page_leads_back_to_games_in_progress(browser, site):
    tab = new_tab(browser, site).sign_up("midgame")
    page = tab.page
    assert page.locator("[data-testid=games-in-progress]").is_hidden(), "none yet: no empty section"
    tab.deal("/play/ms:5/")
    first = page.url
    tab.deal("/play/ms:6/")
    tab.goto("/")
    items = page.locator("[data-testid=games-in-progress-list] li")
    items.first.wait_for()
    assert [items.nth(i).locator("a").inner_text() for i in range(items.count())] == ["ms:6", "ms:5"]
    assert "0 moves" in items.nth(1).inner_text()
    assert "null" not in page.inner_text("[data-testid=games-in-progress]")
    items.nth(1).locator("a").click()
    page.wait_for_url(first)
    for deal in (7, 8, 9, 10):
        tab.deal(f"/play/ms:{deal}/")
    tab.goto("/")
    page.wait_for_selector("text=The 5 newest of 6 games in progress.")
    assert page.locator("[data-testid=games-in-progress-list] li").count() == 5
    tab.assert_clean()
    tab.context.close()


def test_the_home_deal_field_takes_every_form_the_server_takes(browser, site):
    tab = new_tab(browser, site).sign_up("dealer")
    page = tab.page
    field = "[data-play-form] [data-testid=deal-number]"
    label = page.inner_text("[data-play-form] label:has([data-testid=deal-number])")
    assert "seed:" in label and "random" in label

    def deal(text: str) -> str:
        """Deals `text` from the home form; the deal of the game it opens."""
        tab.goto("/")
        page.fill(field, text)
        page.click("[data-play-form] button[type=submit]")
        page.wait_for_url("**/games/*/")
        return page.inner_text("[data-testid=deal]")

    assert deal(" 7 ") == "ms:7"  # pasted with spaces
    assert deal("MS:1") == "ms:1"
    assert deal("Seed:42") == "seed:42"
    assert deal("random").startswith("seed:")
    assert deal("").startswith("seed:")  # blank is a random deal, as the field says
    tab.goto("/")
    page.fill(field, "5")
    page.click("[data-testid=random-deal]")  # whatever the field says
    page.wait_for_url("**/games/*/")
    assert page.inner_text("[data-testid=deal]").startswith("seed:")
    # The server stays the judge: a deal it does not know gets its "No such deal" page.
    tab.goto("/")
    page.fill(field, "ms:0")
    page.click("[data-play-form] button[type=submit]")
    page.wait_for_url("**/play/**")
    assert "No such deal" in page.inner_text("main")
    tab.context.close()


def test_the_move_box_is_off_when_this_page_cannot_move(browser, site):
    token = site.api("POST", "/api/auth/register/", {"username": "typist", "password": PASSWORD})["token"]
    site.api("POST", "/api/auth/register/", {"username": "onlooker", "password": PASSWORD})
    game = api_game(site, token, ["5a"])
    path = f"/games/{game['id']}/"
    box, play = "[data-move-form] input", "[data-move-form] button[type=submit]"

    def move_box(tab: Tab) -> tuple[bool, bool, str]:
        """(input enabled, button enabled, the reason shown beside them)."""
        page = tab.page
        note = page.locator("[data-move-form] [data-testid=move-note]")
        return page.is_enabled(box), page.is_enabled(play), note.inner_text() if note.count() and note.is_visible() else ""

    player = sign_in(new_tab(browser, site), "typist").goto(path)
    player.wait_live()
    assert move_box(player) == (True, True, "")
    # Watchers, signed in or not, see the box off and why.
    for watcher in (sign_in(new_tab(browser, site), "onlooker"), new_tab(browser, site)):
        watcher.goto(path)
        watcher.wait_live()
        enabled, button, reason = move_box(watcher)
        assert not enabled and not button and "watching" in reason.lower()
        assert "watching" in watcher.page.get_attribute(box, "title").lower()
        # A card pressed on the table says so too (it did nothing at all).
        assert watcher.text("message") == ""
        watcher.card_locator("1").click()
        assert watcher.text("message") == "You are watching: only typist can move."
        watcher.shot("watching.png")
        watcher.assert_clean()
        watcher.context.close()
    # After a resignation the player's own box is off too.
    player.page.on("dialog", lambda dialog: dialog.accept())
    player.page.click("[data-action=resign]")
    player.page.wait_for_selector("[data-testid=status][data-status=resigned]")
    enabled, button, reason = move_box(player)
    assert not enabled and not button and "over" in reason
    player.goto(path)  # and after a reload
    player.page.wait_for_selector("[data-testid=status][data-status=resigned]")
    assert move_box(player)[:2] == (False, False)
    player.assert_clean()
    player.context.close()


def test_the_profile_fits_a_phone(browser, site):
    """Its recent games table (with "replay · race this ghost" on a won game) scrolls inside its box."""
    token = site.api("POST", "/api/auth/register/", {"username": "pocket", "password": PASSWORD})["token"]
    assert api_game(site, token, ms1_safe_line())["status"] == "won"
    phone = new_tab(browser, site, viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True)
    sign_in(phone, "pocket").goto("/u/pocket/")
    phone.page.wait_for_selector("[data-testid=games] tbody tr button:text-is('race this ghost')")
    assert phone.page.evaluate("() => document.documentElement.scrollWidth") <= 375
    phone.assert_clean()
    phone.context.close()


def test_a_replay_names_the_final_status_as_the_table_does(browser, site):
    token = site.api("POST", "/api/auth/register/", {"username": "rewinder", "password": PASSWORD})["token"]
    playing = api_game(site, token, ["5a", "52"])
    resigned = api_game(site, token, ["5a"])
    site.api("POST", f"/api/games/{resigned['id']}/resign/", token=token)
    tab = sign_in(new_tab(browser, site), "rewinder")
    for game, word in ((playing, "Playing"), (resigned, "Resigned")):
        tab.goto(f"/replay/{game['id']}/")
        tab.page.wait_for_selector("[data-replay][data-ready=true]")
        tab.page.keyboard.press("End")
        tab.page.wait_for_function("() => document.querySelector('[data-testid=replay-step]').textContent.startsWith('Action')")
        assert tab.page.inner_text("[data-testid=status]") == word
    tab.assert_clean()
    tab.context.close()


def test_a_race_lobby_tells_its_owner_to_start(browser, site):
    owner = new_tab(browser, site).sign_up("opener")
    guest = new_tab(browser, site).sign_up("joiner")
    owner.page.fill("[data-open-race] input[name=deal]", "2")
    owner.page.click("[data-testid=open-race]")
    owner.page.wait_for_url("**/races/*/")
    code = owner.page.inner_text("[data-testid=race-code]")
    guest.goto(f"/races/{code}/")
    guest.page.click("[data-testid=join-race]")
    owner.page.wait_for_selector('[data-testid=racers] [data-username="joiner"]')
    guest.page.wait_for_selector('[data-testid=racers] [data-username="joiner"]')
    assert owner.page.inner_text("[data-testid=race-status]").startswith("Start the race when everyone is in.")
    assert guest.page.inner_text("[data-testid=race-status]").startswith("Waiting for opener to start.")
    for tab in (owner, guest):
        tab.assert_clean()
        tab.context.close()


def running_race_over_the_api(site, names: tuple[str, str], deal: str) -> tuple[list[str], dict]:
    """Two new players' race on `deal`, opened by the first, joined by the second, started and
    running; their tokens and the race."""
    tokens = [site.api("POST", "/api/auth/register/", {"username": name, "password": PASSWORD})["token"] for name in names]
    race = site.api("POST", "/api/races/", {"deal": deal}, token=tokens[0])
    site.api("POST", f"/api/races/{race['code']}/join/", {}, token=tokens[1])
    site.api("POST", f"/api/races/{race['code']}/start/", {}, token=tokens[0])
    deadline = time.monotonic() + 30
    while site.api("GET", f"/api/races/{race['code']}/")["status"] != "running":
        assert time.monotonic() < deadline, "the race did not start"
        time.sleep(0.3)
    return tokens, race


def test_nobody_gets_a_link_to_a_racers_game_until_the_race_is_over(browser, site):
    """A racer's game is hidden from everyone but its player while the race runs (a line could be
    copied move for move); once it is over, racers and watchers may open it, and it leads back."""
    tokens, race = running_race_over_the_api(site, ("rival1", "rival2"), "ms:9")
    racer = sign_in(new_tab(browser, site), "rival1")
    racer.goto(f"/races/{race['code']}/")
    racer.page.wait_for_selector('[data-testid=racers] [data-username="rival2"]')
    assert racer.page.locator('[data-testid=racers] [data-username="rival2"] a').count() == 0
    watcher = new_tab(browser, site).goto(f"/races/{race['code']}/")
    watcher.page.wait_for_selector('[data-testid=racers] [data-username="rival2"]')
    assert watcher.page.locator('[data-testid=racers] [data-username="rival2"] a').count() == 0
    for token in tokens:
        site.api("POST", f"/api/races/{race['code']}/resign/", {}, token=token)
    racer.page.wait_for_selector('[data-testid=racers] [data-username="rival2"] a[title="Watch this game"]')
    watcher.page.wait_for_selector('[data-testid=racers] [data-username="rival2"] a[title="Watch this game"]')
    # The game's own page leads back to its race.
    watcher.page.click('[data-testid=racers] [data-username="rival2"] a[title="Watch this game"]')
    watcher.page.wait_for_url("**/games/*/")
    watcher.page.click(f'[data-testid=race-of-game] a:text-is("race {race["code"]}")')
    watcher.page.wait_for_url(f"**/races/{race['code']}/")
    watcher.page.wait_for_selector('[data-testid=racers] [data-username="rival2"]')
    for tab in (racer, watcher):
        tab.assert_clean()
        tab.context.close()


def test_a_racer_on_a_phone_sees_the_others_progress_above_the_table(browser, site):
    tokens, race = running_race_over_the_api(site, ("phoner", "rival3"), "ms:1")
    game = next(r["game"] for r in race_racers(site, race["code"]) if r["username"] == "rival3")
    for ply, move in enumerate(ms1_safe_line()[:12]):
        site.api("POST", f"/api/games/{game}/moves/", {"move": move, "ply": ply}, token=tokens[1])
    home = next(r["cards_home"] for r in race_racers(site, race["code"]) if r["username"] == "rival3")
    assert home > 0
    phone = sign_in(new_tab(browser, site, viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True), "phoner")
    phone.goto(f"/races/{race['code']}/")
    phone.page.wait_for_selector("[data-game-panel]:not([hidden])", timeout=20000)
    line = phone.page.locator("[data-testid=race-standing]")
    line.wait_for(state="visible")
    assert line.inner_text() == f"rival3 {home}/52"
    # On the first screen, above the table (the racers' list is below it on a phone).
    box, table = line.bounding_box(), phone.page.locator("[data-table]").bounding_box()
    assert box["y"] + box["height"] <= min(table["y"], 667), (box, table)
    phone.shot("race-phone.png")
    site.api("POST", f"/api/races/{race['code']}/resign/", {}, token=tokens[1])
    phone.page.wait_for_selector('[data-testid=race-standing]:text-is("rival3 resigned")')
    # Beside the table on a wide screen, the racers' list says it: no such line.
    wide = sign_in(new_tab(browser, site), "rival3").goto(f"/races/{race['code']}/")
    wide.page.wait_for_selector('[data-testid=racers] [data-username="phoner"]')
    assert not wide.page.locator("[data-testid=race-standing]").is_visible()
    for tab in (phone, wide):
        tab.assert_clean()
        tab.context.close()


def race_racers(site, code: str) -> list[dict]:
    return site.api("GET", f"/api/races/{code}/")["racers"]


def test_a_race_everyone_resigned_says_nobody_finished_and_a_called_off_race_says_so(browser, site):
    tokens, race = running_race_over_the_api(site, ("allquit", "allquit2"), "ms:3")
    for token in tokens:
        site.api("POST", f"/api/races/{race['code']}/resign/", {}, token=token)
    called_off = site.api("POST", "/api/races/", {"deal": "ms:4"}, token=tokens[0])
    site.api("POST", f"/api/races/{called_off['code']}/resign/", {}, token=tokens[0])
    tab = sign_in(new_tab(browser, site), "allquit")
    tab.goto(f"/races/{race['code']}/")
    tab.page.wait_for_selector("text=The race is over: nobody finished.")
    order = tab.page.inner_text("[data-testid=finish-order]")
    assert order.startswith("Nobody finished.") and "allquit: resigned" in order
    tab.goto(f"/races/{called_off['code']}/")
    tab.page.wait_for_selector("text=The race was called off before it started.")
    assert "Nobody finished." not in tab.page.inner_text("main")
    tab.assert_clean()
    tab.context.close()


def test_a_move_made_elsewhere_first_is_explained_in_a_players_words(browser, site):
    token = site.api("POST", "/api/auth/register/", {"username": "twotabs", "password": PASSWORD})["token"]
    game = api_game(site, token, [])
    tab = sign_in(new_tab(browser, site), "twotabs").goto(f"/games/{game['id']}/")
    page = tab.page
    tab.wait_live()
    # Another device moves first, and its push has not reached this page yet when the player moves.
    page.evaluate("() => { window.fc.client.onState = () => {}; }")
    site.api("POST", f"/api/games/{game['id']}/moves/", {"move": "5a", "ply": 0}, token=token)
    tab.type_move("6b")
    page.wait_for_selector("[data-testid=message][data-code=ply_conflict]")
    assert tab.text("message") == "This game changed in another tab or device; the board is up to date now."
    tab.wait_ply(1)
    tab.settle()
    assert tab.shown_state() == tab.server_state() and tab.server_state()["cells"][0]
    tab.assert_clean()
    tab.context.close()


def test_the_win_shows_soon_after_the_last_move(browser, site):
    """ms:1's last move sends 27 cards home by autoplay: the cascade is quick and says a win is coming."""
    tab, last = one_move_from_the_win(browser, site, "sprinter")
    page = tab.page
    tab.type_move(last)
    page.wait_for_selector("[data-testid=status][data-status=won]")
    # Timed from the won status (the server's answer is in), so only the page's cascade counts: it
    # took 4.5 s at 140 ms a card, and is now capped at 1.2 s. The celebration follows it at once (the
    # win dialog waits for the celebration, or for a key or a tap).
    started = time.monotonic()
    assert "won" in tab.text("message").lower()  # said while the last cards fly home
    page.wait_for_selector("[data-testid=celebration]", state="attached", timeout=20000)
    assert time.monotonic() - started < 3, "the celebration waited too long for the last autoplay cascade"
    page.keyboard.press("Shift")  # a key brings the result without waiting for the celebration's end
    page.wait_for_selector("dialog[data-testid=win][open]", timeout=5000)
    page.click("dialog[data-testid=win] button.primary")
    assert tab.text("message") == ""
    tab.assert_clean()
    tab.context.close()


# --- accessibility (second audit) ---------------------------------------------------------------------


def announced(page) -> str:
    return page.text_content("[data-game-panel]:not([hidden]) [data-testid=announce]")


def test_a_screen_reader_hears_moves_undos_and_autoplay_and_single_keys_can_be_turned_off(browser, site):
    tab = new_tab(browser, site).sign_up("reader")
    page = tab.page
    tab.deal("/play/ms:1/")
    tab.wait_live()
    # The clock, the counters and the piles: not read out every second, and the piles' labels reach
    # the accessibility tree (a bare div's aria-label is dropped).
    for testid in ("clock", "moves", "undos"):
        assert page.get_attribute(f"[data-testid={testid}]", "aria-live") == "off", testid
    tree = page.locator("[data-table]").aria_snapshot()
    assert 'group "free cell a, empty"' in tree and 'group "column 1, 7 cards: ' in tree, tree

    board = Board.from_deal("ms:1")
    board.safe_autoplay()
    name = lambda card: page.get_attribute(f'[data-card="{card}"]', "aria-label")  # noqa: E731
    for ply, move in enumerate(MS1_RUN_POSITION[:7], start=1):
        before = [list(map(str, column)) for column in board.columns]
        played = board.play(move, autoplay="safe")
        tab.type_move(move)
        tab.wait_ply(ply)
        time.sleep(0.06)  # under the per-account rate of moves
        if move == "6c":  # the two of clubs, then autoplay takes both aces and the two home
            page.wait_for_function("() => document.querySelector('[data-testid=announce]').textContent.includes('Autoplay')")
            assert announced(page) == (
                f"the {name(before[5][-1])} to free cell c. Autoplay sent home the "
                + ", the ".join(name(card) for card in ("AC", "AS", "2C")) + "."
            ), (announced(page), played)
    # A run says every card it moves (87v2: two cards onto column 7), not only the exposed one.
    run = before[7][-2:]
    assert announced(page) == f"the {name(run[0])} and the {name(run[1])} to column 7.", announced(page)
    tab.type_move("u")
    tab.wait_ply(8)
    page.wait_for_function("() => document.querySelector('[data-testid=announce]').textContent.startsWith('Undone')")
    assert announced(page) == "Undone. 1 undo."

    # Single-key play can be turned off (speech input); the "Type a move" box still plays, and the
    # setting lasts over a reload.
    page.click("details.help summary")
    page.uncheck("[data-testid=single-keys]")
    page.reload()
    tab.wait_live()
    tab.type_move("u")
    time.sleep(0.5)
    assert tab.counters() == (8, 1)
    page.fill("[data-testid=move-input]", "87v2")
    page.press("[data-testid=move-input]", "Enter")
    tab.wait_ply(9)
    # On again, a key pressed on a link is still no move.
    page.click("details.help summary")
    page.check("[data-testid=single-keys]")
    page.focus("[data-testid=player]")
    page.keyboard.press("u")
    time.sleep(0.5)
    assert tab.counters() == (9, 1)

    # The connection banner ticks its seconds without rebuilding: a focused "Retry now" keeps the focus.
    page.evaluate("() => window.fc.client.onSocketDown({code: 1006, retryInMs: 5000})")
    retry = page.locator("[data-testid=connection] button")
    retry.focus()
    before_tick = page.text_content("[data-testid=connection]")
    time.sleep(2.2)
    assert page.text_content("[data-testid=connection]") != before_tick  # the seconds went on
    assert page.evaluate("() => document.activeElement === document.querySelector('[data-testid=connection] button')")
    page.evaluate("() => window.fc.client.hideBanner()")

    # Resigning hides the Resign button: the keyboard goes on from the result, not the top of the page.
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-action=resign]")
    page.wait_for_function("() => document.activeElement === document.querySelector('[data-testid=result]')")
    assert "resigned" in page.inner_text("[data-testid=result]")
    tab.assert_clean()
    tab.context.close()


def test_a_deal_button_works_after_signing_in_again_in_another_tab(browser, site):
    """The start page's form holds the CSRF token of its first load; signing out and in again in another
    tab changes it, and pressing Deal then met Django's 403 (site.js now sends the token of the moment)."""
    tab = new_tab(browser, site).sign_up("retabbed")
    tab.goto("/play/ms:3/")
    other = Tab(tab.context, site).goto("/")
    with other.page.expect_navigation():
        other.page.click("header button:has-text('Sign out')")
    assert other.page.locator("[data-testid=me]").count() == 0  # signed out
    sign_in(other, "retabbed")
    tab.page.click("[data-testid=start]")
    tab.page.wait_for_url("**/games/*/")
    assert tab.page.inner_text("[data-testid=deal]") == "ms:3"
    tab.assert_clean()
    tab.context.close()


def test_a_newcomer_reads_the_rules_the_daily_clock_and_no_stale_hint(browser, site):
    tab = new_tab(browser, site).sign_up("newcomer")
    page = tab.page
    tab.goto("/")
    page.wait_for_selector("[data-testid=next-daily]", timeout=90000)
    assert "(a UTC day)" in page.inner_text("[data-daily]")
    assert re.fullmatch(r"Next deal in \d+ h \d+ min\.", page.inner_text("[data-testid=next-daily]"))
    tab.deal("/play/1/")
    tab.wait_live()
    assert page.locator("details.help p", has_text="Win by building the four foundations").count() == 1
    tab.type_move(ms1_safe_line()[0])
    tab.wait_ply(1)
    page.click("[data-action=hint]")
    page.wait_for_function("() => document.querySelector('[data-testid=message]').textContent.startsWith('Hint: ')", timeout=30000)
    page.click("[data-action=undo]")
    tab.wait_ply(2)
    assert tab.text("message") == ""  # the hint named a card of the position undone
    assert [e for e in tab.errors if "503" not in e] == []  # the home page's daily_pending while it was made
    tab.context.close()
