"""Bad input raises one clear convstate.errors exception naming the field; nothing is written."""

from __future__ import annotations

import pytest

from convstate import (
    ConfigError,
    ConversationMemory,
    ConvStateError,
    InMemoryStore,
    InvalidMessageError,
    SQLiteStore,
    TurnTooLargeError,
)
from convstate.turns import MAX_NESTING


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


def nested(levels: int, kind: type = dict) -> object:
    """A value whose dicts (or lists) nest ``levels`` deep."""
    value: object = {} if kind is dict else []
    for _ in range(levels - 1):
        value = {"a": value} if kind is dict else [value]
    return value


@pytest.mark.parametrize("levels, kind", [(250, dict), (250, list), (100_000, list)])
def test_content_nested_too_deep_is_refused_naming_the_part(mem, levels, kind) -> None:
    part = {"type": "input_data", "data": nested(levels, kind)}
    with pytest.raises(InvalidMessageError) as err:
        mem.add_message({"role": "user", "content": [{"type": "text", "text": "hi"}, part]})
    assert err.value.field == "content[1]" and f"deeper than {MAX_NESTING}" in str(err.value)
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"},
            "extra": nested(levels, kind)}
    with pytest.raises(InvalidMessageError) as err:
        mem.add_message({"role": "assistant", "content": None, "tool_calls": [call]})
    assert err.value.field == "tool_calls[0]"
    assert len(mem.history()) == 1


def test_content_as_deep_as_allowed_is_stored_and_served(tmp_path) -> None:
    store = SQLiteStore(tmp_path / "deep.db")
    mem = ConversationMemory("s", store=store, context_window=1000)
    part = {"type": "input_data", "data": nested(MAX_NESTING - 1)}  # the part is a level
    mem.add_message({"role": "user", "content": [{"type": "text", "text": "hi"}, part]})
    mem.add("assistant", "ok")
    assert mem.context()[-2]["content"][1] == part
    mem.compact(keep_recent_turns=0)
    again = ConversationMemory("s", store=SQLiteStore(tmp_path / "deep.db"), context_window=1000)
    assert [t.model_dump_json() for t in again.history()]  # every turn serializes
    assert again.state.folded_through == 1
