"""The store logic both SQL databases share, in parts by job (turns, states, users;
sqlcore.py the ground they stand on); a dialect supplies connections, transactions
and the few things that differ."""

from __future__ import annotations

from datetime import UTC, datetime

from ..errors import StoreError
from .migrations import MIGRATIONS, NAMED_FROM, VERSION_TABLE, Migration
from .sqlcore import locks
from .sqlstates import SQLStates
from .sqlturns import SQLTurns
from .sqlusers import SQLUsers

__all__ = ["SQLStore", "locks"]


class SQLStore(SQLTurns, SQLStates, SQLUsers):
    """Append-only turns, versioned states, a compaction log and fold leases in SQL."""

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
