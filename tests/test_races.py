"""Races over REST: open, join, invite, start with a countdown, reveal, finish order, time limit,
resign, rematch and ghosts."""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import events, sweeper
from games.play import services
from tests.support.players import client_for
from tests.support.races import (
    MS1_WIN,
    act,
    move_race_start,
    open_race,
    racer,
    read,
    recorded_win,
    running_race,
    win,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_countdown(settings):
    settings.RACE_COUNTDOWN_S = 0


# --- opening and joining --------------------------------------------------------------------------


def test_a_player_opens_a_race_on_a_fresh_seed_and_gets_a_short_code_and_a_link(alice):
    race = open_race(alice)
    assert re.fullmatch(r"[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}", race["code"])
    assert race["link"] == f"/races/{race['code']}/"
    assert race["deal"].startswith("seed:") and 0 <= int(race["deal"][5:]) < 2**64
    assert race["status"] == "open" and race["owner"] == "alice"
    assert race["racers"] == [
        {"username": "alice", "game": None, "moves": 0, "cards_home": 0, "status": "waiting", "rank": None, "elapsed_ms": None, "ghost": False, "out_of_time": False,
         "review": "none"}
    ]


def test_two_fresh_races_get_different_seeds_and_codes(alice):
    first, second = open_race(alice), open_race(alice)
    assert first["deal"] != second["deal"] and first["code"] != second["code"]


def test_a_race_can_be_opened_on_any_deal_id(alice):
    assert open_race(alice, deal="ms:11982")["deal"] == "ms:11982"
    assert open_race(alice, deal="seed:42")["deal"] == "seed:42"


def test_a_bad_deal_is_refused_with_invalid_deal(alice):
    response = client_for(alice).post("/api/races/", {"deal": "ms:0"}, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_deal"


def test_todays_daily_cannot_be_raced(alice):
    from games.daily.services import today

    response = client_for(alice).post("/api/races/", {"deal": f"daily:{today().isoformat()}"}, format="json")
    assert response.status_code == 403


def test_opening_a_race_needs_an_account(anon_client):
    assert anon_client.post("/api/races/", {}, format="json").status_code == 401


def test_anyone_with_the_code_joins_an_open_race_and_joining_twice_is_harmless(alice, charlie):
    race = open_race(alice)
    assert act(charlie, race["code"].lower(), "join").status_code == 200
    joined = act(charlie, race["code"], "join").json()
    assert [r["username"] for r in joined["racers"]] == ["alice", "charlie"]
    assert joined["version"] == race["version"] + 1


def test_anyone_may_read_a_race_but_not_join_without_an_account(alice, anon_client):
    race = open_race(alice)
    assert anon_client.get(f"/api/races/{race['code']}/").status_code == 200
    assert anon_client.post(f"/api/races/{race['code']}/join/").status_code == 401


def test_an_unknown_race_is_not_found(alice):
    response = client_for(alice).get("/api/races/NOPE42/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert act(alice, "NOPE42", "join").status_code == 404


def test_a_full_race_refuses_one_more_racer(alice, bob, charlie, settings):
    settings.RACE_MAX_RACERS = 2
    race = open_race(alice)
    act(bob, race["code"], "join")
    response = act(charlie, race["code"], "join")
    assert response.status_code == 409 and response.json()["error"]["code"] == "race_full"


# --- invitations ----------------------------------------------------------------------------------


def test_a_racer_invites_a_friend_who_then_sees_the_invitation(alice, bob):
    race = open_race(alice)
    invited = act(alice, race["code"], "invite", username="Bob")  # a name is found in any case
    assert invited.status_code == 200 and invited.json()["invited"] == ["bob"]
    mine = client_for(bob).get("/api/races/").json()
    assert mine["invites"] == [{"code": race["code"], "link": race["link"], "invited_by": "alice"}]
    act(bob, race["code"], "join")
    assert client_for(bob).get("/api/races/").json()["invites"] == []
    assert [r["code"] for r in client_for(bob).get("/api/races/").json()["races"]] == [race["code"]]


def test_only_friends_can_be_invited(alice, bob, charlie):
    race = open_race(alice)
    response = act(alice, race["code"], "invite", username="charlie")
    assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden"
    assert act(alice, race["code"], "invite", username="nobody").status_code == 404


def test_only_a_racer_can_invite(alice, bob, charlie):
    race = open_race(alice)
    assert act(bob, race["code"], "invite", username="alice").status_code == 403


# --- the start ------------------------------------------------------------------------------------


def test_only_the_owner_starts_the_race(alice, bob):
    race = open_race(alice)
    act(bob, race["code"], "join")
    response = act(bob, race["code"], "start")
    assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden"


def test_boards_are_revealed_at_the_start_instant_and_not_before(alice, bob, settings):
    from games.models import Game

    settings.RACE_COUNTDOWN_S = 0.4
    race = open_race(alice, deal="ms:7")
    act(bob, race["code"], "join")
    before = timezone.now()
    started = act(alice, race["code"], "start").json()
    assert started["status"] == "countdown"
    starts_at = dt.datetime.fromisoformat(started["starts_at"].replace("Z", "+00:00"))
    assert before + dt.timedelta(seconds=0.35) <= starts_at <= timezone.now() + dt.timedelta(seconds=0.45)
    assert [r["game"] for r in read(race["code"])["racers"]] == [None, None]
    assert not Game.objects.filter(deal_id="ms:7").exists(), "no board exists before the start instant"
    time.sleep(max(0.0, (starts_at - timezone.now()).total_seconds()) + 0.05)
    sweeper.sweep()  # what the sweeper (or a race socket's timer) does at the start instant
    running = read(race["code"])
    assert running["status"] == "running"
    games = Game.objects.filter(pk__in=[r["game"] for r in running["racers"]])
    assert sorted(g.player.username for g in games) == ["alice", "bob"]
    assert {g.created_at for g in games} == {starts_at}, "every clock starts at the start instant"
    assert {g.deal_id for g in games} == {"ms:7"}


def test_starting_twice_changes_nothing_and_a_started_race_cannot_be_joined(alice, charlie):
    race = running_race(alice)
    assert act(alice, race["code"], "start").json()["starts_at"] == race["starts_at"]
    response = act(charlie, race["code"], "join")
    assert response.status_code == 409 and response.json()["error"]["code"] == "race_started"


def test_racers_games_follow_the_races_autoplay(alice, bob):
    race = running_race(alice, bob, autoplay="safe")
    from games.models import Game

    assert {g.autoplay for g in Game.objects.filter(pk__in=[r["game"] for r in race["racers"]])} == {"safe"}


# --- progress, finish order, the end --------------------------------------------------------------


def test_progress_shows_in_the_race_as_racers_play(alice, bob):
    from games.play import services

    race = running_race(alice, bob)
    game = racer(race, "alice")["game"]
    services.play_move(game_id=game, user=alice, move="5a", ply=0)
    services.play_move(game_id=game, user=alice, move="5b", ply=1)
    now = read(race["code"])
    assert racer(now, "alice")["moves"] == 2 and racer(now, "alice")["status"] == "playing"
    assert racer(now, "bob")["moves"] == 0
    # A racer's progress goes out as progress events; the race's version counts changes to the race.
    assert now["version"] == race["version"]


def test_a_racers_move_publishes_their_progress_after_commit_without_touching_the_race(
    alice, bob, monkeypatch, django_capture_on_commit_callbacks
):
    race = running_race(alice, bob)
    game = racer(race, "alice")["game"]
    sent = []
    monkeypatch.setattr(events, "publish_race_progress", sent.append)
    monkeypatch.setattr(events, "publish_race", lambda payload: sent.append(("race", payload)))
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        services.play_move(game_id=game, user=alice, move="5a", ply=0)
    assert sent == [{"code": race["code"], "racer": {**racer(race, "alice"), "moves": 1}}]
    assert not [q for q in queries.captured_queries if q["sql"].startswith('UPDATE "games_race"')]


def test_a_racers_later_moves_read_nothing_of_races_and_publish_the_same_progress(
    alice, bob, monkeypatch, django_capture_on_commit_callbacks
):
    """The first move reads the racer's race; once it committed, the process knows the game's race, and
    a move that does not end the game reads neither the race nor its entries. A finish still does."""
    race = running_race(alice, bob)
    game = racer(race, "alice")["game"]
    sent = []
    monkeypatch.setattr(events, "publish_race_progress", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        services.play_move(game_id=game, user=alice, move="5a", ply=0)
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        services.play_move(game_id=game, user=alice, move="5b", ply=1)
    assert sent[-1] == {"code": race["code"], "racer": {**racer(race, "alice"), "moves": 2}}
    assert not [q["sql"] for q in queries.captured_queries if "games_race" in q["sql"]]
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        services.resign(game_id=game, user=alice)
    assert [q["sql"] for q in queries.captured_queries if "games_raceentry" in q["sql"]]
    assert racer(read(race["code"]), "alice")["status"] == "resigned"


def test_finish_order_is_by_time_to_win_and_the_race_ends_when_everyone_is_done(alice, bob):
    race = running_race(alice, bob)
    win(bob, racer(race, "bob")["game"])
    middle = read(race["code"])
    assert racer(middle, "bob")["rank"] == 1 and racer(middle, "bob")["status"] == "won"
    assert middle["status"] == "running"
    win(alice, racer(race, "alice")["game"])
    done = read(race["code"])
    assert done["status"] == "finished" and done["finished_at"]
    assert racer(done, "alice")["rank"] == 2
    assert racer(done, "bob")["elapsed_ms"] <= racer(done, "alice")["elapsed_ms"]
    assert racer(done, "alice")["moves"] == len(MS1_WIN)


def test_ranks_follow_server_time_even_when_the_slower_win_was_stored_first(alice, bob):
    from games.models import Game, Race
    from games.races import services as races

    race = running_race(alice, bob)
    win(alice, racer(race, "alice")["game"])
    win(bob, racer(race, "bob")["game"])
    Game.objects.filter(pk=racer(race, "bob")["game"]).update(elapsed_ms=1)  # bob's win was faster
    races._rerank(Race.objects.get(code=race["code"]))
    done = read(race["code"])
    assert (racer(done, "bob")["rank"], racer(done, "alice")["rank"]) == (1, 2)


def test_a_racer_who_resigns_has_no_rank_and_the_race_ends_with_the_last_racer(alice, bob):
    race = running_race(alice, bob)
    resigned = act(bob, race["code"], "resign").json()
    assert racer(resigned, "bob")["status"] == "resigned" and racer(resigned, "bob")["rank"] is None
    assert resigned["status"] == "running"
    win(alice, racer(race, "alice")["game"])
    done = read(race["code"])
    assert done["status"] == "finished" and racer(done, "alice")["rank"] == 1


def test_resigning_is_for_racers_only(alice, charlie):
    race = running_race(alice)
    assert act(charlie, race["code"], "resign").status_code == 403


def test_a_race_past_its_time_limit_is_finished_and_racers_still_playing_are_resigned(alice, bob):
    race = running_race(alice, bob)
    win(bob, racer(race, "bob")["game"])
    move_race_start(race["code"], timezone.now() - dt.timedelta(seconds=race["time_limit_s"] + 1))
    done = read(race["code"])
    assert done["status"] == "finished"
    assert racer(done, "alice")["status"] == "resigned" and racer(done, "bob")["status"] == "won"


def test_racers_the_time_limit_resigned_are_out_of_time_and_those_who_resigned_are_not(alice, bob, charlie):
    """The page said "You resigned" to a racer whose time had run out."""
    from games.models import Game

    race = running_race(alice, bob, charlie)
    act(charlie, race["code"], "resign")
    win(bob, racer(race, "bob")["game"])
    assert racer(read(race["code"]), "alice")["out_of_time"] is False  # still playing
    # The race began time_limit_s + 1 s ago; charlie and bob were done 10 s after the start.
    starts_at = timezone.now() - dt.timedelta(seconds=race["time_limit_s"] + 1)
    move_race_start(race["code"], starts_at)
    done_early = [racer(race, "bob")["game"], racer(race, "charlie")["game"]]
    Game.objects.filter(pk__in=done_early).update(finished_at=starts_at + dt.timedelta(seconds=10))
    done = read(race["code"])
    assert [(racer(done, n)["status"], racer(done, n)["out_of_time"]) for n in ("alice", "bob", "charlie")] == [
        ("resigned", True),
        ("won", False),
        ("resigned", False),
    ]


def test_a_racers_game_page_knows_the_races_time_limit_and_links_to_the_race(alice, bob):
    """So that it says "Time ran out" rather than "You resigned" (it did only on the race's page), and
    a game watched on its own page leads to its race (it had no way there)."""
    import json

    from django.test import Client

    from games.play import services

    race = running_race(alice, bob)
    page = Client()
    page.force_login(alice)
    html = page.get(f"/games/{racer(race, 'alice')['game']}/").content.decode()
    boot = json.loads(html.split('<script id="boot" type="application/json">')[1].split("</script>")[0])
    assert boot["endsAt"] == race["ends_at"] and boot["endsAt"] is not None
    assert f'<a href="/races/{race["code"]}/">race {race["code"]}</a>' in html
    casual = services.create_game(player=alice, deal="ms:2", autoplay="safe")
    html = page.get(f"/games/{casual.pk}/").content.decode()
    assert '"endsAt": null' in html
    assert 'data-testid="race-of-game"' not in html


def test_a_move_or_undo_after_the_time_limit_is_refused_even_with_no_one_watching_the_race(alice, bob):
    # Nothing reads the race (no socket, no GET): the racer's own action applies the limit.
    from games.models import Game, Race

    race = running_race(alice, bob)
    game_id = racer(race, "alice")["game"]
    moves = client_for(alice)
    assert moves.post(f"/api/games/{game_id}/moves/", {"move": MS1_WIN[0], "ply": 0}, format="json").status_code == 200
    move_race_start(race["code"], timezone.now() - dt.timedelta(seconds=race["time_limit_s"] + 1))
    late = moves.post(f"/api/games/{game_id}/moves/", {"move": MS1_WIN[1], "ply": 1}, format="json")
    assert late.status_code == 409 and late.json()["error"]["code"] == "game_over"
    assert "time limit" in late.json()["error"]["message"] and late.json()["error"]["game"]["status"] == "resigned"
    assert Game.objects.get(pk=game_id).ply == 1  # the late move was not stored
    undo = moves.post(f"/api/games/{game_id}/undo/", {"ply": 1}, format="json")
    assert undo.status_code == 409 and undo.json()["error"]["code"] == "game_over"
    sweeper.sweep()  # the limit is stored by the sweeper
    done = Race.objects.get(code=race["code"])
    assert done.status == Race.Status.FINISHED
    assert Game.objects.get(pk=racer(race, "bob")["game"]).status == Game.Status.RESIGNED


def test_a_racers_game_read_after_the_time_limit_shows_the_limit_applied(alice, bob, anon_client):
    """Nothing swept the race yet: a read of the game alone shows the limit applied (it showed `playing`),
    and stores nothing; the sweeper stores it."""
    from games.models import Race

    race = running_race(alice, bob)
    game_id = racer(race, "alice")["game"]
    move_race_start(race["code"], timezone.now() - dt.timedelta(seconds=race["time_limit_s"] + 1))
    assert anon_client.get(f"/api/games/{game_id}/").json()["status"] == "resigned"
    assert Race.objects.get(code=race["code"]).status == Race.Status.RUNNING
    sweeper.sweep()
    assert Race.objects.get(code=race["code"]).status == Race.Status.FINISHED
    assert anon_client.get(f"/api/games/{game_id}/").json()["status"] == "resigned"


def test_leaving_an_open_race_and_the_owner_leaving_cancels_it(alice, bob):
    race = open_race(alice)
    act(bob, race["code"], "join")
    left = act(bob, race["code"], "resign").json()
    assert [r["username"] for r in left["racers"]] == ["alice"]
    cancelled = act(alice, race["code"], "resign").json()
    assert cancelled["status"] == "finished"
    late = act(bob, race["code"], "join")  # a race that is over says so, not "already started"
    assert late.status_code == 409 and late.json()["error"]["code"] == "race_over"


def test_resigning_during_the_countdown_is_refused(alice, settings):
    settings.RACE_COUNTDOWN_S = 30
    race = open_race(alice)
    act(alice, race["code"], "start")
    response = act(alice, race["code"], "resign")
    assert response.status_code == 409 and response.json()["error"]["code"] == "race_not_started"


# --- rematch --------------------------------------------------------------------------------------


def test_a_rematch_brings_the_same_racers_to_a_new_seed_and_everyone_lands_in_the_same_one(alice, bob):
    race = running_race(alice, bob)
    act(alice, race["code"], "resign")
    act(bob, race["code"], "resign")
    first = act(bob, race["code"], "rematch")
    assert first.status_code == 201
    rematch = first.json()
    assert rematch["status"] == "open" and rematch["owner"] == "bob" and rematch["rematch_of"] == race["code"]
    assert sorted(r["username"] for r in rematch["racers"]) == ["alice", "bob"]
    assert rematch["deal"].startswith("seed:") and rematch["deal"] != race["deal"]
    second = act(alice, race["code"], "rematch")
    assert second.status_code == 200 and second.json()["code"] == rematch["code"]
    assert read(race["code"])["rematch"] == rematch["code"]


def test_a_rematch_needs_a_finished_race_and_a_racer(alice, bob, charlie):
    race = running_race(alice, bob)
    assert act(alice, race["code"], "rematch").status_code == 409
    act(alice, race["code"], "resign")
    act(bob, race["code"], "resign")
    assert act(charlie, race["code"], "rematch").status_code == 403


# --- ghosts ---------------------------------------------------------------------------------------


def test_a_ghost_race_is_opened_on_a_friends_won_game(alice, bob):
    ghost = recorded_win(bob)
    response = client_for(alice).post("/api/races/ghost/", {"game": ghost.pk}, format="json")
    assert response.status_code == 201
    race = response.json()
    assert race["deal"] == "ms:1" and race["autoplay"] == "none"
    assert race["ghost"] == {"username": "bob", "moves": len(MS1_WIN), "elapsed_ms": ghost.elapsed_ms}
    assert racer(race, "bob", ghost=True)["status"] == "waiting" and racer(race, "bob", ghost=True)["game"] is None


def test_a_ghost_must_be_a_won_game_of_a_friend_or_your_own(alice, bob, charlie):
    from games.play import services

    strangers = recorded_win(charlie)
    assert client_for(alice).post("/api/races/ghost/", {"game": strangers.pk}, format="json").status_code == 403
    unfinished = services.create_game(player=bob, deal="ms:1")
    response = client_for(alice).post("/api/races/ghost/", {"game": unfinished.pk}, format="json")
    assert response.status_code == 409 and response.json()["error"]["code"] == "game_not_won"
    assert client_for(alice).post("/api/races/ghost/", {"game": 10**9}, format="json").status_code == 404
    own = recorded_win(alice)
    assert client_for(alice).post("/api/races/ghost/", {"game": own.pk}, format="json").status_code == 201


def test_the_ghost_moves_at_its_recorded_pace(alice, bob):
    ghost = recorded_win(bob, step_ms=2, slow_after=60)
    race = client_for(alice).post("/api/races/ghost/", {"game": ghost.pk}, format="json").json()
    act(alice, race["code"], "start")
    time.sleep(0.3)
    now = read(race["code"])
    shadow = racer(now, "bob", ghost=True)
    assert shadow["moves"] == 60 and shadow["status"] == "playing" and shadow["cards_home"] >= 0


def test_a_ghost_that_finishes_first_takes_first_place(alice, bob):
    ghost = recorded_win(bob, step_ms=1)
    race = client_for(alice).post("/api/races/ghost/", {"game": ghost.pk}, format="json").json()
    started = act(alice, race["code"], "start").json()
    time.sleep(0.2)
    win(alice, racer(started, "alice")["game"])
    done = read(race["code"])
    shadow = racer(done, "bob", ghost=True)
    assert (shadow["status"], shadow["rank"], shadow["cards_home"]) == ("won", 1, 52)
    assert racer(done, "alice")["rank"] == 2 and done["status"] == "finished"


def test_a_ghost_left_behind_when_the_race_ends_is_resigned_not_playing(alice, bob):
    ghost = recorded_win(bob, step_ms=2, slow_after=5)
    race = client_for(alice).post("/api/races/ghost/", {"game": ghost.pk}, format="json").json()
    act(alice, race["code"], "start")
    act(alice, race["code"], "resign")
    done = read(race["code"])
    shadow = racer(done, "bob", ghost=True)
    assert done["status"] == "finished" and (shadow["status"], shadow["rank"]) == ("resigned", None), shadow


def test_a_ghost_race_has_no_rematch_on_a_new_deal(alice, bob):
    ghost = recorded_win(bob)
    race = client_for(alice).post("/api/races/ghost/", {"game": ghost.pk}, format="json").json()
    act(alice, race["code"], "start")
    act(alice, race["code"], "resign")
    assert act(alice, race["code"], "rematch").status_code == 400


def test_a_racers_game_is_hidden_from_the_other_racers_until_the_race_is_over(alice, bob, charlie):
    """A racer sees the others' progress, not their boards: a rival's finished line could be copied
    move for move while the race ran, by a rival or by anyone without credentials (docs/races.md)."""
    race = running_race(alice, bob)
    alices = racer(race, "alice")["game"]
    win(alice, alices)
    assert read(race["code"])["status"] == "running"  # bob still plays
    for path in (f"/api/games/{alices}/", f"/api/games/{alices}/history/", f"/api/games/{alices}/history/?format=text"):
        assert client_for(bob).get(path).status_code == 404, path
        assert client_for(charlie).get(path).status_code == 404, path
        assert client_for().get(path).status_code == 404, path
        assert client_for(alice).get(path).status_code == 200, path
    from django.test import Client

    page = Client()
    page.force_login(bob)  # pages take the session
    assert page.get(f"/replay/{alices}/").status_code == 404 and page.get(f"/games/{alices}/").status_code == 404
    assert client_for(bob).get("/api/users/alice/games/").json()["count"] == 0
    assert client_for().get("/api/users/alice/games/").json()["count"] == 0
    act(bob, race["code"], "resign")
    assert read(race["code"])["status"] == "finished"
    assert client_for(bob).get(f"/api/games/{alices}/history/?format=text").status_code == 200
