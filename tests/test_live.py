"""The live state: what code reads is the truth at every window, each turn read once; an
extractor that reads in batches is read ahead of by the rules, provisionally; a context
never shows a value as active beside the raw turn that replaced it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from conftest import RecordingExtractor, small_talk

from convstate import ConversationMemory, InMemoryStore, RuleExtractor, SQLiteStore, compress
from convstate.delta import StateDelta
from convstate.extract.base import Extraction
from convstate.state import IndexEntry
from convstate.turns import Turn

EXCHANGE = [
    {"role": "user", "content": "订单号 DD20240315889，我的手机是 13812345678，耳机没声音。"},
    {"role": "assistant", "content": "好的，我会在24小时内把退货标签发给您。"},
    {"role": "user", "content": "不要换货，只要退款。"},
    {"role": "assistant", "content": "明白，为您办理退款。"},
]


class LiveRecording(RecordingExtractor):
    """The rules, reading every turn as it comes, keeping what each call received."""

    live = True


def played(extractor: object, window: int, rounds: int) -> ConversationMemory:
    """EXCHANGE ``rounds`` times, each turn added and then a context asked for."""
    mem = ConversationMemory("s", store=InMemoryStore(), extractor=extractor,
                             context_window=window)
    for i in range(rounds):
        for m in EXCHANGE:
            mem.add_message({**m, "content": f"{m['content']} 第{i}轮"})
            mem.context()
    return mem


def test_the_state_holds_every_turn_at_a_window_that_never_folds() -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=8192)
    for m in EXCHANGE:
        mem.add_message(m)
        mem.context()
        assert mem.state.folded_through == mem.history()[-1].index  # read, every turn
    state = mem.state
    assert state.version == 0 and state.evicted_through == -1  # nothing saved, nothing let go
    assert state.anchor("order_id").value == "DD20240315889"
    assert state.anchor("phone").value == "13812345678"
    assert [t.owner for t in state.tasks(status="open")] == ["assistant"]
    assert mem.where("DD20240315889") == "raw"  # and the context still shows it raw


def test_each_turn_is_read_once_whatever_the_folds() -> None:
    rec = LiveRecording()
    mem = played(rec, 400, 30)
    assert mem.state.version >= 3  # it folded, several times
    assert rec.seen == list(range(len(mem.history())))  # each turn once, in order
    assert all(len(turns) == 1 for turns, _ in rec.calls)  # as it came


def test_a_batch_extractor_is_read_ahead_of_provisionally_and_refresh_reads_it_all() -> None:
    rec = RecordingExtractor()  # no ``live``: it reads the turns a fold takes
    mem = ConversationMemory("s", store=InMemoryStore(), extractor=rec, context_window=8192)
    for m in EXCHANGE:
        mem.add_message(m)
    state = mem.state
    assert rec.calls == []  # the configured extractor has read nothing yet
    assert state.folded_through == -1 and state.anchor("order_id").value == "DD20240315889"
    assert state.provisional and all(state.is_provisional(a) for a in state.anchors)
    before = mem.context()
    record = mem.refresh()
    assert record is not None and record.version == 1 and record.first_turn == 0
    assert rec.seen == [0, 1, 2, 3]  # one batch, worth its fixed cost
    state = mem.state
    assert state.folded_through == 3 and state.provisional == [] and state.version == 1
    assert state.evicted_through == -1 and mem.context() == before  # nothing let go
    assert mem.refresh() is None  # nothing new to read


def test_arefresh_reads_with_the_async_client() -> None:
    rec = RecordingExtractor()
    mem = ConversationMemory("s", store=InMemoryStore(), extractor=rec, context_window=8192)
    mem.add_messages(EXCHANGE)
    record = asyncio.run(mem.arefresh())
    assert record is not None and rec.seen == [0, 1, 2, 3] and not mem.state.provisional


def test_the_rules_reading_ahead_never_call_a_batch_extractor() -> None:
    rec = RecordingExtractor()
    mem = played(rec, 600, 20)
    assert len(rec.calls) == len([r for r in mem.compactions() if r.version is not None])
    assert rec.seen == list(range(mem.state.folded_through + 1))  # its batches, once each


@pytest.mark.parametrize("restart", [False, True], ids=["another copy", "a restart"])
def test_copies_of_a_session_read_the_same_state_and_context(tmp_path, restart) -> None:
    path = tmp_path / "s.db"
    a = ConversationMemory("s", store=SQLiteStore(path), context_window=500)
    b = ConversationMemory("s", store=SQLiteStore(path), context_window=500)
    for i in range(12):
        for m in EXCHANGE:
            a.add_message({**m, "content": f"{m['content']} 第{i}轮"})
            a.context()
            if not restart:
                assert b.state == a.state and b.context() == a.context()
    if restart:
        a.close()
        b.close()
        a = ConversationMemory("s", store=SQLiteStore(path), context_window=500)
        b = ConversationMemory("s", store=SQLiteStore(path), context_window=500)
    assert b.state == a.state and b.context() == a.context()


def test_a_copy_opened_at_any_turn_lays_out_the_context_the_living_one_does(tmp_path) -> None:
    """A copy opened at any turn lays out the context of one that lived through every
    turn, by the same estimates: a copy keeps the turns it would load, not those left
    from when it last folded (the start of one more turn, cut, fills a context)."""
    path = tmp_path / "s.db"
    living = ConversationMemory("s", store=SQLiteStore(path), context_window=500)
    for i in range(12):
        for m in EXCHANGE:
            living.add_message({**m, "content": f"{m['content']} 第{i}轮，订单号 DD{4000 + i}，"
                                                f"电话1381234{i:04d}，我不要换货。"})
            opened = ConversationMemory("s", store=SQLiteStore(path), context_window=500)
            assert opened.context() == living.context()
            plans = [(rows[True].total, rows[True].by_turn, line, head) for rows, line, head
                     in (copy._assembler.row_costs() for copy in (opened, living))]
            assert plans[0] == plans[1]  # the estimates it was laid out by
            opened.close()
    assert living.state.version > 2


def phone_let_go() -> ConversationMemory:
    """A session whose first turn, a phone and an order number, has left the window."""
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=300,
                             keep_recent_turns=1)
    mem.add("user", "我的手机号是 13812345678，订单号 DD20240315889。")
    mem.add("assistant", "好的，已记录。")
    small_talk(mem, 6)
    return mem


def test_the_context_never_shows_a_replaced_value_as_active() -> None:
    mem = phone_let_go()
    assert "13812345678" in mem.context()[0]["content"]  # let go: the block has it
    mem.add("user", "我的手机号改成 13900001111 了。")
    ctx = mem.context()
    block = ctx[0]["content"]
    assert "13900001111" in ctx[-1]["content"]
    assert '- phone (已更换): "13812345678"' in block.splitlines()  # history, not the value
    assert mem.state.anchor("phone").value == "13900001111"
    assert [(h.value, h.status) for h in mem.state.history("phone")] == [
        ("13812345678", "superseded"), ("13900001111", "active")]


def test_a_value_live_again_in_a_raw_turn_is_shown_as_live_by_every_copy() -> None:
    mem = phone_let_go()
    mem.add("user", "我的手机号改成 13900001111 了。")
    mem.context()
    small_talk(mem, 6)  # the change let go too: the block has it
    before = mem.context()[0]["content"]
    assert '- phone: "13900001111"; 已更换: "13812345678"' in before.splitlines()
    mem.add("user", "算了，还是用 13812345678 吧。")
    ctx = mem.context()
    # code reads the truth at once; the context shows it in the raw turn that says it,
    # and the block does not show the number that turn replaced as active
    assert mem.state.anchor("phone").value == "13812345678"
    assert "还是用 13812345678" in ctx[-1]["content"]
    assert not any(line.startswith('- phone: "13900001111"')
                   for line in ctx[0]["content"].splitlines())
    # compress(), handed back the live state at every turn, shows the same
    history, state = [], None
    for turn in mem.history():
        history.append({"role": turn.role, "content": turn.content})
        got, state = compress(history, window=300, keep_recent_turns=1, state=state)
    assert got == ctx


class _Failing:
    name = "failing"
    live = True

    def extract(self, turns: Sequence[Turn], index: Sequence[IndexEntry],
                delta_model: type[StateDelta] = StateDelta) -> Extraction:
        raise RuntimeError("a bug")


def test_a_failing_live_extractor_is_a_bug_told_not_a_stopped_memory(caplog) -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), extractor=_Failing(),
                             context_window=8192, strict=False)
    mem.add_messages(EXCHANGE)
    assert mem.state.folded_through == -1 and mem.where("DD20240315889") == "raw"
    assert "reading turn 0 into the live state failed" in caplog.text
    strict = ConversationMemory("t", store=InMemoryStore(), extractor=_Failing(),
                                context_window=8192, strict=True)
    strict.add_messages(EXCHANGE)
    with pytest.raises(RuntimeError):
        strict.state  # noqa: B018


def test_compress_returns_the_live_state_and_takes_it_back() -> None:
    context, state = compress(EXCHANGE[:1], window=8192)
    assert state["anchors"] and state["folded_through"] == 0 and state["evicted_through"] == -1
    history = EXCHANGE[:2]
    again, state2 = compress(history, window=8192, state=state)
    assert {"DD20240315889", "13812345678"} <= {a["value"] for a in state2["anchors"]}
    assert state2["folded_through"] == 1 and len(again) == 2


def test_the_rules_are_the_live_reader_of_a_default_memory() -> None:
    assert RuleExtractor.live is True


def test_a_fold_landing_after_more_was_read_keeps_the_reading_whole() -> None:
    """A fold saves the live state as its plan saw it; when another call read more turns
    while the save was on its way (a service's concurrent requests: 1 run in 4 of
    test_service's four clients), the memory takes the saved state without the newer
    reading's dedup keys (they name items the saved state lacks) and reads those turns
    again: no reading fails, nothing is lost. Played here in one thread, in that order."""
    store = InMemoryStore()
    mem = ConversationMemory("race", store=store, context_window=4096, strict=True)
    for k in range(6):
        mem.add("user", f"订单 DD{k:06d} 要退款")
        mem.add("assistant", f"好的，订单 DD{k:06d} 已为您登记。")
    save = store.save_state

    def save_after_another_reading(*args: object, **kwargs: object) -> object:
        store.save_state = save  # type: ignore[method-assign]
        mem.add("user", "订单 DD000001 还有订单 DD999999 要退款")
        assert mem.state.anchor("order_id") is not None  # read before the save lands
        return save(*args, **kwargs)

    store.save_state = save_after_another_reading  # type: ignore[method-assign]
    mem.compact()
    mem.add("user", "订单 DD999999 和订单 DD000002 都要退款")  # dedups against both
    values = {a.value for a in mem.state.anchors}
    assert {"DD999999", "DD000001", "DD000002"} <= values
