"""The game table in a real browser (the shared fixtures of tests/support/browser.py: Daphne on a fresh
SQLite file, Debian's Chromium): the board, controls and message fit the window at laptop, desktop and
phone sizes with a 9-card and a 19-card column; Restart and New game; the hint marked on the board; a
game played and won by keyboard alone, with the win celebration; the table settings of the account
page, kept with the account; the casual clock waiting for the first action; the phone leaderboard and a
shared daily result's page. Screenshots of each page at each size land in tests/artifacts/.
"""

from __future__ import annotations

import time

import pytest

from games.engine import Board
from tests.support.browser import (
    ARTIFACTS,
    api_game,
    ms1_safe_line,
    new_tab,
    ranked_game,
    register,
    sign_in,
    winning_line,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# ms:8 under autoplay none: three moves give column 2 nine cards, all 35 give it nineteen (found by a
# beam search with the engine; checked below).
MS8_LONG = (
    "1a 12 12 71 87v2 58 5b 52 52 32 5c 5d 61 a5 b5 ca db 6c 6d 64 a6 3a 34 32 d3 52v2 6d a6 ba cb 85v2 82 68v2 62 72v2"
).split()
DESKTOPS = [(1280, 720), (1366, 768), (1920, 1080)]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}

# Where everything a player needs during play is drawn, and what lies outside the window.
LAYOUT = """() => {
    const box = (e) => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
    const inside = (r) => r.top >= -1 && r.left >= -1 && r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1;
    const panel = document.querySelector('[data-game-panel]');
    const named = {};
    for (const id of ['undo', 'hint', 'restart', 'new-game', 'move-input', 'message', 'moves', 'undos', 'clock', 'status']) {
        named[id] = box(panel.querySelector(`[data-testid="${id}"]`));
    }
    const out = [];
    for (const [id, r] of Object.entries(named)) if (!inside(r)) out.push([id, r]);
    for (const e of panel.querySelectorAll('[data-pile], [data-card]')) {
        const r = box(e.matches('.column') ? (e.lastElementChild || e) : e);
        if (!inside(r)) out.push([e.dataset.card || e.dataset.pile, r]);
    }
    // Nor does a card cover a control, the message or the status bar.
    const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    for (const e of panel.querySelectorAll('.column > [data-card]:last-child')) {
        for (const [id, r] of Object.entries(named)) if (meet(box(e), r)) out.push([e.dataset.card, 'covers', id]);
    }
    const card = box(panel.querySelector('[data-pile="1"] > [data-card]') || panel.querySelector('[data-card]'));
    return {out, scrolled: scrollY, cardWidth: card.right - card.left, longest: Math.max(...[1,2,3,4,5,6,7,8].map(
        (i) => panel.querySelectorAll(`[data-pile="${i}"] > [data-card]`).length))};
}"""


def assert_fits(tab, name: str, longest: int):
    """The board, the controls and the message are in the window, unscrolled; a screenshot is kept."""
    page = tab.page
    # A long message (a refusal's reason) must show as well.
    page.evaluate("() => window.fc.client.say('only 2 cards can move at once with these free cells and empty columns', 'error')")
    tab.settle()
    page.wait_for_timeout(150)  # the resize's layout
    seen = page.evaluate(LAYOUT)
    tab.shot(name)
    assert seen["longest"] == longest, seen
    assert seen["scrolled"] == 0 and not seen["out"], (name, seen)
    assert seen["cardWidth"] >= 38, seen  # cards scale with the window, never to specks
    page.evaluate("() => window.fc.client.say('')")
    return seen


def test_the_table_fits_laptops_desktops_and_a_phone_with_long_columns(browser, site):
    board = Board.from_deal("ms:8")
    for move in MS8_LONG:
        board.play(move, autoplay="none")
    assert max(len(column) for column in board.columns) == 19
    token = register(site, "fitter")
    game = site.api("POST", "/api/games/", {"deal": "ms:8", "autoplay": "none"}, token=token)
    for ply, move in enumerate(MS8_LONG[:3]):
        game = site.api("POST", f"/api/games/{game['id']}/moves/", {"move": move, "ply": ply}, token=token)
    phone_game = site.api("POST", "/api/games/", {"deal": "ms:8", "autoplay": "none"}, token=token)
    for ply, move in enumerate(MS8_LONG[:3]):
        phone_game = site.api("POST", f"/api/games/{phone_game['id']}/moves/", {"move": move, "ply": ply}, token=token)

    tab = sign_in(new_tab(browser, site, viewport={"width": 1280, "height": 720}), "fitter")
    page = tab.page
    tab.goto(f"/games/{game['id']}/")
    tab.wait_live()
    assert page.locator('footer a[href="/api/docs/"]').count() == 1  # every page's footer
    widths = {}
    for width, height in DESKTOPS:
        page.set_viewport_size({"width": width, "height": height})
        widths[width] = assert_fits(tab, f"table-9-{width}x{height}.png", 9)["cardWidth"]
    assert widths[1920] > widths[1366] > widths[1280] * 0.99  # the cards grow with the window

    # The rest of the line arrives over the socket: column 2 holds 19 cards, and it all still fits.
    for ply, move in enumerate(MS8_LONG[3:], start=3):
        site.api("POST", f"/api/games/{game['id']}/moves/", {"move": move, "ply": ply}, token=token)
        time.sleep(0.06)
    tab.wait_ply(len(MS8_LONG))
    for width, height in DESKTOPS:
        page.set_viewport_size({"width": width, "height": height})
        assert_fits(tab, f"table-19-{width}x{height}.png", 19)
    tab.assert_clean()
    tab.context.close()

    phone = sign_in(new_tab(browser, site, **PHONE), "fitter")
    for which, name, longest in ((phone_game, "table-9-phone-390x844.png", 9), (game, "table-19-phone-390x844.png", 19)):
        phone.goto(f"/games/{which['id']}/")
        phone.wait_live()
        assert_fits(phone, name, longest)
    phone.assert_clean()
    phone.context.close()


def test_restart_new_game_hint_and_the_table_settings(browser, site):
    tab = new_tab(browser, site, viewport={"width": 1366, "height": 768})
    page = tab.page
    # Settings chosen in this browser before the account existed: the new account takes them up.
    tab.goto("/")
    page.evaluate("() => localStorage.setItem('fc-settings', JSON.stringify({deck: 'large', felt: 'slate'}))")
    tab.sign_up("restarter")
    me = "async () => (await (await fetch('/api/me/')).json()).settings"
    deadline = time.monotonic() + 10
    while page.evaluate(me) != {"deck": "large", "felt": "slate", "sound": "on"}:
        assert time.monotonic() < deadline, page.evaluate(me)
        page.wait_for_timeout(100)
    # The account page's table settings: four-colour cards on blue, kept with the account for every page.
    tab.goto("/account/")
    saved = "() => document.querySelector('[data-testid=settings-status]').textContent === 'Saved with your account.'"
    page.check("[data-testid=deck-four]")
    page.wait_for_function(saved)
    page.check("[data-testid=felt-blue]")
    page.wait_for_function(saved)
    assert page.evaluate(me) == {"deck": "four", "felt": "blue", "sound": "on"}
    tab.shot("account-settings-1366x768.png", full_page=True)
    assert page.locator('footer a[href="/api/docs/"]').count() == 1

    tab.deal("/play/ms:1/")
    tab.wait_live()
    first = page.url
    assert page.evaluate("() => document.documentElement.dataset.felt") == "blue"
    assert "0b7a36" in page.get_attribute('[data-card="4C"]', "style")  # the four-colour deck's green clubs
    # A casual game's clock waits for the first action, then counts.
    page.wait_for_timeout(1500)
    assert tab.text("clock") == "0:00"
    line = ms1_safe_line()
    tab.type_move(line[0])
    tab.wait_ply(1)
    assert page.evaluate("() => window.fc.client.confirmed.clock_running") is True
    page.wait_for_function("() => document.querySelector('[data-game-panel] [data-testid=clock]').textContent === '0:01'", timeout=5000)

    # The hint: its card and destination are marked on the board, and a ghost of the move glides.
    page.click("[data-testid=hint]")
    page.wait_for_selector("[data-hint=to]", timeout=30000)
    message = tab.text("message")
    assert message.startswith("Hint: ")
    move = message.split()[1].rstrip(",")
    board = Board.from_state(tab.server_state())
    source = move[0]
    pile = [str(c) for c in board.columns[int(source) - 1]] if source.isdigit() else [str(board.cells["abcd".index(source)])]
    hinted = page.get_attribute("[data-hint=from]", "data-card")
    assert hinted in pile, (move, hinted, pile)  # the card the hinted move takes (a run's top card)
    destination = page.locator("[data-hint=to]")
    assert destination.get_attribute("data-pile") == move[1]
    assert page.locator(".hint-ghost").count() >= 1
    assert page.locator("[data-card]").count() == 52  # ghosts carry no data-card
    tab.shot("hint-1366x768.png")

    # Restart: the same deal afresh, the game left behind abandoned (not resigned: no loss).
    old_id = int(first.rstrip("/").split("/")[-1])
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-testid=restart]")
    page.wait_for_url(lambda url: url != first and "/games/" in url)
    tab.wait_live()
    assert tab.text("deal") == "ms:1" and tab.counters() == (0, 0)
    assert page.evaluate(f"async () => (await (await fetch('/api/games/{old_id}/')).json()).status") == "abandoned"

    # New game: a fresh seed: deal (no question asked of a game not begun).
    second = page.url
    page.click("[data-testid=new-game]")
    page.wait_for_url(lambda url: url != second and "/games/" in url)
    tab.wait_live()
    assert tab.text("deal").startswith("seed:") and int(tab.text("deal")[5:]) < 2**64
    tab.shot("new-game-1366x768.png")
    tab.assert_clean()
    tab.context.close()


def test_a_race_game_cannot_be_restarted(browser, site):
    tokens = [register(site, name) for name in ("racer1", "racer2")]
    race = site.api("POST", "/api/races/", {"deal": "ms:5"}, token=tokens[0])
    site.api("POST", f"/api/races/{race['code']}/join/", {}, token=tokens[1])
    site.api("POST", f"/api/races/{race['code']}/start/", {}, token=tokens[0])
    deadline = time.monotonic() + 30
    while (race := site.api("GET", f"/api/races/{race['code']}/"))["status"] != "running":
        assert time.monotonic() < deadline, "the race did not start"
        time.sleep(0.3)
    game = next(r["game"] for r in race["racers"] if r["username"] == "racer1")
    tab = sign_in(new_tab(browser, site), "racer1").goto(f"/games/{game}/")
    tab.wait_live()
    restart = tab.page.locator("[data-testid=restart]")
    assert restart.get_attribute("aria-disabled") == "true" and "race" in restart.get_attribute("title")
    restart.click(force=True)  # aria-disabled: it still answers, with the reason
    assert "race" in tab.text("message") and tab.page.url.endswith(f"/games/{game}/")
    tab.assert_clean()
    tab.context.close()


def test_keyboard_only_play_wins_with_a_celebration(browser, site):
    token = register(site, "keyboarder")
    line = ms1_safe_line()
    game = api_game(site, token, line[:-3])
    tab = sign_in(new_tab(browser, site, viewport={"width": 1366, "height": 768}), "keyboarder")
    page = tab.page
    tab.goto(f"/games/{game['id']}/")
    tab.wait_live()

    # The piles are focusable in reading order: the cells, the foundations, then the columns.
    page.focus("[data-testid=player]")
    order = []
    for _ in range(16):
        page.keyboard.press("Tab")
        order.append(page.evaluate("() => document.activeElement.dataset.pile"))
    assert order == list("abcd") + ["h"] * 4 + list("12345678"), order

    focused = lambda: page.evaluate("() => document.activeElement.dataset.pile")  # noqa: E731

    def go_to(pile: str):
        """Arrow keys only, from wherever the focus is to `pile`."""
        rows = [list("abcd") + ["h"] * 4, list("12345678")]
        now = page.evaluate(
            "() => { const p = document.activeElement; const all = [...document.querySelectorAll('[data-table] [data-pile]')];"
            " return all.indexOf(p); }"
        )
        row, index = divmod(now, 8)
        target_row = 0 if pile in "abcdh" else 1
        target = rows[target_row].index(pile)
        page.keyboard.press("ArrowUp" if target_row == 0 else "ArrowDown")
        for _ in range(abs(target - index)):
            page.keyboard.press("ArrowRight" if target > index else "ArrowLeft")
        assert focused() == pile, (pile, focused())

    # The last three moves of the win, each picked up with Enter or Space and put down the same way;
    # Enter again on the picked-up pile takes one card fewer (part of a run to an empty column).
    for step, move in enumerate(line[-3:]):
        go_to(move[0])
        page.keyboard.press("Enter" if step % 2 == 0 else " ")
        assert page.locator(".card.selected").count() >= 1
        if "v" in move:
            while page.locator(".card.selected").count() > int(move.split("v")[1], 16):
                page.keyboard.press("Enter")
        go_to(move[1])
        page.keyboard.press(" " if step % 2 == 0 else "Enter")
        tab.wait_ply(len(line) - 3 + step + 1)
        time.sleep(0.06)

    # The win: the cards cascade off the table, then the result dialog opens over it.
    page.wait_for_selector("[data-testid=celebration]", state="attached", timeout=20000)
    assert page.locator("[data-testid=celebration] canvas").count() == 1
    page.wait_for_timeout(600)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "celebration-1366x768.png"))
    page.wait_for_selector("dialog[data-testid=win][open]", timeout=20000)
    page.wait_for_timeout(1200)
    page.screenshot(path=str(ARTIFACTS / "celebration-dialog-1366x768.png"))
    page.click("dialog[data-testid=win] button.primary")
    page.wait_for_selector("[data-testid=celebration]", state="detached", timeout=5000)
    assert not page.locator(".card.launched").count()  # every card back on its foundation
    tab.assert_clean()
    tab.context.close()


def test_a_phone_wins_without_motion_when_the_player_asks_for_less(browser, site):
    token = register(site, "stillness")
    line = ms1_safe_line()
    game = api_game(site, token, line[:-1])
    phone = sign_in(new_tab(browser, site, reduced_motion="reduce", **PHONE), "stillness")
    phone.goto(f"/games/{game['id']}/")
    phone.wait_live()
    phone.page.fill("[data-testid=move-input]", line[-1])
    phone.page.press("[data-testid=move-input]", "Enter")
    phone.page.wait_for_selector("[data-testid=celebration].still", timeout=20000)
    assert phone.page.locator("[data-testid=celebration] canvas").count() == 0
    phone.page.wait_for_selector("dialog[data-testid=win][open]", timeout=20000)
    phone.shot("win-phone-still-390x844.png")
    phone.assert_clean()
    phone.context.close()


def test_the_phone_leaderboard_shows_the_time_and_you_apart_from_par(browser, site):
    tokens = {}
    for name in ("lb_first", "lb_second"):
        tokens[name] = token = register(site, name)
        started = time.monotonic()
        game = ranked_game(site, token)
        line = winning_line(Board.from_state(game["state"]))
        for ply, move in enumerate(line):
            if ply == len(line) - 1:
                time.sleep(max(0, 0.2 * (ply + 1) - (time.monotonic() - started)))  # a human pace, not flagged
            site.api("POST", f"/api/games/{game['id']}/moves/", {"move": move, "ply": ply}, token=token)
            time.sleep(0.06)
    date = game["deal"][6:]
    phone = sign_in(new_tab(browser, site, **{**PHONE, "viewport": {"width": 360, "height": 740}}), "lb_second")
    page = phone.page
    phone.goto(f"/daily/{date}/")
    page.wait_for_selector("[data-testid=leaderboard] tr.me")
    time_header = page.locator("[data-testid=leaderboard] th", has_text="Time").bounding_box()
    scroller = page.locator("[data-testid=leaderboard] .table-scroll").bounding_box()
    assert time_header["x"] + time_header["width"] <= scroller["x"] + scroller["width"] + 1, (time_header, scroller)
    assert page.locator("[data-testid=leaderboard] tr.me a.replay-link").is_visible()
    # "you" over the bar at par, on a phone-wide chart: the par label keeps its own band above the plot.
    labels = page.evaluate(
        """async () => {
            const { histogramSvg } = await import('/static/frontend/js/leaderboard.js');
            const svg = histogramSvg([{moves: 34, count: 5}, {moves: 36, count: 2}], {par: 34, me: 34, width: 330});
            const box = document.createElement('div');
            box.className = 'histogram';
            box.style.width = '330px';
            box.append(svg);
            document.querySelector('main').append(box);
            const rect = (e) => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; };
            return {you: rect(svg.querySelector('.me-label')), par: rect(svg.querySelector('.par-label'))};
        }"""
    )
    you, par = labels["you"], labels["par"]
    apart = you["y"] >= par["y"] + par["height"] or par["y"] >= you["y"] + you["height"] \
        or you["x"] >= par["x"] + par["width"] or par["x"] >= you["x"] + you["width"]
    assert apart, (you, par)
    assert page.locator('footer a[href="/api/docs/"]').count() == 1
    phone.shot("leaderboard-phone-360x740.png", full_page=True)
    phone.assert_clean()
    phone.context.close()

    # The shared result's page, as a friend who follows the link sees it while the day lasts: the
    # numbers and their picture, no way to the replay yet, and no sideways scrolling.
    for name, options in (("phone-390x844", PHONE), ("1366x768", {"viewport": {"width": 1366, "height": 768}})):
        friend = new_tab(browser, site, **options)
        friend.goto(f"/daily/{date}/result/lb_second/")
        assert friend.page.locator("[data-testid=result-picture]").is_visible()
        assert friend.page.inner_text("[data-testid=result-status]") == "Won"
        assert friend.page.inner_text("[data-testid=result-moves]").startswith(str(len(line)))
        assert friend.page.locator("[data-testid=result-replay-later]").is_visible()
        assert friend.page.locator("a[href^='/replay/']").count() == 0
        assert friend.page.evaluate("() => document.documentElement.scrollWidth <= innerWidth"), name
        friend.shot(f"daily-result-{name}.png", full_page=True)
        friend.assert_clean()
        friend.context.close()


def test_the_other_pages_at_each_size_fit_the_width_and_link_the_api_docs(browser, site):
    token = register(site, "sightseer")
    game = api_game(site, token, ms1_safe_line()[:5])
    pages = {"home": "/", "profile": "/u/sightseer/", "account": "/account/", "replay": f"/replay/{game['id']}/"}
    desktop = sign_in(new_tab(browser, site), "sightseer")
    phone = sign_in(new_tab(browser, site, **PHONE), "sightseer")
    for tab, sizes in ((desktop, DESKTOPS), (phone, [(390, 844)])):
        for name, path in pages.items():
            tab.goto(path)
            if name == "replay":
                tab.page.wait_for_selector("[data-replay][data-ready=true]")
            for width, height in sizes:
                tab.page.set_viewport_size({"width": width, "height": height})
                tab.page.wait_for_timeout(100)
                assert tab.page.evaluate("() => document.documentElement.scrollWidth <= innerWidth"), (name, width)
                assert tab.page.locator('footer a[href="/api/docs/"]').count() == 1, name
                tab.shot(f"page-{name}-{width}x{height}.png", full_page=True)
        assert [e for e in tab.errors if "503" not in e] == []  # the home page's daily_pending while it is made
        tab.context.close()
