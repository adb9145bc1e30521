"""bench/api.py's floor of a REST action (bench/floor.py): let in as a move is, it stores an action's
three statements and nothing else."""

from __future__ import annotations

from django.test import override_settings
from django.urls import resolve

from bench.floor import FloorRequest, FloorView
from games.play.models import Action, Game
from tests.support.players import client_for


def test_the_floor_route_is_resolved_by_the_floors_own_urlconf():
    assert resolve("/bench/floor/7/", urlconf=FloorRequest.urlconf).func.view_class is FloorView


def test_the_floor_stores_one_action_of_the_game_under_a_version_check(alice):
    client = client_for(alice)
    created = client.post("/api/games/", {"deal": "ms:9"}, format="json")
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    with override_settings(ROOT_URLCONF=FloorRequest.urlconf):
        answers = [client.post(f"/bench/floor/{game_id}/", {"move": "5a", "ply": 0}, format="json") for _ in range(2)]
    assert [(answer.status_code, answer.json()) for answer in answers] == [(200, {"ok": True})] * 2
    assert Game.objects.get(pk=game_id).version == 2
    assert list(Action.objects.filter(game_id=game_id).order_by("index").values_list("index", "notation")) == [(0, "5a"), (1, "5a")]


def test_the_floor_lets_in_only_whom_a_move_lets_in(alice):
    game_id = client_for(alice).post("/api/games/", {"deal": "ms:9"}, format="json").json()["id"]
    with override_settings(ROOT_URLCONF=FloorRequest.urlconf):
        anonymous = client_for().post(f"/bench/floor/{game_id}/", {}, format="json")
    assert anonymous.status_code == 401
    assert not Action.objects.filter(game_id=game_id).exists()
