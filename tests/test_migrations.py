"""Numbered migrations on a real SQLite file: an old store is upgraded in place with its
data, each migration runs once and is recorded, and a store from a newer convstate is
refused. (PostgreSQL runs the same code; its shared test database is not rewound here.)"""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from convstate import ConversationMemory, SQLiteStore, StoreError
from convstate.store.migrations import MIGRATIONS, Migration


def old_store(path: Path) -> None:
    """A store as convstate 0.1 wrote it: schema version 1, a bare number."""
    db = sqlite3.connect(path)
    for statement in MIGRATIONS[0].statements(SQLiteStore.dialect):
        db.execute(statement)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    db.execute("INSERT INTO schema_version VALUES (1)")
    db.execute("INSERT INTO turns VALUES ('s', 0, 'user', '订单号 DD20240315889', NULL, NULL, "
               "NULL, '2026-01-01T00:00:00+00:00')")
    db.commit()
    db.close()


def versions(path: Path) -> list[tuple]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT version, name, applied_at IS NOT NULL FROM schema_version "
                          "ORDER BY version").fetchall()
    finally:
        db.close()


def test_an_old_store_is_upgraded_in_place_and_keeps_its_turns(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old_store(path)
    store = SQLiteStore(path)
    assert store.schema_version() == len(MIGRATIONS)
    assert versions(path)[:2] == [(1, "tables", False), (2, "named versions", True)]
    # a session written before generations has one: its erasure is noticed like any
    assert store.head("s").generation > 0 and store.head("t").generation == 0
    mem = ConversationMemory("s", store=store)
    assert [t.content for t in mem.history()] == ["订单号 DD20240315889"]
    mem.add("assistant", "好的")
    old, new = store.turns("s")
    assert old.created_at == datetime(2026, 1, 1, tzinfo=UTC)  # ISO text, read as before
    assert new.created_at.tzinfo is not None and new.created_at > old.created_at
    db = sqlite3.connect(path)
    # clustered by (session, index): no separate key index; new times are integers
    assert "WITHOUT ROWID" in db.execute("SELECT sql FROM sqlite_master WHERE name='turns'"
                                         ).fetchone()[0]
    assert not db.execute("SELECT name FROM sqlite_master WHERE tbl_name='turns' AND "
                          "type='index'").fetchall()
    assert db.execute("SELECT typeof(created_at) FROM turns ORDER BY idx").fetchall() == [
        ("text",), ("integer",)]


def test_a_new_migration_runs_once_and_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    store = SQLiteStore(path)

    def notes(d):
        yield "CREATE TABLE notes (session_id TEXT NOT NULL, text TEXT NOT NULL)"

    n = len(MIGRATIONS) + 1
    later = (*MIGRATIONS, Migration(n, "notes", notes))
    assert store.migrate(later) == n
    assert store.migrate(later) == n  # nothing twice ("table notes already exists")
    assert versions(path)[-1] == (n, "notes", True)
    store.close()


def test_a_failing_migration_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "f.db"
    store = SQLiteStore(path)

    def broken(d):
        yield "CREATE TABLE half (x INTEGER)"
        yield "THIS IS NOT SQL"

    with pytest.raises(StoreError):
        store.migrate((*MIGRATIONS, Migration(len(MIGRATIONS) + 1, "broken", broken)))
    assert store.schema_version() == len(MIGRATIONS)
    assert "half" not in {r[0] for r in sqlite3.connect(path).execute(
        "SELECT name FROM sqlite_master")}


def test_a_store_from_a_newer_convstate_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    SQLiteStore(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO schema_version (version, name) VALUES (99, 'from the future')")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer convstate"):
        SQLiteStore(path)


def test_full_versions_of_an_older_release_are_compacted_into_deltas(tmp_path: Path,
                                                                      capsys) -> None:
    import json

    from convstate.cli import main

    db = tmp_path / "old-states.db"
    mem = ConversationMemory("s", store=SQLiteStore(db), context_window=300)
    for i in range(150):
        mem.add("user", f"第{i}个订单 DD{20240000 + i}，电话 1391234{i:04d}")
        mem.add("assistant", "好的，已登记。")
        mem.context()
    mem.close()
    store = SQLiteStore(db)
    versions = [v for v, _, _ in store.versions("s")]
    states = {v: store.load_state("s", v) for v in versions}
    with store._tx("s") as tx:  # as an older release wrote them: every version whole
        for v, state in states.items():
            tx.execute("UPDATE states SET state={p}, packed=NULL WHERE session_id={p} AND "
                       "version={p}", (json.dumps(state, ensure_ascii=False), "s", v))
    store.close()
    assert main(["migrate", "--store", str(db), "--compact-states"]) == 0
    out = capsys.readouterr().out
    m = re.search(r"(\d+) state versions rewritten as packed deltas: ([\d.]+) MB of "
                  r"states -> ([\d.]+) MB", out)
    # every version packed, most as deltas: far under a tenth of the whole versions
    assert m and int(m[1]) == len(versions) and float(m[3]) < float(m[2]) / 10, out
    again = SQLiteStore(db)
    assert all(again.load_state("s", v) == state for v, state in states.items())
    rewritten, before, after = again.compact_states("s")
    assert rewritten == 0 and after == before  # nothing left to do: run it twice safely
    assert len(versions) > 20
