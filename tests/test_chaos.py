"""Chaos in CI: players keep playing through a server SIGKILL, a Redis restart and a PostgreSQL fault,
and every acknowledged action is stored exactly once (a shorter bench/chaos.py; see docs/proof.md).

The machine's PostgreSQL cluster is shared with other tests running at the same time, so this test
never restarts it. It runs on a PostgreSQL instance of its own (initdb in a temporary folder, as the
postgres user, on a free port) and stops it like a crash and starts it again; where that cannot be
done (not root, no postgres user), it terminates every connection to its own database on the shared
cluster instead (`pg_terminate_backend`: the servers see what a restart does to them). `bench/chaos.py
--postgres cluster` restarts the machine's whole cluster.
"""

from __future__ import annotations

import os
import shutil

import pytest

pytestmark = pytest.mark.slow


@pytest.mark.services
@pytest.mark.timeout(300)
@pytest.mark.skipif(not shutil.which("redis-server"), reason="needs redis-server for a private Redis")
def test_no_acknowledged_action_is_lost_or_applied_twice_through_kills_and_restarts():
    from bench.chaos import PrivatePostgres, chaos

    run, verdict, text = chaos(
        players=12,
        seconds=50,
        think=0.25,
        seed=7,
        postgres="private" if PrivatePostgres.available() else "terminate",
        faults=["kill:0", "redis", "postgres", "kill:1"],
        name=f"freecell_chaos_ci_{os.getpid()}",
    )
    print(text)
    assert verdict.lost == 0, verdict.details
    assert verdict.twice == 0, verdict.details
    assert verdict.unacked == 0, verdict.details
    assert verdict.stored_total == verdict.acked
    assert verdict.verify_games.endswith(", 0 differ from their history"), verdict.verify_games
    assert not run.stats.refusals, f"actions refused outright: {dict(run.stats.refusals)}"
    assert verdict.acked > 200, "the players hardly played"
    assert run.stats.retries > 0, "no fault was felt: the run proves nothing"
    assert {p.transport for p in run.players} == {"ws", "rest"} and run.stats.races > 0


# --- Redis going away must not stop REST play (found by the chaos run) -----------------------------


@pytest.fixture
def redis_down(settings):
    """The cache is Redis at an address where nothing listens, as while Redis restarts."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    settings.REDIS_URL = "redis://127.0.0.1:9/0"


@pytest.fixture
def _fresh_cache():
    """Overrides conftest's: clearing the cache would need the Redis these tests take away."""
    yield


@pytest.mark.django_db
def test_the_per_account_action_limit_fails_open_while_redis_is_down(alice, redis_down, settings):
    from games.play import services

    settings.ACTIONS_PER_SECOND = 20
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    assert services.play_move(game_id=game.pk, user=alice, move="5a", ply=0).game.ply == 1


@pytest.mark.django_db
def test_a_rest_move_is_stored_while_redis_is_down(alice, alice_client, redis_down):
    from games.play import services

    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    answer = alice_client.post(f"/api/games/{game.pk}/moves/", {"move": "5a", "ply": 0}, format="json")
    assert answer.status_code == 200, answer.content


@pytest.mark.django_db
def test_a_token_login_works_while_redis_is_down(alice, anon_client, redis_down):
    from tests.support.players import PASSWORD

    answer = anon_client.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json")
    assert answer.status_code == 200, answer.content
