"""The LangChain agents middleware (``pip install convstate[langchain]``): imported by
``convstate.integrations.langchain`` only when ``ConvstateMiddleware`` is asked for, so
the chat message history there needs ``langchain-core`` alone.

Which of the agent's messages are stored is told by message id, not by position: the
agent's list may start anew (no checkpointer, a restart with ``InMemorySaver``) or be cut
(this middleware keeps it bounded), and the memory's session outlives both. The ids of
the stored messages still in the agent's list travel in the agent's own state
(``convstate_stored``), so a durable checkpointer keeps them too.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain.agents.middleware.types import PrivateStateAttr
from langchain_core.messages import BaseMessage, HumanMessage, RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from ..adapters import from_langchain
from ..errors import ConfigError
from ..memory import ConversationMemory
from .messages import model_messages

MemoryFor = Callable[[str], ConversationMemory]
MAX_THREADS = 128  # memories kept open at once: each holds a store (file descriptors)


class ConvstateState(AgentState[Any]):
    """The agent's state, with the ids of its messages the memory has stored."""

    convstate_stored: NotRequired[Annotated[list[str], PrivateStateAttr]]


class ConvstateMiddleware(AgentMiddleware[ConvstateState, Any, Any]):
    """Gives an agent's model convstate's context and stores the agent's turns, once each.

    ``memory`` is one ``ConversationMemory``, or a function from a thread id (the
    ``thread_id`` of the run's config, else ``"default"``) to the memory of that thread.
    The middleware keeps at most ``max_threads`` of those open, closing the least
    recently used one beyond that (a later run of its thread opens it again).

    Before each model call the messages the memory has not stored yet are stored, and the
    agent's own message list is cut to the current exchange (from the newest user
    message on), as ``SummarizationMiddleware`` cuts it: the store holds the
    conversation, the checkpointer only what the run needs. Works with a checkpointer or
    without one, and after a restart (a new ``InMemorySaver`` over the same store).
    """

    state_schema = ConvstateState

    def __init__(self, memory: ConversationMemory | MemoryFor, max_threads: int = MAX_THREADS):
        super().__init__()
        self._single = memory if isinstance(memory, ConversationMemory) else None
        if self._single is None and not callable(memory):
            raise ConfigError("memory", "expected a ConversationMemory or a function from "
                              "a thread id to one")
        if not isinstance(max_threads, int) or max_threads < 1:
            raise ConfigError("max_threads", f"expected a positive number, got {max_threads!r}")
        self._memories = None if self._single is not None else \
            Memories(memory, max_threads)  # type: ignore[arg-type]

    def memory(self, thread_id: str | None = None) -> ConversationMemory:
        """The memory of a thread (of the running one when not given). A thread's memory
        stays open until ``max_threads`` others were used after it."""
        with self._using(thread_id) as mem:
            return mem

    @contextmanager
    def _using(self, thread_id: str | None = None) -> Iterator[ConversationMemory]:
        if self._single is not None:
            yield self._single
            return
        assert self._memories is not None
        with self._memories.using(thread_id or _thread_id()) as mem:
            yield mem

    def before_model(self, state: ConvstateState, runtime: Any) -> dict[str, Any] | None:
        """Store the unseen messages; cut the agent's list to the current exchange."""
        with self._using() as mem:
            new, update = _split(state)
            mem.add_messages(from_langchain(new))
        return update

    async def abefore_model(self, state: ConvstateState, runtime: Any) -> dict[str, Any] | None:
        with self._using() as mem:
            new, update = _split(state)
            await mem.aadd_messages(from_langchain(new))
        return update

    def wrap_model_call(self, request: ModelRequest,
                        handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        with self._using() as mem:
            messages = model_messages(mem, mem.context())
        return handler(request.override(messages=messages))

    async def awrap_model_call(
            self, request: ModelRequest,
            handler: Callable[[ModelRequest], Awaitable[ModelResponse]]) -> Any:
        with self._using() as mem:
            messages = model_messages(mem, await mem.acontext())
        return await handler(request.override(messages=messages))

    def after_agent(self, state: ConvstateState, runtime: Any) -> dict[str, Any] | None:
        """Store the agent's last answer (no model call follows it)."""
        with self._using() as mem:
            new, update = _split(state, cut=False)
            mem.add_messages(from_langchain(new))
        return update

    async def aafter_agent(self, state: ConvstateState, runtime: Any) -> dict[str, Any] | None:
        with self._using() as mem:
            new, update = _split(state, cut=False)
            await mem.aadd_messages(from_langchain(new))
        return update


def _split(state: ConvstateState, cut: bool = True
           ) -> tuple[list[BaseMessage], dict[str, Any] | None]:
    """The messages of the agent's list the memory has not stored (by id), and the state
    update once they are: their ids noted, and with ``cut`` the list from its newest
    user message on (a message without an id gets one, as the list's reducer would)."""
    messages: Sequence[BaseMessage] = state["messages"]
    stored = set(state.get("convstate_stored") or ())
    unnamed = False
    for m in messages:
        if m.id is None:
            m.id, unnamed = str(uuid.uuid4()), True
    new = [m for m in messages if m.id not in stored]
    start = next((k for k in range(len(messages) - 1, -1, -1)
                  if isinstance(messages[k], HumanMessage)), 0) if cut else 0
    kept = list(messages[start:])
    update: dict[str, Any] = {"convstate_stored": [m.id for m in kept]}
    if start or unnamed:
        update["messages"] = [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]
    elif not new and update["convstate_stored"] == state.get("convstate_stored"):
        return new, None
    return new, update


def _thread_id() -> str:
    try:
        from langgraph.config import get_config
        thread = get_config().get("configurable", {}).get("thread_id")
    except RuntimeError:  # called outside a run
        thread = None
    return str(thread) if thread is not None else "default"


class Memories:
    """The open memories of threads, the ``limit`` most recently used: one used past that
    is closed as soon as nothing is using it (its store's file or connections go)."""

    def __init__(self, factory: MemoryFor, limit: int):
        self._factory, self._limit = factory, limit
        self._open: OrderedDict[str, ConversationMemory] = OrderedDict()
        self._users: dict[int, int] = {}  # id(memory) -> uses under way
        self._lock = threading.Lock()

    @contextmanager
    def using(self, thread: str) -> Iterator[ConversationMemory]:
        """The thread's memory, opened if need be, not closed while in use."""
        with self._lock:
            mem = self._open.get(thread)
            if mem is None:
                mem = self._open[thread] = self._factory(thread)
            self._open.move_to_end(thread)
            self._users[id(mem)] = self._users.get(id(mem), 0) + 1
            idle = self._evicted()
        _close(idle)
        try:
            yield mem
        finally:
            with self._lock:
                left = self._users[id(mem)] - 1
                if left:
                    self._users[id(mem)] = left
                else:
                    del self._users[id(mem)]
                idle = self._evicted()
                if not left and all(m is not mem for m in self._open.values()):
                    idle.append(mem)  # let go while it was in use
            _close(idle)

    def _evicted(self) -> list[ConversationMemory]:
        """Take the least recently used memories past the limit out; those not in use
        are returned, to be closed (the others close when their last use ends)."""
        idle = []
        while len(self._open) > self._limit:
            _, mem = self._open.popitem(last=False)
            if id(mem) not in self._users:
                idle.append(mem)
        return idle

    def __len__(self) -> int:
        return len(self._open)


def _close(memories: list[ConversationMemory]) -> None:
    for mem in memories:
        mem.close()
