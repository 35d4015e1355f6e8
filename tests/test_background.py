"""Folding in the background, and one fold per session across workers (the lease)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
import time

from conftest import RecordingExtractor, replay_async

from convstate import ConversationMemory, InMemoryStore, SQLiteStore
from convstate.cli import load_demo

MESSAGES = load_demo("zh")["messages"]


class GatedExtractor(RecordingExtractor):
    """Blocks inside extract() until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.started, self.gate = threading.Event(), threading.Event()

    def extract(self, turns, index, delta_model=None):
        self.started.set()
        assert self.gate.wait(30), "the test never opened the gate"
        return super().extract(turns, index)


def test_context_does_not_wait_for_a_background_fold() -> None:
    ex = GatedExtractor()
    mem = ConversationMemory("bg", store=InMemoryStore(), extractor=ex, context_window=800,
                             background=True)
    for m in MESSAGES[:30]:
        mem.add_message(m)
        ctx = mem.context()  # returns while the extractor is blocked
        assert mem.counter.messages(ctx) <= mem.policy.budget
    # the fold's thread has reached the extractor (it may be a moment behind the
    # caller's thread) and has not landed
    assert ex.started.wait(10) and mem.state.version == 0
    assert "left out" in ctx[0]["content"]  # over the budget: oldest turns cut, with notice
    ex.gate.set()
    assert mem.wait(30)
    assert mem.state.version >= 1  # the landed fold is used
    for _ in range(10):  # each context() starts the next fold, which catches up
        ctx = mem.context()
        assert mem.wait(30)
    assert mem.where("DD20240315889") in ("raw", "block")
    assert "DD20240315889" in "\n".join(m["content"] or "" for m in ctx)
    assert ex.seen == list(range(mem.state.folded_through + 1))


def test_two_workers_racing_fold_once(tmp_path) -> None:
    db = tmp_path / "race.db"
    slow, fast = GatedExtractor(), RecordingExtractor()
    w1 = ConversationMemory("s", store=SQLiteStore(db), extractor=slow, context_window=100_000)
    w1.add_messages(MESSAGES)
    w2 = ConversationMemory("s", store=SQLiteStore(db), extractor=fast, context_window=100_000)
    t = threading.Thread(target=w1.compact)
    t.start()
    assert slow.started.wait(30)  # w1 holds the lease and is extracting
    assert w2.compact() is None and fast.calls == []  # w2 backs off: no extraction at all
    slow.gate.set()
    t.join(30)
    assert w2.state.version == 1 and w2.state.folded_through == w1.state.folded_through
    assert len(w2.compactions()) == 1


def test_a_killed_workers_lease_is_taken_over_after_it_expires(tmp_path) -> None:
    db = tmp_path / "dead.db"
    mem = ConversationMemory("s", store=SQLiteStore(db), context_window=100_000)
    mem.add_messages(MESSAGES)
    code = ("import os, signal; from convstate import SQLiteStore; "
            f"s = SQLiteStore({str(db)!r}); assert s.acquire_lease('s', 'dead', 1.0); "
            "os.kill(os.getpid(), signal.SIGKILL)")
    child = subprocess.run([sys.executable, "-c", code], timeout=60)
    assert child.returncode == -signal.SIGKILL
    assert mem.store.lease_holder("s") == "dead"
    assert mem.compact() is None  # held by the dead worker
    deadline = time.monotonic() + 30
    while mem.store.lease_holder("s") and time.monotonic() < deadline:
        time.sleep(0.1)
    record = mem.compact()
    assert record is not None and record.version == 1
    assert mem.store.lease_holder("s") is None  # taken over, then given back


class ThreadedStore(InMemoryStore):
    """Records the thread of every store call."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: set[int] = set()

    def __getattribute__(self, name: str):
        attr = super().__getattribute__(name)
        threads = super().__getattribute__("__dict__").get("threads")
        if not callable(attr) or name.startswith("_") or threads is None:
            return attr

        def called(*args, **kwargs):  # where the call runs, not where it was looked up
            threads.add(threading.get_ident())
            return attr(*args, **kwargs)
        return called


class ThreadedExtractor(RecordingExtractor):
    def __init__(self) -> None:
        super().__init__()
        self.threads: set[int] = set()

    def extract(self, turns, index, delta_model=None):
        self.threads.add(threading.get_ident())
        return super().extract(turns, index)


def test_async_methods_run_off_the_event_loop() -> None:
    store, ex = ThreadedStore(), ThreadedExtractor()
    loop_thread: set[int] = set()

    async def chat() -> list[dict]:
        loop_thread.add(threading.get_ident())
        mem = ConversationMemory("a", store=store, extractor=ex, context_window=800,
                                 background=True)
        store.threads.clear()  # the constructor runs where it is called
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        for m in MESSAGES:
            await mem.aadd_message(m)
            ctx = await mem.acontext()
        await asyncio.to_thread(mem.wait)
        await mem.acompact()
        ctx = await mem.acontext()
        task.cancel()
        assert ticks > len(MESSAGES)  # the loop kept running while we worked
        return ctx

    ctx = asyncio.run(chat())
    assert "DD20240315889" in "\n".join(m["content"] or "" for m in ctx)
    # no store call and no extraction ran on the event loop's thread
    assert store.threads and not (store.threads & loop_thread)
    assert ex.threads and not (ex.threads & loop_thread)


def test_async_folds_use_the_async_openai_client() -> None:
    from fake_openai import FakeOpenAI

    from convstate import HybridExtractor, LLMExtractor

    server = FakeOpenAI("ok")
    try:
        mem = replay_async(MESSAGES[:24], session_id="x", store=InMemoryStore(),
                           context_window=700, extractor=HybridExtractor(LLMExtractor(
                               base_url=server.base_url, model="m")))
        log = mem.compactions()
        assert log and all(r.extractor == "hybrid" and r.prompt_tokens == 100 for r in log)
        assert len(server.headers) == len(log)
        # the openai SDK marks requests from its async client
        assert all(h.get("x-stainless-async", "").startswith("async") for h in server.headers)
        assert mem.state.anchor("order_id").value == "DD20240315889"
    finally:
        server.close()


def test_async_background_fold_runs_as_a_task() -> None:
    from fake_openai import FakeOpenAI

    from convstate import LLMExtractor

    server = FakeOpenAI("gated")  # no reply until the test says so
    try:
        async def chat() -> tuple[int, int, ConversationMemory]:
            mem = ConversationMemory("y", store=InMemoryStore(), context_window=700,
                                     background=True, extractor=LLMExtractor(
                                         base_url=server.base_url, model="m", timeout=30))
            for m in MESSAGES[:24]:
                await mem.aadd_message(m)
                await mem.acontext()  # never waits for the slow model
            during = mem.state.version
            server.gate.set()
            await mem.await_fold()
            await mem.acontext()
            await mem.aclose()
            return during, len(server.bodies), mem

        during, requests, mem = asyncio.run(chat())
        assert requests >= 1 and during == 0  # in flight while the chat went on
        assert mem.state.version >= 1  # landed, and the next context used it
    finally:
        server.close()
