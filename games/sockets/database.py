"""How a live connection (a socket or a stream) runs ORM code: off the event loop, in a database thread."""

from __future__ import annotations

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection


def db(func):
    """Runs ORM code off the event loop. On PostgreSQL (a connection pool) calls may run side by side;
    SQLite keeps Channels' default of one thread per process.

    The connection is given back inside the call itself: Django keeps connections per context, and
    the call runs in a copy of the caller's context, so Channels' own clean-up around the call (in the
    worker's context) would not see it, and a pooled connection would never return to the pool."""

    def call(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        finally:
            close_old_connections()

    shared = connection.vendor != "postgresql" or settings.WS_DB_ONE_THREAD
    return database_sync_to_async(call, thread_sensitive=shared)
