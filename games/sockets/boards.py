"""`/ws/deals/<deal>/records/`: a deal's board, live: its top on connect, again whenever it changes.

`?autoplay=none|safe` (default safe) and `?players=people|bots` (default people) pick the board. A frame
`{"type": "records", ...}` carries the board's top (`record`, `entries`, `count`, and the viewer's
`me`), read from the database; a push says whether the record (rank 1) just fell (`record_fell`). The
bus only says that the deal's board of people or of bots changed, so a lost push costs a late frame at
most: `sync` asks for the board again.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from freecell_site.errors import ServiceError
from games.boards import selectors
from games.boards.serializers import RecordEntrySerializer
from games.boards.services import records_group
from games.daily.leaderboard import PLAYERS
from games.engine import EngineError
from games.sockets.base import Socket

#: Lines of the board a socket is sent.
TOP = 10


def board_top(deal: str, autoplay: str, viewer, *, bots: bool = False) -> dict:
    """The top of the deal's board of people (or of bots) and the viewer's line, as a socket frame's
    fields (reads only)."""
    lines = RecordEntrySerializer(selectors.record_page(deal, autoplay, offset=0, limit=TOP, bots=bots), many=True).data
    mine = selectors.record_line_of(deal, autoplay, viewer, bots=bots)
    return {
        "record": lines[0] if lines else None,
        "entries": lines,
        "count": selectors.record_count(deal, autoplay, bots=bots),
        "me": RecordEntrySerializer(mine).data if mine is not None else None,
    }


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
