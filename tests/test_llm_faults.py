"""LLM faults over real HTTP, against a scripted server on loopback: each is retried, then
falls back (rules) or defers; the chat loop never sees an exception and no turn is lost."""

from __future__ import annotations

import json

import pytest
from conftest import make_turns
from fake_openai import FakeOpenAI
from test_extractors import GoalsOnly

from convstate import (
    ConfigError,
    ConversationMemory,
    ExtractionError,
    HybridExtractor,
    InMemoryStore,
    LLMExtractor,
    StateDelta,
)
from convstate.cli import load_demo
from convstate.delta import NewAnchor
from convstate.extract.llm import tool_definition, tool_text
from convstate.render import block_words

MESSAGES = load_demo("zh")["messages"][:24]


@pytest.fixture
def server_factory():
    servers = []

    def make(*script, **kw):
        servers.append(FakeOpenAI(*script, **kw))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def drive(extractor, messages=MESSAGES) -> ConversationMemory:
    mem = ConversationMemory("s", store=InMemoryStore(), extractor=extractor,
                             context_window=700)
    for m in messages:
        mem.add_message(m)
        ctx = mem.context()  # must never raise
        assert mem.tokens(ctx) <= mem.policy.budget
    assert [t.message() for t in mem.history()] == messages  # nothing lost
    return mem


@pytest.mark.parametrize("fault, words", [
    ("timeout", "Timeout"), ("500", "InternalServerError"), ("429", "RateLimitError"),
    ("truncated", "ValidationError"), ("invalid", "ValidationError"),
])
def test_fault_is_retried_then_folded_by_the_rules(server_factory, fault, words) -> None:
    server = server_factory(fault, delay=2.0)
    llm = LLMExtractor(base_url=server.base_url, model="scripted", timeout=0.5,
                       max_retries=2)
    mem = drive(HybridExtractor(llm))
    log = mem.compactions()
    assert log and all(r.error is None for r in log)
    u = mem.usage()  # every fold landed, each by the rules after the model failed
    assert (u.folds, u.fell_back, u.failed) == (len(log), len(log), 0)
    for r in log:
        assert r.extractor == "rules (llm fallback)" and words in r.fallback
        assert "llm failed" in r.notes and words in r.notes
    # retried: more requests than folds (instructor re-asks with the error fed back)
    assert len(server.bodies) >= 2 * len(log)
    if fault in ("truncated", "invalid"):
        assert len(server.bodies) == 3 * len(log)
        retry = json.dumps(server.bodies[1], ensure_ascii=False)
        assert "validation error" in retry.lower() or "Validation" in retry
        assert all(r.prompt_tokens > 0 for r in log)  # the failed tries were counted
    state = mem.state
    assert state.anchor("order_id").value == "DD20240315889"  # the rules' anchors


def test_invented_anchor_is_rejected_and_counted(server_factory) -> None:
    server = server_factory("invent")
    mem = drive(LLMExtractor(base_url=server.base_url, model="scripted"))
    log = mem.compactions()
    assert log[0].extractor == "llm" and log[0].rejected == 1
    assert all(a.value != "DD99999999" for a in mem.state.anchors)
    assert mem.usage().prompt_tokens == 100 * len(log)


def test_defer_leaves_the_turns_unfolded_and_retries_later(server_factory) -> None:
    server = server_factory("500")
    llm = LLMExtractor(base_url=server.base_url, model="scripted", max_retries=1,
                       fallback="defer")
    mem = drive(HybridExtractor(llm))
    assert mem.state.folded_through == -1
    assert "left out" in mem.context()[0]["content"]  # cut from the context, not the store
    errors = mem.compactions()
    assert errors and all("InternalServerError" in r.error for r in errors)
    # a failed fold is retried after the next exchange, not on every call
    assert len(errors) <= len(MESSAGES) // 2
    assert len(server.bodies) == 2 * len(errors)  # each: a try and the client's retry
    server.script = ["ok"]
    mem.add("user", "还在吗？")
    mem.add("assistant", "在的。")
    mem.context()
    assert mem.state.folded_through >= 0 and mem.compactions()[-1].error is None
    assert mem.usage().failed == len(errors)


def test_usage_totals_and_cost(server_factory) -> None:
    server = server_factory("ok")
    mem = drive(HybridExtractor(LLMExtractor(base_url=server.base_url, model="m1")))
    u = mem.usage(prices={"m1": (1.0, 2.0)})
    folds = len(mem.compactions())
    assert (u.folds, u.prompt_tokens, u.completion_tokens) == (folds, 100 * folds, 20 * folds)
    assert u.cached_tokens == 64 * folds  # the provider's cache, as it reports it
    assert u.cost == pytest.approx(folds * (100 * 1.0 + 20 * 2.0) / 1e6)
    cheaper = mem.usage(prices={"m1": (1.0, 2.0, 0.5)})  # cached input at its own price
    assert cheaper.cost == pytest.approx(folds * (36 * 1.0 + 64 * 0.5 + 20 * 2.0) / 1e6)


def test_the_fixed_part_of_every_request_is_compact_and_byte_identical(server_factory) -> None:
    server = server_factory("ok")
    drive(HybridExtractor(LLMExtractor(base_url=server.base_url, model="scripted")),
          load_demo("zh")["messages"])
    assert len(server.bodies) >= 2
    # instructions and tool definition: the same bytes on every fold, so a provider's
    # prompt cache serves them
    assert len({json.dumps([b["tools"], b["messages"][0]]) for b in server.bodies}) == 1
    tool = server.bodies[0]["tools"][0]
    assert tool == tool_definition(StateDelta)
    # what fixed_prompt_tokens and the benchmark count is the wire's own bytes
    assert tool_text(StateDelta).encode() in server.raw[0]
    text = json.dumps(tool)
    # an item model's docstring is not sent (the instructions give each section's
    # clause); a field's description and a nested definition's are
    assert NewAnchor.__doc__.split(";")[0] not in text and "e.g. order_id" in text
    assert "Indexes of the turns" in text
    assert tool["function"]["name"] == "StateDelta"
    assert '"title"' not in text and '"default"' not in text
    assert '"maxItems": 8' in text  # bounds stay: a grammar-constrained server needs them
    full = json.dumps(StateDelta.model_json_schema())
    assert len(text) < 0.85 * len(full)
    assert text.count('"maxItems": 8') == 1  # the cited turns: defined once, referred to


def test_shared_property_schemas_mean_what_they_meant_inline() -> None:
    from convstate.extract.llm import compact_schema, share_repeats

    def inline(node, defs):
        if isinstance(node, list):
            return [inline(v, defs) for v in node]
        if not isinstance(node, dict):
            return node
        if set(node) == {"$ref"} and node["$ref"].split("/")[-1] in defs:
            return inline(defs[node["$ref"].split("/")[-1]], defs)
        return {k: inline(v, defs) for k, v in node.items() if k != "$defs"}

    before = compact_schema(StateDelta.model_json_schema())
    after = share_repeats(before)
    assert set(after["$defs"]) - set(before["$defs"]) == {"turns"}
    defs = after["$defs"]
    assert inline(after, defs) == inline(before, before["$defs"])
    assert share_repeats({"properties": {"a": {"type": "string"}}}) == {
        "properties": {"a": {"type": "string"}}}  # nothing recurs: unchanged


def test_an_llm_fold_takes_at_least_its_fixed_part_of_turns(server_factory) -> None:
    server = server_factory("ok")
    llm = LLMExtractor(base_url=server.base_url, model="scripted")
    assert 1000 < llm.fixed_prompt_tokens < 2500  # instructions + tool definition
    assert llm.min_batch_tokens == 3 * llm.fixed_prompt_tokens
    amortized = drive(HybridExtractor(llm), load_demo("zh")["messages"])
    sliced = ConversationMemory("t", store=InMemoryStore(), context_window=700,
                                extractor=HybridExtractor(llm), min_fold_tokens=0)
    for m in load_demo("zh")["messages"]:
        sliced.add_message(m)
        sliced.context()
    assert amortized.policy.min_batch == llm.min_batch_tokens
    assert 0 < len(amortized.compactions()) < len(sliced.compactions())


def test_the_extractor_never_sends_a_block_or_an_already_folded_turn(server_factory) -> None:
    server = server_factory("ok")
    mem = drive(HybridExtractor(LLMExtractor(base_url=server.base_url, model="scripted")),
                load_demo("zh")["messages"])
    titles = [block_words(lang)["title"] for lang in ("zh", "en")]
    sent_turns: list[int] = []
    history = {t.index: t.text for t in mem.history()}
    for body in server.bodies:
        text = json.dumps(body, ensure_ascii=False)
        assert not any(title in text for title in titles) and "[convstate]" not in text
        user = body["messages"][-1]["content"]
        lines = user.split("TURNS:\n", 1)[1].split("\nOPEN:\n", 1)[0].splitlines()
        indexes = [int(line.split(" ", 1)[0]) for line in lines]
        # every turn sent is above everything sent before: never a folded turn again
        assert not sent_turns or min(indexes) > max(sent_turns)
        for i in sent_turns:
            assert json.dumps(history[i], ensure_ascii=False)[1:-1] not in user
        sent_turns += indexes
    assert sent_turns == list(range(mem.state.folded_through + 1))
    assert len(server.bodies) >= 3


def test_bad_llm_settings() -> None:
    for kwargs, field in [({"mode": "xml"}, "mode"), ({"fallback": "pray"}, "fallback"),
                          ({"max_retries": -1}, "max_retries"), ({"timeout": 0}, "timeout")]:
        with pytest.raises(ConfigError) as err:
            LLMExtractor(base_url="http://127.0.0.1:9/v1", **kwargs)
        assert err.value.field == field


def test_the_fallback_is_an_extractor(server_factory) -> None:
    server = server_factory("500")
    llm = LLMExtractor(base_url=server.base_url, model="scripted", max_retries=0,
                       fallback=GoalsOnly())
    out = llm.extract(make_turns(("user", "I need a new charger.")), [])
    assert out.extractor == "goals-only (llm fallback)" and out.fell_back
    assert [g.text for g in out.delta.goals] == ["I need a new charger."]
    with pytest.raises(ExtractionError):
        LLMExtractor(base_url=server.base_url, model="scripted", max_retries=0,
                     fallback=None).extract(make_turns(("user", "hi")), [])


def test_one_deadline_per_fold_across_retries_sync_and_async(server_factory) -> None:
    import asyncio
    import time

    from convstate.extract.llm import LLMExtractor as LLM

    server = server_factory("timeout", delay=5.0)  # every request hangs for 5 s
    llm = LLM(base_url=server.base_url, model="scripted", timeout=2, max_retries=5,
              deadline=3, fallback=None)
    turns = make_turns(("user", "I need a new charger."))
    for run in (lambda: llm.extract(turns, []),
                lambda: asyncio.run(llm.aextract(turns, []))):
        t0 = time.monotonic()
        with pytest.raises(ExtractionError):
            run()
        assert time.monotonic() - t0 < 4.5  # not 5 tries x 2 s, not the server's 5 s
    assert LLM(base_url=server.base_url, model="x", timeout=10, max_retries=2).deadline == 30


def test_a_long_retry_after_is_capped_and_never_passes_the_deadline(server_factory) -> None:
    import time

    server = server_factory("429-long", "ok")
    llm = LLMExtractor(base_url=server.base_url, model="scripted", timeout=2, deadline=5,
                       fallback=None)
    t0 = time.monotonic()
    with pytest.raises(ExtractionError, match="RateLimitError"):
        llm.extract(make_turns(("user", "I need a new charger.")), [])
    assert time.monotonic() - t0 < 2 and len(server.bodies) == 1  # 120 s > what is left

    server = server_factory("500", "ok")  # a fault worth a retry within the deadline
    out = LLMExtractor(base_url=server.base_url, model="scripted", timeout=2, deadline=10,
                       fallback=None).extract(make_turns(("user", "hi there")), [])
    assert out.extractor == "llm" and len(server.bodies) == 2
