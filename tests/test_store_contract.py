"""One contract, every store: SQLite file, in-memory, PostgreSQL (when a server is given;
`.ci/run` starts one, and in CI a missing one fails instead of skipping)."""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings, strategies as st

from convstate import (
    CompactionRecord,
    ConversationMemory,
    IdempotencyConflictError,
    InMemoryStore,
    SQLiteStore,
    StoreError,
    VersionConflictError,
)
from convstate.store.migrations import MIGRATIONS
from convstate.store.sqlcore import _key_time

PG = os.environ.get("CONVSTATE_TEST_PG_DSN")


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = SQLiteStore(tmp_path / "contract.db")
    elif request.param == "memory":
        s = InMemoryStore()
    else:
        if not PG:
            if os.environ.get("CI"):
                pytest.fail("CI must start PostgreSQL and set CONVSTATE_TEST_PG_DSN")
            pytest.skip("no PostgreSQL: set CONVSTATE_TEST_PG_DSN (.ci/run starts one)")
        pytest.importorskip("psycopg_pool", reason="needs convstate[postgres]")
        from convstate.store.postgres import PostgresStore
        s = PostgresStore(PG)
    yield s
    s.close()


@pytest.fixture
def sid() -> str:
    return f"s-{uuid.uuid4().hex}"  # stores may be shared between tests (PostgreSQL)


def test_append_gives_gap_free_indexes_in_order(store, sid) -> None:
    for i in range(5):
        t = store.append(sid, {"role": "user", "content": f"m{i} 订单 ✓"})
        assert t.index == i
    assert [t.content for t in store.turns(sid)] == [f"m{i} 订单 ✓" for i in range(5)]
    assert [t.index for t in store.turns(sid, after=1, through=3)] == [2, 3]
    assert store.turn_count(sid) == 5 and sid in store.sessions()


def test_tool_fields_round_trip(store, sid) -> None:
    calls = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    store.append(sid, {"role": "assistant", "content": None, "tool_calls": calls})
    store.append(sid, {"role": "tool", "content": "ok", "tool_call_id": "c1", "name": "f"})
    parts = [{"type": "text", "text": "看图"}, {"type": "image_url",
                                              "image_url": {"url": "data:image/png;base64,AA"}}]
    store.append(sid, {"role": "developer", "content": "看图", "parts": parts})
    a, b, c = store.turns(sid)
    assert a.tool_calls == calls and a.content is None
    assert (b.tool_call_id, b.name) == ("c1", "f")
    assert (c.role, c.content, c.parts) == ("developer", "看图", parts)


def test_a_turn_s_time_comes_back_exactly_in_its_own_zone(store, sid) -> None:
    from datetime import UTC, datetime, timedelta, timezone

    times = [datetime(2026, 3, 1, 8, 30, 15, 123456, tzinfo=UTC),
             datetime(2026, 3, 1, 16, 30, 15, 1, tzinfo=timezone(timedelta(hours=8))),
             datetime(2026, 3, 1, 8, 30, 15)]  # no zone given: none made up
    for at in times:
        store.append(sid, {"role": "user", "content": "hi", "created_at": at})
    back = [t.created_at for t in store.turns(sid)]
    assert back == times and [t.utcoffset() for t in back] == [t.utcoffset() for t in times]


def test_sessions_under_a_prefix_are_exactly_those_that_begin_with_it(store, sid) -> None:
    # tenant names may hold LIKE's wildcards (_ %) and the characters either side of "/"
    tenants = ["t_1", "t%1", "tx1", "t", "t.1", "t0", "t-1", "é"]
    tenants = [f"{sid}{t}" for t in tenants]
    for t in tenants:
        for name in ("s1", "s_2", "ünï"):
            store.append(f"{t}/{name}", {"role": "user", "content": "hi"})
    store.append(f"{sid}t_1", {"role": "user", "content": "no slash: no tenant's"})
    store.save_state(f"{sid}t_1/folded-only", {"version": 1, "folded_through": -1}, 0,
                     CompactionRecord(session_id=f"{sid}t_1/folded-only"))  # no turn
    for t in tenants:
        assert store.sessions(prefix=f"{t}/") == [f"{t}/s1", f"{t}/s_2", f"{t}/ünï"], t
    assert store.sessions(prefix=f"{sid}t_") == [f"{sid}t_1", *(
        f"{sid}t_1/{n}" for n in ("s1", "s_2", "ünï"))]
    assert store.sessions(prefix=f"{sid}none/") == []
    every = store.sessions()
    assert every == sorted(every) and set(store.sessions(prefix=sid)) <= set(every)
    assert len(store.sessions(prefix=sid)) == 3 * len(tenants) + 1
    store.erase(f"{tenants[0]}/s1")
    assert store.sessions(prefix=f"{tenants[0]}/") == [f"{tenants[0]}/s_2",
                                                        f"{tenants[0]}/ünï"]


def test_erase_removes_one_session_everywhere(store, sid) -> None:
    other = sid + "-other"
    for s in (sid, other):
        store.append(s, {"role": "user", "content": "13912345678"})
        store.save_state(s, {"version": 1, "folded_through": 0}, 0,
                         CompactionRecord(session_id=s))
    assert store.acquire_lease(sid, "me", 30)
    assert store.erase(sid) == 1
    assert (store.turn_count(sid), store.load_state(sid), store.compactions(sid)) == (0, None, [])
    assert store.lease_holder(sid) is None and sid not in store.sessions()
    assert store.turn_count(other) == 1 and store.load_state(other)["version"] == 1


def test_a_write_planned_before_an_erasure_is_refused(store, sid) -> None:
    from convstate import SessionErasedError

    user = "u-" + sid
    _, generation = store.append_checked(sid, {"role": "user", "content": "a"}, 0, user)
    assert store.head(sid).generation == generation > 0
    assert store.user_sessions(user) == [sid]  # linked with its first turn
    with pytest.raises(SessionErasedError):  # a copy that never saw the session begin
        store.append_checked(sid, {"role": "user", "content": "b"}, 0)
    store.erase(sid)
    assert store.head(sid).generation == 0
    record = CompactionRecord(session_id=sid)
    writes = [
        lambda: store.append_checked(sid, {"role": "user", "content": "b"}, generation),
        lambda: store.save_state(sid, {"version": 1, "folded_through": 0}, 0, record,
                                 generation=generation),
        lambda: store.log(record, generation=generation),
        lambda: store.save_profile(user, {"user_id": user, "version": 1}, 0,
                                   session=(sid, generation)),
    ]
    for write in writes:
        with pytest.raises(SessionErasedError):
            write()
    assert (store.turn_count(sid), store.load_state(sid), store.compactions(sid)) == (0, None, [])
    assert store.load_profile(user) is None and store.user_sessions(user) == []
    # begun again, the session has a generation it never had: the state version and the
    # turn index start again from 0, the generation never comes back to an earlier one
    turn, again = store.append_checked(sid, {"role": "user", "content": "c"}, 0)
    assert turn.index == 0 and again > generation
    store.save_state(sid, {"version": 1, "folded_through": 0}, 0, record, generation=again)
    assert store.head(sid) == (again, 1, None)


def _written_by_four(store, sid: str, write) -> list:
    """The session's turns after four threads ran ``write(k)`` at once."""
    threads = [threading.Thread(target=write, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return store.turns(sid)


def test_concurrent_appends_never_share_an_index(store, sid) -> None:
    def write(k: int) -> None:
        for i in range(20):
            store.append(sid, {"role": "user", "content": f"{k}-{i}"})
    turns = _written_by_four(store, sid, write)
    assert [t.index for t in turns] == list(range(80))
    assert len({t.content for t in turns}) == 80


def test_a_list_is_stored_contiguously_under_concurrent_writers(store, sid) -> None:
    calls = [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]

    def write(k: int) -> None:
        for i in range(10):
            store.append_many(sid, [
                {"role": "assistant", "content": "", "tool_calls": calls},
                {"role": "tool", "content": f"{k}-{i}-a", "tool_call_id": "c"},
                {"role": "tool", "content": f"{k}-{i}-b", "tool_call_id": "c"}])
    turns = _written_by_four(store, sid, write)
    assert [t.index for t in turns] == list(range(120))
    for first in range(0, 120, 3):  # every call followed by its own two results
        a, b = turns[first + 1].content, turns[first + 2].content
        assert turns[first].tool_calls and a[:-2] == b[:-2] and (a[-1], b[-1]) == ("a", "b")


def test_a_list_with_a_bad_turn_stores_none_of_it(store, sid) -> None:
    store.append(sid, {"role": "user", "content": "before"})
    bad = "two\x00"  # PostgreSQL refuses NUL in text; SQLite is made to refuse "two"
    if isinstance(store, SQLiteStore):  # (its own connection: an in-memory store has one)
        store._db.execute("CREATE TRIGGER refuse BEFORE INSERT ON turns WHEN "
                          "NEW.content='two' BEGIN SELECT RAISE(ABORT, 'refused'); END")
        bad = "two"
    with pytest.raises(StoreError):
        store.append_many(sid, [{"role": "user", "content": "one"},
                                {"role": "user", "content": bad}])
    assert [t.content for t in store.turns(sid)] == ["before"]


def test_an_idempotency_key_stores_a_retry_once(store, sid) -> None:
    msgs = [{"role": "user", "content": "退款 DD1"}, {"role": "assistant", "content": "ok"}]
    first, _ = store.append_many(sid, msgs, request_key="k-1")
    again, _ = store.append_many(sid, msgs, request_key="k-1")
    assert [t.index for t in again] == [t.index for t in first] == [0, 1]
    assert [t.content for t in again] == ["退款 DD1", "ok"] and store.turn_count(sid) == 2
    with pytest.raises(IdempotencyConflictError) as err:
        store.append_many(sid, msgs[:1], request_key="k-1")
    assert err.value.field == "idempotency_key" and store.turn_count(sid) == 2
    store.erase(sid)  # the key goes with the session
    assert [t.index for t in store.append_many(sid, msgs, request_key="k-1")[0]] == [0, 1]


def _expired_keys(store) -> int:
    cutoff = _key_time(datetime.now(UTC) - timedelta(seconds=store.idempotency_ttl))
    return int(store._read("SELECT COUNT(*) FROM request_keys WHERE created_at < {p}",
                           (cutoff,))[0][0])


def test_an_idempotency_key_expires_and_expired_keys_are_pruned_a_batch_a_write(
        store, sid) -> None:
    from convstate.store.sqlcore import PRUNE_BATCH

    msgs = [{"role": "user", "content": "refund DD1"}]
    first, _ = store.append_many(sid, msgs, request_key="k-1")
    assert store.append_many(sid, msgs, request_key="k-1")[0] == first  # kept: a replay
    for k in range(PRUNE_BATCH + 10):  # keys of other sessions, to expire with it
        store.append_many(f"{sid}-{k % 3}", msgs, request_key=f"other-{k}")
    store.idempotency_ttl = 0.5  # (only now: none of them expires while they are written)
    time.sleep(0.6)
    before = _expired_keys(store)
    assert before >= PRUNE_BATCH + 11
    # past its retention the key is no one's: the retry is a new request, stored again
    again, _ = store.append_many(sid, msgs, request_key="k-1")
    assert [t.index for t in again] == [1] and store.turn_count(sid) == 2
    assert _expired_keys(store) == before - 1 - PRUNE_BATCH  # its own, and one batch
    assert store.append_many(sid, msgs, request_key="k-1")[0] == again  # a key again
    while _expired_keys(store):  # a write at a time, every expired key goes
        store.append_many(sid, [{"role": "user", "content": "more"}],
                          request_key=f"k-{uuid.uuid4().hex}")
    store.idempotency_ttl = 3600.0
    assert _expired_keys(store) == 0 and store.append_many(
        sid, msgs, request_key="k-1")[0] == again  # the live key survived every prune


def test_state_versions_are_checked_and_nothing_is_half_written(store, sid) -> None:
    assert store.load_state(sid) is None and store.state_version(sid) == 0
    rec = CompactionRecord(session_id=sid, first_turn=0, last_turn=3, version=1)
    store.save_state(sid, {"version": 1, "folded_through": 3, "x": "一"}, 0, rec)
    with pytest.raises(VersionConflictError):
        store.save_state(sid, {"version": 1, "folded_through": 5, "x": "二"}, 0, rec)
    assert store.load_state(sid) == {"version": 1, "folded_through": 3, "x": "一"}
    assert len(store.compactions(sid)) == 1
    store.save_state(sid, {"version": 2, "folded_through": 5}, 1, rec)
    assert store.load_state(sid, 1)["x"] == "一" and store.state_version(sid) == 2
    assert [v[:2] for v in store.versions(sid)] == [(1, 3), (2, 5)]
    store.log(CompactionRecord(session_id=sid, error="boom"))
    assert [r.error for r in store.compactions(sid)] == [None, None, "boom"]


def test_a_sqlite_store_sees_what_another_connection_wrote_since_it_last_looked(
        tmp_path, sid) -> None:
    # what a memory asks before every turn ("any new turn? a newer state?") sees what
    # another connection committed since, erasure included
    one, other = SQLiteStore(tmp_path / "two.db"), SQLiteStore(tmp_path / "two.db")
    one.append(sid, {"role": "user", "content": "a"})
    assert one.turns(sid, after=0) == [] and one.state_version(sid) == 0
    other.append(sid, {"role": "user", "content": "b"})
    other.save_state(sid, {"version": 1, "folded_through": 0}, 0,
                     CompactionRecord(session_id=sid))
    assert [t.content for t in one.turns(sid, after=0)] == ["b"]
    assert one.state_version(sid) == 1
    other.erase(sid)
    assert one.turns(sid) == [] and one.state_version(sid) == 0
    one.close()
    other.close()


def test_leases_exclude_other_owners_and_expire(store, sid) -> None:
    assert store.acquire_lease(sid, "w1", 30)
    assert not store.acquire_lease(sid, "w2", 30)
    assert store.acquire_lease(sid, "w1", 30)  # the owner may renew
    store.release_lease(sid, "w2")  # not the owner: no effect
    assert store.lease_holder(sid) == "w1"
    store.release_lease(sid, "w1")
    assert store.acquire_lease(sid, "w2", 0.2)
    time.sleep(0.3)  # w2 "crashed": its lease expires and is taken over
    assert store.acquire_lease(sid, "w3", 30) and store.lease_holder(sid) == "w3"


def test_a_memory_works_the_same_on_every_store(store, sid) -> None:
    from convstate import Store

    assert isinstance(store, Store)  # the protocol is what callers use, all of it
    mem = ConversationMemory(sid, store=store, context_window=600)
    for i in range(30):
        mem.add("user" if i % 2 == 0 else "assistant", f"第{i}轮 订单号 DD{1000000 + i}")
        assert mem.counter.messages(mem.context()) <= mem.policy.budget
    state = mem.state
    again = ConversationMemory(sid, store=store, context_window=600)
    assert again.state == state and state.version >= 1
    assert [r.version for r in store.compactions(sid)] == list(range(1, state.version + 1))
    assert store.schema_version() == MIGRATIONS[-1].number


def test_profiles_are_versioned_and_two_sessions_of_a_user_lose_no_update(store, sid) -> None:
    user = "u-" + sid
    store.save_profile(user, {"user_id": user, "version": 1, "items": []}, 0)
    with pytest.raises(VersionConflictError):
        store.save_profile(user, {"user_id": user, "version": 1, "items": []}, 0)
    user = "u2-" + sid
    mems = [ConversationMemory(f"{sid}-{k}", store=store, user_id=user, context_window=400)
            for k in range(2)]

    def talk(k: int) -> None:
        for i in range(6):
            mems[k].add("user", f"订单号 DD{k}{i:07d} 要退款，谢谢")
            mems[k].add("assistant", "好的，正在处理。")
            mems[k].compact(keep_recent_turns=0)

    threads = [threading.Thread(target=talk, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    items = store.load_profile(user)["items"]
    assert {i["value"] for i in items} == {f"DD{k}{i:07d}" for k in range(2) for i in range(6)}
    assert sorted(store.user_sessions(user)) == [f"{sid}-0", f"{sid}-1"]
    assert store.forget_user(user) == 24
    assert store.load_profile(user) is None and store.user_sessions(user) == []
    assert all(store.turn_count(f"{sid}-{k}") == 0 for k in range(2))


def test_the_states_kept_to_diff_from_stay_within_their_byte_budget(store, sid,
                                                                     monkeypatch) -> None:
    from convstate.store import sqlstates

    monkeypatch.setattr(sqlstates, "_SAVED_BYTES", 25 * sqlstates._SAVED_ITEM_BYTES)

    def save(name: str, version: int, items: int) -> dict:
        state = {"version": version, "folded_through": -1, "facts": [
            {"id": f"F{i}", "text": f"{name} fact {i} v{version}"} for i in range(items)]}
        store.save_state(sid + name, state, version - 1, CompactionRecord(session_id=sid))
        return state

    kept = lambda: [k[len(sid):] for k in store._saved_states[1]]  # noqa: E731
    for name in "abc":  # 10 items each: two fit in 25 items' bytes
        save(name, 1, 10)
    assert kept() == ["b", "c"]
    save("d", 1, 40)  # bigger than the budget alone: kept alone
    assert kept() == ["d"]
    again = save("a", 2, 12)  # diffed from the stored version, not the kept one
    assert kept() == ["a"] and store.load_state(sid + "a") == again


def test_versions_are_stored_as_deltas_and_each_comes_back_exactly(store, sid,
                                                                    monkeypatch) -> None:
    from convstate.store import deltas

    monkeypatch.setattr(deltas, "SNAPSHOT_AFTER", 0.3)  # several snapshots in 240 turns
    mem = ConversationMemory(sid, store=store, context_window=300)
    seen = {}
    for i in range(240):  # new values every exchange: the state keeps changing
        mem.add("user", f"第{i}个订单 DD{20240000 + i} 的电话是 1391234{i:04d}，我不要换货")
        mem.add("assistant", f"好的，订单 DD{20240000 + i} 已登记。")
        mem.context()
        if mem.state.version and mem.state.version not in seen:  # just saved: as saved
            seen[mem.state.version] = mem.state.model_dump(mode="json")
    stored = [json.loads(deltas.unpack(t, p)) for t, p in store._read(
        "SELECT state, packed FROM states WHERE session_id={p} ORDER BY version", (sid,))]
    snapshots = [i for i, s in enumerate(stored) if not deltas.is_delta(s)]
    assert len(snapshots) >= 3 and len(stored) > 2 * len(snapshots), snapshots
    for version, state in seen.items():
        assert store.load_state(sid, version) == state, version
        assert mem.state_at(version).model_dump(mode="json") == state
    assert store.load_state(sid) == seen[max(seen)]
    assert store.load_state(sid, max(seen) + 1) is None
    reopened = ConversationMemory(sid, store=store, context_window=300)
    assert reopened.state == mem.state  # the saved state, and the turns after it read again
    # every version packed (zlib), none as plain JSON
    assert store._read("SELECT COUNT(*) FROM states WHERE session_id={p} AND (packed IS "
                       "NULL OR state <> '')", (sid,))[0][0] == 0
    rewritten, before, after = store.compact_states(sid)  # already deltas: nothing to do
    assert rewritten == 0 and before == after
    assert all(store.load_state(sid, v) == state for v, state in seen.items())


def test_an_unreachable_postgresql_is_a_short_store_error() -> None:
    pytest.importorskip("psycopg_pool")
    from convstate import StoreError
    from convstate.store.postgres import PostgresStore

    with pytest.raises(StoreError) as err:  # nothing listens on port 1
        PostgresStore("postgresql://postgres:secret@127.0.0.1:1/postgres", timeout=1)
    assert "PostgreSQL" in str(err.value) and "secret" not in str(err.value)


def test_a_delta_round_trips_any_change() -> None:
    from convstate.store.deltas import apply, diff

    old = {"version": 1, "a": [{"id": "A1", "x": 1, "y": 2}, {"id": "A2", "x": 3}],
           "gone": 5, "b": [], "c": "same"}
    new = {"version": 2, "a": [{"id": "A2", "x": 4}, {"id": "A1", "x": 1},
                               {"id": "A3", "z": 9}], "b": [{"id": "B1"}], "c": "same"}
    delta = diff(old, new, 1)
    assert apply(old, delta) == new
    assert old["a"][0] == {"id": "A1", "x": 1, "y": 2}  # the old version is untouched


items = st.lists(st.fixed_dictionaries({"id": st.sampled_from([f"A{i}" for i in range(8)]),
                                        "x": st.integers(0, 2)},
                                       optional={"y": st.just(1)}),
                 max_size=8, unique_by=lambda x: x["id"])


@given(items, st.data())
@settings(max_examples=200, deadline=None)
def test_a_delta_round_trips_a_list_changed_anyhow(old_items, data) -> None:
    from convstate.store.deltas import apply, diff

    # the new list: each old item kept as the same dict, changed, replaced or dropped, in
    # any order, then items with any ids
    new_items = []
    for x in old_items:
        how = data.draw(st.sampled_from(["same", "changed", "dropped"]))
        if how == "same":
            new_items.append(x)
        elif how == "changed":
            new_items.append({**x, "x": data.draw(st.integers(0, 2))})
    if data.draw(st.booleans()):
        new_items = data.draw(st.permutations(new_items))
    taken = {x["id"] for x in new_items}
    new_items += [x for x in data.draw(items) if x["id"] not in taken]
    old, new = {"version": 1, "a": old_items}, {"version": 2, "a": new_items}
    delta = diff(old, new, 1)
    assert apply(old, delta) == new
    in_place = len(new_items) >= len(old_items) and all(
        a["id"] == b["id"] for a, b in zip(old_items, new_items, strict=False))
    if in_place and old_items and new_items:  # a fold's usual change: only what changed
        listed = delta["lists"].get("a", {"gone": [], "items": []})
        assert listed["gone"] == [] and [x["id"] for x in listed["items"]] == [
            b["id"] for a, b in zip(old_items, new_items, strict=False) if a != b] + [
            x["id"] for x in new_items[len(old_items):]]


def test_a_delta_is_written_without_measuring_the_whole_while_an_earlier_measure_allows(
        ) -> None:
    from convstate.store.deltas import SNAPSHOT_AFTER, is_delta, stored_text

    old = {"version": 1, "a": [{"id": f"A{i}", "v": "x" * 50} for i in range(100)]}
    new = {**old, "version": 2, "a": [*old["a"], {"id": "A100", "v": "y"}]}
    size = len(json.dumps(new, ensure_ascii=False))
    text, chain, measured = stored_text(old, new, 1, 0)  # nothing measured: weighed now
    assert is_delta(json.loads(text)) and chain == len(text) and measured == size
    # an earlier, smaller measure (the state grew since) still allows a delta: not weighed
    text, chain, measured = stored_text(old, new, 1, 100, measured=1000)
    assert is_delta(json.loads(text)) and chain == 100 + len(text) and measured == 1000
    # a chain that would pass SNAPSHOT_AFTER times that measure: weighed again, and
    # still a delta, since the state grew
    text, chain, measured = stored_text(old, new, 1, int(SNAPSHOT_AFTER * 1000),
                                        measured=1000)
    assert is_delta(json.loads(text)) and measured == size
    # past SNAPSHOT_AFTER times the whole: a snapshot
    text, chain, measured = stored_text(old, new, 1, int(SNAPSHOT_AFTER * size), size)
    assert chain == 0 and json.loads(text) == new and measured == size


def test_a_delta_does_not_grow_with_the_list_it_changes() -> None:
    from convstate.store.deltas import apply, diff, replay

    def grown(n: int) -> tuple[dict, dict]:
        items = [{"id": f"A{i}", "v": i} for i in range(n)]
        new = [*items[:3], {"id": "A3", "v": -1}, *items[5:], {"id": f"A{n}", "v": n}]
        return {"version": 1, "a": items}, {"version": 2, "a": new}

    sizes = []
    for n in (10, 1000):
        old, new = grown(n)
        delta = diff(old, new, 1)
        assert apply(old, delta) == new == replay([old, delta])
        sizes.append(len(json.dumps(delta)))
    assert sizes[1] - sizes[0] <= 4  # only the new item's digits differ
    moved = {"version": 2, "a": [old["a"][1], old["a"][0], *old["a"][2:]]}
    assert apply(old, diff(old, moved, 1)) == moved  # a reordered list: every id stored


def test_a_sqlite_file_replaced_or_deleted_under_a_store_is_not_written_past(tmp_path) -> None:
    import shutil

    from convstate import StoreError

    db = tmp_path / "live.db"
    mem = ConversationMemory("s", store=SQLiteStore(db), context_window=400)
    mem.add("user", "订单号 DD20240315889")
    shutil.copy(db, tmp_path / "copy.db")
    db.unlink()
    with pytest.raises(StoreError, match="deleted or replaced"):
        mem.add("user", "这一句不能写进已删除的文件")
    shutil.copy(tmp_path / "copy.db", db)  # another file now has the name
    with pytest.raises(StoreError, match="deleted or replaced"):
        mem.add("user", "也不能写进替换后的文件")
    assert [t.content for t in SQLiteStore(db).turns("s")] == ["订单号 DD20240315889"]


def _fold_slowly(store, sid: str, report) -> None:
    """A fold whose extractor outlives its lease (0.3 s) four times; ``report`` is given
    who held the lease by then."""
    from convstate import RuleExtractor

    class Slow(RuleExtractor):
        live = False  # slow: it reads the turns a fold takes, under the fold's lease

        def extract(self, turns, index, delta_model=None):
            time.sleep(1.2)
            report(store.lease_holder(sid))
            return super().extract(turns, index, *([delta_model] if delta_model else []))

    mem = ConversationMemory(sid, store=store, extractor=Slow(), context_window=400,
                             lease_ttl=0.3)
    mem.add("user", "订单号 DD20240315889 要退款")
    mem.compact(keep_recent_turns=0)


def test_a_slow_fold_keeps_a_short_lease_alive(tmp_path) -> None:
    store = SQLiteStore(tmp_path / "lease.db")
    held: list[str | None] = []
    _fold_slowly(store, "s", held.append)
    assert held and held[0] is not None  # renewed while the extractor ran
    assert store.lease_holder("s") is None  # given back when the fold ended


def test_one_thread_renews_the_leases_of_every_running_fold(tmp_path) -> None:
    store = SQLiteStore(tmp_path / "leases.db")
    held: dict[str, str | None] = {}
    folds = [threading.Thread(target=_fold_slowly, args=(
        store, f"s{k}", lambda h, k=k: held.__setitem__(f"s{k}", h))) for k in range(3)]
    for t in folds:
        t.start()
    time.sleep(0.6)
    renewing = [t for t in threading.enumerate() if t.name == "convstate-leases"]
    for t in folds:
        t.join()
    assert len(renewing) == 1  # not one per fold
    assert all(held.get(f"s{k}") is not None for k in range(3)), held
    assert all(store.lease_holder(f"s{k}") is None for k in range(3))


def _fold_slowly_in(path: str, queue) -> None:
    _fold_slowly(SQLiteStore(path), "s", queue.put)


def test_a_forked_worker_renews_its_own_leases(tmp_path) -> None:
    import multiprocessing

    # the parent's renewing thread is running (a fold of its own) when the child forks
    parent = threading.Thread(target=_fold_slowly_in,
                              args=(str(tmp_path / "parent.db"), multiprocessing.Queue()))
    parent.start()
    time.sleep(0.5)
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_fold_slowly_in, args=(str(tmp_path / "c.db"), queue))
    child.start()
    held = queue.get(timeout=30)
    child.join(30)
    parent.join()
    assert child.exitcode == 0 and held is not None  # renewed in the child


def test_a_save_gives_the_lease_back_in_its_own_transaction(store, sid) -> None:
    from convstate.store.base import CompactionRecord

    def record(version: int) -> CompactionRecord:
        return CompactionRecord(session_id=sid, first_turn=0, last_turn=0, version=version,
                                extractor="test", tokens_before=0, tokens_after=0)

    assert store.acquire_lease(sid, "w1", 30)
    store.save_state(sid, {"version": 1, "folded_through": 0}, 0, record(1), release="w2")
    assert store.lease_holder(sid) == "w1"  # only its owner's lease goes
    store.save_state(sid, {"version": 2, "folded_through": 0}, 1, record(2), release="w1")
    assert store.lease_holder(sid) is None
    assert store.acquire_lease(sid, "w1", 30)  # a failed save keeps the lease
    with pytest.raises(VersionConflictError):
        store.save_state(sid, {"version": 2, "folded_through": 0}, 1, record(2),
                         release="w1")
    assert store.lease_holder(sid) == "w1"


@pytest.mark.parametrize("releasing", [True, False])
def test_a_fold_gives_its_lease_back_once(tmp_path, releasing: bool) -> None:
    calls: list[str] = []

    class Counting(SQLiteStore):
        def release_lease(self, session_id: str, owner: str) -> None:
            calls.append(owner)
            super().release_lease(session_id, owner)

    class Plain(Counting):  # a store whose save knows nothing of leases
        def save_state(self, session_id, state, expected_version, record):  # type: ignore[override]
            super().save_state(session_id, state, expected_version, record)

    store = (Counting if releasing else Plain)(tmp_path / "l.db")
    mem = ConversationMemory("s", store=store, context_window=400)
    mem.add("user", "订单号 DD20240315889 要退款")
    assert mem.compact(keep_recent_turns=0) is not None
    assert store.lease_holder("s") is None  # given back either way
    assert len(calls) == (0 if releasing else 1)  # with the save, or after it


def test_a_delta_of_a_list_that_only_grew_is_its_new_items() -> None:
    from convstate.store.deltas import apply, diff

    a, b = {"id": "A1", "value": "x"}, {"id": "A2", "value": "y"}
    old = {"version": 1, "anchors": [a]}
    grown = {"version": 2, "anchors": [a, b]}  # the same dict, then a new one
    delta = diff(old, grown, 1)
    assert delta["lists"]["anchors"] == {"gone": [], "items": [b]}
    assert apply(old, delta) == grown
    changed = {"version": 2, "anchors": [{"id": "A1", "value": "z"}, b]}  # a copy, changed
    assert apply(old, diff(old, changed, 1)) == changed
    again = {"version": 2, "anchors": [a, {"id": "A1", "value": "w"}]}  # an id seen before
    assert apply(old, diff(old, again, 1)) == {"version": 2, "anchors": [
        {"id": "A1", "value": "w"}]}  # ids are a list's keys: the last one stands
