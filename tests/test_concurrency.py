"""Concurrent writers on one SQLite file: no lost or duplicated turn, one order per
session, no state overwritten, every turn folded once, no 'database is locked'."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from convstate import SQLiteStore

HERE = Path(__file__).parent
WORKERS, TURNS = 4, 100


def test_four_processes_two_kinds_of_session(tmp_path: Path) -> None:
    db = tmp_path / "many.db"
    SQLiteStore(db).close()  # create the schema once
    procs = [subprocess.Popen([sys.executable, str(HERE / "writer_child.py"), str(db),
                               str(k), str(TURNS)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for k in range(WORKERS)]
    results = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0 and "locked" not in err, err
        assert out.strip() == str(TURNS)

    store = SQLiteStore(db)
    expected = {f"w{k}-{i} 订单号 DD{k}{i:06d}，请尽快处理" for k in range(WORKERS)
                for i in range(TURNS)}
    shared = store.turns("shared")
    assert [t.index for t in shared] == list(range(WORKERS * TURNS))  # one total order
    assert sorted(t.content for t in shared) == sorted(expected)  # none lost, none twice
    for k in range(WORKERS):  # each worker's own turns in its own order
        mine = [t.content for t in shared if t.content.startswith(f"w{k}-")]
        assert mine == sorted(mine, key=lambda c: int(c.split("-")[1].split()[0]))
        own = store.turns(f"own-{k}")
        assert [t.content for t in own] == [f"w{k}-{i} 订单号 DD{k}{i:06d}，请尽快处理"
                                            for i in range(TURNS)]
    for session in ["shared"] + [f"own-{k}" for k in range(WORKERS)]:
        log = [r for r in store.compactions(session) if r.error is None]
        assert [r.version for r in log] == list(range(1, len(log) + 1))  # none overwritten
        # every turn let go was let go once, in order, by whichever worker won, and each
        # save holds every turn read up to it
        assert [r.first_turn for r in log] == [0] + [r.last_turn + 1 for r in log[:-1]]
        state = store.load_state(session)
        assert state["version"] == len(log) and state["evicted_through"] == log[-1].last_turn
        assert state["folded_through"] >= state["evicted_through"]
        anchors = {a["value"] for a in state["anchors"]}
        folded = {t.content.split()[2].rstrip("，请尽快处理")
                  for t in store.turns(session, through=state["folded_through"])}
        assert folded <= anchors  # every folded order number is in the state
