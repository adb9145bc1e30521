"""Reads of play: who may see a game, histories and lines of play, players' finished games."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Q, QuerySet

from games.engine import Board, DealId
from games.play import lines, policies
from games.play.models import Action, Deal, Game
from games.play.payloads import deal_label, game_payload, iso
from games.play.services import board_of_deal, read_with

#: Whether a viewer may see a game now: the one answer, which games.play.policies gives.
can_view_game = policies.can_view_game


def visible_game(game_id: int, viewer) -> Game | None:
    """A game the viewer may see now, with what is read with it; None for one hidden or missing."""
    game = Game.objects.select_related(*read_with()).filter(pk=game_id).first()
    if game is None or not policies.can_view_game(viewer, game):
        return None
    return game


#: The orders of the game lists: by creation, newest or oldest first (the id breaks ties).
ORDERS = {"newest": ("-created_at", "-id"), "oldest": ("created_at", "id")}


def created_between(games: QuerySet[Game], since=None, until=None) -> QuerySet[Game]:
    """The games created from `since` (included) to `until` (excluded), either bound left open when None."""
    if since is not None:
        games = games.filter(created_at__gte=since)
    if until is not None:
        games = games.filter(created_at__lt=until)
    return games


def games_of(player, *, status: str | None = None, since=None, until=None, order: str = "newest") -> QuerySet[Game]:
    """A player's own games, newest first (or `order` oldest), created between `since` and `until`;
    `status` as each game truly is (one whose time is up is resigned, before the sweeper has stored it
    so: games.play.policies)."""
    games = created_between(Game.objects.filter(player=player), since, until).select_related(*read_with()).order_by(*ORDERS[order])
    if status == Game.Status.PLAYING:
        return games.filter(status=status).exclude(policies.time_up_games())
    if status == Game.Status.RESIGNED:
        return games.filter(Q(status=status) | policies.time_up_games())
    return games.filter(status=status) if status else games


def game_state(game_id: int) -> dict | None:
    """The game object of a game (None if there is none), for a socket that already watches it."""
    game = Game.objects.select_related(*read_with()).filter(pk=game_id).first()
    return game_payload(game) if game else None


def visible_game_state(game_id: int, viewer) -> dict | None:
    """The game object of a game the viewer may see now; None for a game hidden from them or missing."""
    game = visible_game(game_id, viewer)
    return game_payload(game) if game else None


def legal_moves(game: Game) -> dict:
    """`{game, ply, status, moves}`: every legal move at the game's position in the spec's notation (each
    length of a run that may move to an empty column listed once); none once the game is over."""
    shown = game_payload(game)  # the status as it truly is (a game whose time is up is over)
    moves = []
    if shown["status"] == Game.Status.PLAYING:
        moves = [str(move) for move in Board.from_state(game.state).legal_moves()]
    return {"game": game.pk, "ply": game.ply, "status": shown["status"], "moves": moves}


def board_of_deal_id(deal_id) -> Board:
    """The start of an `ms:` or `seed:` deal, read without storing it, refused as a player asking for the
    deal is refused (games.play.policies.guard_deal: a daily's deal while its day is on). A deal never
    stored is no daily's: the daily stores its deal when it is made."""
    found = Deal.objects.filter(pk=str(deal_id)).first()
    if found is None:
        return Board.from_deal(deal_id)
    policies.guard_deal(found)
    return board_of_deal(found)


def actions_of(game: Game) -> QuerySet[Action]:
    return game.actions.order_by("index")


def line_text(game: Game) -> str:
    """The line of play as moves for autoplay `none`: autoplay written out, undone moves left out."""
    return lines.text(game.line)


def finished_games_of(user, *, order: str = "newest") -> QuerySet[Game]:
    return Game.objects.filter(player=user, status__in=Game.FINISHED).select_related("deal", *policies.read_with()).order_by(*ORDERS[order])


def exported_games(
    user,
    viewer,
    *,
    since=None,
    until=None,
    order: str = "newest",
    ids: list[int] | None = None,
    deal: DealId | None = None,
    result: str | None = None,
    most: int | None = None,
) -> QuerySet[Game]:
    """A player's finished games that the viewer may see, newest first (or `order` oldest), created
    between `since` and `until`; only those of `ids`, of `deal` (as its rows name it: `daily:DATE` for
    a daily) and ending in `result` when given; at most `most` of them. A query, so that a page of them
    reads that page only (a player may have thousands)."""
    games = created_between(finished_games_of(user, order=order), since, until).exclude(policies.hidden_from(viewer))
    if ids is not None:
        games = games.filter(pk__in=ids)
    if deal is not None:
        games = games.filter(deal_is(deal))
    if result is not None:
        games = games.filter(status=result)
    return games[:most] if most is not None else games


def deal_is(deal: DealId) -> Q:
    """The games shown under the deal id `deal` (payloads.deal_label): a daily's by its date, ranked or
    played later; an `ms:` or `seed:` deal's when neither (a daily's own seed is shown as the daily):
    games.play.policies.shown_under."""
    return policies.shown_under(deal)


def visible_games(viewer) -> QuerySet[Game]:
    """Every game the viewer may see now (games.play.policies)."""
    return Game.objects.exclude(policies.hidden_from(viewer))


def export_row(game: Game) -> dict:
    """One exported game with its line."""
    return {
        "id": game.pk,
        "deal": deal_label(game),
        "status": game.status,
        "moves": game.ply,
        "undos": game.undos,
        "autoplay": game.autoplay,
        "elapsed_ms": game.elapsed_ms,
        "created_at": iso(game.created_at),
        "finished_at": iso(game.finished_at),
        "line": line_text(game),
    }


def export_rows(user, viewer, **filters) -> Iterator[dict]:
    """Every exported game of a player, as the viewer may see them (the NDJSON export streams them)."""
    for game in exported_games(user, viewer, **filters).iterator(chunk_size=200):
        yield export_row(game)


def export_texts(user, viewer, **filters) -> Iterator[str]:
    """Every exported game of a player as text (the text export streams them): the deal's board text
    (Board.to_text, always 10 lines), then the line of play on one line (left out when the game had no
    move, so that a blank line always ends a game), then a blank line."""
    boards: dict[str, str] = {}  # a player's games often share deals (the dailies aside)
    for game in exported_games(user, viewer, **filters).iterator(chunk_size=200):
        if game.deal_id not in boards:
            boards[game.deal_id] = board_of_deal(game.deal).to_text()
        line = line_text(game)
        yield boards[game.deal_id] + (line + "\n" if line else "") + "\n"
