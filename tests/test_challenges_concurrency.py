"""Challenges answered at once on PostgreSQL with real threads: one answer wins, the other is challenge_over."""

from __future__ import annotations

import pytest

from freecell_site.errors import ServiceError
from games.models import Challenge, Race
from games.races import challenges
from tests.support.players import make_player
from tests.test_concurrency import race_threads

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def answer(index: int, challenge_id: int, challenger, challenged):
    """The first thread accepts, the second cancels."""
    if index == 0:
        return challenges.accept(user=challenged, challenge_id=challenge_id)
    return challenges.cancel(user=challenger, challenge_id=challenge_id)


def test_an_accept_and_a_cancel_at_once_settle_it_once(db):
    alice, bob = make_player("alice"), make_player("bob")
    for _ in range(4):
        challenge = challenges.send(user=alice, username="bob", deal="ms:1")
        results = race_threads(2, lambda i, pk=challenge.pk: answer(i, pk, alice, bob))
        won = [r for r in results if isinstance(r, Challenge)]
        lost = [r for r in results if isinstance(r, ServiceError)]
        assert len(won) == 1 and len(lost) == 1, results
        assert lost[0].code == "challenge_over"
        stored = Challenge.objects.get(pk=challenge.pk)
        assert stored.status == won[0].status
        assert (stored.race_id is not None) == (stored.status == "accepted")
    assert Race.objects.count() == Challenge.objects.filter(status="accepted").count()


def test_two_accepts_at_once_make_one_race(db):
    alice, bob = make_player("alice"), make_player("bob")
    challenge = challenges.send(user=alice, username="bob")
    results = race_threads(4, lambda i: challenges.accept(user=bob, challenge_id=challenge.pk))
    assert sum(isinstance(r, Challenge) for r in results) == 1, results
    assert all(r.code == "challenge_over" for r in results if isinstance(r, ServiceError))
    assert Race.objects.count() == 1
