"""Reads never write (issue 38): a deal's layout, a profile and one's own account are read without a row made."""

from __future__ import annotations

from accounts.models import Profile
from games.models import Deal
from tests.support.players import client_for


def test_reading_a_deal_stores_nothing(db, anon_client):
    answer = anon_client.get("/api/deals/ms:123/")
    assert answer.status_code == 200 and len(answer.json()["columns"]) == 8
    assert not Deal.objects.filter(pk="ms:123").exists()


def test_a_deal_read_is_the_deal_a_game_is_dealt(alice):
    shown = client_for(alice).get("/api/deals/ms:617/").json()
    game = client_for(alice).post("/api/games/", {"deal": "ms:617", "autoplay": "none"}, format="json").json()
    assert game["state"]["columns"] == shown["columns"]
    assert Deal.objects.get(pk="ms:617").columns == shown["columns"]


def test_reading_a_profile_without_a_row_makes_none(alice, bob):
    Profile.objects.filter(user=alice).delete()
    assert client_for(bob).get("/api/users/alice/").json()["bot"] is False
    assert client_for(alice).get("/api/me/").json()["username"] == "alice"
    assert not Profile.objects.filter(user=alice).exists()
