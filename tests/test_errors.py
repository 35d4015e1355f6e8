"""Bad input raises one clear convstate.errors exception naming the field; nothing is written."""

from __future__ import annotations

import pytest

from convstate import (
    ConfigError,
    ConversationMemory,
    ConvStateError,
    InMemoryStore,
    InvalidMessageError,
    TurnTooLargeError,
)


@pytest.fixture
def mem() -> ConversationMemory:
    m = ConversationMemory("s", store=InMemoryStore(), context_window=1000, max_turn_chars=1000)
    m.add("user", "hello")
    return m


@pytest.mark.parametrize("message, field", [
    ({"content": "no role"}, "role"),
    ({"role": "boss", "content": "x"}, "role"),
    ({"role": "user", "content": 42}, "content"),
    ({"role": "user", "content": []}, "content"),
    ({"role": "user", "content": [{"text": "x"}]}, "content[0]"),
    ({"role": "user", "content": [{"type": "text"}]}, "content[0].text"),
    ({"role": "user"}, "content"),
    ({"role": "user", "content": "x", "colour": "red"}, "colour"),
    ({"role": "tool", "content": "result"}, "tool_call_id"),
    ({"role": "user", "content": "x", "tool_calls": []}, "tool_calls"),
    ({"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "f"}}]},
     "tool_calls[0].id"),
    ({"role": "user", "content": "x", "name": 5}, "name"),
    ({"role": "user", "content": "x" * 1001}, "content"),
    ("just a string", "message"),
])
def test_bad_messages_raise_and_write_nothing(mem, message, field) -> None:
    with pytest.raises(InvalidMessageError) as err:
        mem.add_message(message)
    assert err.value.field == field
    assert field in str(err.value)
    assert isinstance(err.value, ConvStateError)
    assert len(mem.history()) == 1


def test_oversized_turn_has_its_own_type(mem) -> None:
    with pytest.raises(TurnTooLargeError):
        mem.add("user", "x" * 1001)


def test_a_batch_with_one_bad_message_writes_none(mem) -> None:
    with pytest.raises(InvalidMessageError):
        mem.add_messages([{"role": "user", "content": "ok"}, {"role": "nope", "content": "x"}])
    assert len(mem.history()) == 1


@pytest.mark.parametrize("kwargs, field", [
    ({"context_window": -1}, "context_window"),
    ({"context_window": 10}, "context_window"),
    ({"context_window": "big"}, "context_window"),
    ({"keep_recent_turns": -2}, "keep_recent_turns"),
    ({"trigger_ratio": 0.05}, "trigger_ratio"),
    ({"session_id": ""}, "session_id"),
    ({"state_format": "yaml"}, "state_format"),
    ({"lang": "fr"}, "lang"),
    ({"system_prompt": "很长的系统提示。" * 100, "context_window": 1000}, "system_prompt"),
    ({"state_budget": 0}, "state_budget"),
])
def test_bad_settings_raise_config_errors(kwargs, field) -> None:
    with pytest.raises(ConfigError) as err:
        ConversationMemory(**{"session_id": "s", "store": InMemoryStore(), **kwargs})
    assert err.value.field == field
