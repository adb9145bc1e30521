"""Table settings (card style, table colour, sound) kept with the account: GET/PATCH /api/me/ `settings`, checked
strictly, and written on every page's <html> for a signed-in player (a visitor's stay in their browser)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts.models import Profile
from tests.support.players import client_for

pytestmark = pytest.mark.django_db


def patch(client, body):
    return client.patch("/api/me/", data=json.dumps(body), content_type="application/json")


def test_a_new_player_has_the_default_settings(alice):
    assert client_for(alice).get("/api/me/").json()["settings"] == {"deck": "classic", "felt": "green", "sound": "on"}


def test_a_patch_changes_the_settings_it_names_and_keeps_the_others(alice):
    client = client_for(alice)
    answer = patch(client, {"settings": {"deck": "four"}})
    assert answer.status_code == 200, answer.content
    assert answer.json()["settings"] == {"deck": "four", "felt": "green", "sound": "on"}
    assert patch(client, {"settings": {"felt": "slate"}}).json()["settings"] == {"deck": "four", "felt": "slate", "sound": "on"}
    assert patch(client, {"bio": "hello"}).json()["settings"] == {"deck": "four", "felt": "slate", "sound": "on"}  # untouched
    assert client.get("/api/me/").json()["settings"] == {"deck": "four", "felt": "slate", "sound": "on"}
    assert Profile.objects.get(user=alice).settings == {"deck": "four", "felt": "slate", "sound": "on"}


def test_the_sound_is_a_setting_off_or_on_written_on_the_pages_when_off(alice):
    client = client_for(alice)
    assert patch(client, {"settings": {"sound": "off"}}).json()["settings"] == {"deck": "classic", "felt": "green", "sound": "off"}
    browser = Client()
    browser.force_login(alice)
    assert '<html lang="en" data-settings="account" data-deck="classic" data-felt="green" data-sound="off">' in browser.get("/").content.decode()
    assert patch(client, {"settings": {"sound": "on"}}).json()["settings"]["sound"] == "on"
    assert "data-sound" not in browser.get("/").content.decode()


@pytest.mark.parametrize(
    "chosen, field",
    [
        ({"sound": True}, "sound"),
        ({"sound": "loud"}, "sound"),
        ({"deck": "gold"}, "deck"),
        ({"felt": "pink"}, "felt"),
        ({"deck": 1}, "deck"),
        ({"felt": ["green"]}, "felt"),
        ({"deck": None}, "deck"),
        ({"colour": "green"}, "colour"),
        ({"deck": "four", "__proto__": "x"}, "__proto__"),
    ],
)
def test_a_bad_setting_is_refused_in_the_error_shape_and_nothing_is_stored(alice, chosen, field):
    client = client_for(alice)
    answer = patch(client, {"settings": chosen, "bio": "changed"})
    assert answer.status_code == 400, answer.content
    error = answer.json()["error"]
    assert error["code"] == "invalid_request"
    assert any(message.startswith(f"{field}: ") for message in error["fields"]["settings"]), error
    assert client.get("/api/me/").json()["settings"] == {"deck": "classic", "felt": "green", "sound": "on"}
    assert Profile.objects.get(user=alice).bio == ""


@pytest.mark.parametrize("raw", ['"four"', "[]", "1", "true"])
def test_settings_must_be_an_object(alice, raw):
    answer = client_for(alice).patch("/api/me/", data=f'{{"settings": {raw}}}', content_type="application/json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_request"


def test_a_stored_choice_no_longer_offered_reads_as_the_default(alice):
    Profile.objects.filter(user=alice).update(settings={"deck": "retired", "felt": "blue", "other": 1})
    assert client_for(alice).get("/api/me/").json()["settings"] == {"deck": "classic", "felt": "blue", "sound": "on"}


def test_settings_need_a_signed_in_player(anon_client):
    assert anon_client.get("/api/me/").status_code in (401, 403)
    assert patch(anon_client, {"settings": {"deck": "four"}}).status_code in (401, 403)


def test_every_page_of_a_signed_in_player_is_drawn_with_their_settings(alice):
    patch(client_for(alice), {"settings": {"deck": "large", "felt": "red"}})
    browser = Client()
    browser.force_login(alice)
    for path in ("/", "/account/", "/daily/2020-01-01/"):
        page = browser.get(path).content.decode()
        assert '<html lang="en" data-settings="account" data-deck="large" data-felt="red">' in page, path


def test_a_visitors_page_leaves_the_settings_to_their_browser(db):
    page = Client().get("/").content.decode()
    assert '<html lang="en">' in page and "data-settings" not in page


def test_a_page_says_when_the_account_never_chose_so_the_browsers_choice_is_taken_up(alice):
    browser = Client()
    browser.force_login(alice)
    assert 'data-deck="classic" data-felt="green" data-settings-new="true"' in browser.get("/").content.decode()
    patch(client_for(alice), {"settings": {"felt": "green"}})  # chosen, even if the same as the default
    assert "data-settings-new" not in browser.get("/").content.decode()
