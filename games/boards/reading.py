"""A whole board read through the cache: its count, a page and the reader's own line, for the REST
views and the live board socket alike (each part kept with the board's version: services.Kept)."""

from __future__ import annotations

from collections.abc import Callable

from games.boards import services
from games.boards.serializers import PageSerializer


def read_board(
    board: str,
    shape: PageSerializer,
    reader,
    *,
    asked: tuple[int | None, int],
    bounds: Callable[[int], tuple[int, int]],
    count: Callable[[], int],
    page: Callable[..., list],
    mine: Callable[[], object],
    record: Callable[[], object] | None = None,
    as_of: str = "",
) -> tuple[int, int, int, dict]:
    """(the board's count, the page's number and size, the page's parts written by `shape`: its
    `entries`, its `record` when the board has one, and the reader's `me`).

    `board` names the board's version (services.records_board and the like); `asked` is the page's
    number and size as asked, the number None when the count says which it is (the last): a page
    named by number comes in the cache's first round trip, beside the board's version, the count
    and `me`. `bounds(count)` gives the page's number and size (or refuses them). Each part is the
    same for every reader but `me`, each reader's own; `record()` is the board's first line (the
    deal's record), whatever the page; `as_of`: what else a page and `me` depend on (the streaks'
    day)."""
    signed_in = reader.is_authenticated
    mine_part = f"me:{as_of}:{reader.pk}"

    def page_part(number: int, size: int) -> str:
        return f"page:{as_of}:{number}:{size}"

    number, size = asked
    first = ["count", *([mine_part] if signed_in else []), *([page_part(number, size)] if number is not None else [])]
    kept = services.Kept(board, first)
    total = kept.get("count", count)
    number, size = bounds(total)

    def read_page() -> dict:
        entries = page(offset=(number - 1) * size, limit=size) if total else []
        parts = {"entries": entries}
        if record is not None:
            # The record is the board's first line: the first page of the whole board already holds it.
            parts["record"] = (entries[0] if number == 1 and entries else None) or record()
        return shape.write(**parts)

    # A page within the board's first lines is kept with their version (a change below them leaves it).
    written = kept.get(page_part(number, size), read_page, end=number * size)
    own = kept.get(mine_part, lambda: shape.write(me=mine())) if signed_in else shape.write(me=None)
    kept.keep()
    return total, number, size, {**written, **own}
