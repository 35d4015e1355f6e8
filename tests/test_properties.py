"""Property tests: the fold, deduplication and the window, on random conversations."""

from __future__ import annotations

import unicodedata

from conftest import sources
from hypothesis import HealthCheck, example, given, settings, strategies as st

from convstate import ConversationMemory, ConversationState, InMemoryStore, RuleExtractor, Turn
from convstate.delta import NewGoal, StateDelta
from convstate.fold import fold, fold_report
from convstate.normalize import normalize

PIECES = ["订单号 DD20240315889", "手机 13812345678", "电话 139-8765-4321", "a@x.com",
          "b@y.org", "预算不超过500元", "我不要换货", "必须今天处理", "I don't want calls",
          "I will send it", "已经提交了", "太慢了", "thanks!", "😀🎧", "مرحبا بالعالم",
          "zero\u200bwidth", "", "  ", "\u202eRTL override", "¥459.00", "3月15日", "5 pm"]
# any text a caller may store: every character but NUL and lone surrogates (those are
# refused with a clear error, tested in test_security.py)
chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
text = st.lists(st.sampled_from(PIECES) | st.text(chars, max_size=30),
                max_size=5).map("，".join)
turn_rows = st.lists(st.tuples(st.sampled_from(["user", "assistant"]), text), min_size=1,
                     max_size=12)


def turns_of(rows, start=0):
    return [Turn(index=start + i, role=r, content=c) for i, (r, c) in enumerate(rows)]


@given(st.lists(turn_rows, min_size=1, max_size=4))
@example([[("user", "订单号 DD20240315889，InF"), ("user", "INF")]])  # restated in other case
# a value live again (said after its successor) is one a later value of the fold replaces
@example([[("user", "\u202eRTL override，3月15日"), ("user", "3月15日")]] * 2)
# a replaced value its owner says again in a batch is live again, whoever else says it
@example([[("user", "a@x.com"), ("user", "b@y.org")],
          [("user", "a@x.com"), ("assistant", "a@x.com")]])
# a contact the user says back is the one it was when said, though the batch replaces it
@example([[("assistant", "AA，电话 139-8765-4321"), ("user", "电话 139-8765-4321，AA"),
           ("assistant", "手机 13812345678")]])
@settings(max_examples=150, deadline=None)
def test_fold_is_idempotent_and_never_loses_an_active_anchor(batches) -> None:
    state, start, history = ConversationState(), 0, {}
    for rows in batches:
        turns = turns_of(rows, start)
        start += len(turns)
        history |= {t.index: t.text for t in turns}
        delta = RuleExtractor().extract(turns, state.index()).delta
        new = fold(state, delta, sources(turns))
        assert fold(new, delta, sources(turns)).model_dump() == new.model_dump()
        after = {a.id: a for a in new.anchors}
        for a in state.active_anchors():
            kept = after[a.id]  # never removed
            assert kept.status == "active" or kept.superseded_by in after
        for a in new.anchors:  # always verbatim in a turn it cites, and stated (as
            # dedup folds it: case, width, spacing) in every one
            assert any(a.value in history[i] for i in a.turns)
            assert all(normalize(a.value) in normalize(history[i]) for i in a.turns)
        state = new


def variants(s: str) -> list[str]:
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)
    return [s, s.upper(), s.lower(), wide, " ".join(s), s + "。", f"  {s}!!", s.replace(" ", "")]


@given(st.text(alphabet=st.characters(whitelist_categories=("Lu", "Ll", "Nd", "Lo")),
               min_size=1, max_size=20))
@settings(max_examples=200)
def test_dedup_is_stable_under_case_width_whitespace_punctuation(s) -> None:
    s = unicodedata.normalize("NFKC", s)
    keys = {normalize(v) for v in variants(s)}
    assert len(keys) == 1
    turns = turns_of([("user", v) for v in variants(s)])
    delta = StateDelta(goals=[NewGoal(text=t.content, turns=[t.index]) for t in turns])
    state, stats = fold_report(ConversationState(), delta, sources(turns))
    assert len(state.goals) == 1 and stats.deduplicated == len(turns) - 1


CALL = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]}
message = (st.tuples(st.sampled_from(["user", "assistant", "system"]),
                     text | st.text(chars, min_size=200, max_size=3000))
           .map(lambda rc: {"role": rc[0], "content": rc[1]})
           | st.integers(1, 3).map(lambda n: [CALL] + [
               {"role": "tool", "content": "结果 " * n * 40, "tool_call_id": "c1"}] * n))


@given(st.lists(message, min_size=1, max_size=40), st.integers(0, 4),
       st.sampled_from([300, 600, 1500]))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_context_fits_and_keeps_tool_calls_whole(msgs, keep, window) -> None:
    mem = ConversationMemory("p", store=InMemoryStore(), context_window=window,
                             keep_recent_turns=keep, system_prompt="SYS")
    for m in msgs:
        for one in m if isinstance(m, list) else [m]:
            mem.add_message(one)
        ctx = mem.context()
        assert mem.counter.messages(ctx) <= mem.policy.budget
        assert ctx[0] == {"role": "system", "content": "SYS"}
        for i, c in enumerate(ctx):
            if c["role"] == "tool":
                assert ctx[i - 1]["role"] == "tool" or ctx[i - 1].get("tool_calls")
    assert len(mem.history()) == sum(len(m) if isinstance(m, list) else 1 for m in msgs)


def test_a_one_megabyte_turn_is_stored_whole_and_cut_in_the_context() -> None:
    big = "很长的一段话，订单号 DD20240315889。" * 50_000  # over 1 MB of UTF-8
    assert len(big.encode()) > 1_000_000
    mem = ConversationMemory("big", store=InMemoryStore(), context_window=2000)
    mem.add("user", "你好")
    mem.add("user", big)
    ctx = mem.context()
    assert mem.counter.messages(ctx) <= mem.policy.budget
    assert "cut here" in ctx[-1]["content"] and ctx[-1]["content"].startswith("很长的一段话")
    assert mem.history()[-1].content == big  # the store keeps it whole
    mem.add("assistant", "收到")
    mem.add("user", "好的")
    mem.compact(keep_recent_turns=0)
    assert mem.state.anchor("order_id").value == "DD20240315889"
    assert all(len(a.value) <= 500 for a in mem.state.anchors)
    assert mem.counter.messages(mem.context()) <= mem.policy.budget
