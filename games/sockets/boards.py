"""`/ws/deals/<deal>/records/`: a deal's board, live: its top on connect, again whenever it changes.

`?autoplay=none|safe` (default safe) and `?players=people|bots` (default people) pick the board. A frame
`{"type": "records", ...}` carries the board's top (`record`, `entries`, `count`, and the viewer's
`me`), read as the REST board reads them (through the cache); a push says whether the record (rank 1)
just fell (`record_fell`). The bus only says that the deal's board of people or of bots changed, so a
lost push costs a late frame at most: `sync` asks for the board again.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from freecell_site.errors import ServiceError
from games.boards import selectors, services
from games.boards.reading import read_board
from games.boards.serializers import RECORDS
from games.boards.services import records_group
from games.daily.leaderboard import PLAYERS
from games.engine import EngineError
from games.sockets.base import Socket

#: Lines of the board a socket is sent.
TOP = 10


def board_top(deal: str, autoplay: str, viewer, *, bots: bool = False) -> dict:
    """The top of the deal's board of people (or of bots) and the viewer's line, as a socket frame's
    fields: read as `GET /api/deals/<deal>/records/?page_size=10` reads them, through the cache, so
    a change tells every watcher and the first to read after it reads the database for the others
    (a change below the top, only the count and each viewer's own line)."""
    count, _number, _size, written = read_board(
        services.records_board(deal, autoplay, bots),
        RECORDS,
        viewer,
        asked=(1, TOP),
        bounds=lambda _count: (1, TOP),
        count=lambda: selectors.record_count(deal, autoplay, bots=bots),
        page=lambda **at: selectors.record_page(deal, autoplay, **at, bots=bots),
        mine=lambda: selectors.record_line_of(deal, autoplay, viewer, bots=bots),
        record=lambda: selectors.record_of(deal, autoplay, bots=bots),
    )
    return {"record": written["record"], "entries": written["entries"], "count": count, "me": written["me"]}


class RecordsConsumer(Socket):
    """`/ws/deals/<deal>/records/`: watch one deal's board."""

    frame_types = ("auth", "ping", "sync")

    async def open(self):
        self.asked = self.scope["url_route"]["kwargs"]["deal"]
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.autoplay = (query.get("autoplay") or ["safe"])[0]
        if self.autoplay not in selectors.AUTOPLAYS:
            await self.close_with(None, "invalid_request", "autoplay must be none or safe", 4400)
            return
        self.players = (query.get("players") or ["people"])[0]
        if self.players not in PLAYERS:
            await self.close_with(None, "invalid_request", f"players must be one of: {', '.join(PLAYERS)}", 4400)
            return
        self.bots = self.players == "bots"
        try:
            self.deal = await self.db(selectors.board_deal)(self.asked)
        except EngineError as exc:
            await self.close_with(None, exc.code, str(exc), 4400)
            return
        except ServiceError as exc:  # a daily's deal while its day is on: forbidden, 4403
            await self.close_with(None, exc.code, exc.message, 4000 + exc.status)
            return
        # Joined before the first read, so that no change between the two is missed.
        await self.bus_channel.join(records_group(self.deal, self.autoplay))
        await self.show()

    async def show(self, frame_id=None, *, record_fell: bool = False) -> None:
        top = await self.db(board_top)(self.deal, self.autoplay, self.user, bots=self.bots)
        body = {"type": "records", "deal": self.asked, "autoplay": self.autoplay, "players": self.players, "record_fell": record_fell, **top}
        if frame_id is not None:
            body["id"] = frame_id
        await self.send_json(body)

    async def records_changed(self, event):
        """The deal's board changed (games.boards.services, after commit, from any process); a change of
        its other board (bots' for people's, people's for bots') is no news here."""
        if event.get("deal") == self.deal and event.get("autoplay") == self.autoplay and event.get("bot", False) == self.bots:
            await self.show(record_fell=bool(event.get("record_fell")))

    async def frame_sync(self, frame, frame_id):
        await self.show(frame_id)

    async def authenticated(self):
        await self.show()

    async def resync(self):
        await self.show()
