"""Concurrent writers on PostgreSQL with real threads: one action per ply, resends answered once."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from freecell_site.errors import ServiceError
from games.models import Action, Game
from games.play import services

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def race_threads(count: int, work) -> list:
    """Runs `work()` in `count` threads released together; returns each result or exception."""
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = work(index)
        except Exception as exc:  # collected for the assertions
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_many_requests_with_the_same_ply_apply_exactly_one(alice):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    # Different moves, all legal at ply 0: exactly one may win the ply.
    moves = ["3a", "3b", "1a", "2a", "4a", "5a", "6a", "7a"] * 2
    results = race_threads(len(moves), lambda i: services.play_move(game_id=game.pk, user=alice, move=moves[i], ply=0))
    applied = [r for r in results if isinstance(r, services.Outcome) and not r.repeated]
    repeated = [r for r in results if isinstance(r, services.Outcome) and r.repeated]
    conflicts = [r for r in results if isinstance(r, ServiceError) and r.code == "ply_conflict"]
    assert len(applied) == 1
    assert len(applied) + len(repeated) + len(conflicts) == len(moves), results
    assert all(r.action.notation == applied[0].action.notation for r in repeated)
    assert Action.objects.filter(game=game).count() == 1
    assert Game.objects.get(pk=game.pk).ply == 1


def test_the_same_move_sent_many_times_is_applied_once(alice):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    results = race_threads(12, lambda i: services.play_move(game_id=game.pk, user=alice, move="3a", ply=0, client_id="tab-1"))
    assert all(isinstance(r, services.Outcome) for r in results), results
    assert sum(not r.repeated for r in results) == 1
    assert Action.objects.filter(game=game).count() == 1
    assert Game.objects.get(pk=game.pk).state["cells"][0] == "2H"


def test_concurrent_undos_take_back_one_move(alice):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    services.play_move(game_id=game.pk, user=alice, move="3a", ply=0)
    services.play_move(game_id=game.pk, user=alice, move="3b", ply=1)
    results = race_threads(8, lambda i: services.undo(game_id=game.pk, user=alice, ply=2))
    assert sum(isinstance(r, services.Outcome) and not r.repeated for r in results) == 1
    stored = Game.objects.get(pk=game.pk)
    assert stored.undos == 1 and stored.ply == 3 and stored.state["cells"][:2] == ["2H", None]


# --- accounts (found by a concurrency test against two processes) ----------------------------------


def test_crossing_friend_requests_make_one_friendship(alice, charlie):
    from accounts import services as accounts
    from accounts.models import Friendship

    def ask(i):
        return accounts.request_friend(user=(alice, charlie)[i], username=("charlie", "alice")[i])

    def request_unfriend_or_accept(i):
        if i < 3:
            return accounts.request_friend(user=alice, username="charlie")
        if i < 5:
            return accounts.remove_friend(user=alice, username="charlie")
        return accounts.answer_request(user=charlie, username="alice", accept=True)

    for _ in range(5):
        Friendship.objects.all().delete()
        results = race_threads(2, ask)
        assert not [r for r in results if isinstance(r, Exception)], results
        rows = list(Friendship.objects.all())
        assert len(rows) == 1 and rows[0].status == "accepted", rows  # the second asked back: accepted
        # A request racing unfriends and an answer is never a server error (it was a 500).
        results = race_threads(6, request_unfriend_or_accept)
        assert all(r is None or isinstance(r, tuple) or (isinstance(r, ServiceError) and r.status == 404) for r in results), results
        assert Friendship.objects.count() <= 1


def test_password_changes_at_once_with_the_same_old_password_let_one_through(alice):
    from rest_framework.test import APIClient

    from accounts.models import AccessToken
    from accounts.tokens import digest
    from tests.support.players import PASSWORD, token_of

    key = token_of(alice)

    def change(i):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        return client.post("/api/auth/password/change/", {"old_password": PASSWORD, "new_password": f"another long secret {i}"}, format="json")

    answers = race_threads(4, change)
    assert sorted(a.status_code for a in answers) == [200, 400, 400, 400], [a.content for a in answers]
    winner = next(a for a in answers if a.status_code == 200)
    assert list(AccessToken.objects.filter(user=alice).values_list("key_digest", flat=True)) == [digest(winner.json()["token"])]


def test_a_close_racing_new_games_races_and_joins_leaves_nothing_behind(alice, bob):
    """Requests of a player already authenticated when their close runs: each either goes first (and
    the close resigns or leaves what it made) or is refused; found by a black-box pass, where a game
    and an open race of the closed account stayed behind."""
    from django.contrib.auth.models import User

    from accounts.closing import close_account
    from games.models import Race, RaceEntry
    from games.races import services as races

    bobs = races.create_race(owner=bob, deal="ms:2")
    held = User.objects.get(pk=alice.pk)

    def work(i):
        if i == 0:
            return close_account(held)
        if i % 3 == 1:
            return services.create_game(player=held, deal=f"ms:{i}")
        if i % 3 == 2:
            return races.create_race(owner=held, deal="ms:3")
        return races.join(code=bobs.code, user=held)

    results = race_threads(10, work)
    assert not [r for r in results if isinstance(r, Exception) and getattr(r, "code", "") != "authentication_failed"], results
    assert not Game.objects.filter(player=alice, status=Game.Status.PLAYING).exists()
    assert not Race.objects.filter(owner=alice).exclude(status=Race.Status.FINISHED).exists()
    assert not RaceEntry.objects.filter(player=alice, race__status=Race.Status.OPEN).exists()
    assert not User.objects.get(pk=alice.pk).is_active
