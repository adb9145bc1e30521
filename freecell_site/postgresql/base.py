"""Django's PostgreSQL backend, except that a pooled connection the server has closed is replaced.

After PostgreSQL restarts or ends its backends (a failover, `pg_terminate_backend`), every idle
connection in psycopg's pool is dead, and each would fail one request or websocket move with a 500
before the pool noticed. psycopg_pool's own `check` (Django's CONN_HEALTH_CHECKS) costs a round trip
on every checkout and, when it finds a dead connection, waits 1 s, then 2 s, 4 s... before trying the
next one, so a pool of dead connections ran past the pool's timeout: a 500 anyway.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool


def closed_by_server(connection) -> bool:
    """Whether the server has ended this idle connection. An idle connection has nothing to read, so
    only one whose socket is readable (the server closed it, or sent a notice) costs a round trip."""
    try:
        if not select.select([connection.fileno()], [], [], 0)[0]:
            return False
        ConnectionPool.check_connection(connection)
    except Exception:
        return True
    return False


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        if self.pool is None:
            return connection
        for _ in range(self.pool.max_size):
            if not closed_by_server(connection):
                break
            connection.close()
            self.pool.putconn(connection)  # a closed connection given back is replaced by a new one
            connection = super().get_new_connection(conn_params)
        return connection
