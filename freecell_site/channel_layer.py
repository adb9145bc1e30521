"""channels-redis' pub/sub layer, plus many group sends in one Redis round trip.

A move pushes to two or three groups (the game, the race), and under load the process's publisher
thread (games.events) has many waiting: sent one by one, each PUBLISH waits for its answer (and, in a
busy process, for the interpreter lock after it), which made the publisher the queue behind the
delay until an opponent saw a move. `group_send_many` sends them all in one pipeline.
"""

from __future__ import annotations

from channels_redis.pubsub import RedisPubSubChannelLayer


class PubSubChannelLayer(RedisPubSubChannelLayer):
    async def group_send_many(self, sends: list[tuple[str, dict]]) -> None:
        """Sends each (group, message) in order, in one pipeline per Redis shard."""
        layer = self._get_layer()  # the layer of the running event loop
        by_shard: dict = {}
        for group, message in sends:
            channel = layer._get_group_channel_name(group)
            by_shard.setdefault(layer._get_shard(channel), []).append((channel, self.serialize(message)))
        for shard, messages in by_shard.items():
            # The shard's own lock and connection, as its publish() uses them.
            async with shard._lock:
                shard._ensure_redis()
                async with shard._redis.pipeline(transaction=False) as pipe:
                    for channel, data in messages:
                        pipe.publish(channel, data)
                    await pipe.execute()
