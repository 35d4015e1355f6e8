"""A memory's context as LangChain messages (needs ``langchain-core``): what the chat
history and the agents middleware both hand LangChain."""

from __future__ import annotations

from typing import Any

from ..adapters import to_langchain
from ..memory import ConversationMemory


def model_messages(mem: ConversationMemory, context: list[dict[str, Any]]) -> list[Any]:
    """The context as LangChain messages, without the memory's own system prompt (the
    request carries the caller's)."""
    if mem.system_prompt is not None and context and context[0]["role"] == "system":
        context = context[1:]
    return list(to_langchain(context))
