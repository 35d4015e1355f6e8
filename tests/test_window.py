"""Which turns expire, and how a context is fit: user-turn cuts, tool pairs, hard limit."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings, strategies as st

from convstate import ConfigError, ConversationMemory, InMemoryStore, RuleExtractor, TokenCounter
from convstate.window import Slot, WindowPolicy, fit_raw, plan_expiry

POLICY = WindowPolicy(context_window=1000, reply_reserve=0, trigger_ratio=0.7,
                      target_ratio=0.5, keep_recent_turns=2)


def slots(roles: str, size: int = 50) -> list[Slot]:
    names = {"u": "user", "a": "assistant", "t": "tool"}
    return [Slot(i, names[r], size) for i, r in enumerate(roles)]


def test_no_fold_under_the_trigger() -> None:
    assert plan_expiry(0, slots("ua" * 6), POLICY) is None  # 600 <= 700


def test_fold_cuts_in_front_of_a_user_turn_down_to_the_target() -> None:
    through = plan_expiry(0, slots("ua" * 8), POLICY)  # 800 > 700; target 500
    assert through == 5  # turns 0-5 expire, 500 tokens remain, turn 6 is a user turn


def test_keep_recent_user_turns_stay_unfolded_while_they_fit_the_target() -> None:
    s = slots("uauauaua", 100)  # 800 > 700: the cut before turn 4 leaves 400 <= 500
    assert plan_expiry(0, s, POLICY) == 3  # turns 4-7 (2 user turns) stay unfolded


def test_the_keep_floor_gives_way_when_it_alone_passes_the_target() -> None:
    s = slots("uaaaaaaaaaaaaaaaua", 60)  # the last 2 user turns hold 1,080 tokens
    # rather than leave unfolded turns out of the context, fold past the floor, but
    # never the newest user turn and what follows it
    assert plan_expiry(0, s, POLICY) == 15
    assert plan_expiry(0, slots("ua" + "a" * 20, 60), POLICY) is None


def test_a_min_batch_folds_more_but_never_past_the_keep_rule() -> None:
    s = slots("ua" * 8)  # 800 > 700: the target alone expires turns 0-5 (300 tokens)
    assert plan_expiry(0, s, replace(POLICY, min_batch=400)) == 7  # 400 tokens
    assert plan_expiry(0, s, replace(POLICY, min_batch=5000)) == 9  # half the budget
    assert plan_expiry(0, s, replace(POLICY, min_batch=0)) == 5
    # the last 2 user turns stay raw: 400 tokens is all the keep rule lets go
    assert plan_expiry(0, slots("ua" * 4, 100), replace(POLICY, min_batch=500)) == 3


def test_a_memory_takes_the_min_batch_of_its_extractor(tmp_path) -> None:
    class Costly(RuleExtractor):
        min_batch_tokens = 300

    mem = ConversationMemory("m", store=InMemoryStore(), extractor=Costly())
    assert mem.policy.min_batch == 300
    assert ConversationMemory("r", store=InMemoryStore()).policy.min_batch == 0
    mine = ConversationMemory("o", store=InMemoryStore(), extractor=Costly(),
                              min_fold_tokens=50)
    assert mine.policy.min_batch == 50
    with pytest.raises(ConfigError, match="min_batch"):
        ConversationMemory("x", store=InMemoryStore(), min_fold_tokens=-1)


def test_force_expires_as_much_as_the_keep_rule_allows() -> None:
    assert plan_expiry(0, slots("uauaua"), POLICY, force=True) == 1
    assert plan_expiry(0, slots("ua"), POLICY, force=True) is None


@given(st.lists(st.sampled_from(["u", "a", "c", "t"]), min_size=1, max_size=60),
       st.integers(0, 5), st.integers(10, 200))
@settings(max_examples=300, deadline=None)
def test_a_cut_never_separates_a_tool_call_from_its_results(roles, keep, size) -> None:
    # "c" is an assistant tool call; the tool results that follow belong to it
    names = {"u": "user", "a": "assistant", "c": "assistant", "t": "tool"}
    s = [Slot(i, names[r], size) for i, r in enumerate(roles)]
    through = plan_expiry(0, s, WindowPolicy(1000, 0, keep_recent_turns=keep), force=True)
    if through is not None:
        assert through + 1 == len(s) or s[through + 1].role == "user"
        assert sum(x.role == "user" for x in s[through + 1:]) >= keep


def test_bad_policies_raise_config_errors_naming_the_field() -> None:
    for kwargs, field in [({"context_window": -5}, "context_window"),
                          ({"context_window": 100}, "context_window"),
                          ({"reply_reserve": 8150}, "reply_reserve"),
                          ({"keep_recent_turns": -1}, "keep_recent_turns"),
                          ({"trigger_ratio": 0.05}, "trigger_ratio")]:
        with pytest.raises(ConfigError) as err:
            WindowPolicy(**kwargs)
        assert err.value.field == field


COUNTER = TokenCounter()


def msg(role: str, text: str, **kw) -> dict:
    return {"role": role, "content": text, **kw}


def entries(*msgs: dict) -> list[tuple[int, dict, int]]:
    return [(i, m, COUNTER.message(m)) for i, m in enumerate(msgs)]


def test_fit_keeps_the_newest_turns_and_says_what_was_left_out() -> None:
    turns = entries(*[msg("user" if i % 2 == 0 else "assistant", f"message number {i} " * 20)
                      for i in range(10)])
    fitted = fit_raw(turns, 300, COUNTER)
    assert COUNTER.messages(fitted.messages) - 3 <= 300
    assert fitted.omitted == list(range(fitted.omitted[-1] + 1))
    assert fitted.messages[0]["role"] == "system" and "left out" in fitted.messages[0]["content"]
    assert fitted.messages[-1] == turns[-1][1]


def test_fit_never_keeps_a_tool_result_without_its_call() -> None:
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    turns = entries(msg("user", "hi " * 100), call, msg("tool", "result " * 150, tool_call_id="c1"),
                    msg("tool", "more " * 150, tool_call_id="c1"), msg("user", "ok"))
    for room in range(60, 600, 7):
        fitted = fit_raw(turns, room, COUNTER)
        out = fitted.messages
        for i, m in enumerate(out):
            if m["role"] == "tool":
                assert out[i - 1]["role"] == "tool" or out[i - 1].get("tool_calls")
        assert COUNTER.messages(out) - 3 <= room


def test_a_turn_larger_than_the_budget_is_cut_with_a_marker() -> None:
    big = msg("user", "长文本" * 5000)
    fitted = fit_raw(entries(msg("user", "earlier"), big), 200, COUNTER)
    assert fitted.truncated == [1]
    text = fitted.messages[-1]["content"]
    assert "cut here" in text and text.startswith("长文本")
    assert COUNTER.messages(fitted.messages) - 3 <= 200
