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
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import BaseMemory
from pydantic import ConfigDict

from ..errors import ConfigError
from ..memory import ConversationMemory
from ..turns import content_text


class ConvstateMemory(BaseMemory):
    """A LlamaIndex ``BaseMemory`` backed by a ``ConversationMemory``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    memory: ConversationMemory

    @classmethod
    def class_name(cls) -> str:
        return "ConvstateMemory"

    @classmethod
    def from_defaults(cls, session_id: str = "default",
                      **options: Any) -> ConvstateMemory:
        """A memory of ``session_id``; the options are ``ConversationMemory``'s."""
        return cls(memory=ConversationMemory(session_id, **options))

    def get(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
        """The context, without the memory's own system prompt (the engine sends it)."""
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
