"""A live connection's own channel on the bus and the groups it is in: how sockets and streams alike use
the channel layer, so that a layer that fails costs them pushes (made good by a resync) and never the
connection.

A failure of a call made for one connection (its channel, one of its joins) puts that connection
behind (`bus.missed`): the process's watch brings it back alone once the bus answers. A failed receive
concerns every connection of the process (`bus.failed`): what was sent meanwhile is lost. A failed
leave loses nothing (a group forgets its members after the layer's expiry anyway) and is only logged.
"""

from __future__ import annotations

import asyncio

from games import events
from games.sockets import bus

#: How long one call to the layer may take before it counts as failed.
LAYER_TIMEOUT = 1.0

#: How long a receive that failed waits before it asks the layer again (Redis down fails at once).
RETRY_S = 1.0


class BusChannel:
    """`owner`'s channel on `layer` (None: no layer configured, and nothing to do) and its groups.

    `owner` is what the process's watch of the bus keeps (games.sockets.bus.watch): its
    `bus_generation` is set here, to the failure count it starts in step with, or to -1 (behind)."""

    __slots__ = ("owner", "layer", "prefix", "name", "groups", "made")  # one per open connection: kept small

    def __init__(self, owner, layer, prefix: str = "specific."):
        self.owner, self.layer, self.prefix = owner, layer, prefix
        self.name: str | None = None
        self.groups: set[str] = set()
        #: What `receive` waits on while the channel is not made yet (None when nothing waits).
        self.made: asyncio.Future | None = None

    async def open(self) -> None:
        """Makes the channel; with the bus away, the owner starts behind and the channel is made later."""
        self.owner.bus_generation = events.bus_failures()  # read first: a failure from now on puts it behind
        await self._make()

    async def _make(self) -> bool:
        """Whether the channel exists, made now if need be (a failure puts the owner behind)."""
        if self.name is None and self.layer is not None:
            try:
                self.name = await asyncio.wait_for(self.layer.new_channel(self.prefix), LAYER_TIMEOUT)
            except Exception as exc:
                bus.missed(self.owner, "new_channel", exc)
            else:
                if self.made is not None and not self.made.done():
                    self.made.set_result(None)
        return self.name is not None

    async def join(self, group: str) -> None:
        self.groups.add(group)
        if self.name is None:
            return  # joined once the channel is made
        try:
            await asyncio.wait_for(self.layer.group_add(group, self.name), LAYER_TIMEOUT)
        except Exception as exc:
            bus.missed(self.owner, "group_add", exc)

    async def rejoin(self) -> None:
        """Makes the channel if it has none yet and joins every group again (a restarted Redis forgot
        them): the owner's way back after a failure (its `bus_back`)."""
        if await self._make():
            for group in list(self.groups):
                await self.join(group)

    async def leave(self, group: str) -> None:
        self.groups.discard(group)
        if self.name is None:
            return
        try:
            await asyncio.wait_for(self.layer.group_discard(group, self.name), LAYER_TIMEOUT)
        except Exception as exc:
            events.report_bus_failure("channel layer group_discard", exc)

    async def leave_all(self) -> None:
        """Leaves every group: nothing of the connection stays on the bus."""
        for group in list(self.groups):
            await self.leave(group)

    async def receive(self) -> dict:
        """The next message to the channel. With no channel yet (the bus was away when the connection
        opened, which put it behind), it waits for the process's watch to make it (`rejoin`, once the
        bus answers) on no timer of its own. A failed receive is tried again after RETRY_S; it never
        raises but on cancellation, which the pub/sub layer takes as the end of the channel."""
        while True:
            if self.name is None:
                self.made = asyncio.get_running_loop().create_future()
                await self.made
                self.made = None
                continue
            try:
                return await self.layer.receive(self.name)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                bus.failed("receive", exc)
                await asyncio.sleep(RETRY_S)
