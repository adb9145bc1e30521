"""Rate limits said in headers (RateLimit-*, Retry-After on a 429), and refused requests that cost no budget."""

from __future__ import annotations

import pytest
from rest_framework import permissions
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle
from rest_framework.views import APIView

from freecell_site.throttling import AnonRateThrottle
from freecell_site.throttling import ScopedRateThrottle as ScopedThrottle
from games.play import services
from tests.support.players import code_of


@pytest.fixture
def rates(settings):
    """Sets throttle rates for a test (DRF reads them into the class once), and puts them back after."""
    old = SimpleRateThrottle.THROTTLE_RATES

    def set_rates(**chosen):
        SimpleRateThrottle.THROTTLE_RATES = ScopedRateThrottle.THROTTLE_RATES = {**old, **chosen}

    yield set_rates
    SimpleRateThrottle.THROTTLE_RATES = ScopedRateThrottle.THROTTLE_RATES = old


@pytest.fixture
def hints_stand_in(monkeypatch, settings):
    from games.engine.solver import Solution

    settings.HINT_IN_WORKER = False
    monkeypatch.setattr("games.engine.solver.solve", lambda board, autoplay, budget: Solution("solved", board.legal_moves()[:1], 0.0, 0, autoplay, 0.0))


def limits(response) -> tuple[int, int, int]:
    return int(response["RateLimit-Limit"]), int(response["RateLimit-Remaining"]), int(response["RateLimit-Reset"])


def test_a_throttled_endpoint_says_its_limit_on_every_answer_and_retry_after_on_a_429(anon_client, rates, db):
    rates(verify="3/min")
    answers = [anon_client.get("/api/deals/ms:1/") for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert [limits(a)[:2] for a in answers] == [(3, 2), (3, 1), (3, 0), (3, 0)]
    assert 0 < limits(answers[2])[2] <= 60
    assert code_of(answers[3]) == "rate_limited" and 0 < int(answers[3]["Retry-After"]) <= 60
    assert int(answers[3]["Retry-After"]) == limits(answers[3])[2]
    assert "Retry-After" not in answers[0]


def test_the_default_throttles_count_an_anonymous_request_once_and_a_signed_in_one_once(alice_client, anon_client, rates, db):
    rates(anon="5/min", user="50/min")
    assert limits(anon_client.get("/api/daily/archive/"))[:2] == (5, 4)  # anonymous: the anonymous budget
    assert limits(alice_client.get("/api/games/"))[:2] == (50, 49)  # signed in: the account's budget
    # The user throttle counted anonymous requests too, by the same network, at two more round trips
    # to the cache each: it no longer does, even where its rate is the tighter one.
    rates(anon="50/min", user="5/min")
    answers = [anon_client.get("/api/daily/archive/") for _ in range(6)]
    assert [a.status_code for a in answers] == [200] * 6 and limits(answers[-1])[:2] == (50, 43)


def test_a_request_refused_for_another_reason_costs_no_budget(anon_client, rates, db):
    rates(verify="2/min")
    for _ in range(5):
        answer = anon_client.get("/api/deals/ms:0/")  # no such deal: refused, not counted
        assert code_of(answer) == "invalid_deal" and limits(answer)[:2] == (2, 2)
    assert [anon_client.get("/api/deals/ms:1/").status_code for _ in range(3)] == [200, 200, 429]


def test_a_refused_hint_does_not_spend_the_hint_budget(alice, bob, alice_client, rates, hints_stand_in):
    rates(hint="2/min")
    hers = services.create_game(player=alice, deal="ms:5", autoplay="safe")
    his = services.create_game(player=bob, deal="ms:6", autoplay="safe")
    over = services.create_game(player=alice, deal="ms:7", autoplay="safe")
    services.resign(game_id=over.pk, user=alice)
    refused = [
        alice_client.get(f"/api/games/{his.pk}/hint/"),  # not her game
        alice_client.get(f"/api/games/{over.pk}/hint/"),  # game over
        alice_client.get("/api/games/99999999/hint/"),  # no such game
    ]
    assert [a.status_code for a in refused] == [403, 409, 404]
    assert all(limits(a)[:2] == (2, 2) for a in refused)
    served = [alice_client.get(f"/api/games/{hers.pk}/hint/") for _ in range(3)]
    assert [a.status_code for a in served] == [200, 200, 429]
    assert [limits(a)[1] for a in served] == [1, 0, 0]


class TwoThrottles(APIView):
    """A view whose anonymous requests two throttles count: the anonymous budget and a scope's."""

    permission_classes = [permissions.AllowAny]
    throttle_classes = [AnonRateThrottle, ScopedThrottle]
    throttle_scope = "verify"

    def get(self, request):
        return Response({"ok": True})


def test_a_429_of_one_throttle_gives_back_what_the_others_counted(rates, db):
    rates(anon="2/min", verify="3/min")
    view = TwoThrottles.as_view()
    codes = [view(APIRequestFactory().get("/two/")).status_code for _ in range(4)]
    assert codes == [200, 200, 429, 429]
    # The scope's throttle kept only the two served requests: with anon's limit raised, a third is served.
    rates(anon="100/min", verify="3/min")
    answer = view(APIRequestFactory().get("/two/"))
    assert answer.status_code == 200 and limits(answer)[:2] == (3, 0)
