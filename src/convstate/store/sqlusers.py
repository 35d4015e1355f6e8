"""The SQL store's users: sessions given to a user, their profiles, and erasure of a
session or a user (a privacy request)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from ..errors import (
    StoreError,
    VersionConflictError,
)
from ..profile import Profile, erase_session
from .sqlcore import (
    _ERASE_TRIES,
    _SESSION_TABLES,
    SQLCore,
    _Bound,
    _checked,
    _profile_json,
    _user_key,
)


class SQLUsers(SQLCore):
    """The users, profiles and erasures of ``SQLStore``."""

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
