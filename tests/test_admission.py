"""No input stops folding: whatever a delta holds, what its model cannot hold is left
out item by item (and logged), the rest folds, and the watermark moves on."""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any, Literal

from conftest import make_turns, sources
from hypothesis import HealthCheck, given, settings, strategies as st
from pydantic import BaseModel

from convstate import (
    AnchorOf,
    ConversationMemory,
    ConversationState,
    Extraction,
    InMemoryStore,
    RuleExtractor,
    Turn,
)
from convstate.delta import (
    MAX_TEXT,
    NewAnchor,
    NewGoal,
    StateDelta,
    admitted,
    delta_model,
)
from convstate.extract.facts import outline
from convstate.fold import fold_report
from convstate.sections import Anchor

LONG_ID = "1" * 600
LONG_EMAIL = "a" * 590 + "@example.com"


class Scripted:
    """An extractor of your own that answers with whatever delta it is given."""

    name = "scripted"

    def __init__(self, delta: Any = None):
        self.delta = delta

    def extract(self, turns: Any, index: Any, delta_model: Any = StateDelta) -> Extraction:
        return Extraction(delta=self.delta, extractor=self.name)


def _session(extractor: Any = None, state_model: type[ConversationState] = ConversationState
             ) -> ConversationMemory:
    return ConversationMemory("s", store=InMemoryStore(), context_window=400,
                              extractor=extractor or RuleExtractor(), state_model=state_model)


def test_a_value_too_long_to_hold_never_stops_the_session() -> None:
    mem = _session()
    mem.add("user", f"My order number is {LONG_ID}, and my email is {LONG_EMAIL}")
    mem.add("assistant", "Let me look.")
    for i in range(6):
        mem.add("user", f"Order number SR-2024031{i}-889 please, call 138001380{i:02d}.")
        mem.add("assistant", "I will check it.")
        mem.context()
    mem.compact(keep_recent_turns=0)
    last = mem.history()[-1].index
    assert mem.state.folded_through == last
    log = mem.compactions()
    assert log and all(r.error is None for r in log)
    values = {a.value for a in mem.state.anchors}
    assert {f"SR-2024031{i}-889" for i in range(6)} <= values
    assert all(len(v) <= MAX_TEXT for v in values)
    assert mem.where("SR-20240315-889") != "pending"
    # the rule extractor said what it did not take, in the fold's log
    assert any("2 value(s) over 500 characters not taken (email, order_id)" in (r.notes or "")
               for r in log)


def test_the_rule_extractor_proposes_only_what_the_state_holds() -> None:
    turns = make_turns(("user", f"订单号{LONG_ID}，邮箱 {LONG_EMAIL}，"
                                f"I went to {'Ab' * 400} Hotel at 5 pm"))
    answer = RuleExtractor().extract(turns, [])
    delta = answer.delta
    again = StateDelta.model_validate(delta.model_dump())  # every item validates
    assert again.anchors and all(len(a.value) <= MAX_TEXT for a in again.anchors)
    assert all(a.subject is None or len(a.subject) <= 120 for a in again.anchors)
    assert LONG_ID not in {a.value for a in delta.anchors}
    assert any("not taken" in n for n in answer.notes)


def test_a_long_answer_outline_is_cut_to_what_a_fact_holds() -> None:
    body = "Here is how the whole process works for your account.\n" + "\n".join(
        f"{i}. Step number {i} of the long procedure here: do it with care." for i in
        range(1, 14))
    facts = outline(Turn(index=3, role="assistant", content=body))
    heads = facts[-1].text
    assert len(heads) <= MAX_TEXT and heads.endswith("…")
    assert heads.startswith("Step number 1 of the long procedure here · Step number 2")


def test_invalid_items_are_dropped_and_logged_the_rest_folds() -> None:
    junk = StateDelta.model_construct(
        anchors=[
            NewAnchor.model_construct(kind="order_id", key="order_id", value=LONG_ID,
                                      turns=[0]),
            {"kind": "spaceship", "key": "ship", "value": "NCC-1701", "turns": [0]},
            "not an item",
            NewAnchor(kind="phone", key="phone", value="13800138000", turns=[0]),
            NewAnchor.model_construct(kind="email", key="email", value="a@b.co", turns=[]),
        ],
        goals=[NewGoal.model_construct(text=None, turns=[0]), {"text": "订机票", "turns": [0]}],
        updates=[{"id": "T1", "status": "exploded", "turn": 0}],
        sentiment={"label": "furious", "score": 7, "turn": 0},
        language="english!!")
    mem = _session(Scripted(junk))
    mem.add("user", f"订机票，电话 13800138000，订单 {LONG_ID}")
    mem.add("assistant", "好的")
    record = mem.compact(keep_recent_turns=0)
    assert record is not None and record.error is None
    assert mem.state.folded_through == 1
    assert [a.value for a in mem.state.anchors] == ["13800138000"]
    assert [g.text for g in mem.state.goals] == ["订机票"]
    assert mem.state.sentiment is None and mem.state.language is None
    notes = record.notes or ""
    for which in ("anchors[0] '1111111111", "anchors[1] 'NCC-1701' dropped: kind:",
                  "anchors[2]", "anchors[4] 'a@b.co' dropped: turns:", "goals[0]",
                  "updates[0] 'T1' dropped: status:", "sentiment dropped:",
                  "language dropped:"):
        assert which in notes, which
    assert record.rejected >= 8


def test_a_delta_that_is_not_one_folds_nothing_and_moves_on() -> None:
    extractor = Scripted({"anchors": "everything", "goals": [{"text": "go", "turns": [0]}]})
    mem = _session(extractor)
    mem.add("user", "go")
    mem.add("assistant", "ok")
    record = mem.compact(keep_recent_turns=0)
    assert record is not None and record.error is None
    assert mem.state.folded_through == 1 and [g.text for g in mem.state.goals] == ["go"]
    assert "anchors: a str, not a list" in (record.notes or "")
    mem.add("user", "again")
    extractor.delta = 42
    record = mem.compact(keep_recent_turns=0)
    assert record is not None and "not a StateDelta: nothing folded" in (record.notes or "")
    assert mem.state.folded_through == 2


def test_the_fold_itself_admits_what_it_is_given() -> None:
    turns = make_turns(("user", "hello there"))
    delta = StateDelta.model_construct(goals=[NewGoal.model_construct(text="x" * 600,
                                                                      turns=[0]),
                                              NewGoal(text="hello there", turns=[0])])
    state, stats = fold_report(ConversationState(), delta, sources(turns))
    assert [g.text for g in state.goals] == ["hello there"]
    assert stats.rejected == 1 and stats.dropped[0].startswith("goals[0] 'xxxx")
    assert "String should have at most 500 characters" in stats.dropped[0]
    # a well-made delta comes through whole
    ok, dropped = admitted(delta.model_copy(update={"goals": delta.goals[1:]}), StateDelta)
    assert dropped == [] and ok.goals == [NewGoal(text="hello there", turns=[0])]


# -- properties ---------------------------------------------------------------------------

chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
RUNS = ["1", "9,", "a", "A", "Ab ", "-", ".", " ", "\n", "订单", "酒店", "地址 ", "@", "吗 ",
        "order ", "tracking ", "I'll send it, done, ", "我会处理，已处理，", "“", "'"]
run = st.builds(lambda unit, n: unit * n, st.sampled_from(RUNS), st.integers(1, 700))
valueish = st.sampled_from(["order number ", "订单号", "email ", "tracking ", "账号", "地址"]
                           ).flatmap(lambda cue: run.map(lambda r: cue + r))
any_text = st.lists(st.text(chars, max_size=60) | run | valueish, min_size=1,
                    max_size=4).map("".join)


@given(st.lists(any_text, min_size=1, max_size=5))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_text_stops_the_rule_extractor_folding(texts: list[str]) -> None:
    mem = _session()  # strict (conftest): an extractor's exception fails the test
    for k, text in enumerate(texts):
        mem.add("user" if k % 2 == 0 else "assistant", text)
    mem.compact(keep_recent_turns=0)
    assert mem.state.folded_through == len(texts) - 1
    assert all(r.error is None for r in mem.compactions())


class Case(ConversationState):
    """A state of your own: an anchor field, a Literal field, a list."""

    contact: Annotated[Anchor | None, AnchorOf("phone")] = None
    method: Literal["refund", "exchange"] | None = None
    tags: list[str] = []


TURNS = 4  # each batch: turns k*TURNS .. k*TURNS + 3
junk = st.none() | st.integers() | st.floats() | st.text(chars, max_size=8) | st.just({})


def strings() -> st.SearchStrategy[Any]:
    return (st.text(chars, max_size=20) | st.sampled_from(["", "  ", "x" * 600, "A1", "T1",
                                                           "13800138000", "bogus"]))


def values(annotation: Any) -> st.SearchStrategy[Any]:
    """Values for a field of this type: right ones, wrong ones and junk."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        return st.sampled_from([*args, "bogus"])
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(values(a) for a in args))
    if annotation is type(None):
        return st.none()
    if origin is list:  # cited turns: in the batch, outside it, none, too many
        return st.lists(st.integers(-2, 3 * TURNS), max_size=10) | st.just([])
    if annotation is int:
        return st.integers(-2, 3 * TURNS) | st.just(2**70)
    if annotation is float:
        return st.floats(allow_nan=True) | st.sampled_from([0.5, -1.0, 1.0])
    if annotation is str:
        return strings()
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return items(annotation)
    return junk


def items(model: type[BaseModel]) -> st.SearchStrategy[Any]:
    """Items of ``model`` built with hypothesis: made (validated), constructed unchecked
    (any field any value, some left out), as dicts, or junk."""
    fields = {n: values(f.annotation) for n, f in model.model_fields.items()}
    raw = st.fixed_dictionaries({}, optional=fields)
    return (raw.map(lambda d: model.model_construct(**d)) | raw | junk)


def deltas(model: type[StateDelta]) -> st.SearchStrategy[Any]:
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for name, info in model.model_fields.items():
        if typing.get_origin(info.annotation) is list:
            item = typing.get_args(info.annotation)[0]
            parts[name] = st.lists(items(item) if isinstance(item, type) and issubclass(
                item, BaseModel) else values(item), max_size=6) | junk
        else:
            parts[name] = values(info.annotation) | junk
    return st.fixed_dictionaries({}, optional=parts).map(lambda d: model.model_construct(**d))


@given(st.data(), st.sampled_from([ConversationState, Case]))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_delta_stops_the_watermark(data: st.DataObject,
                                      state_model: type[ConversationState]) -> None:
    extractor = Scripted()
    mem = _session(extractor, state_model)
    texts = ["订单号 SR-20240315-889，电话 13800138000", "I will send the photo",
             "我要退款", "done, thanks"]
    for batch in range(3):
        for k, text in enumerate(texts):
            mem.add("user" if k % 2 == 0 else "assistant", text)
        extractor.delta = data.draw(deltas(delta_model(state_model)))
        if batch == 0:  # the first batch also folds what the rules find: ids to update
            extractor.delta = RuleExtractor().extract(
                mem.history(), [], delta_model(state_model)).delta
        mem.compact(keep_recent_turns=0)
        assert mem.state.folded_through == (batch + 1) * TURNS - 1
    assert all(r.error is None for r in mem.compactions())
