"""ConversationMemory end to end: budget, exactly-once folding, anchors kept, restart."""

from __future__ import annotations

import pytest
from conftest import RecordingExtractor

from convstate import ConversationMemory, ExtractionError, InMemoryStore, SQLiteStore
from convstate.normalize import normalize
from convstate.render import block_words
from convstate.sections import MAX_LIVE_PER_KEY


def long_conversation(n_pairs: int = 100) -> tuple[list[dict], set[str]]:
    """200 turns with order ids, changing phones/emails/budgets; and the values that must
    survive to the end (every order id, the last phone, email and budget)."""
    msgs, orders = [], set()
    phone = email = budget = ""
    for i in range(n_pairs):
        if i % 10 == 0:
            orders.add(f"DD{2024000 + i}")
            text = f"我的新订单号是 DD{2024000 + i}，麻烦看一下物流。"
        elif i % 10 == 3:
            phone = f"13{i:09d}"
            text = f"我的手机号改成 {phone} 了。"
        elif i % 10 == 5:
            email = f"user{i}@example.com"
            text = f"不要打电话，发邮件到 {email} 就行。"
        elif i % 10 == 7:
            budget = f"{500 + i}元"
            text = f"换货的话预算不超过{budget}。"
        else:
            text = f"还有一个问题，第{i}个问题是关于配送时间和包装的，能详细说明一下吗？"
        msgs.append({"role": "user", "content": text})
        msgs.append({"role": "assistant", "content": f"好的，我来帮您处理第{i}个请求，请稍等。"})
    return msgs, orders | {phone, email, budget, "不要打电话"}


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"])
def test_200_turns_through_a_2000_token_window(store_kind, tmp_path) -> None:
    store = InMemoryStore() if store_kind == "memory" else SQLiteStore(tmp_path / "c.db")
    rec = RecordingExtractor()
    mem = ConversationMemory("s1", store=store, extractor=rec, context_window=2000,
                             system_prompt="你是售后客服。")
    msgs, must_keep = long_conversation()
    for m in msgs:
        mem.add_message(m)
        ctx = mem.context()
        assert mem.counter.messages(ctx) <= mem.policy.budget  # tiktoken, with overheads
        assert ctx[0] == {"role": "system", "content": "你是售后客服。"}

    # every anchor stated anywhere is in the final context, verbatim: in the raw turns,
    # or for folded turns the context no longer shows, in the block (and only there)
    text = "\n".join(str(m["content"]) for m in ctx)
    block = ctx[1]["content"]
    raw = "\n".join(str(m["content"]) for m in ctx[2:])
    assert all(v in text for v in must_keep), [v for v in must_keep if v not in text]
    folded = mem.state.folded_through
    assert all(mem.where(v) == ("raw" if v in raw else "block") for v in must_keep)
    for turn in mem.history()[: folded + 1]:
        for value in must_keep:
            if value in (turn.content or ""):
                assert (value in block) != (value in raw)  # never both: no repeats

    # each turn reached the extractor exactly once, in order, and only turns
    assert rec.seen == list(range(folded + 1))
    assert len(rec.calls) >= 5
    titles = [block_words(lang)["title"] for lang in ("zh", "en")]
    for turns, _ in rec.calls:
        for t in turns:
            assert not any(title in (t.content or "") for title in titles)
            assert "[convstate]" not in (t.content or "")

    # no item twice
    s = mem.state
    keys = [(a.key, normalize(a.value)) for a in s.anchors]
    assert len(keys) == len(set(keys))
    for section in ("goals", "decisions", "preferences"):
        texts = [normalize(i.text) for i in getattr(s, section)]
        assert len(texts) == len(set(texts))
    assert len([a for a in s.anchors if a.value == "不要打电话"]) == 1
    # the live state holds the newest phone, folded or not (the rules read ahead)
    phones = [t.content.split()[1] for t in mem.history() if "手机号改成" in (t.content or "")]
    assert s.anchor("phone").value == phones[-1]
    assert [a.value for a in s.anchors if a.key == "phone" and a.status == "active"] == [
        phones[-1]]
    # history is complete
    assert [t.content for t in mem.history()] == [m["content"] for m in msgs]
    log = mem.compactions()
    assert len(log) == len(rec.calls) and all(r.error is None for r in log)
    assert [r.version for r in log] == list(range(1, len(log) + 1))


def test_reopening_the_sqlite_file_restores_everything(tmp_path) -> None:
    path = tmp_path / "chat.db"
    msgs, _ = long_conversation(30)
    with ConversationMemory("s", store=path, context_window=1000) as mem:
        for m in msgs:
            mem.add_message(m)
            mem.context()
        state, history, ctx = mem.state, mem.history(), mem.context()
        log = mem.compactions()
    assert state.folded_through > 0
    with ConversationMemory("s", store=str(path), context_window=1000) as again:
        assert again.state == state
        assert again.history() == history
        assert again.context() == ctx
        assert again.compactions() == log
        again.add("user", "订单号 DD7777777")
        assert again.history()[-1].index == len(history)


def test_sessions_do_not_see_each_other(tmp_path) -> None:
    store = SQLiteStore(tmp_path / "x.db")
    a = ConversationMemory("a", store=store, context_window=1000)
    b = ConversationMemory("b", store=store, context_window=1000)
    a.add("user", "订单号 DD1111111")
    b.add("user", "订单号 DD2222222")
    assert [t.content for t in a.history()] == ["订单号 DD1111111"]
    a.compact()
    assert [x.value for x in b.state.anchors] == ["DD2222222"]  # its own, live; not a's


@pytest.mark.parametrize("shared", [False, True], ids=["two connections", "one store"])
def test_two_writers_on_one_session_fold_once(tmp_path, shared) -> None:
    path = tmp_path / "w.db"
    rec1, rec2 = RecordingExtractor(), RecordingExtractor()
    s1 = SQLiteStore(path)
    s2 = s1 if shared else SQLiteStore(path)  # one store: the other's writes are this one's
    w1 = ConversationMemory("s", store=s1, extractor=rec1, context_window=600)
    w2 = ConversationMemory("s", store=s2, extractor=rec2, context_window=600)
    msgs, _ = long_conversation(40)
    for i, m in enumerate(msgs):
        (w1 if i % 3 else w2).add_message(m)
        (w2 if i % 2 else w1).context()
    seen = sorted(rec1.seen + rec2.seen)
    assert seen == list(range(len(seen)))  # every folded turn once, by one writer or the other
    assert w1.state == w2.state
    assert [t.index for t in w1.history()] == list(range(len(msgs)))


def test_stale_writer_gets_a_conflict_and_writes_nothing(tmp_path) -> None:
    from convstate import CompactionRecord, VersionConflictError
    store = SQLiteStore(tmp_path / "v.db")
    mem = ConversationMemory("s", store=store, context_window=1000)
    for m in long_conversation(10)[0]:
        mem.add_message(m)
    mem.compact()
    before = store.load_state("s")
    with pytest.raises(VersionConflictError):
        store.save_state("s", dict(before, version=1), 0, CompactionRecord(session_id="s"))
    assert store.load_state("s") == before
    assert len(store.compactions("s")) == 1


class Flaky(RecordingExtractor):
    """Down (a known failure) until ``fail`` is cleared."""

    fail = True

    def extract(self, turns, index, delta_model=None):
        if self.fail:
            raise ExtractionError("model down")
        return super().extract(turns, index)


def test_an_extractor_failure_loses_nothing_and_is_retried() -> None:
    ex = Flaky()
    mem = ConversationMemory("s", store=InMemoryStore(), extractor=ex, context_window=600)
    msgs, _ = long_conversation(20)
    for m in msgs:
        mem.add_message(m)
        ctx = mem.context()  # never raises into the chat loop
        assert mem.counter.messages(ctx) <= mem.policy.budget
    assert mem.state.folded_through == -1
    assert "left out" in ctx[0]["content"]  # the oldest turns are left out, with a notice
    assert all(r.error and "model down" in r.error for r in mem.compactions())
    assert len(mem.history()) == len(msgs)
    ex.fail = False
    mem.context()
    assert mem.state.folded_through == -1  # not retried on every call...
    mem.add("user", "还在吗？")
    mem.add("assistant", "在的。")
    mem.context()  # ...but after the next exchange
    assert mem.state.folded_through >= 0 and ex.seen == list(range(mem.state.folded_through + 1))


def test_a_backlog_is_folded_in_batches_no_larger_than_the_window() -> None:
    ex = Flaky()
    mem = ConversationMemory("s", store=InMemoryStore(), extractor=ex, context_window=600)
    msgs, _ = long_conversation(60)  # an outage: far more than one window piles up
    for m in msgs:
        mem.add_message(m)
        mem.context()
    assert mem.state.folded_through == -1
    ex.fail = False
    mem.compact()
    batches = [turns for turns, _ in ex.calls]
    assert len(batches) >= 3  # one per window, not one request with everything
    for turns in batches:
        tokens = mem.counter.messages([t.message() for t in turns])
        assert tokens <= mem.policy.budget or len(turns) <= 2, tokens
    assert ex.seen == list(range(mem.state.folded_through + 1))  # each once, in order
    assert mem.state.folded_through >= len(msgs) - 6


def test_keep_recent_larger_than_the_history_folds_nothing() -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=1000,
                             keep_recent_turns=50)
    mem.add("user", "订单号 DD1234567")
    assert mem.compact() is None
    assert mem.state.evicted_through == -1  # nothing let go; the state reads it all the same
    assert mem.state.anchor("order_id").value == "DD1234567"
    assert mem.context()[-1]["content"] == "订单号 DD1234567"


def test_adding_a_turn_does_not_retokenize_the_history() -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=4000)
    calls = 0
    count = mem.counter.count

    def counting(text: str) -> int:
        nonlocal calls
        calls += 1
        return count(text)

    mem.counter.count = counting  # type: ignore[method-assign]
    per_turn = []
    for i, m in enumerate(long_conversation(60)[0]):
        before = calls
        mem.add_message(m)
        mem.context()
        if i >= 20:
            per_turn.append(calls - before)
    # a fold re-renders the block; otherwise a turn costs its own count and a fixed few
    median = sorted(per_turn)[len(per_turn) // 2]
    assert median <= 6
    assert sorted(per_turn[-20:])[10] <= median  # flat as the history grows


def test_more_anchors_than_the_window_holds_still_fit() -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=1000)
    for i in range(300):
        mem.add("user", f"还有一个订单号 DD{1000000 + i} 也有问题")
        mem.add("assistant", "收到")
        ctx = mem.context()
        assert mem.counter.messages(ctx) <= mem.policy.budget
    s = mem.state
    assert len(s.anchors) == s.folded_through // 2 + 1  # every one kept in the state
    live = s.active_anchors()  # a key's newest values live, the older retired
    assert len(live) == MAX_LIVE_PER_KEY < len(s.anchors)
    assert min(a.last_turn for a in live) > max(
        a.last_turn for a in s.anchors if a.status == "retired")
    block = ctx[0]["content"]  # no system prompt: the block comes first
    newest = f"DD{1000000 + s.folded_through // 2}"  # the newest folded one is shown
    assert mem.where(newest) in ("raw", "block")
    assert "DD1000000" not in block and mem.where("DD1000000") == "state"  # left the
    # block (the oldest first), not the state


@pytest.mark.parametrize("orders", [6, 300])  # a block within its cap, and one cut to it
def test_the_log_counts_the_whole_block_within_a_percent(orders) -> None:
    # the compaction log's context sizes count a small block, and estimate a large one
    # by its rows' costs (drawing and searching it would cost a fold the most)
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=1000)
    for i in range(orders):
        mem.add("user", f"还有一个订单号 DD{1000000 + i} 也有问题，3月{i % 28 + 1}日下的单")
        mem.add("assistant", "收到")
        mem.context()
    mem.compact(keep_recent_turns=0)
    a = mem._assembler
    exact = a.render_block(mem.state)[1]  # the whole block, drawn and counted
    estimated = a.fixed_tokens() - mem.priming - mem._view.system_tokens
    assert mem.compactions()[-1].tokens_after == a.fixed_tokens()  # nothing unfolded
    if orders == 6:  # the block is within its cap: counted
        assert 0 < estimated == exact < mem.state_budget - 100
    else:  # cut to its cap, short of it by the part of a row that would not fit
        assert exact <= estimated == mem.state_budget and estimated - exact <= exact // 50


def test_a_block_leaves_out_only_what_the_turns_it_is_given_hold() -> None:
    # contexts hand the block a run of the newest turns, noted once each as they came; a
    # run that stops short of the newest turn is read for itself
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=2000)
    for i in range(3):
        mem.add("user", f"订单号 DD{1000000 + i}，3月{i + 1}日下的单")
        mem.add("assistant", "收到")
    mem.compact(keep_recent_turns=0)
    mem.add("user", "还是那个：订单号 DD1000001，3月2日下的单")
    a = mem._assembler
    entries = [(t.index, msg, n) for t, msg, n in mem._view.recent]
    assert "DD1000001" not in a.render_block(mem.state, shown=entries[-1:])[0]
    before_it = a.render_block(mem.state, shown=entries[-2:-1])[0]
    assert "DD1000001" in before_it and "DD1000000" in before_it


def test_a_full_or_read_only_store_is_a_store_error_and_nothing_is_half_written(tmp_path):
    from convstate import StoreError

    store = SQLiteStore(tmp_path / "full.db")
    mem = ConversationMemory("s", store=store, context_window=600)
    for i in range(6):
        mem.add("user", f"订单号 DD2024031588{i}，请尽快处理第{i}个问题，谢谢")
        mem.add("assistant", "好的，马上为您处理")
    before = [t.content for t in mem.history()]
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count={pages}")  # the disk is now full
    with pytest.raises(StoreError, match="full"):
        mem.add("user", "很长的一段话，" * 3000)
    assert [t.content for t in mem.history()] == before  # nothing half-written
    store._db.execute("PRAGMA max_page_count=1073741823")  # room again
    version = mem.state.version
    store._db.execute("PRAGMA query_only=ON")  # a read-only database
    with pytest.raises(StoreError, match="readonly"):
        mem.add("user", "还有一个问题")
    with pytest.raises(StoreError, match="readonly"):
        mem.compact(keep_recent_turns=0)
    assert [t.content for t in mem.history()] == before and mem.state.version == version
    store._db.execute("PRAGMA query_only=OFF")
    assert mem.compact(keep_recent_turns=0) is not None  # no lease was left held
