"""PostgreSQL store, for many workers: psycopg 3 with a connection pool.

Same semantics as SQLite: writers of one session are serialized by a transaction-scoped
advisory lock on the session id, so an append gets the next index and a state save
checks its version without racing. Needs ``pip install "convstate[postgres]"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import StoreError
from .migrations import Dialect
from .sql import SQLStore


class PostgresStore(SQLStore):
    """A store in a PostgreSQL database: ``PostgresStore("postgresql://...")``.

    Tables are created, and later migrations applied, on first use (or with
    ``convstate migrate --store DSN``); ``schema_version`` records each.
    """

    dialect = Dialect(param="%s", serial_id="BIGSERIAL PRIMARY KEY", real="DOUBLE PRECISION",
                      blob="BYTEA")

    def __init__(self, dsn: str, min_size: int = 1, max_size: int = 8,
                 timeout: float = 5.0):
        """``timeout``: seconds to wait for a connection (and to connect) before a
        StoreError, so an unreachable server fails fast, not after the pool's 30 s."""
        try:
            import psycopg
            from psycopg_pool import ConnectionPool, PoolTimeout
        except ImportError:
            raise ImportError('PostgresStore needs: pip install "convstate[postgres]"') \
                from None
        self.dsn = dsn
        self._errors = (psycopg.Error, PoolTimeout)
        self._pool = ConnectionPool(dsn, min_size=min_size, max_size=max_size, open=True,
                                    timeout=timeout,
                                    kwargs={"autocommit": True,
                                            "connect_timeout": max(1, round(timeout))})
        try:
            self.migrate()
        except StoreError:
            self._pool.close()
            raise

    @contextmanager
    def _write(self, session_id: str) -> Iterator[Any]:
        try:
            with self._pool.connection() as conn, conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (session_id,))
                yield conn
        except self._errors as exc:  # the transaction was rolled back
            raise self._failed("write", exc) from exc

    def _fetch(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            with self._pool.connection() as conn:
                return conn.execute(sql, args).fetchall()
        except self._errors as exc:
            raise self._failed("read", exc) from exc

    def _scrub(self) -> None:
        """Deleted rows stay in the tables' pages as dead tuples until a vacuum."""
        try:
            with self._pool.connection() as conn:  # autocommit: VACUUM needs no transaction
                conn.execute("VACUUM turns, states, compactions, leases")
        except self._errors as exc:
            raise self._failed("vacuum", exc) from exc

    def _failed(self, what: str, exc: Exception) -> StoreError:
        where = re.sub(r"//[^@/]*@", "//", self.dsn)  # never print a password
        rolled_back = "; nothing was half-written" if what == "write" else ""
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return StoreError(f"cannot {what} PostgreSQL at {where}: {reason}{rolled_back}")

    def close(self) -> None:
        self._pool.close()

