"""The SQL store's states (versioned, a delta from the last where it pays), the
compaction log and the fold leases."""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from typing import Any

from ..errors import (
    StoreError,
    VersionConflictError,
)
from .base import CompactionRecord
from .deltas import apply, is_delta, pack, replay, stored_text, unpack
from .sqlcore import (
    _PAGE,
    _SAVED_BYTES,
    _SAVED_CACHE,
    _SAVED_ITEM_BYTES,
    SQLCore,
    _checked,
    _logged,
)


class SQLStates(SQLCore):
    """The states, log and leases of ``SQLStore``."""

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
        size = _SAVED_ITEM_BYTES * sum(len(v) for v in state.values() if isinstance(v, list))
        with lock:
            saved[session_id] = (int(state["version"]), state, chain, measured, size)
            held = sum(entry[4] for entry in saved.values())
            while len(saved) > 1 and (len(saved) > _SAVED_CACHE or held > _SAVED_BYTES):
                held -= saved.popitem(last=False)[1][4]  # the least recently saved
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
