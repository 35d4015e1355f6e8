"""Your own typed fields: merge rules, derived delta, type errors, queries, round trips."""

from __future__ import annotations

import importlib
import json
from enum import Enum
from pathlib import Path
from typing import Annotated, Literal

import pytest
from conftest import make_turns, sources
from pydantic import BaseModel, Field

from convstate import (
    Anchor,
    AnchorOf,
    ConfigError,
    ConversationMemory,
    ConversationState,
    Cue,
    FieldTypeError,
    InMemoryStore,
    Keyed,
    Label,
    RuleExtractor,
    SetOnce,
    SQLiteStore,
    delta_model,
    fold_report,
    render,
    to_anthropic,
)
from convstate.cli import load_model, schema_files

ROOT = Path(__file__).resolve().parents[1]


class Item(BaseModel):
    sku: str
    qty: int = 1


class Tier(Enum):
    GOLD = "gold"
    SILVER = "silver"


class Case(ConversationState):
    order_id: Annotated[Anchor | None, SetOnce(), Label(zh="订单号")] = None
    contact: Annotated[Anchor | None, AnchorOf("phone")] = None
    emails: list[Anchor] = []
    product: str | None = Field(default=None, description="Product")
    status: Annotated[Literal["open", "closed"] | None, SetOnce()] = None
    method: Annotated[Literal["refund", "exchange"] | None,
                      Cue({"refund": "退款|refund", "exchange": "换货|exchange"})] = None
    tier: Tier | None = None
    tags: list[str] = []
    items: Annotated[list[Item], Keyed("sku")] = []


TURNS = make_turns(
    ("user", "订单号 DD1111111，电话 13812345678，邮箱 a@x.com"),
    ("user", "商品是耳机，我要换货"),
    ("user", "算了，不要换货，我要退款。新电话 13987654321"),
    ("user", "还有一个订单号 DD2222222，邮箱 b@x.com"),
)
D = delta_model(Case)


def fold_all(*deltas):
    state, total = Case(), 0
    for d in deltas:
        state, stats = fold_report(state, d, sources(TURNS))
        total += stats.rejected
    return state, total


def test_the_delta_is_derived_with_every_field_optional() -> None:
    assert set(D.model_fields) >= {"order_id", "contact", "product", "items", "anchors"}
    assert D().product is None and D().items == []
    d = D(product={"value": "耳机", "turns": [1]}, items=[{"value": {"sku": "A1"}, "turns": [1]}])
    assert d.items[0].value == Item(sku="A1")
    with pytest.raises(ValueError):
        D(status={"value": "pending", "turns": [1]})  # not one of the Literal's values


def test_latest_wins_and_earlier_values_stay_in_history() -> None:
    s, _ = fold_all(D(product={"value": "耳机", "turns": [1]}),
                    D(product={"value": "无线耳机", "turns": [2]}))
    assert s.product == "无线耳机"
    assert [(h.value, h.turn) for h in s.history("product")] == [("耳机", 1), ("无线耳机", 2)]
    older, _ = fold_report(s, D(product={"value": "旧耳机", "turns": [0]}), sources(TURNS))
    assert older.product == "无线耳机"  # an older statement never overrides a newer one


def test_set_once_records_a_conflict_instead_of_overwriting() -> None:
    s, _ = fold_all(D(status={"value": "open", "turns": [0]}),
                    D(status={"value": "closed", "turns": [2]}))
    assert s.status == "open"
    assert [(c.field, c.value, c.turn) for c in s.conflicts()] == [("status", "closed", 2)]
    again, _ = fold_report(s, D(status={"value": "closed", "turns": [2]}), sources(TURNS))
    assert again.model_dump() == s.model_dump()  # idempotent: the conflict is not repeated
    assert "closed" in render(s) and "conflicting" in render(s)


def test_anchor_fields_are_verbatim_and_rejected_otherwise() -> None:
    s, rejected = fold_all(D(order_id={"value": "DD9999999", "turns": [0]}),
                           D(order_id={"value": "DD1111111", "turns": [0]}))
    assert rejected == 1 and s.order_id.value == "DD1111111"
    assert s.anchor("order_id").value == "DD1111111"
    assert all(a.value != "DD9999999" for a in s.anchors)


def test_rule_extractor_fills_anchor_fields_by_kind_and_cue_fields() -> None:
    delta = RuleExtractor().extract(TURNS, [], D).delta
    assert isinstance(delta, D)
    s, _ = fold_report(Case(), delta, sources(TURNS))
    assert s.order_id.value == "DD1111111"  # set once: the first stays...
    assert [(c.field, c.value) for c in s.conflicts()] == [("order_id", "DD2222222")]
    assert s.contact.value == "13987654321"  # latest phone, through AnchorOf("phone")
    assert [h.value for h in s.history("contact")] == ["13812345678", "13987654321"]
    assert [a.value for a in s.emails] == ["a@x.com", "b@x.com"]
    assert s.method == "refund"  # the cue matching last in the latest user turn


@pytest.mark.parametrize("turns, phone", [
    ([("user", "My number is 415-555-0132."),
      ("assistant", "Thanks. For faster service call our hotline at 1-800-555-0199.")],
     "415-555-0132"),
    ([("user", "我的手机号是 13812345678。"), ("user", "我老婆的电话是 13900001111。")],
     "13812345678"),
])
def test_an_anchor_field_reads_what_state_anchor_reads(turns, phone) -> None:
    """The user's own value: a hotline the assistant gives or a number for someone else
    never takes the field a bot reads to call back."""
    mem = ConversationMemory("s", store=InMemoryStore(), state_model=Case)
    for role, text in turns:
        mem.add(role, text)
    assert mem.state.contact.value == phone == mem.state.anchor("contact").value


def test_a_set_once_anchor_field_keeps_the_users_first() -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), state_model=Case)
    mem.add("assistant", "I see order number DD1111111 on file.")
    mem.add("user", "No, my order number is DD2222222.")
    assert mem.state.order_id.value == "DD2222222"


@pytest.mark.parametrize("turns, first, conflicts", [
    # the user's correction replaces the first: it was never the order
    (["订单号是20240618553201。", "抱歉，系统里没有查到这个订单号，麻烦您再核对一下。",
      "不好意思我说错了，是20240618553210。"], "20240618553210", []),
    (["It's order 4471-0923.", "I can't find 4471-0923. Could you double-check it?",
      "Sorry, wrong one, it's 4471-0932."], "4471-0932", []),
    (["It's order 4471-0923.", "I can't find 4471-0923. Could you double-check it?",
      "Sorry, wrong one, it's 4471-0932. I also have order 5555-1111 that's late."],
     "4471-0932", ["5555-1111"]),
    # another order, which replaces nothing, is a conflict still
    (["My order is DD1111111.", "OK.", "I also have another order, DD2222222."],
     "DD1111111", ["DD2222222"]),
])
def test_a_set_once_anchor_field_keeps_the_first_that_stands(turns, first, conflicts) -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), state_model=Case)
    for k, text in enumerate(turns):
        mem.add("user" if k % 2 == 0 else "assistant", text)
    assert mem.state.order_id.value == first == mem.state.anchor("order_id").value
    assert [c.value for c in mem.state.conflicts()] == conflicts


def test_keyed_and_plain_lists_deduplicate() -> None:
    s, _ = fold_all(D(items=[{"value": {"sku": "A1"}, "turns": [1]},
                             {"value": {"sku": "a1 ", "qty": 2}, "turns": [2]},
                             {"value": {"sku": "B2"}, "turns": [2]}],
                      tags=[{"value": "VIP", "turns": [0]}, {"value": "vip", "turns": [1]}],
                      tier={"value": "gold", "turns": [0]}))
    assert s.items == [Item(sku="a1 ", qty=2), Item(sku="B2")]
    assert s.tags == ["VIP"] and s.tier is Tier.GOLD


@pytest.mark.parametrize("annotation, field", [
    ("callback: object = None", "callback"),
    ("handler: Callable[[], None] | None = None", "handler"),
    ("extra: dict[str, Any] = {}", "extra"),
    ("thing: Path | None = None", "thing"),
    ("models: list[Item] = []", "models"),
    ("bad_items: Annotated[list[Nested], Keyed('sku')] = []", "bad_items.inner"),
])
def test_unsupported_field_types_fail_at_definition_naming_the_field(
        annotation, field, tmp_path, monkeypatch) -> None:
    code = ("from typing import Annotated, Any, Callable\nfrom pathlib import Path\n"
            "from pydantic import BaseModel\n"
            "from convstate import ConversationState, Keyed\n"
            "class Item(BaseModel):\n    sku: str\n"
            "class Nested(BaseModel):\n    sku: str\n    inner: dict[str, int] = {}\n"
            f"class Bad(ConversationState):\n    {annotation}\n")
    (tmp_path / f"bad_{field.replace('.', '_')}.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(FieldTypeError) as err:
        importlib.import_module(f"bad_{field.replace('.', '_')}")  # defining the class fails
    assert err.value.field == field and repr(field) in str(err.value)


def test_a_custom_model_round_trips_through_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    with ConversationMemory("c", store=SQLiteStore(db), state_model=Case,
                            context_window=600, keep_recent_turns=1) as mem:
        mem.add_messages([t.message() for t in TURNS])
        mem.compact()
        state = mem.state
        assert isinstance(state, Case) and state.method == "refund"
        first = mem.state_at(1)
    with ConversationMemory("c", store=str(db), state_model=Case, context_window=600) as again:
        assert again.state == state and isinstance(again.state, Case)
        assert again.state_at(1) == first
        assert Case.model_validate_json(state.model_dump_json()) == state
        with pytest.raises(ConfigError, match="no version 9"):
            again.state_at(9)


def test_json_schema_export_matches_the_files(tmp_path: Path) -> None:
    from convstate.cli import main
    refund = load_model(str(ROOT / "examples" / "customer_service_bot.py") + ":RefundCase")
    for model in (ConversationState, refund):
        for name, schema in schema_files(model).items():
            assert json.loads((ROOT / "schemas" / name).read_text()) == schema, name
    assert main(["schema", "--model", "test_custom:Case", "--out", str(tmp_path)]) == 0
    written = json.loads((tmp_path / "case.delta.schema.json").read_text())
    assert "items" in written["properties"] and "order_id" in written["properties"]


def test_query_helpers() -> None:
    s, _ = fold_all(RuleExtractor().extract(TURNS[:2], [], D).delta)
    s2, _ = fold_report(s, RuleExtractor().extract(TURNS[2:], s.index(), D).delta,
                        sources(TURNS))
    change = s2.diff(s)
    assert "anchors" in change.added and change.fields["contact"][1]["value"] == "13987654321"
    assert s2.diff(s2).is_empty()
    assert s2.tasks(status="open", owner="assistant") == []


def test_render_labels_and_anthropic_adapter() -> None:
    s, _ = fold_all(RuleExtractor().extract(TURNS, [], D).delta,
                    D(product={"value": "耳机", "turns": [1]}))
    zh, en = render(s, lang="zh"), render(s, lang="en")
    assert '订单号: "DD1111111"' in zh and 'order_id: "DD1111111"' in en
    assert 'Product: "耳机"' in en
    md = render(s, format="markdown", lang="en")
    assert md.startswith("> [Conversation record]") and "### Exact values" in md
    call = {"role": "assistant", "content": None, "tool_calls": [{
        "id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}]}
    out = to_anthropic([{"role": "system", "content": "SYS"},
                        {"role": "system", "content": render(s, lang="en")},
                        {"role": "user", "content": "hi"}, call,
                        {"role": "tool", "content": "ok", "tool_call_id": "c1"}])
    assert out["system"].startswith("SYS\n\n[Conversation record]")
    assert out["messages"][1]["content"][0] == {"type": "tool_use", "id": "c1", "name": "f",
                                                "input": {"a": 1}}
    assert out["messages"][2]["content"][0]["tool_use_id"] == "c1"


def test_langchain_adapter() -> None:
    pytest.importorskip("langchain_core")
    from convstate import to_langchain

    call = {"role": "assistant", "content": "", "tool_calls": [{
        "id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"a": 1}'}}]}
    out = to_langchain([{"role": "system", "content": "SYS"}, {"role": "user", "content": "hi"},
                        call, {"role": "tool", "content": "ok", "tool_call_id": "c1"}])
    assert [type(m).__name__ for m in out] == ["SystemMessage", "HumanMessage", "AIMessage",
                                               "ToolMessage"]
    assert out[2].tool_calls[0]["name"] == "lookup" and out[2].tool_calls[0]["args"] == {"a": 1}
    assert out[3].tool_call_id == "c1"


def test_a_writer_with_another_model_never_drops_fields_it_does_not_know(tmp_path) -> None:
    db = tmp_path / "drift.db"
    with ConversationMemory("c", store=SQLiteStore(db), state_model=Case,
                            context_window=600, keep_recent_turns=1) as mem:
        mem.add_messages([t.message() for t in TURNS])
        mem.compact()
        saved = mem.store.load_state("c")
    with pytest.raises(ConfigError) as err:  # the base model does not know Case's fields
        ConversationMemory("c", store=SQLiteStore(db), context_window=600)
    assert err.value.field == "state_model" and "method" in str(err.value)
    assert SQLiteStore(db).load_state("c") == saved  # nothing was written

    class Changed(Case):  # a field whose type changed between deploys
        method: int | None = None

    assert saved["method"] == "refund"
    with pytest.raises(ConfigError) as err:
        ConversationMemory("c", store=SQLiteStore(db), state_model=Changed, context_window=600)
    assert err.value.field == "method" and "migrate" in str(err.value)
