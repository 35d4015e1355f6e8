"""PostgreSQL store, for many workers: psycopg 3 with a connection pool.

Same semantics as SQLite: writers of one session are serialized by a transaction-scoped
advisory lock on the session id, so an append gets the next index and a state save
checks its version without racing. Needs ``pip install "convstate[postgres]"``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import StoreError
from .base import key_ttl
from .migrations import Dialect
from .sql import SQLStore, locks
from .sqlcore import IDEMPOTENCY_TTL

SCRUB_WAIT = 10.0  # seconds an erasure's scrub waits for older transactions, and locks
# client sessions whose open transaction began before ``since`` (a snapshot that may
# still see the erased rows, which VACUUM FULL would then keep)
_OLDER = ("SELECT pid, application_name, state, xact_start FROM pg_stat_activity WHERE "
          "backend_type = 'client backend' AND pid <> pg_backend_pid() AND "
          "backend_xmin IS NOT NULL AND xact_start < %s ORDER BY xact_start")
# sessions holding a lock on one of the tables named
_HOLDERS = ("SELECT a.pid, a.application_name, a.state, a.xact_start FROM pg_stat_activity a "
            "WHERE a.pid <> pg_backend_pid() AND a.pid IN (SELECT l.pid FROM pg_locks l "
            "WHERE l.granted AND l.relation = ANY (%s::regclass[])) ORDER BY a.xact_start")


class PostgresStore(SQLStore):
    """A store in a PostgreSQL database: ``PostgresStore("postgresql://...")``.

    Tables are created, and later migrations applied, on first use (or with
    ``convstate migrate --store DSN``); ``schema_version`` records each.
    """

    dialect = Dialect(param="%s", serial_id="BIGSERIAL PRIMARY KEY", real="DOUBLE PRECISION",
                      blob="BYTEA", lock="pg_advisory_xact_lock(hashtext({p}))",
                      bytewise='"C"')

    def __init__(self, dsn: str, min_size: int = 1, max_size: int = 8,
                 timeout: float = 5.0, readonly: bool = False,
                 idempotency_ttl: float = IDEMPOTENCY_TTL):
        """``timeout``: seconds to wait for a connection (and to connect) before a
        StoreError, so an unreachable server fails fast, not after the pool's 30 s, and
        in one line (one connection is tried before the pool opens). ``readonly``: for
        looking, the tables are neither created nor migrated. ``idempotency_ttl``:
        seconds a request's idempotency key is kept."""
        self.idempotency_ttl = key_ttl(idempotency_ttl)
        try:
            import psycopg
            from psycopg_pool import ConnectionPool, PoolTimeout
        except ImportError:
            raise ImportError('PostgresStore needs: pip install "convstate[postgres]"') \
                from None
        self.dsn = dsn
        self._errors = (psycopg.Error, PoolTimeout)
        self._lock_timeout = psycopg.errors.LockNotAvailable
        connect_timeout = max(1, round(timeout))
        try:  # the pool would retry in the background, logging each failure
            psycopg.connect(dsn, connect_timeout=connect_timeout).close()
        except psycopg.Error as exc:
            raise self._failed("connect to", exc) from None
        self._pool = ConnectionPool(dsn, min_size=min_size, max_size=max_size, open=True,
                                    timeout=timeout,
                                    kwargs={"autocommit": True,
                                            "connect_timeout": connect_timeout})
        if readonly:
            return
        try:
            self.migrate()
        except StoreError:
            self._pool.close()
            raise

    @contextmanager
    def _write(self, *keys: str) -> Iterator[Any]:
        try:
            with self._pool.connection() as conn, conn.transaction():
                conn.execute(self.dialect.sql(locks(self.dialect, len(keys))), keys)
                yield conn
        except self._errors as exc:  # the transaction was rolled back
            raise self._failed("write", exc) from exc

    def _fetch(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            with self._pool.connection() as conn:
                return conn.execute(sql, args).fetchall()
        except self._errors as exc:
            raise self._failed("read", exc) from exc

    def _scrub(self, tables: tuple[str, ...]) -> None:
        """Deleted rows stay in their tables' pages as dead tuples, and a plain VACUUM
        frees their space without overwriting it: VACUUM FULL rewrites each table the
        erasure deleted from. It keeps a row some open transaction may still see, so it
        first waits for every transaction begun before the erasure to end; and it locks
        each table while rewriting it, waiting at most ``SCRUB_WAIT`` seconds for that
        lock. Either wait past its time, or a table it may not rewrite (not its owner),
        is a StoreError naming what is in the way."""
        try:
            with self._pool.connection() as conn:  # autocommit: VACUUM needs no transaction
                self._wait_for_older(conn)
                self._vacuum_full(conn, tables)
        except self._errors as exc:
            raise self._failed("vacuum", exc) from exc

    def _wait_for_older(self, conn: Any) -> None:
        since = conn.execute("SELECT clock_timestamp()").fetchall()[0][0]
        deadline = time.monotonic() + SCRUB_WAIT
        while older := conn.execute(_OLDER, (since,)).fetchall():
            if time.monotonic() > deadline:
                raise StoreError(self._blocked("a transaction begun before the erasure is "
                                               "still open", older))
            time.sleep(0.02)

    def _vacuum_full(self, conn: Any, tables: tuple[str, ...]) -> None:
        skipped: list[str] = []  # VACUUM only warns of a table it may not rewrite

        def heard(notice: Any) -> None:
            if notice.severity_nonlocalized == "WARNING":
                skipped.append(notice.message_primary or "")

        conn.execute(f"SET lock_timeout = {int(SCRUB_WAIT * 1000)}")
        conn.add_notice_handler(heard)
        try:
            conn.execute("VACUUM FULL " + ", ".join(tables))
        except self._lock_timeout:
            holders = conn.execute(_HOLDERS, (list(tables),)).fetchall()
            raise StoreError(self._blocked("another session holds a lock on a scrubbed "
                                           "table", holders)) from None
        finally:
            conn.remove_notice_handler(heard)
            conn.execute("RESET lock_timeout")
        if skipped:
            raise StoreError(f"the erased rows are deleted, but VACUUM FULL did not rewrite "
                             f"every table at {self._where()}, so their bytes may stay in its "
                             f"files: {'; '.join(skipped)} (run the erasure as the tables' "
                             "owner, or VACUUM FULL them as one)")

    def _blocked(self, why: str, sessions: list[tuple[Any, ...]]) -> str:
        named = "; ".join(f"pid {pid} ({name or 'no application_name'}, {state}, "
                          f"transaction since {began})" for pid, name, state, began in sessions)
        return (f"the erased rows are deleted, but their bytes stay in PostgreSQL's table "
                f"files at {self._where()} until VACUUM FULL can run: {why} (waited "
                f"{SCRUB_WAIT:.0f} s): {named}. End it, then erase again (it finishes the "
                "scrub)")

    def _failed(self, what: str, exc: Exception) -> StoreError:
        where = self._where()
        rolled_back = "; nothing was half-written" if what == "write" else ""
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return StoreError(f"cannot {what} PostgreSQL at {where}: {reason}{rolled_back}")

    def _where(self) -> str:
        return re.sub(r"//[^@/]*@", "//", self.dsn)  # never print a password

    def close(self) -> None:
        self._pool.close()

