"""The SQL stores' schema, as numbered migrations (after simonw/llm's migrations.py).

Each migration is applied once, in order, inside one transaction with the others that
are due, and recorded in ``schema_version`` (number, name, time). A store written by a
newer convstate (a number this one does not know) is refused, never guessed at. Add a
migration by appending it to ``MIGRATIONS``; never edit one that has shipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Dialect:
    """What differs between the SQL databases: the placeholder of a bound parameter
    (the driver's paramstyle), three column types, and whether turns are clustered."""

    param: str  # "?" (sqlite3) or "%s" (psycopg)
    serial_id: str  # an auto-increment primary key whose values are never used again
    real: str  # a float
    blob: str = "BLOB"  # bytes
    # turns stored in their key's order (SQLite's WITHOUT ROWID: no second copy of the
    # key in an index) with times as integer microseconds (8 bytes, not 32 of ISO text)
    clustered_turns: bool = False
    # what takes a transaction-scoped lock on one key (a ``{p}`` marker for the key);
    # None where a write transaction already excludes every other writer (SQLite)
    lock: str | None = None
    # the collation that compares text as bytes (UTF-8: code point order), for ranges of
    # ids (a tenant's sessions) and ISO times that must not depend on the database's
    # locale
    bytewise: str = "BINARY"

    def sql(self, text: str) -> str:
        """``text`` with each ``{p}`` marker as this driver's placeholder (only the
        markers: a literal ``?`` or ``%`` elsewhere is left alone)."""
        return _placeheld(text, self.param)


@lru_cache(maxsize=1024)  # the same few statements, at every turn
def _placeheld(text: str, param: str) -> str:
    return text.replace("{p}", param)


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    statements: Callable[[Dialect], Iterator[str]]


def _tables(d: Dialect) -> Iterator[str]:
    yield ("CREATE TABLE IF NOT EXISTS turns (session_id TEXT NOT NULL, idx INTEGER NOT NULL, "
           "role TEXT NOT NULL, content TEXT, name TEXT, tool_calls TEXT, tool_call_id TEXT, "
           "created_at TEXT NOT NULL, PRIMARY KEY (session_id, idx))")
    yield ("CREATE TABLE IF NOT EXISTS states (session_id TEXT NOT NULL, "
           "version INTEGER NOT NULL, folded_through INTEGER NOT NULL, state TEXT NOT NULL, "
           "created_at TEXT NOT NULL, PRIMARY KEY (session_id, version))")
    yield (f"CREATE TABLE IF NOT EXISTS compactions (id {d.serial_id}, "
           "session_id TEXT NOT NULL, record TEXT NOT NULL)")
    yield "CREATE INDEX IF NOT EXISTS compactions_session ON compactions (session_id, id)"
    yield (f"CREATE TABLE IF NOT EXISTS leases (session_id TEXT PRIMARY KEY, "
           f"owner TEXT NOT NULL, expires {d.real} NOT NULL)")


def _named_versions(d: Dialect) -> Iterator[str]:
    # schema_version held bare numbers; it now says what each migration was and when
    yield "ALTER TABLE schema_version ADD COLUMN name TEXT"
    yield "ALTER TABLE schema_version ADD COLUMN applied_at TEXT"
    yield "UPDATE schema_version SET name = 'tables' WHERE version = 1"


def _content_parts(d: Dialect) -> Iterator[str]:
    # a content given as a list of parts (text, images) is kept as the caller gave it
    yield "ALTER TABLE turns ADD COLUMN parts TEXT"


def _profiles(d: Dialect) -> Iterator[str]:
    # a user's profile outlives sessions (versioned like states), and which sessions
    # are whose (for a user's erasure)
    yield ("CREATE TABLE IF NOT EXISTS profiles (user_id TEXT NOT NULL, version INTEGER NOT "
           "NULL, profile TEXT NOT NULL, created_at TEXT NOT NULL, "
           "PRIMARY KEY (user_id, version))")
    yield ("CREATE TABLE IF NOT EXISTS session_users (session_id TEXT PRIMARY KEY, "
           "user_id TEXT NOT NULL)")
    yield "CREATE INDEX IF NOT EXISTS session_users_user ON session_users (user_id)"


def _packed_states(d: Dialect) -> Iterator[str]:
    # a state version's JSON, zlib-compressed (then ``state`` is ''): a quarter of the
    # bytes; versions written before stay as they are and read the same
    yield f"ALTER TABLE states ADD COLUMN packed {d.blob}"


def _clustered_turns(d: Dialect) -> Iterator[str]:
    # a third of a short turn's row was its key's index and its ISO time; times already
    # stored stay ISO text and read the same
    if not d.clustered_turns:
        return
    yield ("CREATE TABLE turns_clustered (session_id TEXT NOT NULL, idx INTEGER NOT NULL, "
           "role TEXT NOT NULL, content TEXT, name TEXT, tool_calls TEXT, tool_call_id TEXT, "
           "created_at NOT NULL, parts TEXT, PRIMARY KEY (session_id, idx)) WITHOUT ROWID")
    yield ("INSERT INTO turns_clustered SELECT session_id, idx, role, content, name, "
           "tool_calls, tool_call_id, created_at, parts FROM turns")
    yield "DROP TABLE turns"
    yield "ALTER TABLE turns_clustered RENAME TO turns"


def _generations(d: Dialect) -> Iterator[str]:
    # a session's generation: a number no earlier incarnation of the session had (an
    # erasure deletes the row, the session's next write makes a new one; serial values
    # are never used again), so every copy of a session notices an erasure and no write
    # planned before it lands after it
    yield (f"CREATE TABLE IF NOT EXISTS sessions (generation {d.serial_id}, "
           "session_id TEXT NOT NULL UNIQUE)")
    yield ("INSERT INTO sessions (session_id) SELECT session_id FROM turns UNION "
           "SELECT session_id FROM states UNION SELECT session_id FROM session_users")


def _request_keys(d: Dialect) -> Iterator[str]:
    # a client's idempotency key per request that appended turns (``append_many``): a
    # retry of a request whose answer was lost stores nothing twice; erased with the
    # session
    yield ("CREATE TABLE IF NOT EXISTS request_keys (session_id TEXT NOT NULL, "
           "request_key TEXT NOT NULL, digest TEXT NOT NULL, first_idx INTEGER NOT NULL, "
           "turns INTEGER NOT NULL, created_at TEXT NOT NULL, "
           "PRIMARY KEY (session_id, request_key))")


def _key_expiry(d: Dialect) -> Iterator[str]:
    # idempotency keys expire (a retention): expired ones are found by their time, and a
    # tenant's sessions by their ids' prefix, each as a range of an index in byte order
    # (SQLite's unique index on sessions already is; PostgreSQL's follows the locale)
    yield f"CREATE INDEX IF NOT EXISTS request_keys_created ON request_keys " \
          f"(created_at COLLATE {d.bytewise})"
    if d.bytewise != "BINARY":
        yield f"CREATE INDEX IF NOT EXISTS sessions_bytewise ON sessions " \
              f"(session_id COLLATE {d.bytewise})"


NAMED_FROM = 2  # from this migration on, schema_version has a name and a time
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "tables", _tables),
    Migration(2, "named versions", _named_versions),
    Migration(3, "content parts", _content_parts),
    Migration(4, "profiles", _profiles),
    Migration(5, "packed states", _packed_states),
    Migration(6, "clustered turns", _clustered_turns),
    Migration(7, "session generations", _generations),
    Migration(8, "request keys", _request_keys),
    Migration(9, "key expiry", _key_expiry),
)

# The bookkeeping table exists before any migration (it records them).
VERSION_TABLE = "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
