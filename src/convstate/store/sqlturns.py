"""The SQL store's turns: appended once (idempotent requests, generations checked),
read back, and what changed since a turn."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import (
    ConfigError,
    IdempotencyConflictError,
    StoreError,
)
from ..turns import Turn
from .base import Head
from .sqlcore import (
    _EPOCH,
    _TURN_COLUMNS,
    PRUNE_BATCH,
    SQLCore,
    _Bound,
    _checked,
    _digest,
    _json,
    _key_time,
    _turn,
    _user_key,
    prefix_end,
)

log = logging.getLogger("convstate")


class SQLTurns(SQLCore):
    """The turns of ``SQLStore``."""

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
        IdempotencyConflictError. A key is kept ``idempotency_ttl`` seconds (24 hours by
        default; an erasure of the session takes it sooner): a retry after that stores
        its turns again. Each keyed write deletes a few expired keys (``_prune_keys``)."""
        if not fields:
            raise ConfigError("fields", "no turns to append")
        made = [Turn(index=0, **f) for f in fields]  # checked before the transaction
        digest = _digest(fields) if request_key is not None else ""
        now = datetime.now(UTC)
        expired = _key_time(now - timedelta(seconds=self.idempotency_ttl)) \
            if request_key is not None else ""  # (a keyed write's alone: a turn's cost)
        keys = (session_id,) if user_id is None else (_user_key(user_id), session_id)
        with self._tx(*keys) as db:
            idx, found, owner = db.execute(
                "SELECT COALESCE(MAX(idx), -1) + 1, (SELECT generation FROM sessions WHERE "
                "session_id={p}), (SELECT user_id FROM session_users WHERE session_id={p}) "
                "FROM turns WHERE session_id={p}", (session_id,) * 3).fetchone()
            current = _checked(session_id, generation, found) or self._begin(db, session_id)
            if request_key is not None:
                stored = self._replayed(db, session_id, request_key, digest, expired)
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
            if request_key is not None:  # (over an expired use of the key not yet pruned)
                db.execute("INSERT INTO request_keys (session_id, request_key, digest, "
                           "first_idx, turns, created_at) VALUES ({p},{p},{p},{p},{p},{p}) "
                           "ON CONFLICT (session_id, request_key) DO UPDATE SET "
                           "digest=excluded.digest, first_idx=excluded.first_idx, "
                           "turns=excluded.turns, created_at=excluded.created_at",
                           (session_id, request_key, digest, idx, len(turns),
                            _key_time(now)))
        if request_key is not None:
            try:
                self._prune_keys(expired)
            except StoreError as exc:  # the turns are stored: the next keyed write prunes
                log.warning("convstate: expired idempotency keys were not pruned: %s", exc)
        return turns, current

    def _prune_keys(self, expired: str) -> None:
        """Delete the oldest expired idempotency keys, at most ``PRUNE_BATCH`` (each keyed
        write adds one key, so the deletions keep up, and no write pays for a backlog).
        Looked for first in the keys' time index (nothing expired: no transaction), then
        deleted in a transaction of its own that holds no session's lock: it waits on no
        writer that could be waiting on it."""
        by_time = f"created_at COLLATE {self.dialect.bytewise}"
        if not self._read(f"SELECT 1 FROM request_keys WHERE {by_time} < {{p}} LIMIT 1",
                          (expired,)):
            return
        with self._tx("convstate:prune-keys") as db:
            db.execute("DELETE FROM request_keys WHERE (session_id, request_key) IN ("
                       f"SELECT session_id, request_key FROM request_keys WHERE {by_time} "
                       f"< {{p}} ORDER BY {by_time} LIMIT {PRUNE_BATCH})", (expired,))

    @staticmethod
    def _replayed(db: _Bound, session_id: str, request_key: str, digest: str,
                  expired: str) -> list[Turn] | None:
        """The turns a request stored under ``request_key`` (None: none did, or before
        ``expired``); the key given with other turns is an IdempotencyConflictError."""
        row = db.execute("SELECT digest, first_idx, turns, created_at FROM request_keys "
                         "WHERE session_id={p} AND request_key={p}",
                         (session_id, request_key)).fetchone()
        if row is None or row[3] < expired:  # (ISO times in UTC: text order is time order)
            return None
        if row[0] != digest:
            raise IdempotencyConflictError(request_key)
        return [_turn(r) for r in db.execute(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE session_id={{p}} AND idx>={{p}} "
            "AND idx<{p} ORDER BY idx", (session_id, row[1], row[1] + row[2])).fetchall()]

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

    def turn_count(self, session_id: str) -> int:
        return int(self._read("SELECT COUNT(*) FROM turns WHERE session_id={p}",
                              (session_id,))[0][0])

    def sessions(self, prefix: str = "") -> list[str]:
        """Every session id that has a turn, in order; with ``prefix`` only those that
        begin with it (a tenant's, ``"acme/"``), read as a range of the sessions' index:
        the cost of one tenant's sessions, not of every tenant's."""
        has_turn = "EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.session_id)"
        if not prefix:
            return [r[0] for r in self._read(
                f"SELECT session_id FROM sessions s WHERE {has_turn} ORDER BY session_id",
                ())]
        ordered, end = f"session_id COLLATE {self.dialect.bytewise}", prefix_end(prefix)
        upper = f" AND {ordered} < {{p}}" if end is not None else ""
        return [r[0] for r in self._read(
            f"SELECT session_id FROM sessions s WHERE {ordered} >= {{p}}{upper} AND "
            f"{has_turn} ORDER BY {ordered}", (prefix,) if end is None else (prefix, end))]
