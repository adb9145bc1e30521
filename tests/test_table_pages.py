"""The game table's pages without a browser: the hooks of the spec's section 9 in the game page, Restart
and New game present, a race game's page telling its script it is a race's, and the API docs linked from
every page's footer."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games.play import services

SECTION_9_TESTIDS = ["moves", "undos", "status", "clock", "message", "move-input", "undo", "hint", "restart", "new-game"]


@pytest.fixture
def game(alice):
    return services.create_game(player=alice, deal="ms:1", autoplay="safe")


def test_the_game_page_carries_every_hook_of_the_spec(alice, game):
    client = Client()
    client.force_login(alice)
    html = client.get(f"/games/{game.id}/").content.decode()
    for testid in SECTION_9_TESTIDS:
        assert re.search(rf'data-testid="{testid}"', html), testid
    assert "data-table" in html  # the table, drawn with its data-pile and data-card marks by table.js


@pytest.mark.parametrize("path", ["/", "/login/", "/signup/", "/no-such-page/"])
def test_every_page_links_the_api_docs_in_its_footer(db, path):
    html = Client().get(path).content.decode()
    footer = re.search(r'<footer class="site-footer">(.*?)</footer>', html, re.S)
    assert footer and 'href="/api/docs/"' in footer.group(1)


def test_the_game_pages_footer_links_the_api_docs_too(alice, game):
    client = Client()
    client.force_login(alice)
    assert 'href="/api/docs/"' in client.get(f"/games/{game.id}/").content.decode()
