"""LangChain: a middleware for ``langchain.agents.create_agent`` and a chat message history
for ``RunnableWithMessageHistory`` (``pip install convstate[langchain]``).

    agent = create_agent(model, tools, system_prompt=PROMPT,
                         middleware=[ConvstateMiddleware(lambda thread: ConversationMemory(
                             thread, store="support.db", context_window=8192,
                             system_prompt=PROMPT))])
    agent.invoke({"messages": [...]}, {"configurable": {"thread_id": "order-889"}})

The agent keeps its own message list; before each model call the middleware stores the
messages the memory has not seen yet and gives the model convstate's context instead:
the agent's system prompt untouched, the state block, the raw turns that fit. Give the
memory the same system prompt, so its budget counts it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage

from ..adapters import from_langchain, to_langchain
from ..errors import ConfigError
from ..memory import ConversationMemory

MemoryFor = Callable[[str], ConversationMemory]


class ConvstateMiddleware(AgentMiddleware):
    """Gives an agent's model convstate's context and stores the agent's turns.

    ``memory`` is one ``ConversationMemory``, or a function from a thread id (the
    ``thread_id`` of the run's config, else ``"default"``) to the memory of that thread
    (called once per thread; the middleware keeps them).
    """

    def __init__(self, memory: ConversationMemory | MemoryFor):
        super().__init__()
        self._memory_for = memory if callable(memory) and not isinstance(
            memory, ConversationMemory) else None
        self._single = memory if isinstance(memory, ConversationMemory) else None
        if self._single is None and self._memory_for is None:
            raise ConfigError("memory", "expected a ConversationMemory or a function from "
                              "a thread id to one")
        self._memories: dict[str, ConversationMemory] = {}

    def memory(self, thread_id: str | None = None) -> ConversationMemory:
        """The memory of a thread (of the running one when not given)."""
        if self._single is not None:
            return self._single
        thread = thread_id or _thread_id()
        if thread not in self._memories:
            assert self._memory_for is not None
            self._memories[thread] = self._memory_for(thread)
        return self._memories[thread]

    def wrap_model_call(self, request: ModelRequest,
                        handler: Callable[[ModelRequest], ModelResponse]
                        ) -> Any:
        mem = self.memory()
        mem.add_messages(_unseen(mem, request.messages))
        return handler(request.override(messages=_model_messages(mem, mem.context())))

    async def awrap_model_call(
            self, request: ModelRequest,
            handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        mem = self.memory()
        await mem.aadd_messages(_unseen(mem, request.messages))
        return await handler(request.override(
            messages=_model_messages(mem, await mem.acontext())))

    def after_agent(self, state: Any, runtime: Any) -> None:
        """Store the agent's last answer (no model call follows it)."""
        mem = self.memory()
        mem.add_messages(_unseen(mem, state["messages"]))
        return None


def _thread_id() -> str:
    try:
        from langgraph.config import get_config
        thread = get_config().get("configurable", {}).get("thread_id")
    except RuntimeError:  # called outside a run
        thread = None
    return str(thread) if thread is not None else "default"


def _unseen(mem: ConversationMemory, messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """The agent's messages the memory has not stored yet (the list only grows)."""
    stored = mem.store.turn_count(mem.session_id)
    if stored > len(messages):
        raise ConfigError("memory", f"session {mem.session_id!r} holds {stored} turns but "
                          f"the agent's thread has {len(messages)} messages: give each "
                          "thread its own session")
    return from_langchain(list(messages[stored:])) if stored < len(messages) else []


def _model_messages(mem: ConversationMemory, context: list[dict[str, Any]]) -> list[Any]:
    """The context as LangChain messages, without the memory's own system prompt (the
    request carries the agent's)."""
    if mem.system_prompt is not None and context and context[0]["role"] == "system":
        context = context[1:]
    return list(to_langchain(context))


class ConvstateChatHistory(BaseChatMessageHistory):
    """A ``BaseChatMessageHistory`` for ``RunnableWithMessageHistory``: added messages are
    stored as turns; ``messages`` is convstate's context (the state block as a system
    message, then the raw turns that fit), not the whole history."""

    def __init__(self, memory: ConversationMemory):
        self.memory = memory

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The context, as LangChain messages."""
        return _model_messages(self.memory, self.memory.context())

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Store the messages as turns."""
        self.memory.add_messages(from_langchain(list(messages)))

    def clear(self) -> None:
        """Erase the session from the store (turns, states, log), as a privacy request."""
        self.memory.erase()
