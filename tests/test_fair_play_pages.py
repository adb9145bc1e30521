"""Fair play on the pages without a browser (docs/fair-play.md): the moderators' pages (/staff/reviews/ and a case,
staff only, their forms clearing, rejecting, marking and unmarking with a message), the header's link for
staff, the timing chart, and the hooks the pages' scripts fill (the review notice, the people / bots
switch, the replay's `via`)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client
from django.utils import timezone

from frontend.views import timing_chart
from games.fairplay import services as fairplay
from games.fairplay.models import Report
from games.models import DealRecord, Game
from games.play import services
from tests.support.boards import CASUAL_DEAL, casual_deal, win_casual
from tests.support.daily import actions_for


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def machine_win(user, *, moves: int = 20, gap_ms: int = 120) -> Game:
    """A casual win of `user` played at a machine's even beat: the board shown `gap_ms` before the first
    action and each next one `gap_ms` later (the stored timeline fair play reads)."""
    casual_deal()
    game = services.create_game(player=user, deal=CASUAL_DEAL, autoplay="safe", server_clock=True)
    line = actions_for(moves)
    created = timezone.now() - dt.timedelta(milliseconds=gap_ms * len(line))
    Game.objects.filter(pk=game.pk).update(created_at=created)
    for index, move in enumerate(line):
        if index == len(line) - 1:  # before the winning move: date the stored ones
            for stored in range(index):
                game.actions.filter(index=stored).update(created_at=created + dt.timedelta(milliseconds=gap_ms * (stored + 1)))
        services.play_move(game_id=game.pk, user=user, move=move, ply=index)
    return Game.objects.get(pk=game.pk)


@pytest.fixture
def flagged(settings, alice):
    """alice's casual win, flagged by the automatic review (played at a machine's even beat)."""
    settings.FAIR_PLAY_REVIEW = True
    game = machine_win(alice)
    assert game.review == Game.Review.FLAGGED, (game.review, game.review_reasons)
    settings.FAIR_PLAY_REVIEW = False
    return game


@pytest.fixture
def reported(charlie, bob):
    """charlie's casual win on the board, reported by bob."""
    game = win_casual(charlie, moves=12, deal="seed:102")
    fairplay.report(game_id=game.pk, reporter=bob, reason="27 moves at an even 150 ms a move")
    return game


# --- who may see them ------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["visitor", "player"])
def test_the_moderators_pages_are_a_404_for_anyone_but_staff(who, alice, flagged):
    client = signed_in(alice) if who == "player" else Client()
    for path in ("/staff/reviews/", f"/staff/reviews/{flagged.pk}/"):
        assert client.get(path).status_code == 404, path
    # A verdict cannot be forced through the form either.
    assert client.post(f"/staff/reviews/{flagged.pk}/", {"action": "clear"}).status_code == 404
    assert Game.objects.get(pk=flagged.pk).review == Game.Review.FLAGGED
    # The header has no link to them.
    assert 'data-testid="nav-staff"' not in client.get("/").content.decode()


@pytest.mark.django_db
def test_the_header_links_the_reviews_for_staff(staff):
    html = signed_in(staff).get("/").content.decode()
    assert re.search(r'<a href="/staff/reviews/" data-testid="nav-staff"[^>]*>Reviews</a>', html)
    html = signed_in(staff).get("/staff/reviews/").content.decode()
    assert re.search(r'<a href="/staff/reviews/" data-testid="nav-staff" aria-current="page"', html)


# --- the queue --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_queue_lists_open_cases_oldest_first(staff, flagged, reported):
    response = signed_in(staff).get("/staff/reviews/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="queue-count">(2)' in html
    order = re.findall(r'<tr data-game="(\d+)">', html)
    assert order == [str(flagged.pk), str(reported.pk)]
    assert f'href="/staff/reviews/{flagged.pk}/"' in html
    # The flagged one names the signals it crossed; the reported one its report.
    row = html[html.index(f'<tr data-game="{flagged.pk}">') :]
    row = row[: row.index("</tr>")]
    for reason in flagged.review_reasons:
        assert reason["signal"] in row
    assert ">flagged<" in row


@pytest.mark.django_db
def test_an_empty_queue_says_so(staff):
    html = signed_in(staff).get("/staff/reviews/").content.decode()
    assert 'data-testid="queue-empty"' in html


# --- a case -----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_case_shows_the_result_its_timing_signals_and_reports(staff, reported, bob):
    response = signed_in(staff).get(f"/staff/reviews/{reported.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="case-player">charlie</a>' in html
    assert 'data-testid="case-moves">12' in html
    assert 'data-testid="case-undos">0<' in html
    assert f'href="/replay/{reported.pk}/" data-testid="case-replay"' in html
    # The chart: one bar per action, on a log scale, with the thresholds that are times.
    start = html.index('data-testid="timing-chart"')
    chart = html[start : html.index("</svg>", start)]
    assert chart.count('<rect class="bar ') == 12
    assert 'data-signal="pace_ms"' in chart and 'data-signal="first_move_ms"' in chart
    assert "pace floor (average) 150 ms" in chart
    # The signals table has each published signal with its value, threshold and whether it crossed.
    signals = html[html.index('data-testid="case-signals"') :]
    signals = signals[: signals.index("</table>")]
    for name in ("steadiness", "first_move_ms", "pace_ms", "moves_over_par", "hints"):
        assert f'data-signal="{name}"' in signals
    # The report: its reporter, reason and time.
    reports = html[html.index('data-testid="case-reports"') :]
    assert ">bob</a>" in reports and "27 moves at an even 150 ms a move" in reports
    assert "no verdict yet" in html
    assert 'name="csrfmiddlewaretoken"' in html


@pytest.mark.django_db
def test_a_game_that_does_not_exist_has_no_case_page(staff):
    assert signed_in(staff).get("/staff/reviews/999999/").status_code == 404


@pytest.mark.django_db
def test_clearing_a_flagged_result_puts_it_on_its_board_with_a_message(staff, flagged):
    assert not DealRecord.objects.filter(game_id=flagged.pk).exists()
    client = signed_in(staff)
    response = client.post(f"/staff/reviews/{flagged.pk}/", {"action": "clear", "note": "a fast player, not a program"})
    assert response.status_code == 302 and response["Location"] == f"/staff/reviews/{flagged.pk}/"
    assert Game.objects.get(pk=flagged.pk).review == Game.Review.CLEARED
    assert DealRecord.objects.filter(game_id=flagged.pk).exists()
    html = client.get(response["Location"]).content.decode()
    assert f"Cleared: game {flagged.pk} ranks on its boards." in html
    assert "a fast player, not a program" in html  # the verdict so far
    # The queue is empty again.
    assert 'data-testid="queue-empty"' in client.get("/staff/reviews/").content.decode()


@pytest.mark.django_db
def test_rejecting_keeps_the_note_for_the_player(staff, reported, charlie):
    client = signed_in(staff)
    client.post(f"/staff/reviews/{reported.pk}/", {"action": "reject", "note": "a solver's line"})
    assert Game.objects.get(pk=reported.pk).review == Game.Review.REJECTED
    assert not DealRecord.objects.filter(game_id=reported.pk).exists()
    # The player reads the note through the API their page asks.
    answer = signed_in(charlie).get(f"/api/games/{reported.pk}/review/").json()
    assert answer["review"] == "rejected" and answer["note"] == "a solver's line"


@pytest.mark.django_db
def test_marking_and_unmarking_an_account(staff, reported, charlie):
    client = signed_in(staff)
    response = client.post(f"/staff/reviews/{reported.pk}/", {"action": "mark", "note": "a bot that did not say so"}, follow=True)
    assert "Marked charlie: 1 result taken off the boards." in response.content.decode()
    charlie.profile.refresh_from_db()
    assert charlie.profile.marked
    assert 'data-testid="unmark-form"' in response.content.decode()
    response = client.post(f"/staff/reviews/{reported.pk}/", {"action": "unmark"}, follow=True)
    assert "Unmarked charlie: 1 result back on the boards." in response.content.decode()
    charlie.profile.refresh_from_db()
    assert not charlie.profile.marked
    assert DealRecord.objects.filter(game_id=reported.pk).exists()


@pytest.mark.django_db
def test_a_refused_verdict_is_said_as_a_message(staff, alice):
    playing = services.create_game(player=alice, deal="ms:5")
    response = signed_in(staff).post(f"/staff/reviews/{playing.pk}/", {"action": "clear"}, follow=True)
    html = response.content.decode()
    assert "is not won: there is nothing to clear" in html and 'class="errors"' in html
    response = signed_in(staff).post(f"/staff/reviews/{playing.pk}/", {"action": "explode"}, follow=True)
    assert "Nothing done" in response.content.decode()


@pytest.mark.django_db
def test_the_forms_need_the_csrf_token(staff, flagged):
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff)
    assert client.post(f"/staff/reviews/{flagged.pk}/", {"action": "clear"}).status_code == 403
    assert Game.objects.get(pk=flagged.pk).review == Game.Review.FLAGGED


@pytest.mark.django_db
def test_reports_keep_their_reporter_and_time(reported, bob):
    report = Report.objects.get(game_id=reported.pk)
    assert report.reporter == bob and report.created_at is not None


# --- the timing chart -------------------------------------------------------------------------------


def test_the_timing_chart_draws_gaps_on_a_log_scale_with_the_time_thresholds():
    actions = [
        {"index": i, "kind": kind, "move": "3a", "at_ms": 0, "gap_ms": gap, "via": via}
        for i, (kind, gap, via) in enumerate([("move", 5, "web"), ("move", 100, "web"), ("undo", 1000, "web"), ("move", 10000, "api")])
    ]
    signals = [
        {"signal": "pace_ms", "threshold": 150, "flags_when": "below"},
        {"signal": "first_move_ms", "threshold": 1000, "flags_when": "below"},
        {"signal": "steadiness", "threshold": 0.35, "flags_when": "below"},
    ]
    chart = timing_chart(actions, signals)
    heights = [bar["height"] for bar in chart["bars"]]
    assert heights == sorted(heights) and heights[0] >= 1  # a gap under the floor still shows
    # Each power of ten is the same step on the scale.
    steps = [round(b["height"] - a["height"], 1) for a, b in zip(chart["bars"][1:], chart["bars"][2:], strict=False)]
    assert len(set(steps)) == 1
    assert [bar["kind"] for bar in chart["bars"]] == ["move web", "move web", "undo", "move api"]
    assert [line["signal"] for line in chart["lines"]] == ["pace_ms", "first_move_ms"]  # steadiness is no time
    assert [tick["label"] for tick in chart["grid"]] == ["10 ms", "100 ms", "1 s", "10 s"]
    assert "from 5 ms to 10000 ms" in chart["summary"]
    assert all(chart["left"] <= bar["x"] and bar["x"] + bar["width"] <= chart["plot_right"] for bar in chart["bars"])


def test_a_chart_of_no_actions_is_drawn_empty():
    chart = timing_chart([], [])
    assert chart["bars"] == [] and chart["summary"] == "No actions."


# --- the hooks of the players' pages ------------------------------------------------------------------


@pytest.mark.django_db
def test_the_pages_carry_the_fair_play_hooks(alice, flagged):
    client = signed_in(alice)
    game_page = client.get(f"/games/{flagged.pk}/").content.decode()
    assert re.search(r'<section class="panel review-notice" data-testid="review"[^>]*hidden>', game_page)
    assert 'data-testid="review"' in client.get("/daily/").content.decode()
    assert 'data-testid="replay-via"' in client.get(f"/replay/{flagged.pk}/").content.decode()
    boards = client.get("/leaderboards/").content.decode()
    switch = boards[boards.index('data-testid="players-switch"') :]
    assert 'data-players="people" aria-pressed="true"' in switch and 'data-players="bots" aria-pressed="false"' in switch


def test_the_scripts_use_the_shared_fair_play_module():
    from pathlib import Path

    js = Path(__file__).resolve().parent.parent / "frontend" / "static" / "frontend" / "js"
    for page in ("leaderboard.js", "pages/leaderboards.js", "pages/game.js", "pages/daily.js", "pages/profile.js"):
        assert "fairplay.js" in (js / page).read_text(), page
    shared = (js / "fairplay.js").read_text()
    # The report goes to the API with the page's CSRF header (api.js's post), and says the answer.
    assert "/report/" in shared and "post(" in shared
    assert "Reported: the moderators will look." in shared
