"""Erased is erased (invariant 9): every copy of a session — another object, another
process — notices an erasure at its next call and never serves or writes back what was
erased; a session's erasure takes what it gave the profile; ``forget`` leaves no row of
the user and, racing with the user's traffic, no session unlinked; no file of SQLite
(database, log, index, zlib-packed rows included) or of PostgreSQL (table files after a
CHECKPOINT) holds an erased value. On SQLite and on the real PostgreSQL server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import uuid
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from conftest import Said

from convstate import (
    ConversationMemory,
    Extraction,
    IndexEntry,
    RuleExtractor,
    StateDelta,
    Turn,
)
from convstate.store import open_store

PG = os.environ.get("CONVSTATE_TEST_PG_DSN")
# every table a session's or a user's rows live in
TABLES = ("turns", "states", "compactions", "leases", "session_users", "sessions", "profiles")


@pytest.fixture
def target(store_target: str) -> str:
    """The store the copies share: a SQLite file, or the PostgreSQL database."""
    return store_target


OPENED: list[Any] = []  # stores a test opened, closed after it


@pytest.fixture(autouse=True)
def _close_stores() -> Iterator[None]:
    yield
    while OPENED:
        OPENED.pop().close()


def opened(target: str) -> Any:
    """Another store object (its own connection) at ``target``."""
    OPENED.append(open_store(target))
    return OPENED[-1]


def memory(target: str, session: str, user: str | None = None, **options: Any
           ) -> ConversationMemory:
    """A copy of the session with a store object of its own (another connection)."""
    options.setdefault("context_window", 4000)
    return ConversationMemory(session, store=opened(target), user_id=user, **options)


def talk(mem: ConversationMemory, said: Said) -> None:
    """The user gives their values; the state and the profile take them."""
    mem.add("user", said.message)
    mem.add("assistant", "Sorry! We will look into it.")
    mem.compact(keep_recent_turns=0)


def shown(mem: ConversationMemory) -> str:
    """Everything a copy serves or holds: context, state, block, profile (which it reads
    again at a call: it is asked last)."""
    seen = json.dumps(mem.context()) + mem.state.model_dump_json() + mem.render()
    return seen + (mem.profile.model_dump_json() if mem.profile is not None else "")


def rows_of(target: str, sessions: Sequence[str], user: str) -> dict[str, int]:
    """How many rows each table holds of these sessions or this user."""
    store, marks = opened(target), ",".join("{p}" for _ in sessions)
    out = {}
    for table in TABLES:
        where, keys = f"session_id IN ({marks})", tuple(sessions)
        if table == "profiles":
            where, keys = "user_id={p}", (user,)
        elif table == "session_users":
            where, keys = f"session_id IN ({marks}) OR user_id={{p}}", (*sessions, user)
        out[table] = store._read(f"SELECT COUNT(*) FROM {table} WHERE {where}",  # type: ignore[attr-defined]
                                 keys)[0][0]
    return out


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "convstate.cli", *args], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, COLUMNS="200"))


# -- copies -----------------------------------------------------------------------------

def test_another_object_notices_an_erasure_at_its_next_call(target: str) -> None:
    said = Said()
    m1 = memory(target, said.session, said.user, context_window=100_000)
    m2 = memory(target, said.session, said.user, context_window=100_000)
    m1.add("user", said.message)  # no fold: the state version stays 0 throughout
    assert said.phone in json.dumps(m2.context())
    m1.erase()
    assert not any(v in shown(m2) for v in said.values)
    # the next message of the stale copy is stored in the new, empty session and shown
    m2.add("user", "Hello again, where is my parcel?")
    assert [m["content"] for m in m2.context()] == ["Hello again, where is my parcel?"]
    assert [t.content for t in memory(target, said.session).history()] == [
        "Hello again, where is my parcel?"]


def test_a_copy_at_the_same_state_version_and_index_is_not_fooled(target: str) -> None:
    # the erased session and the one after it reach the same version and turn index:
    # only the generation tells them apart
    said = Said()
    m1, m2 = memory(target, said.session, said.user), memory(target, said.session, said.user)
    talk(m1, said)
    assert m2.state.version == 1 and said.phone in shown(m2)
    m1.erase()
    m1.add("user", "Is the shop open on Sunday?")
    m1.add("assistant", "Yes, from ten.")
    m1.compact(keep_recent_turns=0)
    assert m1.state.version == 1
    m2.add("user", "Thanks!")  # index 2, as if it came after the erased turns
    assert not any(v in shown(m2) for v in said.values)
    assert [t.content for t in m2.history()] == ["Is the shop open on Sunday?",
                                                 "Yes, from ten.", "Thanks!"]
    assert "Thanks!" in json.dumps(m2.context())
    assert not any(v in shown(memory(target, said.session + "-next", said.user))
                   for v in said.values)


class Gated:
    """The rule extractor, held at the door until the test lets it through."""

    name = "gated"

    def __init__(self) -> None:
        self.inside, self.go, self.inner = threading.Event(), threading.Event(), RuleExtractor()

    def extract(self, turns: Sequence[Turn], index: Sequence[IndexEntry],
                delta_model: type[StateDelta] = StateDelta) -> Extraction:
        self.inside.set()
        assert self.go.wait(60)
        return self.inner.extract(turns, index, delta_model)


def test_a_fold_planned_before_an_erasure_is_refused(target: str) -> None:
    said, gate = Said(), Gated()
    m2 = memory(target, said.session, said.user, extractor=gate)
    m2.add("user", said.message)
    m2.add("assistant", "Sorry!")
    folding = threading.Thread(target=m2.compact, kwargs={"keep_recent_turns": 0})
    folding.start()
    assert gate.inside.wait(60)
    memory(target, said.session, said.user).erase()  # while m2 extracts the erased turns
    gate.go.set()
    folding.join(60)
    store = opened(target)
    assert store.load_state(said.session) is None and store.compactions(said.session) == []
    assert store.load_profile(said.user) is None  # nothing promoted
    assert store.lease_holder(said.session) is None
    assert not any(v in shown(m2) for v in said.values)
    assert rows_of(target, [said.session], said.user) == dict.fromkeys(TABLES, 0)


CHILD = """
import json, sys
from convstate import ConversationMemory
from convstate.store import open_store
target, session, user = sys.argv[1:4]
mem = ConversationMemory(session, store=open_store(target), user_id=user, context_window=4000)
for line in sys.stdin:
    command, _, text = line.rstrip("\\n").partition(" ")
    if command == "add":
        mem.add("user", text)
    elif command == "fold":
        mem.add("assistant", "Noted.")
        mem.compact(keep_recent_turns=0)
    seen = [json.dumps(mem.context()), mem.state.model_dump_json(), mem.render(),
            mem.profile.model_dump_json()]
    print(json.dumps("".join(seen)), flush=True)
"""


class Child:
    """A copy of the session in another process, driven line by line."""

    def __init__(self, target: str, said: Said):
        self.proc = subprocess.Popen([sys.executable, "-c", CHILD, target, said.session,
                                      said.user], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def __call__(self, command: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "the child process died"
        return str(json.loads(line))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(60)


def test_another_process_notices_forget_and_never_folds_the_values_back(target: str) -> None:
    said = Said()
    child = Child(target, said)
    try:
        assert said.phone in child(f"add {said.message}")
        assert said.phone in child("fold")
        out = run_cli("forget", said.user, "--store", target)
        assert out.returncode == 0 and "1 sessions" in out.stdout, out.stderr
        assert not any(v in child("look") for v in said.values)
        seen = child("add Hello again, it is me.")
        assert "Hello again, it is me." in seen
        seen = child("fold")
        assert not any(v in seen for v in said.values)
        assert "Hello again, it is me." in seen
    finally:
        child.close()
    store = opened(target)
    assert [t.content for t in store.turns(said.session)] == ["Hello again, it is me.",
                                                              "Noted."]
    assert not any(v in json.dumps(store.load_profile(said.user)) for v in said.values)
    # the session the stale copy went on with is still the user's: forget finds it
    out = run_cli("forget", said.user, "--store", target)
    assert out.returncode == 0 and "1 sessions, 2 turns" in out.stdout, out.stdout
    assert rows_of(target, [said.session], said.user) == dict.fromkeys(TABLES, 0)


# -- the profile ------------------------------------------------------------------------

def profile_versions(target: str, user: str) -> list[str]:
    store = opened(target)
    rows = store._read("SELECT profile FROM profiles WHERE user_id={p} ORDER BY version",  # type: ignore[attr-defined]
                       (user,))
    return [r[0] for r in rows]


def test_erasing_a_session_takes_what_it_gave_the_profile_and_keeps_the_rest(
        target: str) -> None:
    said = Said()
    first = memory(target, said.session, said.user)
    talk(first, said)  # phone, order and email, said in the first session
    second = memory(target, said.session + "-2", said.user)
    second.add("user", f"About order {said.order} again: I don't want an exchange.")
    second.add("assistant", "Understood.")
    second.compact(keep_recent_turns=0)
    versions = profile_versions(target, said.user)
    assert len(versions) >= 2 and all(said.phone in v for v in versions)
    first.erase()
    versions = profile_versions(target, said.user)
    assert not any(said.phone in v or said.email in v for v in versions)
    profile = opened(target).load_profile(said.user)
    kept = {i["kind"]: i for i in profile["items"]}
    # what the second session said stays, as the second session's
    assert kept["order_id"]["value"] == said.order
    assert kept["order_id"]["session_id"] == said.session + "-2"
    assert kept["order_id"]["confirmations"] == 1
    assert "negative_constraint" in kept and "phone" not in kept
    assert [s["session_id"] for s in kept["order_id"]["sources"]] == [said.session + "-2"]
    # the next session, and the live copy of the second, show nothing erased
    third = memory(target, said.session + "-3", said.user)
    third.add("user", "Hello, it's me again.")
    block = third.context()[0]["content"]
    assert "From earlier conversations" in block and said.order in block
    assert said.phone not in block and said.email not in block
    assert not any(v in shown(second) for v in (said.phone, said.email))


# -- forget: every row, and no race ------------------------------------------------------

def test_forget_racing_with_the_users_traffic_leaves_no_session_unlinked(target: str) -> None:
    eraser = opened(target)
    for _ in range(6):
        said = Said()
        sessions = [said.session + "-a", said.session + "-b"]
        race(target, said, sessions, lambda user=said.user: eraser.forget_user(user))
        # whatever the race left is the user's, so the next forget finds all of it
        linked = set(eraser.user_sessions(said.user))
        assert {s for s in sessions if eraser.turn_count(s)} <= linked
        eraser.forget_user(said.user)
        assert rows_of(target, sessions, said.user) == dict.fromkeys(TABLES, 0)


def race(target: str, said: Said, sessions: Sequence[str], forget: Any) -> None:
    """The user talks in each session (a copy of its own) while ``forget`` runs again and
    again, until they are done."""
    started, errors = threading.Barrier(len(sessions) + 1), []

    def traffic(session: str) -> None:
        try:
            started.wait()
            mem = memory(target, session, said.user, context_window=600)
            for i in range(12):
                mem.add("user", f"{said.message} ({i})")
                mem.context()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=traffic, args=(s,)) for s in sessions]
    for t in threads:
        t.start()
    started.wait()
    while any(t.is_alive() for t in threads):
        forget()
    for t in threads:
        t.join(120)
    assert not errors, errors


# -- no file holds it ---------------------------------------------------------------------

def leaked(blobs: Iterable[bytes], values: Sequence[str]) -> set[str]:
    """The values found in the bytes, as they are or inside a zlib stream in them."""
    found = set()
    for raw in blobs:
        for text in (raw, *_inflated(raw)):
            found |= {v for v in values if v.encode() in text}
    return found


def _inflated(raw: bytes) -> Iterator[bytes]:
    for m in re.finditer(rb"\x78[\x01\x5e\x9c\xda]", raw):
        try:
            out = zlib.decompressobj().decompress(raw[m.start():])
        except zlib.error:
            continue
        if out:
            yield out


def sqlite_files(db: Path) -> list[bytes]:
    return [p.read_bytes() for p in db.parent.glob(db.name + "*")]


def test_no_sqlite_file_holds_an_erased_value(tmp_path: Path) -> None:
    db, said = tmp_path / "erase.db", Said()
    m1 = memory(str(db), said.session, said.user)
    m1.add("user", said.message)
    stale = memory(str(db), said.session, said.user)  # a copy that goes on after forget
    assert said.phone in shown(stale)
    m1.add("assistant", "Sorry!")
    m1.compact(keep_recent_turns=0)  # into a zlib-packed state, and the profile
    files = sqlite_files(db)
    assert leaked(files, said.values) == set(said.values)
    assert leaked([zlib.decompress(p) for (p,) in m1.store._read(  # type: ignore[attr-defined]
        "SELECT packed FROM states", ())], said.values) == set(said.values)
    m1.store.forget_user(said.user)  # type: ignore[attr-defined]
    stale.add("user", "Is anyone there?")
    stale.add("assistant", "Yes.")
    stale.compact(keep_recent_turns=0)
    assert [t.content for t in stale.history()] == ["Is anyone there?", "Yes."]
    for mem in (m1, stale):
        mem.close()
    assert leaked(sqlite_files(db), said.values) == set()


def test_forget_fails_loudly_while_a_reader_holds_the_log(tmp_path: Path) -> None:
    db, said = tmp_path / "erase.db", Said()
    talk(memory(str(db), said.session, said.user), said)
    reader = subprocess.Popen(
        [sys.executable, "-c", "import sqlite3, sys\n"
         "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
         "db.execute('BEGIN'); db.execute('SELECT COUNT(*) FROM turns').fetchone()\n"
         "print('reading', flush=True); sys.stdin.readline()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout is not None and reader.stdout.readline() == "reading\n"
        out = run_cli("forget", said.user, "--store", str(db))
        assert out.returncode == 1, out.stdout
        assert f"pid {reader.pid}" in out.stderr and "-wal" in out.stderr, out.stderr
        assert leaked(sqlite_files(db), said.values)  # what the error says: still there
    finally:
        assert reader.stdin is not None
        reader.stdin.close()
        reader.wait(60)
    out = run_cli("forget", said.user, "--store", str(db))  # the reader has gone
    assert out.returncode == 0, out.stderr
    assert leaked(sqlite_files(db), said.values) == set()


def pg_files(conn: Any, tables: Sequence[str] = TABLES) -> list[Path]:
    """The files of convstate's tables, their TOAST tables and every index of them."""
    data = Path(conn.execute("SELECT current_setting('data_directory')").fetchone()[0])
    if not os.access(data, os.R_OK | os.X_OK):
        pytest.skip(f"the PostgreSQL data directory {data} is not readable by this user")
    rels = conn.execute(
        "WITH t AS (SELECT oid, reltoastrelid FROM pg_class WHERE relname = ANY(%s) AND "
        "relnamespace = current_schema()::regnamespace), "
        "r AS (SELECT oid FROM t UNION SELECT reltoastrelid FROM t WHERE reltoastrelid <> 0) "
        "SELECT pg_relation_filepath(oid) FROM r UNION SELECT pg_relation_filepath(indexrelid) "
        "FROM pg_index WHERE indrelid IN (SELECT oid FROM r)", (list(tables),)).fetchall()
    files = []
    for (rel,) in rels:
        base = data / rel
        files += [p for p in base.parent.glob(base.name + "*")
                  if re.fullmatch(re.escape(base.name) + r"(\.\d+|_fsm|_vm)?", p.name)]
    return files


def test_no_postgres_table_file_holds_an_erased_value() -> None:
    if not PG:
        pytest.skip("no PostgreSQL: set CONVSTATE_TEST_PG_DSN (.ci/run starts one)")
    psycopg = pytest.importorskip("psycopg", reason="needs convstate[postgres]")

    said, other = Said(), Said()
    kept = memory(PG, other.session, other.user)
    talk(kept, other)
    first = memory(PG, said.session, said.user)
    talk(first, said)
    second = memory(PG, said.session + "-2", said.user)
    second.add("user", f"Also my new phone is 1380000{said.phone[-4:]}.")
    second.compact(keep_recent_turns=0)
    with psycopg.connect(PG, autocommit=True) as conn:
        def scan() -> set[str]:
            conn.execute("CHECKPOINT")
            return leaked((p.read_bytes() for p in pg_files(conn)), said.values + other.values)

        assert scan() == set(said.values + other.values)  # the scan sees what is there
        profiles = leaked((p.read_bytes() for p in pg_files(conn, ["profiles"])), said.values)
        assert profiles == set(said.values)  # (stored as they are: short rows)
        first.erase()  # one session: its turns, states, log, and its part of the profile
        assert scan() == set(other.values)
        out = run_cli("forget", said.user, "--store", PG)
        assert out.returncode == 0, out.stderr
        assert scan() == set(other.values)  # another user's values stay
    assert rows_of(PG, [said.session, said.session + "-2"], said.user) == dict.fromkeys(
        TABLES, 0)


def test_an_erasure_that_cannot_rewrite_postgres_tables_says_so() -> None:
    # VACUUM only warns, and goes on, where it may not rewrite a table (not its owner)
    if not PG:
        pytest.skip("no PostgreSQL: set CONVSTATE_TEST_PG_DSN (.ci/run starts one)")
    psycopg = pytest.importorskip("psycopg", reason="needs convstate[postgres]")

    from convstate import StoreError

    role, said = f"erasure_{uuid.uuid4().hex[:8]}", Said()
    with psycopg.connect(PG, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
        try:
            schema = admin.execute("SELECT current_schema()").fetchone()[0]
            for grant in ("ALL ON ALL TABLES IN", "ALL ON ALL SEQUENCES IN", "USAGE, CREATE ON"):
                admin.execute(f"GRANT {grant} SCHEMA {schema} TO {role}")
            url = urlsplit(PG)
            user = urlunsplit(url._replace(netloc=f"{role}@{url.netloc.split('@')[-1]}"))
            talk(memory(user, said.session, said.user), said)
            with pytest.raises(StoreError, match="only table or database owner"):
                opened(user).forget_user(said.user)
            assert rows_of(PG, [said.session], said.user) == dict.fromkeys(TABLES, 0)
        finally:
            while OPENED:
                OPENED.pop().close()
            admin.execute(f"DROP OWNED BY {role}")
            admin.execute(f"DROP ROLE {role}")
