"""Every ConversationMemory call that touches the store or the extractor has an async
twin with the same parameters (after simonw/llm's tests/test_async_parity.py), and the
twins give the same results."""

from __future__ import annotations

import asyncio
import inspect

import pytest
from test_memory import long_conversation

from convstate import ConversationMemory, InMemoryStore, MemoryConfig, WindowPolicy

TWINS = ["add", "add_message", "add_messages", "context", "compact", "close"]


@pytest.mark.parametrize("name", TWINS)
def test_every_io_call_has_an_async_twin_with_the_same_parameters(name: str) -> None:
    sync, twin = getattr(ConversationMemory, name), getattr(ConversationMemory, f"a{name}")
    assert inspect.iscoroutinefunction(twin) and not inspect.iscoroutinefunction(sync)
    assert list(inspect.signature(twin).parameters) == \
        list(inspect.signature(sync).parameters)
    assert twin.__doc__, f"a{name} needs a docstring"


def test_the_async_twins_give_the_same_contexts_and_states() -> None:
    messages, _ = long_conversation(24)
    config = MemoryConfig(policy=WindowPolicy(context_window=600, reply_reserve=100),
                          system_prompt="You are a support agent.")
    sync = ConversationMemory.from_config("s", config, store=InMemoryStore())
    contexts = []
    for m in messages:
        sync.add_message(m)
        contexts.append(sync.context())
    sync.compact()

    async def run() -> tuple[list[list[dict]], ConversationMemory]:
        mem = ConversationMemory.from_config("s", config, store=InMemoryStore())
        out = []
        for m in messages:
            await mem.aadd_message(m)
            out.append(await mem.acontext())
        await mem.acompact()
        return out, mem

    acontexts, amem = asyncio.run(run())
    assert acontexts == contexts
    assert amem.state.model_dump() == sync.state.model_dump()
    assert [r.last_turn for r in amem.compactions()] == [r.last_turn for r in sync.compactions()]


def test_a_config_is_frozen_validated_and_shared() -> None:
    from dataclasses import FrozenInstanceError

    from convstate import ConfigError

    config = MemoryConfig(policy=WindowPolicy(context_window=1000, reply_reserve=200))
    assert config.state_budget == int(800 * 0.85)
    assert config.strict is True  # CONVSTATE_STRICT=1 (conftest), read when not given
    assert MemoryConfig(strict=False).strict is False
    with pytest.raises(FrozenInstanceError):
        config.lang = "zh"  # type: ignore[misc]
    with pytest.raises(ConfigError, match="state_format"):
        MemoryConfig(state_format="yaml")
    a = ConversationMemory.from_config("a", config, store=InMemoryStore())
    b = ConversationMemory.from_config("b", config, store=InMemoryStore())
    assert a.config is b.config and a.policy.budget == 800
    kw = ConversationMemory("c", store=InMemoryStore(), context_window=1000, reply_reserve=200)
    assert kw.config == config
