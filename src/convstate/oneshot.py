"""One call, no object: fit a whole message history into a window, for handlers that
keep their own history (serverless functions, a bot that stores its chats elsewhere).

    context, state = compress(history, window=8192)            # first call
    context, state = compress(history, window=8192, state=state)  # every later call

The history is the caller's; the state (JSON-ready) carries the fold's watermark, so
turns folded once are never folded again, and a call with nothing due folds nothing.
It is the fold of ``ConversationMemory`` on a throwaway in-memory store: same windows,
same invariants, same state for the same turns.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .errors import ConfigError
from .extract import Extractor
from .memory import ConversationMemory
from .state import ConversationState
from .store.base import CompactionRecord
from .store.sqlite import InMemoryStore
from .tokens import DEFAULT_COUNT
from .turns import DEFAULT_MAX_TURN_CHARS, check_message

SESSION = "compress"


def compress(messages: Sequence[Any], *, window: int = 8192, model: str = DEFAULT_COUNT,
             state: ConversationState | dict[str, Any] | str | None = None,
             extractor: Extractor | None = None,
             state_model: type[ConversationState] = ConversationState,
             **options: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``(context, state)``: the messages to send (within ``window``) and the new state as
    a JSON-ready dict, to pass back with the next call.

    ``messages`` is the whole history, oldest first; a leading system message is the
    system prompt (keep it first in every call: turns are numbered after it). ``state``
    is what the previous call returned (a dict, its JSON, or a state). Other keyword
    arguments are ``ConversationMemory``'s (``keep_recent_turns``, ``token_counter``...).
    """
    history = list(messages)
    system = None
    if history and isinstance(history[0], dict) and history[0].get("role") == "system" \
            and isinstance(history[0].get("content"), str):
        system, history = history[0]["content"], history[1:]
    limit = options.get("max_turn_chars", DEFAULT_MAX_TURN_CHARS)
    turns = [check_message(m, limit) for m in history]  # all checked before anything
    store = InMemoryStore()
    for fields in turns:
        store.append(SESSION, fields)
    if state is not None:
        given = _as_state(state, state_model)
        if given.folded_through >= len(turns):
            raise ConfigError("state", f"folded through turn #{given.folded_through} but "
                              f"only {len(turns)} messages (after the system prompt) are "
                              "given: pass the whole history, in the same order")
        if given.version:
            store.save_state(SESSION, given.model_dump(mode="json"), 0, CompactionRecord(
                session_id=SESSION, notes="the caller's state"))
    with ConversationMemory(SESSION, store=store, context_window=window, model=model,
                            system_prompt=system, extractor=extractor,
                            state_model=state_model, **options) as mem:
        context = mem.context()
        return context, mem.state.model_dump(mode="json")


def _as_state(state: ConversationState | dict[str, Any] | str,
              model: type[ConversationState]) -> ConversationState:
    if isinstance(state, ConversationState):
        return state
    try:
        data = json.loads(state) if isinstance(state, str) else state
        return model.model_validate(data)
    except (ValueError, TypeError, RecursionError) as exc:
        raise ConfigError("state", f"not a state that compress() returned: "
                          f"{str(exc).splitlines()[0]}") from None
