"""SQLite store: the embedded default. WAL mode, busy timeout, one transaction per write."""

from __future__ import annotations

import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

from ..errors import ConfigError, StoreError
from .base import key_ttl
from .migrations import Dialect
from .sql import SQLStore
from .sqlcore import IDEMPOTENCY_TTL

T = TypeVar("T")
_RETRIES = 50  # on "database is locked" beyond the busy timeout
SCRUB_WAIT = 5.0  # seconds an erasure waits for older readers before it fails


class SQLiteStore(SQLStore):
    """A store in one SQLite file (``":memory:"`` for a throwaway one).

    Safe to share between threads; several processes may open the same file. Every
    write takes SQLite's write lock up front (``BEGIN IMMEDIATE``), so writers queue
    instead of deadlocking; "database is locked" past the busy timeout is retried here.
    """

    dialect = Dialect(param="?", serial_id="INTEGER PRIMARY KEY AUTOINCREMENT", real="REAL",
                      clustered_turns=True)

    def __init__(self, path: str | Path = "convstate.db", busy_timeout: float = 30.0,
                 readonly: bool = False, idempotency_ttl: float = IDEMPOTENCY_TTL):
        """``idempotency_ttl``: seconds a request's idempotency key is kept."""
        self.path = str(path)
        self.idempotency_ttl = key_ttl(idempotency_ttl)
        self._busy = busy_timeout
        self._lock = threading.RLock()
        self._file: tuple[int, int] | None = None
        if self.path != ":memory:" and Path(self.path).is_dir():
            raise ConfigError("store", f"{self.path} is a folder: give a SQLite file (in it, "
                              f"say {Path(self.path) / 'convstate.db'})")
        if readonly:  # for looking: never creates, migrates or changes the file
            self._db = self._look()
            return
        try:
            self._db = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None,
                                       check_same_thread=False)
            if self.path != ":memory:":
                self._retry(lambda: self._db.execute("PRAGMA journal_mode=WAL"))
            self._db.execute("PRAGMA synchronous=FULL")  # a stored turn survives a power cut
            self._db.execute("PRAGMA secure_delete=ON")  # an erased turn leaves no bytes
        except sqlite3.Error as exc:  # not a database, a folder, no permission...
            raise self._failed("open", exc) from exc
        self._file = self._identity()
        self.migrate()

    def _look(self) -> sqlite3.Connection:
        """A read-only connection. Reading a WAL database needs its -shm file, which
        SQLite makes beside it: in a folder this process cannot write, the file is opened
        as immutable instead (nothing can change it there but its owner)."""
        uri = Path(self.path).absolute().as_uri()
        try:
            return self._opened(uri + "?mode=ro")
        except sqlite3.OperationalError as exc:
            if _writable(Path(self.path).absolute().parent):
                raise self._failed("open", exc) from exc
            try:
                return self._opened(uri + "?immutable=1")
            except sqlite3.Error:
                raise self._failed("open", exc) from exc
        except sqlite3.Error as exc:
            raise self._failed("open", exc) from exc

    def _opened(self, uri: str) -> sqlite3.Connection:
        db = sqlite3.connect(uri, uri=True, timeout=self._busy, isolation_level=None,
                             check_same_thread=False)
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # opens the file
        except sqlite3.Error:
            db.close()
            raise
        return db

    def _identity(self) -> tuple[int, int] | None:
        """The file's device and inode (None in memory): what a replaced file changes."""
        if self.path == ":memory:":
            return None
        try:
            st = os.stat(self.path)
        except OSError:
            return (-1, -1)  # deleted
        return (st.st_dev, st.st_ino)

    def _check_file(self) -> None:
        """A file deleted or replaced under this store is not written past (the writes
        would land in a file no one will read)."""
        if self._file is not None and self._identity() != self._file:
            raise StoreError(f"the SQLite file {self.path} was deleted or replaced while "
                             "this store had it open; nothing was written (open it again)")

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
    def _write(self, *keys: str) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction: committed on success, rolled back on any error;
        a database error (disk full, read-only...) surfaces as StoreError."""
        with self._lock:
            self._check_file()
            try:
                self._retry(lambda: self._db.execute("BEGIN IMMEDIATE"))
            except sqlite3.Error as exc:
                raise self._failed("write", exc) from exc
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException as exc:
                with suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise self._failed("write", exc) from exc
                raise

    def _fetch(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            return self._retry(lambda: self._db.execute(sql, args).fetchall())
        except sqlite3.Error as exc:
            raise self._failed("read", exc) from exc

    def _scrub(self, tables: tuple[str, ...]) -> None:
        """Erased rows' earlier pages sit in the write-ahead log, and in the file until
        the log is checkpointed: fold the log into the (zeroed) file and empty it. A
        reader holding a snapshot from before the erasure stops that; after waiting
        ``SCRUB_WAIT`` seconds for it, a StoreError names the processes that have the
        file open (never "erased" with the rows still in a file)."""
        if self.path == ":memory:":
            return
        with self._lock:
            try:
                self._db.execute(f"PRAGMA busy_timeout={int(SCRUB_WAIT * 1000)}")
                try:
                    busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
                finally:
                    self._db.execute(f"PRAGMA busy_timeout={int(self._busy * 1000)}")
            except sqlite3.Error as exc:
                raise self._failed("checkpoint", exc) from exc
        if busy:
            raise StoreError(
                f"the erased rows are deleted, but their earlier pages are still in "
                f"{self.path}-wal and {self.path}: another connection holds a read "
                f"transaction begun before the erasure, so the log cannot be emptied "
                f"(waited {SCRUB_WAIT:.0f} s). Processes with the file open: "
                f"{', '.join(_holders(self.path)) or 'none found'}. End that reader, then "
                "erase again (it finishes the scrub)")

    def _failed(self, what: str, exc: sqlite3.Error) -> StoreError:
        rolled_back = "; nothing was half-written" if what == "write" else ""
        why = self._why() if what == "open" and self.path != ":memory:" else ""
        return StoreError(f"cannot {what} the SQLite store {self.path}: {exc}{rolled_back}"
                          f"{why}")

    def _why(self) -> str:
        """Why a file cannot be opened, when its place says: a missing or read-only
        folder, a read-only file."""
        path = Path(self.path).absolute()
        folder = path.parent
        if not folder.is_dir():
            return f" (the folder {folder} does not exist)"
        if _writable(folder):
            if path.exists() and not os.access(path, os.W_OK):
                return " (the file is read-only: open it where you can write it, or only " \
                       "look: convstate inspect)"
            return ""
        if not path.exists():
            return (f" (the folder {folder} is read-only: a new store needs a folder you can "
                    "write; give another path)")
        return (f" (its folder {folder} is read-only, and SQLite writes the -wal and -shm "
                "files beside the database: copy it to a folder you can write to change it; "
                "convstate inspect only looks, and works where it is)")

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _writable(folder: Path) -> bool:
    """Whether a file can be made in ``folder`` (tried: permissions, a read-only mount or
    an immutable folder all say no, even to root)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _holders(path: str) -> list[str]:
    """The processes that have the database, its log or its index open (Linux: /proc),
    as "pid N (command)": one of them holds the reader."""
    names = {os.path.realpath(path + end) for end in ("", "-wal", "-shm")}
    found = []
    for pid in sorted(filter(str.isdigit, _listed("/proc")), key=int):
        if any(_target(f"/proc/{pid}/fd/{fd}") in names for fd in _listed(f"/proc/{pid}/fd")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    command = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                command = "?"
            mine = ", this process" if int(pid) == os.getpid() else ""
            found.append(f"pid {pid} ({command[:80]}{mine})")
    return found


def _listed(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _target(link: str) -> str | None:
    try:
        return os.readlink(link)
    except OSError:
        return None


class InMemoryStore(SQLiteStore):
    """A throwaway store with the very same semantics (SQLite ``:memory:``)."""

    def __init__(self) -> None:
        super().__init__(":memory:")
