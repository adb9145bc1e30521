"""The table's sounds in a real browser (the fixtures of tests/support/browser.py: Daphne on a fresh SQLite
file, Debian's Chromium): the switch (`data-testid="sound"`) turns them off and on, the choice outlives a
reload (kept with the account, and in the browser's local storage for a visitor, whose account takes it up
on sign-up), and a move, a refusal,
an undo and the win each make a sound while it is on and none while it is off. What sounds is counted
twice: by sound.js (`window.fcSound.played`) and by a spy on the Web Audio sources actually started.
"""

from __future__ import annotations

import pytest

from games.engine import Board
from games.engine.errors import IllegalMove
from tests.support.browser import api_game, ms1_safe_line, new_tab, register, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Counts every Web Audio source started (oscillators and noise bursts), before any page script runs.
SPY = """
(() => {
  window.audioStarts = 0;
  // A noise burst's start is AudioBufferSourceNode's own; an oscillator's is inherited.
  for (const kind of [AudioScheduledSourceNode, AudioBufferSourceNode]) {
    const original = kind.prototype.start;
    kind.prototype.start = function (...args) {
      window.audioStarts += 1;
      return original.apply(this, args);
    };
  }
})();
"""

HEARD = "() => ({played: window.fcSound.played.slice(), started: window.audioStarts})"
RESET = "() => { window.fcSound.played.length = 0; window.audioStarts = 0; }"


def refused_move(board: Board) -> str:
    """A move the rules refuse in this position (a column's card onto another column it does not fit)."""
    for source in "12345678":
        for dest in "12345678":
            if source != dest and board.columns[int(dest) - 1]:
                try:
                    board.check(source + dest)
                except IllegalMove:
                    return source + dest
    raise AssertionError("no refused move found")


def pressed(page) -> str:
    return page.get_attribute("[data-game-panel] [data-testid=sound]", "aria-pressed")


def test_the_sound_switch_is_kept_and_a_move_sounds_only_while_it_is_on(browser, site):
    token = register(site, "listener")
    line = ms1_safe_line()
    game = api_game(site, token, line[:4])
    tab = sign_in(new_tab(browser, site, viewport={"width": 1366, "height": 768}), "listener")
    page = tab.page
    page.add_init_script(SPY)
    tab.goto(f"/games/{game['id']}/")
    tab.wait_live()
    switch = page.locator("[data-game-panel] [data-testid=sound]")
    assert pressed(page) == "true" and switch.inner_text().strip() == "Sound"

    # On: a move clicked makes the pick-up and the move's sounds, and Web Audio plays them.
    tab.click_move(line[4])
    tab.wait_ply(5)
    heard = page.evaluate(HEARD)
    assert heard["played"][0] == "pick" and ("move" in heard["played"] or "home" in heard["played"]), heard
    assert heard["started"] >= 2, heard

    # A refused move sounds too, and so does an undo.
    page.evaluate(RESET)
    wrong = refused_move(Board.from_state(tab.server_state()))
    page.fill("[data-testid=move-input]", wrong)
    page.press("[data-testid=move-input]", "Enter")
    page.wait_for_selector("[data-testid=message][data-code=illegal_move]")
    assert page.evaluate(HEARD)["played"] == ["refuse"]
    page.evaluate(RESET)
    page.click("[data-testid=undo]")
    tab.wait_ply(6)
    heard = page.evaluate(HEARD)
    assert heard["played"] == ["undo"] and heard["started"] >= 1, heard

    # Off: kept with the account and in this browser, and a move makes no sound at all.
    switch.click()
    assert pressed(page) == "false"
    page.wait_for_function("async () => (await (await fetch('/api/me/')).json()).settings.sound === 'off'")
    assert page.evaluate("() => localStorage.getItem('fc-sound')") == "off"
    page.evaluate(RESET)
    tab.click_move(line[4])
    tab.wait_ply(7)
    assert page.evaluate(HEARD) == {"played": [], "started": 0}

    # A reload keeps it off (the server writes it on the page); on again, a reload keeps it on.
    page.reload()
    tab.wait_live()
    assert pressed(page) == "false"
    assert page.evaluate("() => document.documentElement.dataset.sound") == "off"
    switch.click()
    assert pressed(page) == "true"
    page.wait_for_function("async () => (await (await fetch('/api/me/')).json()).settings.sound === 'on'")
    page.reload()
    tab.wait_live()
    assert pressed(page) == "true"
    tab.shot("sound-switch-1366x768.png")
    tab.assert_clean()
    tab.context.close()


def test_the_win_sounds_and_a_visitors_choice_is_kept_in_the_browser(browser, site):
    token = register(site, "fanfare")
    line = ms1_safe_line()
    game = api_game(site, token, line[:-1])
    tab = sign_in(new_tab(browser, site, viewport={"width": 1280, "height": 800}), "fanfare")
    page = tab.page
    page.add_init_script(SPY)
    tab.goto(f"/games/{game['id']}/")
    tab.wait_live()
    tab.click_move(line[-1])
    page.wait_for_selector("[data-testid=celebration]", state="attached", timeout=20000)
    played = page.evaluate(HEARD)["played"]
    assert "win" in played and played.count("home") >= 2, played  # the last cards land, then the fanfare
    tab.assert_clean()
    tab.context.close()

    # A visitor watching a game: the switch is theirs, kept in this browser's local storage.
    visitor = new_tab(browser, site, viewport={"width": 390, "height": 844})
    visitor.goto(f"/games/{game['id']}/")
    visitor.page.wait_for_selector("[data-game-panel] [data-testid=sound]")
    assert pressed(visitor.page) == "true"
    visitor.page.click("[data-game-panel] [data-testid=sound]")
    assert pressed(visitor.page) == "false"
    visitor.page.reload()
    visitor.page.wait_for_selector("[data-game-panel] [data-testid=sound][aria-pressed=false]")
    assert visitor.page.evaluate("() => localStorage.getItem('fc-sound')") == "off"
    # Signing up in that browser, the new account takes the choice up.
    visitor.sign_up("quietone")
    visitor.page.wait_for_function("async () => (await (await fetch('/api/me/')).json()).settings.sound === 'off'")
    visitor.goto(f"/games/{game['id']}/")
    visitor.page.wait_for_selector("[data-game-panel] [data-testid=sound][aria-pressed=false]")
    visitor.assert_clean()
    visitor.context.close()
