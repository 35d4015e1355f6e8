"""One ConversationMemory shared by threads, or by async tasks (a web app keeps one per
session): no exception, every turn stored once and folded once, every folded value kept."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from conftest import RecordingExtractor

from convstate import ConversationMemory, SQLiteStore

WORKERS, TURNS = 8, 100


def _order(k: int, i: int) -> str:
    return f"DD{k:02d}{i:06d}"


def _check(mem: ConversationMemory, ex: RecordingExtractor,
           contexts: list[list[dict]]) -> None:
    history = mem.history()
    assert [t.index for t in history] == list(range(WORKERS * TURNS))
    contents = sorted(t.content for t in history)
    assert contents == sorted(f"w{k} 订单号 {_order(k, i)}" for k in range(WORKERS)
                              for i in range(TURNS))
    mem.compact(keep_recent_turns=0)
    state = mem.state
    assert state.folded_through == WORKERS * TURNS - 1
    # every turn given to the extractor exactly once, and in order
    assert ex.seen == list(range(WORKERS * TURNS))
    log = [r for r in mem.compactions() if r.error is None]
    assert [r.first_turn for r in log] == [0] + [r.last_turn + 1 for r in log[:-1]]
    kept = {a.value for a in state.anchors if a.kind == "order_id"}
    assert kept == {_order(k, i) for k in range(WORKERS) for i in range(TURNS)}
    for ctx in contexts:  # no context repeats a turn
        raw = [m["content"] for m in ctx if m["role"] == "user"]
        assert len(raw) == len(set(raw))
        assert mem.counter.messages(ctx) <= mem.policy.budget


def test_threads_share_one_memory(tmp_path: Path) -> None:
    ex = RecordingExtractor()
    mem = ConversationMemory("s", store=SQLiteStore(tmp_path / "shared.db"), extractor=ex,
                             context_window=600)
    contexts: list[list[dict]] = []
    errors: list[BaseException] = []
    start = threading.Barrier(WORKERS)

    def worker(k: int) -> None:
        try:
            start.wait()
            for i in range(TURNS):
                mem.add("user", f"w{k} 订单号 {_order(k, i)}")
                contexts.append(mem.context())
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(WORKERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    _check(mem, ex, contexts)


def test_async_tasks_share_one_memory(tmp_path: Path) -> None:
    ex = RecordingExtractor()
    mem = ConversationMemory("a", store=SQLiteStore(tmp_path / "shared.db"), extractor=ex,
                             context_window=600)
    contexts: list[list[dict]] = []

    async def worker(k: int) -> None:
        for i in range(TURNS):
            await mem.aadd("user", f"w{k} 订单号 {_order(k, i)}")
            contexts.append(await mem.acontext())

    async def main() -> None:
        await asyncio.gather(*(worker(k) for k in range(WORKERS)))

    asyncio.run(main())
    _check(mem, ex, contexts)


def test_background_folds_with_threads_fold_each_turn_once(tmp_path: Path) -> None:
    ex = RecordingExtractor()
    mem = ConversationMemory("b", store=SQLiteStore(tmp_path / "bg.db"), extractor=ex,
                             context_window=600, background=True)
    contexts: list[list[dict]] = []

    def worker(k: int) -> None:
        for i in range(TURNS):
            mem.add("user", f"w{k} 订单号 {_order(k, i)}")
            contexts.append(mem.context())

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(WORKERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert mem.wait(60)
    _check(mem, ex, contexts)
