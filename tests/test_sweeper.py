"""The sweeper stores what time decides and makes the dailies of today and tomorrow; reads never do; one
process at a time holds its lease."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import io
import threading
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.utils import timezone

from games import sweeper
from games.daily import services as daily
from games.models import DailyChallenge, Game, Race
from games.play import services
from games.races.clock import ends_at
from tests.support.daily import make_test_daily
from tests.support.races import act, move_race_start, open_race, racer, read

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _countdown(settings):
    settings.RACE_COUNTDOWN_S = 30


def test_the_sweep_command_reveals_a_race_whose_countdown_is_over_and_a_read_before_it_wrote_nothing(alice, bob):
    race = open_race(alice, deal="ms:9")
    act(bob, race["code"], "join")
    assert act(alice, race["code"], "start").json()["status"] == "countdown"
    move_race_start(race["code"], timezone.now() - dt.timedelta(seconds=1))
    assert read(race["code"])["status"] == "countdown"  # a read shows it, and stores nothing
    assert not Game.objects.filter(deal_id="ms:9").exists()
    out = io.StringIO()
    call_command("sweep", stdout=out)
    assert "advanced 1 races" in out.getvalue()
    running = read(race["code"])
    assert running["status"] == "running" and all(r["game"] for r in running["racers"])
    call_command("sweep", stdout=out)  # nothing left to do: the second pass changes nothing
    assert read(race["code"])["version"] == running["version"]


def test_a_race_past_its_limit_reads_finished_and_the_sweep_stores_it_once(alice, bob, settings):
    settings.RACE_COUNTDOWN_S = 0
    race = open_race(alice, deal="ms:9")
    act(bob, race["code"], "join")
    started = act(alice, race["code"], "start").json()
    move_race_start(race["code"], timezone.now() - dt.timedelta(seconds=race["time_limit_s"] + 5))
    shown = read(race["code"])
    assert shown["status"] == "finished" and racer(shown, "alice")["out_of_time"] is True
    assert Race.objects.get(code=race["code"]).status == Race.Status.RUNNING
    # The racers' games are read by their deadline and resigned; the last one ends the race.
    assert sweeper.sweep()["games"] == 2
    stored = Race.objects.get(code=race["code"])
    assert stored.status == Race.Status.FINISHED
    games = Game.objects.filter(pk__in=[r["game"] for r in started["racers"]])
    assert {g.status for g in games} == {Game.Status.RESIGNED}
    assert {g.finished_at for g in games} == {ends_at(stored)}, "resigned as of the limit, not of the sweep"
    assert sweeper.sweep()["races"] == 0 and sweeper.sweep()["games"] == 0


def test_the_sweep_ends_a_ranked_game_left_playing_after_its_day(alice, monkeypatch):
    day = dt.date(2026, 3, 1)
    monkeypatch.setattr(daily, "now", lambda: dt.datetime(2026, 3, 1, 23, tzinfo=dt.UTC))
    make_test_daily(day)
    game, _ = daily.start_ranked_game(alice)
    assert sweeper.sweep()["daily_games"] == 0
    monkeypatch.setattr(daily, "now", lambda: dt.datetime(2026, 3, 2, 1, tzinfo=dt.UTC))
    assert Game.objects.get(pk=game.pk).status == Game.Status.PLAYING
    assert sweeper.sweep()["daily_games"] == 1
    ended = Game.objects.get(pk=game.pk)
    assert ended.status == Game.Status.RESIGNED and ended.finished_at == daily.day_end(day)
    assert services.end_time_up(game.pk) is False  # already ended: nothing more


def test_one_process_at_a_time_holds_the_lease(monkeypatch):
    from django.core.cache import cache

    cache.delete(sweeper.LEASE_KEY)
    monkeypatch.setattr(sweeper, "_holder", lambda: "host-a:1")
    assert sweeper.hold_lease(2) is True
    assert sweeper.hold_lease(2) is True  # the holder renews it
    monkeypatch.setattr(sweeper, "_holder", lambda: "host-b:2")
    assert sweeper.hold_lease(2) is False
    cache.delete(sweeper.LEASE_KEY)  # the holder died and its lease ran out
    assert sweeper.hold_lease(2) is True


def test_the_deployment_runs_one_sweeper_service_and_the_replicas_leave_it_to_it():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services_ = compose["services"]
    assert services_["sweeper"]["command"] == ["python", "manage.py", "sweep", "--loop"]
    assert str(services_["web"]["environment"]["SWEEP_IN_SERVER"]) == "0"


def test_no_read_writes_even_when_time_has_ended_a_race_and_a_day(alice, bob, settings, monkeypatch):
    """Every read of a race past its limit and of a ranked game past its day shows them ended, and not
    one INSERT, UPDATE or DELETE is sent while answering them."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from tests.support.players import client_for

    settings.RACE_COUNTDOWN_S = 0
    race = open_race(alice, deal="ms:9")
    act(bob, race["code"], "join")
    started = act(alice, race["code"], "start").json()
    move_race_start(race["code"], timezone.now() - dt.timedelta(seconds=race["time_limit_s"] + 5))
    racing = racer(started, "alice")["game"]
    monkeypatch.setattr(daily, "now", lambda: dt.datetime(2026, 3, 1, 23, tzinfo=dt.UTC))
    make_test_daily(dt.date(2026, 3, 1))
    ranked, _ = daily.start_ranked_game(alice)
    monkeypatch.setattr(daily, "now", lambda: dt.datetime(2026, 3, 2, 1, tzinfo=dt.UTC))
    api, page = client_for(alice), Client()
    page.force_login(alice)
    reads = [
        (api, f"/api/races/{race['code']}/"),
        (api, "/api/races/"),
        (api, f"/api/games/{racing}/"),
        (api, f"/api/games/{racing}/history/"),
        (api, f"/api/games/{ranked.pk}/"),
        (api, "/api/games/?status=playing"),
        (api, "/api/users/alice/games/"),
        (page, f"/games/{racing}/"),
        (page, f"/races/{race['code']}/"),
    ]
    with CaptureQueriesContext(connection) as queries:
        answers = {path: client.get(path) for client, path in reads}
    assert all(answer.status_code == 200 for answer in answers.values()), {p: a.status_code for p, a in answers.items()}
    writes = [q["sql"] for q in queries.captured_queries if q["sql"].split(None, 1)[0].upper() in ("INSERT", "UPDATE", "DELETE")]
    assert writes == []
    assert answers[f"/api/races/{race['code']}/"].json()["status"] == "finished"
    assert answers[f"/api/games/{ranked.pk}/"].json()["status"] == "resigned"
    assert answers["/api/games/?status=playing"].json()["count"] == 0


def test_the_days_ranked_games_are_looked_through_once_a_day_not_at_every_sweep(alice, monkeypatch):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    monkeypatch.setattr(daily, "now", lambda: dt.datetime(2026, 3, 2, 1, tzinfo=dt.UTC))
    sweeper.sweep()
    # Every sweep reads the games due by their indexed deadline; no other read of games but the daily's look.
    def ranked_games(sql):
        return f'FROM "{Game._meta.db_table}"' in sql and '"deadline" <=' not in sql

    with CaptureQueriesContext(connection) as queries:
        sweeper.sweep()
    assert not [q["sql"] for q in queries.captured_queries if ranked_games(q["sql"])]
    monkeypatch.setattr(daily, "now", lambda: dt.datetime(2026, 3, 3, 1, tzinfo=dt.UTC))
    with CaptureQueriesContext(connection) as queries:
        sweeper.sweep()
    assert [q["sql"] for q in queries.captured_queries if ranked_games(q["sql"])], "a new day is looked through"


# --- the dailies of today and tomorrow (issue 38: reads never write, so the sweeper makes them) ------------


def test_the_sweepers_daily_step_makes_today_and_tomorrow_then_only_each_new_tomorrow(solver_stand_in, clock):
    clock.set(dt.date(2026, 3, 1), hour=0)
    assert sweeper.make_dailies() == 2
    assert set(DailyChallenge.objects.values_list("date", flat=True)) == {dt.date(2026, 3, 1), dt.date(2026, 3, 2)}
    assert sweeper.make_dailies() == 0  # both made: the next looks make nothing
    clock.set(dt.date(2026, 3, 2), hour=0)  # the day turns with its daily ready; the new tomorrow is made
    assert sweeper.make_dailies() == 1
    assert DailyChallenge.objects.filter(date=dt.date(2026, 3, 3)).exists()


def test_the_sweeper_leaves_a_day_another_process_is_making_to_it_without_waiting(solver_stand_in, clock, monkeypatch):
    from django.core.cache import cache

    clock.set(dt.date(2026, 3, 1))
    cache.add(daily._lock_key(dt.date(2026, 3, 1)), "1", timeout=60)  # another server process is solving today's

    def no_wait(seconds):
        raise AssertionError("the sweeper waited for another maker")

    monkeypatch.setattr(daily.time, "sleep", no_wait)
    assert sweeper.make_dailies() == 1  # tomorrow's only
    assert list(DailyChallenge.objects.values_list("date", flat=True)) == [dt.date(2026, 3, 2)]
    cache.delete(daily._lock_key(dt.date(2026, 3, 1)))
    assert sweeper.make_dailies() == 1  # the other maker died: the next look makes today's


def test_a_day_that_cannot_be_made_is_logged_and_the_next_day_is_still_made(solver_stand_in, clock, monkeypatch, caplog, settings):
    settings.DAILY_MAX_SEEDS = 2
    clock.set(dt.date(2026, 3, 1))
    proofs = iter([None, daily.Proof(False, []), daily.Proof(True, ["1b"])])  # today's two seeds fail
    monkeypatch.setattr(daily, "prove", lambda deal, budget: next(proofs))
    with caplog.at_level("ERROR"):
        assert sweeper.make_dailies() == 1
    assert list(DailyChallenge.objects.values_list("date", flat=True)) == [dt.date(2026, 3, 2)]
    assert "daily:2026-03-01 could not be made: no solvable deal could be proved" in caplog.text


def test_the_server_sweeper_makes_the_dailies_at_its_start_and_sweeps_on_while_the_solver_works(monkeypatch):
    """At its start (a fresh server) the sweeper makes the dailies at once, in a thread of their own: the
    sweep's half-second passes (race countdowns, ghosts) go on meanwhile, and so does the event loop."""
    solving, release, sweeps = threading.Event(), threading.Event(), []

    def slow_make_dailies():
        solving.set()
        release.wait(30)
        return 2

    monkeypatch.setattr(sweeper, "make_dailies", slow_make_dailies)
    monkeypatch.setattr(sweeper, "_sweep_if_leased", lambda every: sweeps.append(every))

    async def scenario():
        task = asyncio.get_running_loop().create_task(sweeper.run_forever(every=0.01))
        try:
            await asyncio.wait_for(asyncio.to_thread(solving.wait, 30), 31)
            while len(sweeps) < 5:  # sweeps, on the loop's timer, while the dailies are still being made
                await asyncio.sleep(0.01)
            assert solving.is_set() and not release.is_set()
        finally:
            release.set()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    asyncio.run(asyncio.wait_for(scenario(), 60))
    assert len(sweeps) >= 5
