"""Quick play under concurrent callers on PostgreSQL with real threads: calls at once meet in one race."""

from __future__ import annotations

import pytest

from games.models import Race, RaceEntry
from games.races import services as races
from tests.support.players import make_player
from tests.test_concurrency import race_threads

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _countdowns(settings):
    settings.RACE_PUBLIC_COUNTDOWN_S = 30


def test_two_quick_calls_at_once_open_one_race(db):
    players = [make_player(f"quick{i}") for i in range(2)]
    for _ in range(5):  # released together several times: each round must meet in one race
        Race.objects.all().update(status=Race.Status.FINISHED)
        results = race_threads(2, lambda i: races.quick(user=players[i]))
        assert all(isinstance(r, tuple) for r in results), results
        codes = {race.code for race, _created in results}
        assert len(codes) == 1, results
        assert sorted(created for _race, created in results) == [False, True]
        race = Race.objects.get(code=codes.pop())
        assert race.status == Race.Status.COUNTDOWN
        assert RaceEntry.objects.filter(race=race).count() == 2
        RaceEntry.objects.filter(race=race).delete()


def test_many_quick_calls_at_once_fill_one_race(db):
    players = [make_player(f"crowd{i}") for i in range(6)]
    results = race_threads(len(players), lambda i: races.quick(user=players[i]))
    assert all(isinstance(r, tuple) for r in results), results
    assert len({race.code for race, _created in results}) == 1
    assert sum(created for _race, created in results) == 1
    assert Race.objects.count() == 1 and RaceEntry.objects.count() == 6
