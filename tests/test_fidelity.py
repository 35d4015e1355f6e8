"""The context is worth its budget: as full as truncation's, no value in both the block
and the raw turns, what matters least leaves the block first, every loss explained by
where(), and no cue-word noise from casual talk."""

from __future__ import annotations

import pytest
from conftest import make_turns, small_talk

from convstate import (
    ConversationMemory,
    ConversationState,
    ExtractionError,
    InMemoryStore,
    RuleExtractor,
    TokenCounter,
    fold,
)
from convstate.cli import load_demo
from convstate.eval.baselines import Truncation
from convstate.render import block_rows, render

DEMO = load_demo("zh")


@pytest.mark.parametrize("window", [300, 600, 1200, 2000])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_context_is_as_full_as_truncation_and_never_repeats_a_value(window, lang):
    demo = load_demo(lang)
    mem = ConversationMemory("f", store=InMemoryStore(), context_window=window,
                             system_prompt=demo["system_prompt"])
    trunc = Truncation(mem.policy.budget, TokenCounter())
    ours, theirs = [], []
    for m in demo["messages"]:
        mem.add_message(m)
        trunc.add(m)
        ctx = mem.context()
        assert mem.counter.messages(ctx) <= mem.policy.budget
        ours.append(mem.counter.messages(ctx))
        theirs.append(mem.counter.messages(trunc.context()))
        block = ctx[1]["content"] if len(ctx) > 1 and ctx[1]["role"] == "system" else ""
        raw = "\n".join(str(m.get("content") or "") for m in ctx[2:] if m["role"] != "system")
        for a in mem.state.active_anchors():  # (a name may head the values about it)
            quoted = block.count(f'"{a.value}"') - block.count(f'"{a.value}" →')
            assert not (quoted and a.value in raw), a.value
    assert sum(ours) >= 0.9 * sum(theirs) and ours[-1] >= 0.9 * theirs[-1]


def test_where_says_where_a_value_lives() -> None:
    mem = ConversationMemory("w", store=InMemoryStore(), context_window=400,
                             keep_recent_turns=1)
    mem.add("user", "订单号 DD20240315889，手机 13812345678")
    mem.add("assistant", "好的")
    small_talk(mem, 30)
    assert mem.where("DD20240315889") == "block"
    assert mem.where("第29个回答") == "raw"
    assert mem.where("好的") == "store"  # folded, nothing kept of it: only the store has it
    assert mem.where("从未说过的话") == "nowhere"
    mem.add("user", "新手机 13900001111")
    mem.add("assistant", "已更新")
    mem.context()
    mem.compact(keep_recent_turns=0)
    assert mem.where("13812345678") == "block"  # superseded: shown as history, marked
    assert '"13812345678"' in [line.split(": ", 1)[-1] for line in mem.render().splitlines()
                               if "已更换" in line]
    # a turn no extractor could read that the context cannot show is "pending"; with an
    # extractor that reads in batches failing, the rules have read it ahead: "state"
    for failing, where in ((_Failing, "pending"), (_FailingBatches, "state")):
        broken = ConversationMemory("p", store=InMemoryStore(), context_window=300,
                                    extractor=failing())
        for i in range(20):
            broken.add("user", f"订单 DD{1000 + i}88 的问题，麻烦尽快看一下，谢谢您")
            broken.add("assistant", "收到，马上处理，请稍等一下，我们会尽快回复您")
            broken.context()
        assert broken.where("DD100088") == where
        assert broken.state.folded_through == -1  # the configured extractor read nothing


class _Failing:
    name = "failing"
    live = True  # reads every turn as it comes (and fails)

    def extract(self, turns, index, delta_model=None):
        raise ExtractionError("the model did not answer")


class _FailingBatches(_Failing):
    live = False


def test_the_block_keeps_user_values_longest_and_drops_open_questions_first() -> None:
    turns = make_turns(
        ("user", "订单号 DD20240315889，我不要换货"),
        ("assistant", "客服热线 400-820-8820"),
        ("user", "我想要退款"),
        ("user", "多久能到账？"),
    )
    ex = RuleExtractor().extract(turns, [])
    state = fold(ConversationState(), ex.delta, {t.index: t for t in turns})
    ranks = {r.value: r.rank for r in block_rows(state, "zh")}
    assert ranks["DD20240315889"] > ranks["400-820-8820"] > ranks["我想要退款"] \
        > ranks["多久能到账？"]
    counter = TokenCounter()
    full = render(state, "text", "zh")
    small = render(state, "text", "zh", budget=counter.count(full) - 10, counter=counter,
                   keep_anchors=False)
    assert "多久能到账" not in small and "DD20240315889" in small


CASUAL = [  # chit-chat that names no requirement, commitment or decision
    "That must have been awesome!",
    "Don't worry, it happens to everyone.",
    "I'll never forget the day my youngest took her first steps.",
    "I don't know what that cell represents, to be honest.",
    "Why don't you tell me more about your trip?",
    "I have to say, the food there was amazing.",
    "We only went there once, years ago.",
    "The transaction is considered confirmed once it is added to the blockchain.",
    "I will always love that little beach town.",
    "That sounds like it must be really hard.",
]
REAL = [  # the same cue words, used as requirements and commitments
    ("Don't call me after 8pm.", "negative_constraint"),
    ("Please never share my address.", "negative_constraint"),
    ("I don't want an exchange.", "negative_constraint"),
    ("It must be delivered by Friday.", "constraint"),
    ("I only want a refund.", "constraint"),
]


def test_casual_talk_makes_no_constraints_tasks_or_decisions() -> None:
    turns = make_turns(*[("user" if i % 2 == 0 else "assistant", t)
                         for i, t in enumerate(CASUAL)])
    delta = RuleExtractor().extract(turns, []).delta
    assert [a.value for a in delta.anchors
            if a.kind in ("constraint", "negative_constraint")] == []
    assert [t.text for t in delta.open_tasks] == []
    assert [d.text for d in delta.decisions] == []


def test_real_requirements_are_still_found() -> None:
    for text, kind in REAL:
        delta = RuleExtractor().extract(make_turns(("user", text)), []).delta
        kinds = [a.kind for a in delta.anchors if a.kind.endswith("constraint")]
        assert kinds == [kind], text
    delta = RuleExtractor().extract(make_turns(("user", "I'll send the receipt tonight.")),
                                    []).delta
    assert [t.owner for t in delta.open_tasks] == ["user"]


def test_a_long_explanation_commits_to_nothing_but_keeps_its_values() -> None:
    text = ("Here is how it works. I will explain each step. " * 12
            + "Call 415-555-0132 for help.")
    delta = RuleExtractor().extract(make_turns(("user", "How does it work?"),
                                               ("assistant", text)), []).delta
    assert delta.open_tasks == [] and [a.value for a in delta.anchors] == ["415-555-0132"]
    assert [r.status for r in delta.requests] == ["answered"]  # a full reply answers


def test_stated_facts_are_kept_verbatim_with_their_importance() -> None:
    turns = make_turns(
        ("user", "I adopted a dog named Max last week. Do you like dogs? I want a leash."),
        ("assistant", "Congratulations! The Pet Corner on 5th Avenue opens at 9am."),
        ("user", "我在北京做采购，已经八年了。"),
        ("assistant", "| Item | Price |\n| Leash | $20 |"),
        ("assistant", "It depends. " * 60 + "Rex was born on May 3."),  # an explanation
    )
    facts = {f.text: f.importance for f in RuleExtractor().extract(turns, []).delta.facts}
    assert set(facts) == {"I adopted a dog named Max last week",
                          "The Pet Corner on 5th Avenue opens at 9am",
                          "我在北京做采购，已经八年了"}
    # the user's own statement outweighs what the assistant mentions in passing
    assert facts["I adopted a dog named Max last week"] > \
        facts["The Pet Corner on 5th Avenue opens at 9am"]


def test_a_long_answer_is_kept_as_its_outline() -> None:
    steps = ("To build a financial model for your dealership, follow these steps: "
             "1. Gather data: collect three years of revenue. " + "More detail. " * 40 +
             "2. Create a template: set up one tab per statement.\n"
             "3. Input assumptions: list what drives sales.")
    zh = ("区块链钱包主要有以下几类，各有特点：\n1. 热钱包：始终联网，" + "便于日常使用。" * 100
          + "\n2. 冷钱包：离线保存私钥。")
    turns = make_turns(("user", "How do I model it?"), ("assistant", steps),
                       ("user", "钱包有哪些？"), ("assistant", zh),
                       ("assistant", "Fine. " * 120))  # long, but no outline to keep
    facts = [f for f in RuleExtractor().extract(turns, []).delta.facts]
    assert [f.text for f in facts] == [
        "To build a financial model for your dealership, follow these steps",
        "Gather data · Create a template · Input assumptions",
        "区块链钱包主要有以下几类，各有特点", "热钱包 · 冷钱包"]
    # below what people say about themselves and exact values
    assert all(f.importance == 0.25 and f.turns in ([1], [3]) for f in facts)
    for f in facts:  # every part verbatim in its turn
        assert all(part in turns[f.turns[0]].content for part in f.text.split(" · "))


def test_a_chinese_answer_is_long_by_what_it_says_not_by_its_characters() -> None:
    # 240 characters, but as much as some 650 Latin letters: an explanation
    zh = ("订婚戒指的款式有很多种，以下是一些常见的款式：\n"
          "1. 托四爪镶嵌款：最常见的款式之一，主钻石被四个爪子托住，以突出它的光彩。\n"
          "2. 托六爪镶嵌款：与四爪类似，只是爪子从四个变为六个，钻石看起来更加稳固。\n"
          "3. 三石款：由三颗宝石组成，一般是一颗大钻石与两颗小钻石相配，代表着过去、现在和"
          "未来的爱情，寓意很好，也很受欢迎。\n"
          "4. 珍珠镶嵌款：主要用珍珠来装饰，通常会配以小钻石或其他贵重宝石来提高光彩度。\n"
          "以上是一些常见的款式，当然还有其他不同的款式可供选择，具体取决于个人的口味和预算。")
    assert len(zh) < 600
    turns = make_turns(("user", "订婚戒指有哪些款式？"), ("assistant", zh))
    facts = [f.text for f in RuleExtractor().extract(turns, []).delta.facts]
    assert facts == ["订婚戒指的款式有很多种，以下是一些常见的款式",
                     "托四爪镶嵌款 · 托六爪镶嵌款 · 三石款 · 珍珠镶嵌款"]


def _facts_capped_at(n: int) -> type[ConversationState]:
    """A state whose facts section keeps at most ``n`` live."""
    from dataclasses import replace
    from typing import Annotated

    from pydantic import Field

    from convstate.sections import FACTS, Fact

    class Capped(ConversationState):
        facts: Annotated[list[Fact], replace(FACTS, cap=(n, "faded"))] = Field(
            default_factory=list)

    return Capped


def test_a_fact_must_be_quoted_and_the_least_important_fade_past_the_cap() -> None:
    from convstate.delta import NewFact, StateDelta
    from convstate.fold import fold_report

    turns = make_turns(("user", "I live in Leeds. My cat is Tom. I work at Acme."))
    sources = {t.index: t for t in turns}
    delta = StateDelta(facts=[
        NewFact(text="I live in Leeds", importance=0.9, turns=[0]),
        NewFact(text="My cat is Tom", importance=0.3, turns=[0]),
        NewFact(text="I work at Acme", importance=0.6, turns=[0]),
        NewFact(text="I own a castle in Spain", importance=1.0, turns=[0]),  # never said
    ])
    state, stats = fold_report(_facts_capped_at(2)(), delta, sources)
    assert stats.rejected == 1 and len(state.facts) == 3  # faded, not deleted
    assert {f.text: f.status for f in state.facts} == {
        "I live in Leeds": "active", "I work at Acme": "active", "My cat is Tom": "faded"}
    assert "My cat is Tom" not in render(state)
    # a later fold fades an item of the earlier state: its own copy, the earlier state
    # unchanged; an item it leaves alone is shared, not copied
    more = make_turns(("user", "I speak Welsh."), start=1)
    later, _ = fold_report(state, StateDelta(facts=[
        NewFact(text="I speak Welsh", importance=0.8, turns=[1])]), {1: more[0]})
    assert {f.text: f.status for f in later.facts}["I work at Acme"] == "faded"
    assert {f.text: f.status for f in state.facts}["I work at Acme"] == "active"
    assert later.facts[1] is not state.facts[1]  # "I work at Acme", faded
    assert later.facts[0] is state.facts[0] and later.facts[2] is state.facts[2]


def test_a_section_within_its_cap_keeps_every_item_live() -> None:
    # three facts under a cap of four: none fades (a slice to len - cap, negative here,
    # once faded all but the last cap - len of them)
    from convstate.delta import NewFact, StateDelta
    from convstate.fold import fold_report

    said = ["I live in Leeds", "My cat is Tom", "I work at Acme"]
    turns = make_turns(("user", ". ".join(said) + "."))
    delta = StateDelta(facts=[NewFact(text=t, importance=0.5, turns=[0]) for t in said])
    state, stats = fold_report(_facts_capped_at(4)(), delta, {t.index: t for t in turns})
    assert [f.status for f in state.facts] == ["active"] * 3 and stats.updated == 0
    assert all(t in render(state) for t in said)


def test_low_ranked_rows_never_take_the_place_of_an_earlier_raw_turn() -> None:
    class NoFacts(RuleExtractor):
        def extract(self, turns, index, delta_model=None):
            out = super().extract(turns, index)
            out.delta.facts = []
            return out

    talk = [("user" if i % 2 == 0 else "assistant",
             f"I went hiking with my friend number {i} near the lake, it was lovely.")
            for i in range(40)]
    contexts = []
    for extractor in (RuleExtractor(), NoFacts()):
        mem = ConversationMemory("f", store=InMemoryStore(), context_window=400,
                                 extractor=extractor)
        for role, text in talk:
            mem.add(role, text)
            ctx = mem.context()
        contexts.append([m for m in ctx if m["role"] != "system"])
    with_facts, without = contexts
    assert len(with_facts) >= len(without) - 1  # at most the cut start of one turn


def test_a_fact_never_brings_back_a_replaced_value() -> None:
    turns = make_turns(("user", "My phone is 415-555-0132, call me there after lunch."),
                       ("assistant", "Noted."),
                       ("user", "Sorry, my phone is now 628-555-0199 since last week."))
    state = fold(ConversationState(), RuleExtractor().extract(turns, []).delta,
                 {t.index: t for t in turns})
    assert state.anchor("phone").value == "628-555-0199"
    assert {f.text: f.status for f in state.facts}[
        "My phone is 415-555-0132, call me there after lunch"] == "faded"
    lines = render(state).splitlines()  # the old number only as what was replaced
    assert '- phone: "628-555-0199"; replaced: "415-555-0132"' in lines
    assert sum("415-555-0132" in line for line in lines) == 1


def test_lines_from_long_answers_come_before_an_earlier_raw_turn() -> None:
    topics = ["tax", "leases", "hiring", "pricing", "insurance", "audits", "loans", "rent",
              "payroll", "warranties", "financing", "marketing", "parts", "service",
              "licensing", "zoning", "trade-ins", "floor plans", "recalls", "auctions"]

    def answer(topic: str) -> str:
        return (f"Here is how {topic} works for a small dealership like yours. "
                + f"The {topic} details depend on the state and the year. " * 25)

    mem = ConversationMemory("long", store=InMemoryStore(), context_window=2000)
    for topic in topics:
        mem.add("user", f"How does {topic} work?")
        mem.add("assistant", answer(topic))
    ctx = mem.context()
    block = "\n".join(m["content"] for m in ctx if m["role"] == "system")
    raw = "\n".join(m["content"] for m in ctx if m["role"] != "system")
    # a raw turn costs about 300 tokens, an outline line about 15: the oldest answers
    # are still said (by their lead), not dropped for one more earlier turn
    leads = [f"Here is how {t} works for a small dealership like yours" for t in topics]
    assert all(lead in block or lead in raw for lead in leads)
    assert mem.counter.messages(ctx) <= mem.policy.budget


def test_a_keys_oldest_values_retire_past_its_cap_and_return_when_said_again() -> None:
    from dataclasses import replace
    from typing import Annotated

    from pydantic import Field

    from convstate.delta import NewAnchor, StateDelta
    from convstate.fold import fold_report
    from convstate.sections import ANCHORS, Anchor

    class Capped(ConversationState):
        anchors: Annotated[list[Anchor], replace(ANCHORS, cap=(2, "retired"))] = Field(
            default_factory=list)

    def said(state, turn, *values, key="order_id"):
        t = make_turns(("user", "orders " + " ".join(values)), start=turn)[0]
        return fold_report(state, StateDelta(anchors=[
            NewAnchor(kind="order_id", key=key, value=v, turns=[turn]) for v in values]),
            {turn: t})

    state, _ = said(Capped(), 0, "DD101", "DD102")
    state, stats = said(state, 1, "DD103")
    state, _ = said(state, 2, "TK91", key="ticket")  # another key: counted apart
    status = {a.value: a.status for a in state.anchors}
    assert status == {"DD101": "retired", "DD102": "active", "DD103": "active",
                      "TK91": "active"} and stats.updated == 1
    assert "DD101" not in render(state) and "DD103" in render(state)
    assert [h.value for h in state.history("order_id")] == ["DD101", "DD102", "DD103"]
    state, _ = said(state, 3, "DD101")  # said again: live, and the oldest retires
    status = {a.value: a.status for a in state.anchors}
    assert status["DD101"] == "active" and status["DD102"] == "retired"
    assert len(state.anchors) == 4  # nothing deleted, nothing duplicated
    # an extractor cannot retire a value: only the fold does, by the cap
    assert "retired" not in ANCHORS.updates and "superseded" in ANCHORS.updates
    with pytest.raises(TypeError, match="no field 'owner'"):  # a field the item lacks
        replace(ANCHORS, cap_by="owner")
    with pytest.raises(TypeError, match="needs a cap"):  # a per-value cap of nothing
        replace(ANCHORS, cap=None)
