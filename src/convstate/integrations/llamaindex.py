"""LlamaIndex: a memory for chat engines and agents (``pip install convstate[llamaindex]``).

    memory = ConvstateMemory.from_defaults("order-889", store="support.db",
                                           context_window=8192, system_prompt=PROMPT)
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory, system_prompt=PROMPT)

``put`` stores each message as a turn; ``get`` returns convstate's context — the state
block as a system message, then the raw turns that fit — in place of LlamaIndex's
token-limited buffer, so the turns that leave the window are folded into the state
instead of dropped. Give the memory the engine's system prompt, so its budget counts it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import BaseMemory
from pydantic import ConfigDict

from ..errors import ConfigError
from ..memory import ConversationMemory
from ..tokens import message_tokens
from ..turns import content_text
from ..window import MIN_WINDOW, TRIGGER_RATIO, default_reserve

# LlamaIndex Memory's arguments with no place here, and what to use instead
_STORE = "pass store= (a SQLite path, a postgresql:// DSN or a convstate Store)"
_BLOCKS = ("convstate's state is the memory block: it holds what the turns that left the "
           "window said (state_model= extends it)")
_REFUSED = {"chat_store": _STORE, "table_name": _STORE, "async_database_uri": _STORE,
            "async_engine": _STORE, "db_schema": _STORE, "memory_blocks": _BLOCKS,
            "memory_blocks_template": _BLOCKS, "insert_method": _BLOCKS,
            **dict.fromkeys(("image_token_size_estimate", "audio_token_size_estimate",
                             "video_token_size_estimate"),
                            "pass token_counter= to count content parts otherwise")}


class FunctionCounter:
    """A token counter from a LlamaIndex ``tokenizer_fn`` (text -> tokens), with OpenAI's
    per-message overhead."""

    def __init__(self, tokenize: Callable[[str], list[Any]]):
        self.tokenize = tokenize

    def count(self, text: str) -> int:
        """Tokens of a plain text."""
        return len(self.tokenize(text))

    def message(self, msg: Mapping[str, Any]) -> int:
        """Tokens of one chat message, its overhead included."""
        return message_tokens(self, msg)


class ConvstateMemory(BaseMemory):
    """A LlamaIndex ``BaseMemory`` backed by a ``ConversationMemory``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    memory: ConversationMemory

    @classmethod
    def class_name(cls) -> str:
        return "ConvstateMemory"

    @classmethod
    def from_defaults(cls, session_id: str | None = None,
                      chat_history: list[ChatMessage] | None = None,
                      token_limit: int | None = None,
                      tokenizer_fn: Callable[[str], list[Any]] | None = None,
                      chat_history_token_ratio: float | None = None,
                      token_flush_size: int | None = None,
                      **options: Any) -> ConvstateMemory:
        """A memory of ``session_id`` (default ``"default"``), taking LlamaIndex
        ``Memory.from_defaults``' arguments as convstate reads them: ``token_limit`` is the
        most the messages of a call may take (the engine's system prompt included, as
        LlamaIndex counts it), ``tokenizer_fn`` counts them, ``chat_history`` is stored
        first, raw turns are folded when they pass ``chat_history_token_ratio`` of the
        limit, ``token_flush_size`` tokens at least. The other options are
        ``ConversationMemory``'s; LlamaIndex's own storage and memory blocks are refused
        with what to use instead."""
        for name, instead in _REFUSED.items():
            if name in options:
                raise ConfigError(name, f"not used by convstate's memory: {instead}")
        if token_limit is not None:
            if not isinstance(token_limit, int) or isinstance(token_limit, bool) or \
                    token_limit < MIN_WINDOW:
                raise ConfigError("token_limit", f"expected at least {MIN_WINDOW} tokens, "
                                  f"got {token_limit!r}")
            if "context_window" in options:
                raise ConfigError("token_limit", "give token_limit or context_window, not "
                                  "both")
            reserve = options.get("reply_reserve") or 0
            options.update(context_window=token_limit + reserve, reply_reserve=reserve)
        if tokenizer_fn is not None:
            options["token_counter"] = FunctionCounter(tokenizer_fn)
        if chat_history_token_ratio is not None:
            options["trigger_ratio"] = chat_history_token_ratio
        if token_flush_size is not None:
            window = options.get("context_window", 8192)
            reserve = options.get("reply_reserve")
            limit = window - (default_reserve(window) if reserve is None else reserve)
            trigger = options.get("trigger_ratio", TRIGGER_RATIO)
            if not isinstance(token_flush_size, int) or token_flush_size <= 0 or \
                    token_flush_size >= trigger * limit:
                raise ConfigError("token_flush_size", f"expected a positive number of tokens "
                                  f"under the fold trigger ({int(trigger * limit)}), got "
                                  f"{token_flush_size!r}")
            options["target_ratio"] = trigger - token_flush_size / limit
        memory = cls(memory=ConversationMemory(session_id or "default", **options))
        if chat_history:
            memory.set(chat_history)
        return memory

    @property
    def tokenizer_fn(self) -> Callable[[str], list[int]]:
        """The memory's counter as LlamaIndex's chat engines call it (a text's tokens, as
        a list): an engine counts its own prompt with it and says so to ``get``."""
        count = self.memory.counter.count
        return lambda text: [0] * count(text)

    def get(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
        """The context, without the memory's own system prompt (the engine sends it). An
        engine that sends a prompt of its own (``initial_token_count`` tokens) to a
        memory that does not count one is refused: the calls could pass the budget."""
        if kwargs.get("initial_token_count") and self.memory.system_prompt is None:
            raise ConfigError("system_prompt", f"the engine sends {kwargs['initial_token_count']}"
                              " tokens of prompt that this memory does not count: give the "
                              "memory the engine's system_prompt (from_defaults(..., "
                              "system_prompt=...))")
        context = self.memory.context()
        if self.memory.system_prompt is not None and context and \
                context[0]["role"] == "system":
            context = context[1:]
        return [to_llamaindex(m) for m in context]

    def get_all(self) -> list[ChatMessage]:
        """Every stored turn, folded or not."""
        return [to_llamaindex(t.message()) for t in self.memory.history()]

    def put(self, message: ChatMessage) -> None:
        """Store one message as a turn."""
        self.memory.add_message(from_llamaindex(message))

    def set(self, messages: list[ChatMessage]) -> None:
        """Store the messages the memory does not hold yet. The history is append-only:
        a list that does not start with the stored turns is refused."""
        stored = self.get_all()
        if [(m.role, m.content) for m in messages[:len(stored)]] != \
                [(m.role, m.content) for m in stored]:
            raise ConfigError("messages", "a new history must start with the stored turns "
                              "(the store is append-only; reset() erases the session)")
        self.memory.add_messages([from_llamaindex(m) for m in messages[len(stored):]])

    def reset(self) -> None:
        """Erase the session from the store, as a privacy request."""
        self.memory.erase()


def to_llamaindex(msg: dict[str, Any]) -> ChatMessage:
    """An OpenAI-format message as a LlamaIndex ``ChatMessage`` (tool calls and the
    answered call's id in ``additional_kwargs``, as LlamaIndex's OpenAI LLM keeps them)."""
    extra: dict[str, Any] = {k: msg[k] for k in ("tool_calls", "tool_call_id", "name")
                             if msg.get(k) is not None}
    return ChatMessage(role=MessageRole(msg["role"]), content=content_text(msg.get("content")),
                       additional_kwargs=extra)


def from_llamaindex(message: ChatMessage) -> dict[str, Any]:
    """A LlamaIndex ``ChatMessage`` as an OpenAI-format message."""
    role = message.role.value if isinstance(message.role, MessageRole) else str(message.role)
    if role in ("model", "chatbot"):
        role = "assistant"
    out: dict[str, Any] = {"role": role, "content": message.content or ""}
    extra = message.additional_kwargs or {}
    calls = extra.get("tool_calls")
    if calls:
        out["tool_calls"] = [c if isinstance(c, dict) else json.loads(c.model_dump_json())
                             for c in calls]
    for key in ("tool_call_id", "name"):
        if extra.get(key) is not None:
            out[key] = extra[key]
    return out
