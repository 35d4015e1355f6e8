"""A goal is achieved by a later report of the act it wants (zh + en), read turn by turn
(the goal in the state's index) as in one batch; a search, another act, another thing or
a negated report achieves nothing."""

from __future__ import annotations

import pytest
from conftest import make_turns, sources

from convstate import ConversationState, RuleExtractor, fold


def goals_after(rows: list[tuple[str, str]], one_batch: bool) -> list[tuple[str, str]]:
    turns = make_turns(*rows)
    state = ConversationState()
    for batch in [turns] if one_batch else [[t] for t in turns]:
        state = fold(state, RuleExtractor().extract(batch, state.index()).delta,
                     sources(batch))
    return [(g.text, g.status) for g in state.goals]


@pytest.mark.parametrize("one_batch", [False, True])
@pytest.mark.parametrize("goal, report, status", [
    ("I need to change the delivery address for order 7781.",
     "Done, I've changed the delivery address for order 7781 to 12 Elm Street.", "achieved"),
    ("I want a refund for my broken headphones.",
     "I'm sorry. Your refund has been processed.", "achieved"),  # a generic verb names it
    ("I'd like to cancel my subscription.", "I have cancelled your subscription.",
     "achieved"),
    ("我要退款。", "好的，已经为您退款了。", "achieved"),
    ("我想修改收货地址。", "收货地址已修改为北京市朝阳区建国路1号。", "achieved"),
    ("帮我取消订单DD123456。", "订单已取消。", "achieved"),
    # a search is ended by the user's choice, not by the list found
    ("I want to find a restaurant in San Jose.", "I found 10 restaurants in San Jose.",
     "active"),
    ("I want a refund.", "I haven't processed your refund yet.", "active"),  # negated
    ("I want to return the blender.", "I've sent you a return label.", "active"),  # another act
    ("I need to change the delivery address.", "I've changed your phone number.", "active"),
    ("我要退款。", "退款申请已经提交了，请耐心等待。", "active"),  # submitted, not refunded
])
def test_a_report_of_the_act_a_goal_wants_achieves_it(goal: str, report: str, status: str,
                                                      one_batch: bool) -> None:
    got = goals_after([("user", goal), ("assistant", report)], one_batch)
    assert [s for _, s in got] == [status], got


def test_a_want_goes_on_past_a_report_in_its_clause() -> None:
    """"The blender I bought" reports nothing the goal gives up: the want is a goal."""
    for text in ["I want to return the blender I bought last week, order 55-1234.",
                 "I need to exchange the shoes you sent me."]:
        got = goals_after([("user", text)], one_batch=False)
        assert [s for _, s in got] == ["active"] and got[0][0] in text, got
