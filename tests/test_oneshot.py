"""compress(): one call, no object — the fold of ConversationMemory for handlers that keep
their own history and pass the returned state back."""

from __future__ import annotations

import json

import pytest
from conftest import conversation

from convstate import ConfigError, ConversationMemory, InMemoryStore, compress
from convstate.cli import load_demo


def test_a_200_turn_loop_ends_with_the_memorys_state() -> None:
    system = {"role": "system", "content": load_demo("zh")["system_prompt"]}
    history, state = [system], None
    mem = ConversationMemory("same", store=InMemoryStore(), context_window=1200,
                             system_prompt=system["content"])
    for m in conversation(200):
        history.append(m)
        context, state = compress(history, window=1200, state=state)
        json.dumps(state)  # JSON-ready, as a handler stores it
        mem.add_message(m)
        assert context == mem.context()
        assert mem.tokens(context) <= mem.policy.budget
        assert context[0] == system  # the system prompt stays first, untouched
    assert state == mem.state.model_dump(mode="json") and state["version"] >= 5


def test_the_same_messages_twice_fold_nothing_twice() -> None:
    history = [m for m in conversation(60)]
    _, first = compress(history, window=600)
    assert first["version"] >= 1
    context, again = compress(history, window=600, state=json.dumps(first))
    assert again == first  # nothing was due: no fold, no new version
    _, later = compress(history + conversation(2), window=600, state=first)
    assert later["folded_through"] >= first["folded_through"]
    assert later["version"] in (first["version"], first["version"] + 1)


def test_a_state_that_does_not_match_the_history_is_refused() -> None:
    history = conversation(60)
    _, state = compress(history, window=600)
    with pytest.raises(ConfigError, match="whole history") as err:
        compress(history[:5], window=600, state=state)
    assert err.value.field == "state"
    with pytest.raises(ConfigError) as err:
        compress(history, window=600, state="{not json")
    assert err.value.field == "state"
