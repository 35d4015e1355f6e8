"""The store logic both SQL databases share; a dialect supplies connections, transactions
and the few things that differ. Queries are always parameterized (a session id is data,
never SQL): each bound parameter is a ``{p}`` marker, the driver's own placeholder."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import (
    ConfigError,
    IdempotencyConflictError,
    SessionErasedError,
    StoreError,
    VersionConflictError,
)
from ..profile import Profile, erase_session
from ..turns import Turn
from .base import CompactionRecord, Head
from .deltas import apply, is_delta, pack, replay, stored_text, unpack
from .migrations import MIGRATIONS, NAMED_FROM, VERSION_TABLE, Dialect, Migration

_TURN_COLUMNS = "idx, role, content, name, tool_calls, tool_call_id, created_at, parts"
# what an erasure deletes a session's rows from (``sessions`` last: its generation ends)
_SESSION_TABLES = ("turns", "states", "compactions", "leases", "session_users",
                   "request_keys", "sessions")
_ERASE_TRIES = 8  # an erasure racing with the session being given to a user reads again


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


def _digest(fields: Sequence[dict[str, Any]]) -> str:
    """What identifies a request's turns (an idempotency key's retry must give the same)."""
    text = json.dumps(list(fields), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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


def _checked(session_id: str, expected: int | None, found: int | None) -> int:
    """The session's generation (0: not begun), if it is ``expected`` (None: any)."""
    if expected is not None and (found or 0) != expected:
        raise SessionErasedError(session_id, expected, found or 0)
    return found or 0


class SQLStore:
    """Append-only turns, versioned states, a compaction log and fold leases in SQL."""

    # -- what a dialect provides --------------------------------------------------------

    dialect = Dialect(param="?", serial_id="INTEGER PRIMARY KEY", real="REAL")

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

    # -- turns --------------------------------------------------------------------------

    def append(self, session_id: str, fields: dict[str, Any]) -> Turn:
        """Store a turn at the session's next index and return it."""
        return self.append_checked(session_id, fields)[0]

    def append_checked(self, session_id: str, fields: dict[str, Any],
                       generation: int | None = None, user_id: str | None = None
                       ) -> tuple[Turn, int]:
        """``append`` if the session is still at ``generation`` (0: not begun; None: at
        any), else SessionErasedError and nothing written; the turn and the generation it
        was stored in (the first turn of a session begins a new one). With ``user_id``
        the session is that user's, linked in the same transaction as the turn: an
        erasure of the user never misses it."""
        turns, current = self.append_many(session_id, [fields], generation, user_id)
        return turns[0], current

    def append_many(self, session_id: str, fields: Sequence[dict[str, Any]],
                    generation: int | None = None, user_id: str | None = None,
                    request_key: str | None = None) -> tuple[list[Turn], int]:
        """``append_checked`` of several turns in one transaction: all of them are stored,
        at consecutive indexes (no other writer's turn between them), or none is; one
        synced commit for all. With ``request_key`` (a client's idempotency key) a
        request already stored under that key in this session stores nothing again and
        gives back the turns it stored; the same key with other turns is an
        IdempotencyConflictError. Keys live as long as the session (an erasure takes
        them)."""
        if not fields:
            raise ConfigError("fields", "no turns to append")
        made = [Turn(index=0, **f) for f in fields]  # checked before the transaction
        digest = _digest(fields) if request_key is not None else ""
        keys = (session_id,) if user_id is None else (_user_key(user_id), session_id)
        with self._tx(*keys) as db:
            idx, found, owner = db.execute(
                "SELECT COALESCE(MAX(idx), -1) + 1, (SELECT generation FROM sessions WHERE "
                "session_id={p}), (SELECT user_id FROM session_users WHERE session_id={p}) "
                "FROM turns WHERE session_id={p}", (session_id,) * 3).fetchone()
            current = _checked(session_id, generation, found) or self._begin(db, session_id)
            if request_key is not None:
                stored = self._replayed(db, session_id, request_key, digest)
                if stored is not None:
                    return stored, current
            if user_id is not None and owner != user_id:
                self._link(db, session_id, user_id)
            turns = [t.model_copy(update={"index": idx + k}) for k, t in enumerate(made)]
            db.executemany(
                f"INSERT INTO turns (session_id, {_TURN_COLUMNS}) "
                "VALUES ({p},{p},{p},{p},{p},{p},{p},{p},{p})",
                [(session_id, t.index, t.role, t.content, t.name, _json(t.tool_calls),
                  t.tool_call_id, self._stamp(t.created_at), _json(t.parts)) for t in turns])
            if request_key is not None:
                db.execute("INSERT INTO request_keys (session_id, request_key, digest, "
                           "first_idx, turns, created_at) VALUES ({p},{p},{p},{p},{p},{p})",
                           (session_id, request_key, digest, idx, len(turns),
                            datetime.now(UTC).isoformat()))
        return turns, current

    @staticmethod
    def _replayed(db: _Bound, session_id: str, request_key: str, digest: str
                  ) -> list[Turn] | None:
        """The turns a request stored under ``request_key`` (None: none did); the key
        given with other turns is an IdempotencyConflictError."""
        row = db.execute("SELECT digest, first_idx, turns FROM request_keys WHERE "
                         "session_id={p} AND request_key={p}",
                         (session_id, request_key)).fetchone()
        if row is None:
            return None
        if row[0] != digest:
            raise IdempotencyConflictError(request_key)
        return [_turn(r) for r in db.execute(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE session_id={{p}} AND idx>={{p}} "
            "AND idx<{p} ORDER BY idx", (session_id, row[1], row[1] + row[2])).fetchall()]

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

    def head(self, session_id: str, user_id: str | None = None) -> Head:
        """The session's generation and state version, and ``user_id``'s profile version."""
        return self.changes(session_id, 2**62, user_id)[0]

    def changes(self, session_id: str, after: int, user_id: str | None = None
                ) -> tuple[Head, list[Turn]]:
        """The session's head (``head``) and its turns after index ``after``, in one
        read: what a memory asks before each call (was the session erased? folded
        elsewhere? what was added?), with no erasure between the answers."""
        columns = ", ".join("t." + c for c in _TURN_COLUMNS.split(", "))
        rows = self._read(
            f"SELECT h.generation, h.version, h.profile, {columns} FROM (SELECT "
            "(SELECT generation FROM sessions WHERE session_id={p}) AS generation, "
            "(SELECT COALESCE(MAX(version), 0) FROM states WHERE session_id={p}) AS version, "
            "(SELECT COALESCE(MAX(version), 0) FROM profiles WHERE user_id={p}) AS profile"
            ") h LEFT JOIN turns t ON t.session_id={p} AND t.idx>{p}",
            (session_id, session_id, user_id, session_id, after))
        first = rows[0]
        head = Head(int(first[0] or 0), int(first[1]),
                    None if user_id is None else int(first[2]))
        # ordered here: an ORDER BY over the join sorts in a temporary table, every call
        return head, sorted((_turn(r[3:]) for r in rows if r[3] is not None),
                            key=lambda t: t.index)

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
        return [_turn(r) for r in rows]

    def erase(self, session_id: str) -> int:
        """Delete every turn, state, log line and lease of a session, and what it gave its
        user's profile (every saved version), for a privacy request (the one exception to
        append-only); the number of turns erased. The session's generation ends: every
        copy of it reloads at its next call, and no write planned before lands."""
        for _ in range(_ERASE_TRIES):
            owner = self._owner(session_id)
            keys = (session_id,) if owner is None else (_user_key(owner), session_id)
            with self._tx(*keys) as db:
                if db.execute("SELECT user_id FROM session_users WHERE session_id={p}",
                              (session_id,)).fetchone() != ((owner,) if owner else None):
                    continue  # given to a user meanwhile: lock that user too
                n = self._erase_session(db, session_id)
                profiled = owner is not None and self._unprofile(db, owner, session_id)
            self._scrub(_SESSION_TABLES + (("profiles",) if profiled else ()))
            return n
        raise StoreError(f"session {session_id!r} changed users {_ERASE_TRIES} times "
                         "during its erasure; nothing was erased")

    def user_of(self, session_id: str) -> str | None:
        """The user ``session_id`` belongs to, None for none."""
        return self._owner(session_id)

    def _owner(self, session_id: str) -> str | None:
        rows = self._read("SELECT user_id FROM session_users WHERE session_id={p}",
                          (session_id,))
        return str(rows[0][0]) if rows else None

    @staticmethod
    def _erase_session(db: _Bound, session_id: str) -> int:
        """Delete the session's rows from every table; the number of turns."""
        n = db.execute("SELECT COUNT(*) FROM turns WHERE session_id={p}",
                       (session_id,)).fetchone()[0]
        for table in _SESSION_TABLES:
            db.execute(f"DELETE FROM {table} WHERE session_id={{p}}", (session_id,))
        return int(n)

    @staticmethod
    def _unprofile(db: _Bound, user_id: str, session_id: str) -> bool:
        """Take what ``session_id`` gave out of every saved version of the user's profile
        (``profile.erase_session``); when the latest changed, save it again as a new
        version, so a promotion read before this erasure conflicts instead of writing the
        old items back, and every memory of the user reads the profile again. Whether
        anything changed."""
        rows = db.execute("SELECT version, profile FROM profiles WHERE user_id={p} "
                          "ORDER BY version", (user_id,)).fetchall()
        changed, latest = False, None
        for version, text in rows:
            profile = Profile.model_validate_json(text)
            latest = erase_session(profile, session_id)
            if latest != profile:
                changed = True
                db.execute("UPDATE profiles SET profile={p} WHERE user_id={p} AND "
                           "version={p}", (_profile_json(latest), user_id, version))
            else:
                latest = None  # the latest version was not changed
        if latest is not None:
            latest.version = int(rows[-1][0]) + 1
            db.execute("INSERT INTO profiles (user_id, version, profile, created_at) "
                       "VALUES ({p},{p},{p},{p})", (user_id, latest.version,
                                                    _profile_json(latest),
                                                    datetime.now(UTC).isoformat()))
        return changed

    # -- users: sessions and profiles --------------------------------------------------

    def link_user(self, session_id: str, user_id: str) -> None:
        """Record that ``session_id`` is ``user_id``'s; a session of another user is
        refused (a session never reads or writes another user's profile)."""
        with self._tx(_user_key(user_id), session_id) as db:
            self._link(db, session_id, user_id)

    def user_sessions(self, user_id: str) -> list[str]:
        """The sessions of a user, in name order."""
        return [r[0] for r in self._read("SELECT session_id FROM session_users WHERE "
                                         "user_id={p} ORDER BY session_id", (user_id,))]

    def load_profile(self, user_id: str) -> dict[str, Any] | None:
        """The latest saved profile of a user, or None."""
        rows = self._read("SELECT profile FROM profiles WHERE user_id={p} "
                          "ORDER BY version DESC LIMIT 1", (user_id,))
        return json.loads(rows[0][0]) if rows else None

    def save_profile(self, user_id: str, profile: dict[str, Any], expected_version: int,
                     session: tuple[str, int] | None = None) -> None:
        """Save ``profile`` (its ``version`` one more than ``expected_version``) if no one
        saved in between; else VersionConflictError and nothing written. ``session``
        (id, generation): the session it was promoted from, which must still be at that
        generation and the user's (else SessionErasedError: an erased session's values
        never come back)."""
        with self._tx(_user_key(user_id)) as db:
            found, generation = db.execute(
                "SELECT (SELECT COALESCE(MAX(version), 0) FROM profiles WHERE user_id={p}), "
                "(SELECT generation FROM sessions s JOIN session_users u ON "
                "u.session_id = s.session_id WHERE s.session_id={p} AND u.user_id={p})",
                (user_id, session[0] if session else None, user_id)).fetchone()
            if session is not None:
                _checked(session[0], session[1], generation)
            if found != expected_version:
                raise VersionConflictError(_user_key(user_id), expected_version, found)
            db.execute("INSERT INTO profiles (user_id, version, profile, created_at) "
                       "VALUES ({p},{p},{p},{p})",
                       (user_id, profile["version"], json.dumps(profile, ensure_ascii=False),
                        datetime.now(UTC).isoformat()))

    def forget_user(self, user_id: str) -> int:
        """Erase a user everywhere — every session's turns, states, log, lease and
        generation, the links, every version of the profile — for a privacy request, in
        one transaction (no session of the user can be linked, or begun, halfway); the
        number of turns erased."""
        with self._tx(_user_key(user_id)) as db:
            sessions = [r[0] for r in db.execute(
                "SELECT session_id FROM session_users WHERE user_id={p} ORDER BY session_id",
                (user_id,)).fetchall()]
            db.lock(*sessions)
            erased = sum(self._erase_session(db, s) for s in sessions)
            db.execute("DELETE FROM profiles WHERE user_id={p}", (user_id,))
        self._scrub(_SESSION_TABLES + ("profiles",))
        return erased

    def _scrub(self, tables: tuple[str, ...]) -> None:
        """After an erasure: whatever the database keeps of the rows deleted from
        ``tables`` elsewhere (old page versions, a log); a StoreError when it cannot."""

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
                   record: CompactionRecord, release: str | None = None,
                   generation: int | None = None) -> None:
        """Write state, watermark and log line together, if nobody saved in between and
        (``generation``) the session was not erased since the fold was planned; with
        ``release``, give that owner's fold lease back in the same transaction (one
        synced write per fold instead of two)."""
        with self._tx(session_id) as db:
            found, current = db.execute(
                "SELECT (SELECT COALESCE(MAX(version), 0) FROM states WHERE session_id={p}), "
                "(SELECT generation FROM sessions WHERE session_id={p})",
                (session_id, session_id)).fetchone()
            if not _checked(session_id, generation, current):
                self._begin(db, session_id)
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

    def log(self, record: CompactionRecord, generation: int | None = None) -> None:
        """Log a fold that did not change the state (a failed extraction); with
        ``generation``, only if the session was not erased since the fold was planned."""
        with self._tx(record.session_id) as db:
            found = db.execute("SELECT generation FROM sessions WHERE session_id={p}",
                               (record.session_id,)).fetchone()
            if not _checked(record.session_id, generation, found and found[0]):
                self._begin(db, record.session_id)
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

    def executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """One statement over many rows (psycopg pipelines them: one round trip)."""
        self.conn.cursor().executemany(self.dialect.sql(sql), rows)

    def lock(self, *keys: str) -> None:
        """Also lock ``keys`` (in order) until the transaction ends."""
        if keys and self.dialect.lock is not None:
            self.execute(locks(self.dialect, len(keys)), keys)
