"""The store logic both SQL databases share; a dialect supplies connections, transactions
and the few things that differ. Queries are always parameterized (a session id is data,
never SQL): each bound parameter is a ``{p}`` marker, the driver's own placeholder."""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import ConfigError, StoreError, VersionConflictError
from ..turns import Turn
from .base import CompactionRecord
from .deltas import apply, is_delta, pack, replay, stored_text, unpack
from .migrations import MIGRATIONS, NAMED_FROM, VERSION_TABLE, Dialect, Migration

_TURN_COLUMNS = "idx, role, content, name, tool_calls, tool_call_id, created_at, parts"


_SAVED_CACHE = 256  # sessions whose last saved state is kept to diff the next one from
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


def _json(value: list[Any] | None) -> str | None:
    return json.dumps(value, ensure_ascii=False) if value else None


class SQLStore:
    """Append-only turns, versioned states, a compaction log and fold leases in SQL."""

    # -- what a dialect provides --------------------------------------------------------

    dialect = Dialect(param="?", serial_id="INTEGER PRIMARY KEY", real="REAL")

    def _write(self, session_id: str) -> AbstractContextManager[Any]:
        """A transaction that serializes writers of ``session_id``; yields a connection
        whose ``execute(sql, args)`` returns a cursor."""
        raise NotImplementedError

    def _fetch(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Rows of one read in the driver's own SQL."""
        raise NotImplementedError

    def _read(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return self._fetch(self.dialect.sql(sql), args)

    @contextmanager
    def _tx(self, session_id: str) -> Iterator[_Bound]:
        with self._write(session_id) as conn:
            yield _Bound(conn, self.dialect)

    # -- turns --------------------------------------------------------------------------

    def append(self, session_id: str, fields: dict[str, Any]) -> Turn:
        """Store a turn at the session's next index and return it."""
        with self._tx(session_id) as db:
            idx = db.execute("SELECT COALESCE(MAX(idx), -1) + 1 FROM turns "
                             "WHERE session_id={p}", (session_id,)).fetchone()[0]
            turn = Turn(index=idx, **fields)
            db.execute(
                f"INSERT INTO turns (session_id, {_TURN_COLUMNS}) "
                "VALUES ({p},{p},{p},{p},{p},{p},{p},{p},{p})",
                (session_id, idx, turn.role, turn.content, turn.name, _json(turn.tool_calls),
                 turn.tool_call_id, self._stamp(turn.created_at), _json(turn.parts)))
        return turn

    def _stamp(self, at: datetime) -> int | str:
        """A turn's time as stored: integer microseconds where turns are clustered and
        the time is UTC (any other zone, or none, is kept as given: ISO text)."""
        if self.dialect.clustered_turns and at.utcoffset() == timedelta(0):
            return (at - _EPOCH) // timedelta(microseconds=1)
        return at.isoformat()

    def turns(self, session_id: str, after: int = -1, through: int | None = None) -> list[Turn]:
        """Turns with index in (after, through], oldest first."""
        upper = through if through is not None else 2**62
        rows = self._read(f"SELECT {_TURN_COLUMNS} FROM turns WHERE session_id={{p}} "
                          "AND idx>{p} AND idx<={p} ORDER BY idx", (session_id, after, upper))
        return [Turn(index=r[0], role=r[1], content=r[2], name=r[3],
                     tool_calls=json.loads(r[4]) if r[4] else None, tool_call_id=r[5],
                     created_at=_time(r[6]),
                     parts=json.loads(r[7]) if r[7] else None) for r in rows]

    def erase(self, session_id: str) -> int:
        """Delete every turn, state, log line and lease of a session, for a privacy
        request (the one exception to append-only); the number of turns erased."""
        n = self._erase_rows(session_id)
        self._scrub()
        return n

    def _erase_rows(self, session_id: str) -> int:
        with self._tx(session_id) as db:
            n = db.execute("SELECT COUNT(*) FROM turns WHERE session_id={p}",
                           (session_id,)).fetchone()[0]
            for table in ("turns", "states", "compactions", "leases", "session_users"):
                db.execute(f"DELETE FROM {table} WHERE session_id={{p}}", (session_id,))
        return int(n)

    # -- users: sessions and profiles --------------------------------------------------

    def link_user(self, session_id: str, user_id: str) -> None:
        """Record that ``session_id`` is ``user_id``'s; a session of another user is
        refused (a session never reads or writes another user's profile)."""
        with self._tx(session_id) as db:
            db.execute("INSERT INTO session_users (session_id, user_id) VALUES ({p},{p}) "
                       "ON CONFLICT (session_id) DO NOTHING", (session_id, user_id))
            owner = db.execute("SELECT user_id FROM session_users WHERE session_id={p}",
                               (session_id,)).fetchone()[0]
        if owner != user_id:
            raise ConfigError("user_id", f"session {session_id!r} belongs to another user")

    def user_sessions(self, user_id: str) -> list[str]:
        """The sessions of a user, in name order."""
        return [r[0] for r in self._read("SELECT session_id FROM session_users WHERE "
                                         "user_id={p} ORDER BY session_id", (user_id,))]

    def load_profile(self, user_id: str) -> dict[str, Any] | None:
        """The latest saved profile of a user, or None."""
        rows = self._read("SELECT profile FROM profiles WHERE user_id={p} "
                          "ORDER BY version DESC LIMIT 1", (user_id,))
        return json.loads(rows[0][0]) if rows else None

    def save_profile(self, user_id: str, profile: dict[str, Any], expected_version: int
                     ) -> None:
        """Save ``profile`` (its ``version`` one more than ``expected_version``) if no one
        saved in between; else VersionConflictError and nothing written."""
        with self._tx("user:" + user_id) as db:
            found = db.execute("SELECT COALESCE(MAX(version), 0) FROM profiles "
                               "WHERE user_id={p}", (user_id,)).fetchone()[0]
            if found != expected_version:
                raise VersionConflictError("user:" + user_id, expected_version, found)
            db.execute("INSERT INTO profiles (user_id, version, profile, created_at) "
                       "VALUES ({p},{p},{p},{p})",
                       (user_id, profile["version"], json.dumps(profile, ensure_ascii=False),
                        datetime.now(UTC).isoformat()))

    def forget_user(self, user_id: str) -> int:
        """Erase a user everywhere — every session's turns, states, log and lease, and
        the profile — for a privacy request; the number of turns erased."""
        erased = 0
        for session_id in self.user_sessions(user_id):
            erased += self._erase_rows(session_id)
        with self._tx("user:" + user_id) as db:
            db.execute("DELETE FROM profiles WHERE user_id={p}", (user_id,))
            db.execute("DELETE FROM session_users WHERE user_id={p}", (user_id,))
        self._scrub()
        return erased

    def _scrub(self) -> None:
        """After an erase: whatever the database keeps of deleted rows elsewhere."""

    def turn_count(self, session_id: str) -> int:
        return int(self._read("SELECT COUNT(*) FROM turns WHERE session_id={p}",
                              (session_id,))[0][0])

    def sessions(self) -> list[str]:
        """Every session id that has a turn."""
        return [r[0] for r in self._read(
            "SELECT DISTINCT session_id FROM turns ORDER BY session_id", ())]

    # -- states -------------------------------------------------------------------------

    def load_state(self, session_id: str, version: int | None = None) -> dict[str, Any] | None:
        """The latest state (or the given version) as a dict; None if never saved. A
        version stored as a delta is rebuilt from the snapshot before it (deltas.py)."""
        found = self._from_snapshot(session_id, version)
        return replay(found[0]) if found else None

    def _from_snapshot(self, session_id: str, version: int | None
                       ) -> tuple[list[dict[str, Any]], int] | None:
        """The stored forms from the last snapshot through ``version`` (the latest when
        None), oldest first, and the weight of their deltas; None if there is no such
        version. Read back a page at a time: the snapshot may be hundreds of versions back."""
        rows: list[dict[str, Any]] = []
        chain, below = 0, (2**62 if version is None else version + 1)
        while True:
            page = self._read(
                "SELECT version, state, packed FROM states WHERE session_id={p} AND "
                "version<{p} ORDER BY version DESC LIMIT " + str(_PAGE), (session_id, below))
            if not rows and (not page or version is not None and page[0][0] != version):
                return None
            if not page:
                raise StoreError(f"session {session_id!r}: state version {rows[0]['version']}"
                                 " has no snapshot to start from")
            for _, text, packed in page:
                plain = unpack(text, packed)
                rows.append(json.loads(plain))
                if not is_delta(rows[-1]):
                    return rows[::-1], chain
                chain += len(plain)
            below = page[-1][0]

    def state_version(self, session_id: str) -> int:
        return int(self._read("SELECT COALESCE(MAX(version), 0) FROM states "
                              "WHERE session_id={p}", (session_id,))[0][0])

    def versions(self, session_id: str) -> list[tuple[int, int, str]]:
        """(version, watermark, saved at) of every saved state, oldest first."""
        return [(int(r[0]), int(r[1]), str(r[2])) for r in self._read(
            "SELECT version, folded_through, created_at FROM states WHERE session_id={p} "
            "ORDER BY version", (session_id,))]

    def save_state(self, session_id: str, state: dict[str, Any], expected_version: int,
                   record: CompactionRecord, release: str | None = None) -> None:
        """Write state, watermark and log line together, if nobody saved in between;
        with ``release``, give that owner's fold lease back in the same transaction (one
        synced write per fold instead of two)."""
        with self._tx(session_id) as db:
            found = db.execute("SELECT COALESCE(MAX(version), 0) FROM states "
                               "WHERE session_id={p}", (session_id,)).fetchone()[0]
            if found != expected_version:
                raise VersionConflictError(session_id, expected_version, found)
            stored = self._stored_form(session_id, state, expected_version)
            db.execute("INSERT INTO states (session_id, version, folded_through, state, "
                       "packed, created_at) VALUES ({p},{p},{p},'',{p},{p})",
                       (session_id, state["version"], state["folded_through"], pack(stored),
                        record.created_at.isoformat()))
            db.execute("INSERT INTO compactions (session_id, record) VALUES ({p},{p})",
                       (session_id, _logged(record)))
            if release is not None:
                db.execute("DELETE FROM leases WHERE session_id={p} AND owner={p}",
                           (session_id, release))

    def _stored_form(self, session_id: str, state: dict[str, Any], previous: int) -> str:
        """The JSON a new version is stored as (deltas.stored_text), diffed from this
        store's last saved state of the session when that is the previous version."""
        lock, saved = self.__dict__.setdefault("_saved_states", (threading.Lock(),
                                                                 OrderedDict()))
        with lock:
            cached = saved.pop(session_id, None)
        measured: int | None = None
        if cached and cached[0] == previous:
            before, chain, measured = cached[1], cached[2], cached[3]
        else:
            found = self._from_snapshot(session_id, previous) if previous else None
            before, chain = (replay(found[0]), found[1]) if found else (None, 0)
        text, chain, measured = stored_text(before, state, previous, chain, measured)
        with lock:
            saved[session_id] = (int(state["version"]), state, chain, measured)
            while len(saved) > _SAVED_CACHE:
                saved.popitem(last=False)
        return text

    def compact_states(self, session_id: str) -> tuple[int, int, int]:
        """Rewrite a session's state versions as this release stores them — full states
        of older releases as deltas where ``stored_text`` would write one (their fixed
        snapshot every 16 included), plain JSON packed: (versions rewritten, bytes
        before, bytes after). Each version reads back exactly as before."""
        rewritten = before = after = chain = 0
        with self._tx(session_id) as db:
            rows = db.execute("SELECT version, state, packed FROM states WHERE "
                              "session_id={p} ORDER BY version", (session_id,)).fetchall()
            previous: tuple[int, dict[str, Any]] | None = None
            for version, text, packed in rows:
                plain = unpack(text, packed)
                stored = json.loads(plain)
                state = apply(previous[1], stored) if is_delta(stored) and previous \
                    else stored
                size = len(packed) if packed is not None else len(text.encode("utf-8"))
                before += size
                if is_delta(stored):
                    chain += len(plain)
                else:
                    new_text, chain, _ = stored_text(previous[1] if previous else None,
                                                     state, previous[0] if previous else 0,
                                                     chain)
                    if chain:  # written whole before, a delta now
                        plain, packed = new_text, None
                if packed is None:
                    packed = pack(plain)
                    db.execute("UPDATE states SET state='', packed={p} WHERE session_id={p} "
                               "AND version={p}", (packed, session_id, version))
                    rewritten, size = rewritten + 1, len(packed)
                after += size
                previous = (int(version), state)
        return rewritten, before, after

    # -- the compaction log ---------------------------------------------------------------

    def log(self, record: CompactionRecord) -> None:
        """Log a fold that did not change the state (a failed extraction)."""
        with self._tx(record.session_id) as db:
            db.execute("INSERT INTO compactions (session_id, record) VALUES ({p},{p})",
                       (record.session_id, _logged(record)))

    def compactions(self, session_id: str) -> list[CompactionRecord]:
        rows = self._read("SELECT record FROM compactions WHERE session_id={p} ORDER BY id",
                          (session_id,))
        return [CompactionRecord.model_validate_json(r[0]) for r in rows]

    # -- fold leases ----------------------------------------------------------------------

    def acquire_lease(self, session_id: str, owner: str, ttl: float) -> bool:
        """Take the session's fold lease for ``ttl`` seconds; False while another owner
        holds an unexpired one (a crashed holder's lease is taken over after it expires)."""
        now = time.time()
        with self._tx(session_id) as db:
            row = db.execute("SELECT owner, expires FROM leases WHERE session_id={p}",
                             (session_id,)).fetchone()
            if row is not None and row[0] != owner and row[1] > now:
                return False
            db.execute("INSERT INTO leases (session_id, owner, expires) VALUES ({p},{p},{p}) "
                       "ON CONFLICT (session_id) DO UPDATE SET owner=excluded.owner, "
                       "expires=excluded.expires", (session_id, owner, now + ttl))
        return True

    def release_lease(self, session_id: str, owner: str) -> None:
        """Give the lease back (only its owner can)."""
        with self._tx(session_id) as db:
            db.execute("DELETE FROM leases WHERE session_id={p} AND owner={p}",
                       (session_id, owner))

    def lease_holder(self, session_id: str) -> str | None:
        rows = self._read("SELECT owner FROM leases WHERE session_id={p} AND expires>{p}",
                          (session_id, time.time()))
        return rows[0][0] if rows else None

    # -- schema ---------------------------------------------------------------------------

    def migrate(self, migrations: tuple[Migration, ...] = MIGRATIONS) -> int:
        """Apply the migrations this store has not had yet, in one transaction, and
        return the schema version. A store from a newer convstate is a StoreError."""
        with self._tx("convstate:migrate") as db:
            db.execute(VERSION_TABLE)
            current = db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version"
                                 ).fetchone()[0]
            known = max((m.number for m in migrations), default=0)
            if current > known:
                raise StoreError(f"this store has schema version {current}, written by a "
                                 f"newer convstate (this one knows {known}): upgrade "
                                 "convstate")
            for m in sorted(migrations, key=lambda m: m.number):
                if m.number <= current:
                    continue
                for statement in m.statements(self.dialect):
                    db.execute(statement)
                if m.number >= NAMED_FROM:
                    db.execute("INSERT INTO schema_version (version, name, applied_at) "
                               "VALUES ({p},{p},{p})",
                               (m.number, m.name, datetime.now(UTC).isoformat()))
                else:
                    db.execute("INSERT INTO schema_version (version) VALUES ({p})",
                               (m.number,))
        return self.schema_version()

    def schema_version(self) -> int:
        """The number of the last migration this store has had."""
        return int(self._read("SELECT COALESCE(MAX(version), 0) FROM schema_version",
                              ())[0][0])


class _Bound:
    """A connection whose ``execute`` takes ``{p}`` markers for bound parameters."""

    def __init__(self, conn: Any, dialect: Dialect):
        self.conn, self.dialect = conn, dialect

    def execute(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        return self.conn.execute(self.dialect.sql(sql), args)
