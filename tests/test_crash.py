"""Crash safety: a fold killed with SIGKILL at each point leaves old state + old watermark
or new state + new watermark, loses no turn, and the next fold folds the rest once."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import RecordingExtractor

from convstate import ConversationMemory, SQLiteStore
from convstate.cli import load_demo

HERE = Path(__file__).parent
POINTS = ["after_extract", "in_write", "at_commit", "after_commit"]


@pytest.mark.parametrize("point", POINTS)
def test_sigkill_during_a_fold(tmp_path: Path, point: str) -> None:
    db = tmp_path / "crash.db"
    messages = load_demo("zh")["messages"]
    with ConversationMemory("s", store=SQLiteStore(db), context_window=100_000) as mem:
        mem.add_messages(messages)  # stored; no fold yet (a huge window), nothing saved
        assert mem.state.version == 0
    child = subprocess.run([sys.executable, str(HERE / "crash_child.py"), str(db), point],
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stdout + child.stderr

    store = SQLiteStore(db)
    assert [t.message() for t in store.turns("s")] == messages  # no turn lost
    raw = store.load_state("s")
    log = store.compactions("s")
    if raw is None:  # died before the transaction committed: the old state, untouched
        assert point in ("after_extract", "in_write", "at_commit") and log == []
        folded_through = -1
    else:  # committed: the new state with its watermarks and its log line, together
        assert point in ("at_commit", "after_commit")
        assert raw["version"] == 1 and log[0].version == 1
        assert log[0].last_turn == raw["evicted_through"] <= raw["folded_through"]
        folded_through = raw["folded_through"]
    rec = RecordingExtractor()
    mem = ConversationMemory("s", store=store, context_window=800, extractor=rec)
    assert mem.state.folded_through == folded_through
    if point in ("after_extract", "in_write", "at_commit"):
        assert store.lease_holder("s") is not None  # the dead worker's fold lease...
        assert mem.compact() is None and rec.seen == []  # ...keeps others off...
    deadline = time.monotonic() + 30
    while store.lease_holder("s") is not None and time.monotonic() < deadline:
        time.sleep(0.1)  # ...until it expires (1 s here)
    mem.compact()
    # the next fold takes exactly the turns not folded yet, once
    assert rec.seen == list(range(folded_through + 1, mem.state.folded_through + 1))
    assert mem.state.anchor("order_id").value == "DD20240315889"
