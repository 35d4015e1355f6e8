"""LangChain: a middleware for ``langchain.agents.create_agent`` (``pip install
convstate[langchain]``), and a chat message history for ``RunnableWithMessageHistory``
(``langchain-core`` alone).

    agent = create_agent(model, tools, system_prompt=PROMPT, checkpointer=InMemorySaver(),
                         middleware=[ConvstateMiddleware(lambda thread: ConversationMemory(
                             thread, store="support.db", context_window=8192,
                             system_prompt=PROMPT))])
    agent.invoke({"messages": [...]}, {"configurable": {"thread_id": "order-889"}})

Before each model call the middleware stores the messages the memory has not seen yet
(told by message id) and gives the model convstate's context instead of the agent's list:
the agent's system prompt untouched, the state block, the raw turns that fit. The
agent's own list is cut to the current exchange, so a checkpointer does not keep a second
copy of the conversation. Give the memory the same system prompt, so its budget counts it.

    chain = ConvstateRunnableWithMessageHistory(
        prompt | model, lambda session: ConvstateChatHistory(ConversationMemory(
            session, store="support.db", context_window=8192, system_prompt=PROMPT)),
        input_messages_key="question", history_messages_key="history")

``ConvstateRunnableWithMessageHistory`` takes ``RunnableWithMessageHistory``'s arguments
and stores the input before it asks for the context, so the context counts it: no call
passes the budget. LangChain's own class reads the history before it sees the input, so
with it a call can pass the budget by the input's size.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.history import RunnableWithMessageHistory

from ..adapters import from_langchain
from ..memory import ConversationMemory
from .messages import model_messages

if TYPE_CHECKING:
    from .langchain_middleware import ConvstateMiddleware as ConvstateMiddleware

__all__ = ["ConvstateChatHistory", "ConvstateMiddleware", "ConvstateRunnableWithMessageHistory"]


class ConvstateChatHistory(BaseChatMessageHistory):
    """A ``BaseChatMessageHistory`` for ``RunnableWithMessageHistory``: added messages are
    stored as turns; ``messages`` is convstate's context (the state block as a system
    message, then the raw turns that fit), not the whole history."""

    def __init__(self, memory: ConversationMemory):
        self.memory = memory

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The context, as LangChain messages."""
        return model_messages(self.memory, self.memory.context())

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Store the messages as turns."""
        self.memory.add_messages(from_langchain(list(messages)))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Store the messages as turns."""
        await self.memory.aadd_messages(from_langchain(list(messages)))

    def clear(self) -> None:
        """Erase the session from the store (turns, states, log), as a privacy request."""
        self.memory.erase()


class ConvstateRunnableWithMessageHistory(RunnableWithMessageHistory):
    """``RunnableWithMessageHistory`` that counts the input: with a
    ``ConvstateChatHistory`` the input is stored first and the history is the context
    that ends with it (less the input itself, which the runnable is given as usual), so
    history and input together stay within the memory's budget. Any other history is
    served as LangChain's class serves it."""

    def _enter_history(self, value: Any, config: RunnableConfig) -> list[BaseMessage]:
        hist = config["configurable"]["message_history"]
        if not isinstance(hist, ConvstateChatHistory):
            return super()._enter_history(value, config)
        given = self._input(value)
        hist.add_messages(given)
        return self._history(hist.messages, given)

    async def _aenter_history(self, value: Any, config: RunnableConfig) -> list[BaseMessage]:
        hist = config["configurable"]["message_history"]
        if not isinstance(hist, ConvstateChatHistory):
            return await super()._aenter_history(value, config)
        given = self._input(value)
        await hist.aadd_messages(given)
        mem = hist.memory
        return self._history(model_messages(mem, await mem.acontext()), given)

    def _exit_history(self, run: Any, config: RunnableConfig) -> None:
        hist = config["configurable"]["message_history"]
        if not isinstance(hist, ConvstateChatHistory):
            return super()._exit_history(run, config)
        hist.add_messages(self._output(run))  # the input is stored already

    async def _aexit_history(self, run: Any, config: RunnableConfig) -> None:
        hist = config["configurable"]["message_history"]
        if not isinstance(hist, ConvstateChatHistory):
            return await super()._aexit_history(run, config)
        await hist.aadd_messages(self._output(run))

    def _input(self, value: Any) -> list[BaseMessage]:
        return list(self._get_input_messages(
            value[self.input_messages_key] if self.input_messages_key else value))

    def _output(self, run: Any) -> list[BaseMessage]:
        from langchain_core.load import load

        with warnings.catch_warnings():  # LangChain's own class reads them so (a beta API)
            warnings.filterwarnings("ignore", message="The function `load` is in beta")
            outputs = load(run.outputs, allowed_objects="messages")
        return list(self._get_output_messages(outputs))

    def _history(self, context: list[BaseMessage], given: list[BaseMessage]
                 ) -> list[BaseMessage]:
        """The context for the runnable: with a history key, less the input at its end
        (the prompt puts the input after the history); else all of it, input included."""
        if not self.history_messages_key:
            return context
        n = len(given)
        return context[:-n] if n and len(context) >= n else context


def __getattr__(name: str) -> Any:
    if name == "ConvstateMiddleware":  # the agents package loads only when asked for
        try:
            from .langchain_middleware import ConvstateMiddleware
        except ImportError as exc:
            raise ImportError(f"ConvstateMiddleware needs LangChain's agents: pip install "
                              f'"convstate[langchain]" ({exc})') from None
        return ConvstateMiddleware
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
