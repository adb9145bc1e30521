"""Restart (issue 39, docs/frontend.md): the same deal dealt again for its player, and the game left is no loss.

A restart is casual play's: the player wants the same cards from the start. The game they leave is
kept as it stands, `abandoned` (services.abandon): over, and no loss (a resignation was), so the
statistics leave it out of the win rate (games.statistics). A ranked daily is played once, and a
race's game is the race's: neither restarts.
"""

from __future__ import annotations

from freecell_site.errors import ServiceError
from games.play import policies, services
from games.play.models import Game
from games.play.payloads import deal_label


def restart(*, game_id: int, user) -> Game:
    """A new game of `game_id`'s deal, autoplay and label for its player; the old game, if still being
    played, is abandoned. 404 for a game the caller may not see, 403 for another's, a ranked daily or a race's."""
    game = services.read_game(game_id)
    if not getattr(user, "is_authenticated", False) or user.pk != game.player_id:
        if not policies.can_view_game(user, game):
            raise ServiceError("not_found", f"no game {game_id}", status=404)
        raise ServiceError("forbidden", "only the game's player can restart it", status=403)
    if policies.is_ranked(game):
        raise ServiceError("forbidden", "a ranked daily cannot be restarted: it is played once", status=403)
    if game.deadline is not None:  # dealt with a deadline: a race's
        raise ServiceError("forbidden", "a race's game cannot be restarted", status=403)
    if game.status == Game.Status.PLAYING and policies.time_is_up(game) is None:
        services.abandon(game_id=game.pk, user=user)
    # Dealt by the id the game is shown under (a past daily's `daily:DATE`), so the new game is shown under it too.
    return services.create_game(player=user, deal=deal_label(game), autoplay=game.autoplay)
