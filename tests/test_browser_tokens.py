"""The account page's API tokens in a real browser: made with chosen scopes (the key shown once and
copied), used against the API, listed, and revoked."""

from __future__ import annotations

import pytest

from tests.support.browser import new_tab

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_player_makes_uses_and_revokes_a_token_on_the_account_page(browser, site):
    tab = new_tab(browser, site, permissions=["clipboard-read", "clipboard-write"]).sign_up("tokenmaker")
    page = tab.page
    tab.goto("/account/")
    section = page.locator("[data-testid=tokens]")
    # A sign-up on the page makes no token (the page has its session).
    section.locator("[data-token-status]", has_text="You have no API tokens.").wait_for()

    form = section.locator("[data-testid=token-form]")
    form.locator("[name=scopes][value=read]").uncheck()
    form.locator("input[name=name]").fill("my bot")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#token-scopes-error:not([hidden])")
    assert "at least one scope" in page.inner_text("#token-scopes-error")

    form.locator("[name=scopes][value=read]").check()
    form.locator("[name=scopes][value=play]").check()
    form.locator("button[type=submit]").click()
    form.locator("text=Token “my bot” created.").wait_for()
    key = section.locator("[data-testid=new-token-key]").input_value()
    assert key.startswith("fco_")
    section.locator("[data-copy-token]").click()
    section.locator("[data-copy-status]", has_text="Copied.").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == key

    row = section.locator("[data-testid=token-row]", has_text="my bot")
    assert "read, play" in row.inner_text() and key not in section.locator("#token-list").inner_text()
    # The key works, within its scopes.
    assert site.api("GET", "/api/me/", token=key)["username"] == "tokenmaker"
    with pytest.raises(AssertionError, match="403"):
        site.api("POST", "/api/races/", {"deal": "ms:1", "autoplay": "none"}, token=key)

    # Reloaded, the page no longer shows the key; revoking ends it.
    tab.goto("/account/")
    assert section.locator("[data-new-token]").is_hidden()
    page.once("dialog", lambda dialog: dialog.accept())
    section.locator("[data-testid=token-row]", has_text="my bot").locator("[data-testid=revoke-token]").click()
    section.locator("[data-token-status]", has_text="Token “my bot” revoked.").wait_for()
    assert section.locator("[data-testid=token-row]", has_text="my bot").count() == 0
    with pytest.raises(AssertionError, match="401"):
        site.api("GET", "/api/me/", token=key)
    tab.assert_clean()
    tab.context.close()
