"""Channels consumers for games and races: thin, calling games/services.py."""

from channels.generic.websocket import AsyncJsonWebsocketConsumer


class GameConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        await self.close(code=4404)


class RaceConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        await self.close(code=4404)
