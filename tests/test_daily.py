"""The daily challenge: seeds from the secret, solvable deals with a par, made ahead (never by a read), hidden
until their day, and one ranked game per player."""

from __future__ import annotations

import datetime as dt
import io
import threading
import time

import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction

from freecell_site.errors import ServiceError
from games import sweeper
from games.daily import services as daily
from games.fairplay import services as fairplay
from games.models import DailyChallenge, DailyGame, DailyResult, Deal, Game
from games.play import services
from tests.support.daily import (
    REAL_DEAL_FOR,
    REAL_PROVE,
    WIN,
    actions_for,
    make_test_daily,
    play,
    ranked_game,
    trivial_deal,
    win_daily,
)
from tests.support.players import client_for

pytestmark = pytest.mark.usefixtures("solver_stand_in")  # dailies from the trivial deal (tests/support/daily.py)


def test_seeds_are_64_bit_and_derived_from_the_secret_and_the_date(settings):
    day = dt.date(2026, 3, 1)
    settings.DAILY_SECRET = "one secret"
    first = daily.seed_for(day, 0)
    assert first == daily.seed_for(day, 0)
    assert 0 <= first < 2**64
    assert len({first, daily.seed_for(day, 1), daily.seed_for(day + dt.timedelta(days=1), 0)}) == 3
    settings.DAILY_SECRET = "another secret"
    assert daily.seed_for(day, 0) != first


def test_the_first_seed_the_solver_proves_solvable_becomes_the_daily(db, monkeypatch):
    answers = iter([daily.Proof(False, []), None, daily.Proof(True, ["2a", WIN])])
    monkeypatch.setattr(daily, "prove", lambda deal, budget: next(answers))
    made = daily.ensure_daily(dt.date(2026, 3, 1))
    assert made.seed_index == 2  # index 0 unsolvable, index 1 the solver gave up
    assert made.par == 2 and made.par_line == "2a 1b"


def test_a_solver_line_that_does_not_win_is_never_published(db, monkeypatch):
    answers = iter([daily.Proof(True, ["2a"]), daily.Proof(True, [WIN])])
    monkeypatch.setattr(daily, "prove", lambda deal, budget: next(answers))
    made = daily.ensure_daily(dt.date(2026, 3, 1))
    assert (made.seed_index, made.par) == (1, 1)


def test_without_a_provable_seed_there_is_no_daily_and_the_error_says_so(db, monkeypatch, settings):
    settings.DAILY_MAX_SEEDS = 3
    monkeypatch.setattr(daily, "prove", lambda deal, budget: None)
    with pytest.raises(ServiceError) as caught:
        daily.ensure_daily(dt.date(2026, 3, 1))
    assert caught.value.status == 503 and caught.value.code == "daily_unavailable"
    assert not DailyChallenge.objects.exists()


def test_the_daily_command_makes_a_week_ahead_and_only_once(db, monkeypatch, clock):
    clock.set(dt.date(2026, 3, 1))
    calls = []
    monkeypatch.setattr(daily, "prove", lambda deal, budget: calls.append(deal) or daily.Proof(True, [WIN]))
    call_command("daily", "--ensure", "--days", "7")
    dates = list(DailyChallenge.objects.order_by("date").values_list("date", flat=True))
    assert dates == [dt.date(2026, 3, 1) + dt.timedelta(days=i) for i in range(7)]
    call_command("daily", "--ensure", "--days", "7")
    assert len(calls) == 7
    listed = io.StringIO()
    call_command("daily", "--list", stdout=listed)
    first = DailyChallenge.objects.get(date=dt.date(2026, 3, 1))
    assert f"daily:2026-03-01  deal {first.deal_id}  par" in listed.getvalue()


def test_the_daily_command_says_each_daily_it_made_once(db, monkeypatch, clock, caplog):
    """The service logs the daily it makes; the command prints it: the log line stays out unless -v 2."""
    clock.set(dt.date(2026, 3, 1))
    monkeypatch.setattr(daily, "prove", lambda deal, budget: daily.Proof(True, [WIN]))
    out = io.StringIO()
    with caplog.at_level("INFO"):
        call_command("daily", "--ensure", "--days", "1", stdout=out)
    assert out.getvalue().count("daily:2026-03-01 made") == 1
    assert not [r for r in caplog.records if r.name == "games.daily.services" and "made" in r.getMessage()]
    assert daily.logger.level == 0  # the logger is given back as it was
    with caplog.at_level("INFO"):
        call_command("daily", "--ensure", "--date", "2026-03-02", "-v", "2", stdout=out)
    assert [r for r in caplog.records if r.name == "games.daily.services" and "2026-03-02 made" in r.getMessage()]


def test_the_daily_command_waits_for_another_maker_and_says_it_did_not_make_the_day(db, clock, monkeypatch):
    """A second run (or a request) holding the day's lock: the command waited a request's 2 s, then
    failed, or said "made" of a daily another process had made."""
    clock.set(dt.date(2026, 3, 1))
    cache.add(daily._lock_key(dt.date(2026, 3, 1)), "1", timeout=60)  # the other maker at work
    polls = []
    real_sleep = time.sleep

    def other_maker_finishes_after_3_s(seconds):
        # The command polls for the row; the other maker stores it 3 s in (past a request's 2 s wait).
        polls.append(seconds)
        if round(sum(polls), 2) == 3.0:
            make_test_daily(dt.date(2026, 3, 1))
        real_sleep(0)

    monkeypatch.setattr(daily.time, "sleep", other_maker_finishes_after_3_s)
    monkeypatch.setattr(daily.time, "monotonic", lambda: sum(polls))
    out = io.StringIO()
    call_command("daily", "--ensure", "--days", "1", "--par-budget", "1", stdout=out)
    assert "daily:2026-03-01 exists" in out.getvalue() and "made meanwhile by another process" in out.getvalue()
    assert " made:" not in out.getvalue()
    cache.delete(daily._lock_key(dt.date(2026, 3, 1)))


def test_the_daily_command_may_give_the_par_search_a_longer_budget(db, monkeypatch, clock, settings):
    clock.set(dt.date(2026, 3, 1))
    settings.DAILY_PAR_BUDGET = 5.0
    budgets = []
    monkeypatch.setattr(daily, "prove", lambda deal, budget: budgets.append(budget) or daily.Proof(True, [WIN]))
    call_command("daily", "--ensure", "--days", "2", "--par-budget", "60")
    assert budgets == [60.0, 60.0]
    call_command("daily", "--ensure", "--date", "2026-03-05")
    assert budgets[-1] == 5.0  # without the option, the setting's budget, as for a request
    for bad in ("0", "-1", "nan", "inf", "soon"):
        with pytest.raises(CommandError):
            call_command("daily", "--ensure", "--par-budget", bad)
    for days in ("0", "367", "100000"):
        with pytest.raises(CommandError, match="--days"):
            call_command("daily", "--ensure", "--days", days)
    assert len(budgets) == 3  # nothing more was made


def test_a_read_of_todays_daily_before_it_is_made_writes_nothing_and_is_told_to_retry(db, alice, clock):
    """Reads never write (issue 38): today's daily was made by the first request that asked for it, the
    solver run and rows stored inside a GET. The sweeper and the command make it now; until then every
    read of it answers 503 daily_pending with retry_after, and stores nothing."""
    clock.set(dt.date(2026, 3, 1))
    client = client_for(alice)
    rows = (DailyChallenge.objects.count(), Deal.objects.count(), Game.objects.count())
    for url in (
        "/api/daily/",
        "/api/daily/2026-03-01/",
        "/api/daily/2026-03-01/leaderboard/",
        "/api/daily/2026-03-01/histogram/",
        "/api/daily/2026-03-01/share/",
    ):
        answer = client.get(url)
        assert answer.status_code == 503, (url, answer.content)
        assert answer.json()["error"]["code"] == "daily_pending" and answer.json()["error"]["retry_after"] == 2, url
    answer = client.post("/api/daily/play/")
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "daily_pending"
    assert client.post("/api/games/", {"deal": "daily:2026-03-01"}, format="json").status_code == 403  # today's: ranked
    assert (DailyChallenge.objects.count(), Deal.objects.count(), Game.objects.count()) == rows
    assert sweeper.make_dailies() == 2  # today's and tomorrow's, as the running server's sweeper makes them
    answer = client.get("/api/daily/")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["date"] == "2026-03-01" and body["deal"] == "daily:2026-03-01"
    assert body["par"] == 1 and body["players"] == 0 and body["game"] is None
    assert body["ends_at"] == "2026-03-02T00:00:00Z"
    assert client.get("/api/daily/2026-03-02/").status_code == 404  # tomorrow's is made, and hidden until its day


def test_a_request_that_finds_the_daily_being_made_is_told_to_retry(db, anon_client, clock, settings, caplog):
    settings.DAILY_WAIT_SECONDS = 0.2
    clock.set(dt.date(2026, 3, 1))
    cache.add(daily._lock_key(dt.date(2026, 3, 1)), "1", 60)  # another process is solving
    with caplog.at_level("INFO"):
        answer = anon_client.get("/api/daily/")
    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "daily_pending"
    # An expected wait is a warning with its reason, not an ERROR "Service Unavailable".
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name in ("django.request", "freecell_site.errors")] == [
        ("WARNING", "daily_pending on /api/daily/: the daily of 2026-03-01 is being prepared: try again in a few seconds")
    ]


def test_the_daily_is_made_without_the_lock_when_the_cache_is_down(db, anon_client, clock, monkeypatch):
    """Redis down at the day's change: the sweeper still makes the daily (get_or_create decides), no error."""

    def down(*args, **kwargs):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    for method in ("add", "touch", "delete"):
        monkeypatch.setattr(cache, method, down)
    monkeypatch.setattr(daily, "prove", lambda deal, budget: daily.Proof(True, [WIN]))
    clock.set(dt.date(2026, 3, 1))
    assert sweeper.make_dailies() == 2
    answer = anon_client.get("/api/daily/")
    assert answer.status_code == 200 and answer.json()["deal"] == "daily:2026-03-01", answer.json()


def test_the_makers_lock_lasts_one_seed_and_is_renewed_before_each(db, monkeypatch, settings):
    """A maker that dies holds the day for about one seed's proof, not for every seed's."""
    settings.DAILY_PAR_BUDGET, settings.DAILY_SOLVE_BUDGET = 5.0, 10.0
    answers = iter([daily.Proof(False, []), None, daily.Proof(True, [WIN])])
    monkeypatch.setattr(daily, "prove", lambda deal, budget: next(answers))
    calls = []
    for method in ("add", "touch"):
        real = getattr(cache, method)
        monkeypatch.setattr(cache, method, lambda *a, _real=real, _name=method, **k: calls.append((_name, a, k)) or _real(*a, **k))
    daily.ensure_daily(dt.date(2026, 3, 1))
    key = daily._lock_key(dt.date(2026, 3, 1))
    assert calls[0] == ("add", (key, "1"), {"timeout": 45})
    assert [c for c in calls[1:]] == [("touch", (key, 45), {})] * 3  # one before each of the 3 seeds
    assert cache.get(key) is None  # given back once made


@pytest.mark.django_db(transaction=True)
def test_concurrent_first_requests_solve_once_and_all_get_the_daily(monkeypatch, settings):
    name = str(connection.settings_dict["NAME"])
    if connection.vendor == "sqlite" and (name.startswith(":memory:") or "mode=memory" in name):
        # SQLite's shared-cache memory database answers "table is locked" at once instead of waiting.
        pytest.skip("threads need a database that waits for locks (runs on PostgreSQL in CI)")
    settings.DAILY_WAIT_SECONDS = 10
    calls = []

    def slow_prove(deal, budget):
        calls.append(deal)
        time.sleep(0.5)
        return daily.Proof(True, [WIN])

    monkeypatch.setattr(daily, "prove", slow_prove)
    day, got, errors = dt.date(2026, 3, 1), [], []

    def ask():
        try:
            got.append(daily.ensure_daily(day).pk)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and got == [day] * 4
    assert len(calls) == 1


def test_a_daily_is_hidden_until_its_day_begins(db, alice, clock):
    clock.set(dt.date(2026, 3, 1))
    call_command("daily", "--ensure", "--days", "2")
    client = client_for(alice)
    assert client.get("/api/daily/").json()["date"] == "2026-03-01"
    for url in (
        "/api/daily/2026-03-02/",
        "/api/daily/2026-03-02/leaderboard/",
        "/api/daily/2026-03-02/histogram/",
        "/api/daily/2026-03-02/share/",
    ):
        answer = client.get(url)
        assert answer.status_code == 404, url
        assert answer.json()["error"]["code"] == "not_found"
    # Its deal, by its daily: id, gets the one answer of a daily's secrecy, as today's does.
    for day in ("2026-03-02", "2026-03-01"):
        answer = client.get(f"/api/deals/daily:{day}/")
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "forbidden", day
        answer = client.post("/api/games/", {"deal": f"daily:{day}"}, format="json")
        assert answer.status_code == 403 and "once its day is over" in answer.json()["error"]["message"], day
    with pytest.raises(ServiceError):
        services.get_deal("daily:2026-03-02")
    clock.advance()
    assert client.get("/api/daily/").json()["date"] == "2026-03-02"
    assert client.get("/api/daily/2026-03-02/").status_code == 200


@pytest.mark.parametrize("date", ["2026-13-01", "20261201", "2026-W49-2", "2026-12-1x"])
def test_a_malformed_date_is_a_bad_request(db, anon_client, date):
    answer = anon_client.get(f"/api/daily/{date}/leaderboard/")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid_request"


def test_playing_the_daily_creates_one_ranked_game_then_returns_it(alice, today_daily):
    client = client_for(alice)
    first = client.post("/api/daily/play/")
    assert first.status_code == 201, first.content
    game = first.json()
    assert game["ranked"] is True and game["autoplay"] == "safe"
    assert game["deal"] == f"daily:{today_daily.date.isoformat()}" and game["moves"] == 0
    again = client.post("/api/daily/play/")
    assert again.status_code == 200 and again.json()["id"] == game["id"]
    assert Game.objects.filter(player=alice, daily_game__daily=today_daily, daily_game__ranked=True).count() == 1
    body = client.get("/api/daily/").json()
    assert body["players"] == 1 and body["game"] == game["id"]


def test_a_second_ranked_game_created_concurrently_returns_the_first(alice, today_daily, monkeypatch):
    first, created = daily.start_ranked_game(alice)
    assert created
    # The other request read "no game yet" just before this one committed.
    real = daily.ranked_game_of
    seen = iter([None])
    monkeypatch.setattr(daily, "ranked_game_of", lambda user, date: next(seen, None) or real(user, date))
    again, created = daily.start_ranked_game(alice)
    assert not created and again.pk == first.pk
    assert Game.objects.filter(player=alice, daily_game__daily=today_daily, daily_game__ranked=True).count() == 1
    assert Game.objects.filter(player=alice).count() == 1  # the refused second game left no row behind
    assert DailyChallenge.objects.get(pk=today_daily.pk).players == 1


def test_the_database_refuses_a_second_ranked_game_of_a_player_on_a_daily(alice, bob, today_daily):
    """One ranked game per player per daily is the database's rule (games.daily.models.DailyGame), whatever
    path writes; casual games of the daily (asked for by its id once the day is over) are not limited."""
    first = ranked_game(alice, today_daily)
    with pytest.raises(IntegrityError), transaction.atomic():
        ranked_game(alice, today_daily)
    with pytest.raises(IntegrityError), transaction.atomic():
        DailyGame.objects.create(game=services.create_game(player=alice, deal="ms:1"), daily=today_daily, player=alice, ranked=True)
    ranked_game(bob, today_daily)
    for _ in range(2):
        services.create_game(player=alice, deal=today_daily.deal, record=daily.played_as(today_daily.date))
    assert DailyGame.objects.filter(daily=today_daily, player=alice).count() == 3
    assert DailyGame.objects.get(daily=today_daily, player=alice, ranked=True).game_id == first.pk


def test_signing_in_is_needed_to_play_the_daily(db, anon_client, today_daily):
    answer = anon_client.post("/api/daily/play/")
    assert answer.status_code == 401


def test_two_players_get_the_same_deal(alice, charlie, today_daily):
    a = client_for(alice).post("/api/daily/play/").json()
    c = client_for(charlie).post("/api/daily/play/").json()
    assert a["id"] != c["id"] and a["state"] == c["state"] and a["deal"] == c["deal"]


def test_hints_are_refused_in_the_ranked_game(alice, today_daily):
    client = client_for(alice)
    game = client.post("/api/daily/play/").json()
    answer = client.get(f"/api/games/{game['id']}/hint/")
    assert answer.status_code == 403


def test_the_score_is_the_number_of_actions_from_the_history(alice, today_daily):
    game = win_daily(alice, moves=6, undos=2)
    assert (game.status, game.ply, game.undos) == ("won", 6, 2)
    result = DailyResult.objects.get(game=game)
    assert (result.moves, result.undos) == (6, 2)
    assert game.actions.count() == 6


def test_a_win_implausibly_fast_is_flagged_and_not_ranked_until_cleared(alice, today_daily, settings):
    settings.DAILY_MIN_MS_PER_MOVE = 150
    settings.FAIR_PLAY_REVIEW = True
    game, _ = daily.start_ranked_game(alice)
    game = play(game, actions_for(20), seconds=2.0)  # 20 actions in 2 s: 100 ms each
    assert game.status == "won" and game.review == "flagged"
    assert not DailyResult.objects.filter(game=game).exists()
    fairplay.clear(game)
    assert Game.objects.get(pk=game.pk).review == "cleared"
    assert DailyResult.objects.filter(game=game).exists()
    fairplay.reject(game)
    assert Game.objects.get(pk=game.pk).review == "rejected"
    assert not DailyResult.objects.filter(game=game).exists()


def test_a_win_at_a_human_pace_is_ranked_at_once(alice, today_daily):
    game, _ = daily.start_ranked_game(alice)
    game = play(game, actions_for(20), seconds=20 * 0.2)
    assert game.review == "" and DailyResult.objects.filter(game=game).exists()


def test_the_daily_of_a_past_day_is_not_made_on_demand(db, alice, clock):
    clock.set(dt.date(2026, 3, 5))
    answer = client_for(alice).get("/api/daily/2026-03-01/")
    assert answer.status_code == 404
    assert not DailyChallenge.objects.exists()


def test_a_past_daily_shows_its_par_line_and_today_does_not(db, anon_client, clock):
    clock.set(dt.date(2026, 3, 1))
    make_test_daily(dt.date(2026, 2, 28))
    make_test_daily(dt.date(2026, 3, 1))
    assert anon_client.get("/api/daily/2026-02-28/").json()["par_line"] == WIN
    assert anon_client.get("/api/daily/2026-03-01/").json()["par_line"] is None


@pytest.mark.parametrize("in_worker", [True, False])
def test_the_real_solver_makes_a_daily_whose_par_line_wins(db, monkeypatch, settings, in_worker):
    solver = pytest.importorskip("games.engine.solver")
    monkeypatch.setattr(daily, "deal_for", REAL_DEAL_FOR)
    monkeypatch.setattr(daily, "prove", REAL_PROVE)
    settings.DAILY_PAR_BUDGET = 2.0
    settings.DAILY_SOLVE_BUDGET = 5.0
    settings.DAILY_SOLVE_IN_WORKER = in_worker
    if in_worker:
        # The search runs in a process of its own (in a server thread it held the interpreter lock
        # every move waits for): a solver broken in this process is never called.
        def not_here(*args, **kwargs):
            raise AssertionError("the daily's search ran in the server's process")

        monkeypatch.setattr(solver, "solve", not_here)
    made = daily.ensure_daily(dt.date(2026, 3, 1))
    assert made.deal_id.startswith("seed:") and made.deal_id != trivial_deal().pk
    assert made.par == len(made.par_line.split()) > 0
    from games.engine import verify

    check = verify(services.board_of_deal(made.deal), made.par_line, autoplay="safe")
    assert check.valid and check.won


def test_the_admin_actions_clear_or_reject_flagged_games(alice, bob, today_daily, settings):
    from unittest.mock import Mock

    from games.admin_daily import clear_review_action, reject_review_action

    settings.DAILY_MIN_MS_PER_MOVE = 150
    settings.FAIR_PLAY_REVIEW = True
    fast = [play(daily.start_ranked_game(user)[0], actions_for(9), seconds=0.5) for user in (alice, bob)]
    assert [g.review for g in fast] == ["flagged", "flagged"]
    admin = Mock()
    clear_review_action(admin, None, Game.objects.filter(pk=fast[0].pk))
    reject_review_action(admin, None, Game.objects.filter(pk=fast[1].pk))
    assert list(DailyResult.objects.values_list("game_id", flat=True)) == [fast[0].pk]
    assert Game.objects.get(pk=fast[1].pk).review == "rejected"
    assert admin.message_user.call_count == 2


def test_a_ranked_game_left_open_over_midnight_cannot_be_won_on_the_closed_board(db, alice, bob, clock):
    """Its par line and everyone's replays are public once the day is over: a game finished then went
    on the closed board and into the player's statistics (stats QA). The first action or read after
    the day resigns it instead, a loss, as a game left unfinished after its day is counted."""
    clock.set(dt.date(2026, 3, 1), hour=23)
    make_test_daily(dt.date(2026, 3, 1))
    game, _ = daily.start_ranked_game(alice)
    services.play_move(game_id=game.pk, user=alice, move="2a", ply=0)
    clock.advance()  # 2026-03-02, noon
    with pytest.raises(ServiceError) as refused:
        services.play_move(game_id=game.pk, user=alice, move="1b", ply=1)
    assert refused.value.code == "game_over" and "2026-03-01 is over" in refused.value.message
    assert refused.value.extra["game"]["status"] == "resigned"
    assert Game.objects.get(pk=game.pk).ply == 1 and not DailyResult.objects.exists()  # nothing stored
    sweeper.sweep()  # the day's end is stored by the sweeper
    assert Game.objects.get(pk=game.pk).status == "resigned" and not DailyResult.objects.exists()
    with pytest.raises(ServiceError):
        services.undo(game_id=game.pk, user=alice, ply=1)
    # A read shows the day's end too: bob's game shows resigned without his acting, before any sweep.
    clock.set(dt.date(2026, 3, 1), hour=22)
    other, _ = daily.start_ranked_game(bob)
    clock.advance()
    assert client_for(bob).get(f"/api/games/{other.pk}/").json()["status"] == "resigned"


def test_every_read_shows_a_past_days_ranked_game_as_ended(db, alice, bob, charlie, clock):
    """The list of one's games (?status=playing), the game page and a socket's first state showed it
    playing until the game itself was read over the API (verification QA)."""
    from django.test import Client

    from games.play.selectors import visible_game_state

    clock.set(dt.date(2026, 3, 1), hour=22)
    make_test_daily(dt.date(2026, 3, 1))
    listed, shown, opened = (daily.start_ranked_game(user)[0] for user in (alice, bob, charlie))
    clock.advance()
    assert client_for(alice).get("/api/games/", {"status": "playing"}).json()["count"] == 0
    page = Client()
    page.force_login(bob)
    assert '"status": "resigned"' in page.get(f"/games/{shown.pk}/").content.decode()  # its boot JSON
    assert visible_game_state(opened.pk, charlie)["status"] == "resigned"  # what a socket sends first
    assert client_for(alice).get("/api/games/", {"status": "resigned"}).json()["count"] == 1
    # Reads store nothing; the sweeper does.
    assert set(Game.objects.filter(pk__in=[listed.pk, shown.pk, opened.pk]).values_list("status", flat=True)) == {"playing"}
    sweeper.sweep()
    assert set(Game.objects.filter(pk__in=[listed.pk, shown.pk, opened.pk]).values_list("status", flat=True)) == {"resigned"}


def test_a_ranked_game_still_playing_cannot_be_cleared_ahead_of_its_win(alice, today_daily, settings):
    """Cleared while playing, its win skipped the bot-speed check and was ranked (API/operator QA)."""
    from unittest.mock import Mock

    from games.admin_daily import clear_review_action

    settings.DAILY_MIN_MS_PER_MOVE = 150
    settings.FAIR_PLAY_REVIEW = True
    game, _ = daily.start_ranked_game(alice)
    with pytest.raises(ServiceError):
        fairplay.clear(game)
    admin = Mock()
    clear_review_action(admin, None, Game.objects.filter(pk=game.pk))
    assert "1 game(s) skipped" in admin.message_user.call_args_list[-1].args[1]
    game = play(Game.objects.get(pk=game.pk), actions_for(9), seconds=0.5)
    assert game.review == "flagged" and not DailyResult.objects.filter(game=game).exists()


def test_a_past_daily_played_or_raced_casually_is_shown_by_its_daily_id_not_its_seed(db, alice, clock, settings):
    """A casual game or race asked for as daily:DATE keeps that id in every answer (it showed the
    daily's stored seed: id), and so do the race's games and a ghost race of such a game."""
    settings.RACE_COUNTDOWN_S = 0
    clock.set(dt.date(2026, 3, 1))
    make_test_daily(dt.date(2026, 3, 1))
    clock.advance()
    client, label = client_for(alice), "daily:2026-03-01"
    game = client.post("/api/games/", {"deal": label, "autoplay": "safe"}, format="json").json()
    assert game["deal"] == label
    assert client.get(f"/api/games/{game['id']}/").json()["deal"] == label
    assert client.get(f"/api/games/{game['id']}/history/").json()["deal"] == label
    race = client.post("/api/races/", {"deal": label}, format="json").json()
    assert race["deal"] == label
    started = client.post(f"/api/races/{race['code']}/start/").json()
    raced = next(r["game"] for r in started["racers"] if r["username"] == "alice")
    assert raced is not None and client.get(f"/api/games/{raced}/").json()["deal"] == label
    services.play_move(game_id=game["id"], user=alice, move=WIN, ply=0)  # the trivial deal's one move
    ghost = client.post("/api/races/ghost/", {"game": game["id"]}, format="json")
    assert ghost.status_code == 201 and ghost.json()["deal"] == label, ghost.json()
    # An ms: or seed: game is shown by its own id, as ever.
    assert client.post("/api/games/", {"deal": "ms:7"}, format="json").json()["deal"] == "ms:7"


def test_a_dailys_seed_is_not_dealt_outside_the_ranked_game_until_its_day_is_over(db, alice, clock):
    """With a leaked or default secret the seed can be computed: practising it in a casual game, asking
    hints on it, racing it or reading its board would come before the ranked game."""
    from games.engine import parse_deal

    day = dt.date(2026, 3, 1)
    clock.set(day)
    deal = services.stored_deal(parse_deal("seed:123456789"))
    DailyChallenge.objects.create(date=day, deal=deal, seed_index=0, par=40, par_line="")
    player = client_for(alice)
    for method, path, body in (
        ("post", "/api/games/", {"deal": "seed:123456789"}),
        ("get", "/api/deals/seed:123456789/", None),
        ("post", "/api/races/", {"deal": "seed:123456789"}),
        ("post", "/api/solutions/verify/", {"deal": "seed:123456789", "moves": "1a"}),
    ):
        response = getattr(player, method)(path, body, format="json") if body is not None else player.get(path)
        assert (response.status_code, response.json()["error"]["code"]) == (403, "forbidden"), (path, response.json())
    assert player.post("/api/games/", {"deal": "seed:123456788"}, format="json").status_code == 201  # any other seed
    clock.advance()
    assert player.post("/api/games/", {"deal": "seed:123456789"}, format="json").status_code == 201
    assert player.get("/api/deals/seed:123456789/").status_code == 200
