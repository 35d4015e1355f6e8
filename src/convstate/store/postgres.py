"""PostgreSQL store, for many workers: psycopg 3 with a connection pool.

Same semantics as SQLite: writers of one session are serialized by a transaction-scoped
advisory lock on the session id, so an append gets the next index and a state save
checks its version without racing. Needs ``pip install "convstate[postgres]"``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .sql import SQLStore


class PostgresStore(SQLStore):
    """A store in a PostgreSQL database: ``PostgresStore("postgresql://...")``.

    Tables are created on first use; ``schema_version`` records the layout for later
    migrations (``convstate migrate --store DSN``).
    """

    serial_id, real_type = "BIGSERIAL PRIMARY KEY", "DOUBLE PRECISION"

    def __init__(self, dsn: str, min_size: int = 1, max_size: int = 8):
        try:
            from psycopg_pool import ConnectionPool
        except ImportError:
            raise ImportError('PostgresStore needs: pip install "convstate[postgres]"') \
                from None
        self.dsn = dsn
        self._pool = ConnectionPool(dsn, min_size=min_size, max_size=max_size, open=True,
                                    kwargs={"autocommit": True})
        self.migrate()

    @contextmanager
    def _write(self, session_id: str) -> Iterator[Any]:
        with self._pool.connection() as conn, conn.transaction():
            db = _Dialect(conn)
            db.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (session_id,))
            yield db

    def _read(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._pool.connection() as conn:
            return _Dialect(conn).execute(sql, args).fetchall()

    def close(self) -> None:
        self._pool.close()


class _Dialect:
    """A psycopg connection that takes the shared ``?`` placeholders."""

    def __init__(self, conn: Any):
        self.conn = conn

    def execute(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        return self.conn.execute(sql.replace("?", "%s"), args)
