"""The ground the SQL store stands on: a dialect's connections and transactions, the
steps its parts share, and how rows read back. Queries are always parameterized (a
session id is data, never SQL): each bound parameter is a ``{p}`` marker, the
driver's own placeholder."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import (
    ConfigError,
    SessionErasedError,
)
from ..profile import Profile
from ..turns import Turn
from .base import CompactionRecord
from .migrations import Dialect

_TURN_COLUMNS = "idx, role, content, name, tool_calls, tool_call_id, created_at, parts"
# what an erasure deletes a session's rows from (``sessions`` last: its generation ends)
_SESSION_TABLES = ("turns", "states", "compactions", "leases", "session_users",
                   "request_keys", "sessions")
_ERASE_TRIES = 8  # an erasure racing with the session being given to a user reads again


# seconds an idempotency key is kept (a day, as payment APIs keep theirs): a client's
# retries come within minutes; after that the key is only a row to keep
IDEMPOTENCY_TTL = 24 * 3600.0
PRUNE_BATCH = 64  # expired idempotency keys one keyed write deletes, at most
_SAVED_CACHE = 256  # sessions whose last saved state is kept to diff the next one from
# and the bytes those states may hold together (a count alone let 256 long sessions'
# states take 600 MB), at about _SAVED_ITEM_BYTES an item (tracemalloc: 620 B an item
# of a 4,000-item state as dicts)
_SAVED_BYTES = 64 * 2**20
_SAVED_ITEM_BYTES = 700
_PAGE = 64  # stored versions read back at a time
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _time(stored: int | str) -> datetime:
    """A stored turn time: microseconds since the epoch, or ISO text (older rows)."""
    if isinstance(stored, int):
        return _EPOCH + timedelta(microseconds=stored)
    return datetime.fromisoformat(stored)


def _logged(record: CompactionRecord) -> str:
    """A log line as stored: the fields that differ from their defaults (half the bytes;
    reading it back fills the rest in)."""
    return record.model_dump_json(exclude_defaults=True)


def _digest(fields: Sequence[dict[str, Any]]) -> str:
    """What identifies a request's turns (an idempotency key's retry must give the same)."""
    text = json.dumps(list(fields), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _key_time(at: datetime) -> str:
    """An idempotency key's time as stored: ISO text in UTC to the microsecond (so text
    order is time order; a row from before, without microseconds, still sorts right)."""
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def _json(value: list[Any] | None) -> str | None:
    return json.dumps(value, ensure_ascii=False) if value else None


def _turn(r: tuple[Any, ...]) -> Turn:
    """A turn from its row (``_TURN_COLUMNS``)."""
    return Turn(index=r[0], role=r[1], content=r[2], name=r[3],
                tool_calls=json.loads(r[4]) if r[4] else None, tool_call_id=r[5],
                created_at=_time(r[6]), parts=json.loads(r[7]) if r[7] else None)


def _profile_json(profile: Profile) -> str:
    return json.dumps(profile.model_dump(mode="json"), ensure_ascii=False)


def _user_key(user_id: str) -> str:
    """The lock key of a user's writes (a session's is its id)."""
    return "user:" + user_id


def locks(dialect: Dialect, n: int) -> str:
    """One statement taking the dialect's locks on ``n`` keys, in order (user keys before
    session keys, everywhere: no two writers wait on each other)."""
    assert dialect.lock is not None
    return "SELECT " + ", ".join([dialect.lock] * n)


def prefix_end(prefix: str) -> str | None:
    """The least text above every text that begins with ``prefix``, in code point order
    (UTF-8's byte order); None when there is none (``prefix`` all U+10FFFF)."""
    kept = prefix.rstrip("\U0010ffff")
    if not kept:
        return None
    after = ord(kept[-1]) + 1
    return kept[:-1] + chr(0xE000 if 0xD800 <= after <= 0xDFFF else after)


def _checked(session_id: str, expected: int | None, found: int | None) -> int:
    """The session's generation (0: not begun), if it is ``expected`` (None: any)."""
    if expected is not None and (found or 0) != expected:
        raise SessionErasedError(session_id, expected, found or 0)
    return found or 0

class SQLCore:
    """What each part of ``SQLStore`` stands on: the dialect's transactions and reads, and
    the steps the parts share."""

    # -- what a dialect provides --------------------------------------------------------

    dialect = Dialect(param="?", serial_id="INTEGER PRIMARY KEY", real="REAL")
    # seconds a request's idempotency key is kept (``append_many``)
    idempotency_ttl: float = IDEMPOTENCY_TTL

    def _write(self, *keys: str) -> AbstractContextManager[Any]:
        """A transaction that serializes the writers of each of ``keys`` (a session id,
        or a user's key), locked in the order given; yields a connection whose
        ``execute(sql, args)`` returns a cursor."""
        raise NotImplementedError

    def _fetch(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Rows of one read in the driver's own SQL."""
        raise NotImplementedError

    def _read(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return self._fetch(self.dialect.sql(sql), args)

    @contextmanager
    def _tx(self, *keys: str) -> Iterator[_Bound]:
        with self._write(*keys) as conn:
            yield _Bound(conn, self.dialect)

    @staticmethod
    def _begin(db: _Bound, session_id: str) -> int:
        """Begin the session's generation (a number it never had before)."""
        return int(db.execute("INSERT INTO sessions (session_id) VALUES ({p}) "
                              "RETURNING generation", (session_id,)).fetchone()[0])

    @staticmethod
    def _link(db: _Bound, session_id: str, user_id: str) -> None:
        """Make the session ``user_id``'s; one of another user is refused."""
        db.execute("INSERT INTO session_users (session_id, user_id) VALUES ({p},{p}) "
                   "ON CONFLICT (session_id) DO NOTHING", (session_id, user_id))
        owner = db.execute("SELECT user_id FROM session_users WHERE session_id={p}",
                           (session_id,)).fetchone()[0]
        if owner != user_id:
            raise ConfigError("user_id", f"session {session_id!r} belongs to another user")

    def _scrub(self, tables: tuple[str, ...]) -> None:
        """After an erasure: whatever the database keeps of the rows deleted from
        ``tables`` elsewhere (old page versions, a log); a StoreError when it cannot."""


class _Bound:
    """A connection whose ``execute`` takes ``{p}`` markers for bound parameters."""

    def __init__(self, conn: Any, dialect: Dialect):
        self.conn, self.dialect = conn, dialect

    def execute(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        return self.conn.execute(self.dialect.sql(sql), args)

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """One statement over many rows (psycopg pipelines them: one round trip)."""
        self.conn.cursor().executemany(self.dialect.sql(sql), rows)

    def lock(self, *keys: str) -> None:
        """Also lock ``keys`` (in order) until the transaction ends."""
        if keys and self.dialect.lock is not None:
            self.execute(locks(self.dialect, len(keys)), keys)
