"""After any sequence of moves and undos, the stored snapshot equals a replay of the stored history."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from freecell_site.errors import ServiceError
from games.engine import EngineError
from games.models import Game
from games.play import services
from games.play.integrity import check_game

pytestmark = pytest.mark.django_db


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    deal=st.sampled_from(["ms:1", "ms:617", "seed:7", "seed:123456789"]),
    autoplay=st.sampled_from(["none", "safe"]),
    choices=st.lists(st.integers(min_value=0, max_value=10_000), max_size=40),
)
def test_random_games_keep_their_snapshot_equal_to_a_replay(alice, deal, autoplay, choices):
    game = services.create_game(player=alice, deal=deal, autoplay=autoplay)
    for choice in choices:
        game.refresh_from_db()
        if game.status != Game.Status.PLAYING:
            break
        board = services.board_of(game)
        legal = board.legal_moves()
        # One choice in five is an undo (refused when there is nothing to undo).
        if choice % 5 == 0 or not legal:
            try:
                services.undo(game_id=game.pk, user=alice, ply=game.ply)
            except ServiceError as exc:
                assert exc.code == "illegal_move"
            continue
        services.play_move(game_id=game.pk, user=alice, move=str(legal[choice % len(legal)]), ply=game.ply)
    game.refresh_from_db()
    assert check_game(game) is None
    assert services.board_of(game).state() == game.state


def test_refused_moves_store_nothing(alice):
    game = services.create_game(player=alice, deal="ms:1", autoplay="none")
    before = Game.objects.get(pk=game.pk)
    for notation in ["1h", "xx", "12", "a1"]:
        with pytest.raises((ServiceError, EngineError)):
            services.play_move(game_id=game.pk, user=alice, move=notation, ply=0)
    after = Game.objects.get(pk=game.pk)
    assert (after.state, after.ply, after.version) == (before.state, before.ply, before.version)
    assert after.actions.count() == 0


def test_verify_games_reports_a_tampered_snapshot(alice, capsys):
    good = services.create_game(player=alice, deal="ms:1", autoplay="none")
    services.play_move(game_id=good.pk, user=alice, move="3a", ply=0)
    bad = services.create_game(player=alice, deal="ms:2", autoplay="none")
    services.play_move(game_id=bad.pk, user=alice, move="1a", ply=0)
    Game.objects.filter(pk=bad.pk).update(state=good.state)
    with pytest.raises(Exception, match="1 games differ"):
        call_command("verify_games", "--quiet")
    out = capsys.readouterr().out
    assert f"game {bad.pk}: snapshot differs" in out and f"game {good.pk}:" not in out


def test_verify_games_is_clean_on_honest_games(alice, capsys):
    game = services.create_game(player=alice, deal="ms:1", autoplay="safe")
    services.play_move(game_id=game.pk, user=alice, move="3a", ply=0)
    services.undo(game_id=game.pk, user=alice, ply=1)
    call_command("verify_games", "--quiet")
    assert "1 games checked, 0 differ" in capsys.readouterr().out
