"""The ndjson streams across two real Daphne processes on PostgreSQL and Redis: a change made through
one process reaches a stream held open on the other (docs/streams.md; bench/streams.py measures the delay)."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import pytest

from tests.support.servers import fresh_database, register, server_env, servers
from tests.support.streams import LiveStream

pytestmark = [pytest.mark.services, pytest.mark.timeout(180)]

#: Far above the second the spec asks for: a shared test machine may stall, and a test never times.
GENEROUS = 5.0


@pytest.fixture(scope="module")
def database():
    """A fresh database named after the one in DATABASE_URL (each developer's and CI's own)."""
    with fresh_database(urlsplit(os.environ["DATABASE_URL"]).path.strip("/") + "_live") as url:
        yield url


def test_a_move_a_friend_request_and_a_join_made_on_one_process_reach_streams_held_on_another(database):
    env = server_env(database, os.environ["REDIS_URL"], STREAM_KEEPALIVE_S="1")
    with servers(2, env) as (one, two):
        alice, bob = register(one, "st_alice"), register(two, "st_bob")
        status, game = one.call("POST", "/api/games/", {"deal": "ms:1", "autoplay": "none"}, alice)
        assert status == 201, game
        shown = two.call("GET", f"/api/games/{game['id']}/")[1]

        watcher = LiveStream(two.base, f"/api/stream/games/{game['id']}/")
        events = LiveStream(two.base, "/api/stream/events/", bob)
        try:
            assert (watcher.status, events.status) == (200, 200)
            assert watcher.line(GENEROUS) == shown
            status, answer = one.call(
                "POST", f"/api/games/{game['id']}/moves/", {"move": "5a", "ply": 0}, alice
            )
            assert status == 200, answer
            moved = watcher.line(GENEROUS)
            assert (moved["ply"], moved["version"]) == (1, answer["version"])

            assert one.call("POST", "/api/friends/requests/", {"username": "st_bob"}, alice)[0] in (200, 201)
            assert events.line(GENEROUS) == {"type": "friend_request", "from": "st_alice"}

            status, race = one.call("POST", "/api/races/", {"deal": "ms:2"}, alice)
            assert status == 201, race
            following = LiveStream(two.base, f"/api/stream/races/{race['code']}/")
            try:
                assert following.line(GENEROUS)["version"] == race["version"]
                assert one.call("POST", f"/api/races/{race['code']}/join/", token=bob)[0] == 200
                joined = following.line(GENEROUS)
                assert [r["username"] for r in joined["racers"]] == ["st_alice", "st_bob"]
            finally:
                following.close()
        finally:
            watcher.close()
            events.close()
