"""SQLite store: the embedded default. WAL mode, busy timeout, one transaction per write."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from ..errors import VersionConflictError
from ..turns import Turn
from .base import CompactionRecord

T = TypeVar("T")
SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (
    session_id TEXT NOT NULL, idx INTEGER NOT NULL, role TEXT NOT NULL, content TEXT,
    name TEXT, tool_calls TEXT, tool_call_id TEXT, created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, idx));
CREATE TABLE IF NOT EXISTS states (
    session_id TEXT NOT NULL, version INTEGER NOT NULL, folded_through INTEGER NOT NULL,
    state TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (session_id, version));
CREATE TABLE IF NOT EXISTS compactions (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS compactions_session ON compactions (session_id, id);
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
"""
_RETRIES = 50  # on "database is locked" beyond the busy timeout


class SQLiteStore:
    """A store in one SQLite file (``":memory:"`` for a throwaway one).

    Safe to share between threads; several processes may open the same file.
    """

    def __init__(self, path: str | Path = "convstate.db", busy_timeout: float = 30.0):
        self.path = str(path)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None,
                                   check_same_thread=False)
        if self.path != ":memory:":
            self._retry(lambda: self._db.execute("PRAGMA journal_mode=WAL"))
        self._db.execute("PRAGMA synchronous=FULL")  # a stored turn survives a power cut
        self._retry(lambda: self._db.executescript(_SCHEMA))
        with self._write() as db:
            if db.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 0:
                db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION,))

    def _retry(self, fn: Callable[[], T]) -> T:
        for attempt in range(_RETRIES):
            try:
                with self._lock:
                    return fn()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc) \
                        or attempt == _RETRIES - 1:
                    raise
                time.sleep(min(0.01 * 2 ** attempt, 0.5))
        raise AssertionError("unreachable")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction: the write lock is taken up front, so no upgrade
        deadlock; committed on success, rolled back on any error."""
        with self._lock:
            self._retry(lambda: self._db.execute("BEGIN IMMEDIATE"))
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def append(self, session_id: str, fields: dict[str, Any]) -> Turn:
        """Store a turn at the session's next index and return it."""
        with self._write() as db:
            idx = db.execute("SELECT COALESCE(MAX(idx), -1) + 1 FROM turns WHERE session_id=?",
                             (session_id,)).fetchone()[0]
            turn = Turn(index=idx, **fields)
            db.execute(
                "INSERT INTO turns VALUES (?,?,?,?,?,?,?,?)",
                (session_id, idx, turn.role, turn.content, turn.name,
                 json.dumps(turn.tool_calls, ensure_ascii=False) if turn.tool_calls else None,
                 turn.tool_call_id, turn.created_at.isoformat()))
        return turn

    def turns(self, session_id: str, after: int = -1, through: int | None = None) -> list[Turn]:
        """Turns with index in (after, through], oldest first."""
        upper = through if through is not None else 2**62
        rows = self._retry(lambda: self._db.execute(
            "SELECT idx, role, content, name, tool_calls, tool_call_id, created_at FROM turns "
            "WHERE session_id=? AND idx>? AND idx<=? ORDER BY idx",
            (session_id, after, upper)).fetchall())
        return [Turn(index=r[0], role=r[1], content=r[2], name=r[3],
                     tool_calls=json.loads(r[4]) if r[4] else None, tool_call_id=r[5],
                     created_at=datetime.fromisoformat(r[6])) for r in rows]

    def turn_count(self, session_id: str) -> int:
        return self._retry(lambda: self._db.execute(
            "SELECT COUNT(*) FROM turns WHERE session_id=?", (session_id,)).fetchone()[0])

    def load_state(self, session_id: str, version: int | None = None) -> dict[str, Any] | None:
        """The latest state (or the given version) as a dict; None if never saved."""
        if version is None:
            sql, args = ("SELECT state FROM states WHERE session_id=? ORDER BY version DESC "
                         "LIMIT 1", (session_id,))
        else:
            sql, args = ("SELECT state FROM states WHERE session_id=? AND version=?",
                         (session_id, version))
        row = self._retry(lambda: self._db.execute(sql, args).fetchone())
        return json.loads(row[0]) if row else None

    def state_version(self, session_id: str) -> int:
        return self._retry(lambda: self._db.execute(
            "SELECT COALESCE(MAX(version), 0) FROM states WHERE session_id=?",
            (session_id,)).fetchone()[0])

    def save_state(self, session_id: str, state: dict[str, Any], expected_version: int,
                   record: CompactionRecord) -> None:
        """Write state, watermark and log line together, if nobody saved in between."""
        with self._write() as db:
            found = db.execute("SELECT COALESCE(MAX(version), 0) FROM states WHERE session_id=?",
                               (session_id,)).fetchone()[0]
            if found != expected_version:
                raise VersionConflictError(session_id, expected_version, found)
            db.execute("INSERT INTO states VALUES (?,?,?,?,?)",
                       (session_id, state["version"], state["folded_through"],
                        json.dumps(state, ensure_ascii=False), record.created_at.isoformat()))
            db.execute("INSERT INTO compactions (session_id, record) VALUES (?,?)",
                       (session_id, record.model_dump_json()))

    def log(self, record: CompactionRecord) -> None:
        """Log a fold that did not change the state (a failed extraction)."""
        with self._write() as db:
            db.execute("INSERT INTO compactions (session_id, record) VALUES (?,?)",
                       (record.session_id, record.model_dump_json()))

    def compactions(self, session_id: str) -> list[CompactionRecord]:
        rows = self._retry(lambda: self._db.execute(
            "SELECT record FROM compactions WHERE session_id=? ORDER BY id",
            (session_id,)).fetchall())
        return [CompactionRecord.model_validate_json(r[0]) for r in rows]

    def sessions(self) -> list[str]:
        """Every session id that has a turn."""
        rows = self._retry(lambda: self._db.execute(
            "SELECT DISTINCT session_id FROM turns ORDER BY session_id").fetchall())
        return [r[0] for r in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


class InMemoryStore(SQLiteStore):
    """A throwaway store with the very same semantics (SQLite ``:memory:``)."""

    def __init__(self) -> None:
        super().__init__(":memory:")
