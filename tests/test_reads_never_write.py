"""Reads never write (issue 38): a deal's layout, a profile, one's own account and today's daily are read
without a row made (the daily is made by the sweeper: games/sweeper.py)."""

from __future__ import annotations

import datetime as dt

from accounts.models import Profile
from games.models import DailyChallenge, Deal
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


def test_no_read_of_todays_daily_writes_before_or_after_the_sweeper_has_made_it(alice, clock, solver_stand_in):
    """Today's daily was made inside the first GET that asked for it (the solver run, a Deal and a
    DailyChallenge inserted). Before the sweeper makes it every read answers 503 daily_pending; after, 200;
    and not one INSERT, UPDATE or DELETE is sent while answering them, either time."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from games import sweeper
    from games.daily import services as daily

    clock.set(dt.date(2026, 3, 1))
    api, page = client_for(alice), Client()
    page.force_login(alice)
    api.get("/api/me/")  # the token's first use is noted (last_used_at, once a minute), before the count
    reads = [
        (api, "/api/daily/"),
        (api, "/api/daily/2026-03-01/"),
        (api, "/api/daily/2026-03-01/leaderboard/"),
        (api, "/api/daily/2026-03-01/histogram/"),
        (api, "/api/daily/archive/"),
        (api, "/api/users/alice/daily/"),
        (page, "/daily/"),
        (page, "/daily/2026-03-01/"),
    ]
    for made in (False, True):
        with CaptureQueriesContext(connection) as queries:
            answers = {path: client.get(path) for client, path in reads}
        writes = [q["sql"] for q in queries.captured_queries if q["sql"].split(None, 1)[0].upper() in ("INSERT", "UPDATE", "DELETE")]
        assert writes == [], (made, writes)
        for path in ("/api/daily/", "/api/daily/2026-03-01/", "/api/daily/2026-03-01/leaderboard/", "/api/daily/2026-03-01/histogram/"):
            expected = 200 if made else 503
            assert answers[path].status_code == expected, (path, answers[path].content)
        assert all(answers[path].status_code == 200 for path in ("/api/daily/archive/", "/api/users/alice/daily/", "/daily/", "/daily/2026-03-01/"))
        assert DailyChallenge.objects.exists() is made
        if not made:
            assert answers["/api/daily/"].json()["error"] == {
                "code": "daily_pending",
                "message": "the daily of 2026-03-01 is being prepared: try again in a few seconds",
                "retry_after": 2,
            }
            assert sweeper.make_dailies() == 2
    assert daily.get_daily(dt.date(2026, 3, 1)).par == 1
