"""LangChain and LlamaIndex, with the real packages: a 200-turn conversation through each,
every model call within the window, and the state a plain ConversationMemory gives for
the same turns at the same calls."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from convstate import ConversationMemory, InMemoryStore, from_langchain

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
PROMPT = "You are the after-sales assistant of ShopRight. Never offer an exchange."
WINDOW = 400


def user_turns(n: int) -> list[str]:
    """n user turns: orders to look up (a tool call each), and plain talk."""
    talk = ["I don't want an exchange.", "My phone is 1391234{:04d}.", "It must be done today.",
            "Send it to user{}@example.com please."]
    return [f"Where is my order SR-20240315-{i:03d}?" if i % 2 == 0
            else talk[i // 2 % 4].format(i) for i in range(n)]


def replay(turns: list[dict], calls: list[int]) -> ConversationMemory:
    """A plain memory given the same turns, asked for a context at the same points."""
    mem = ConversationMemory("same", store=InMemoryStore(), context_window=WINDOW,
                             system_prompt=PROMPT)
    done = 0
    for upto in calls:
        mem.add_messages(turns[done:upto])
        done = upto
        mem.context()
    mem.add_messages(turns[done:])
    return mem


def test_a_langchain_agent_with_a_tool_runs_200_turns_within_the_window() -> None:
    pytest.importorskip("langchain.agents")
    from langchain.agents import create_agent
    from langchain_agent import ScriptedModel, lookup_order
    from langgraph.checkpoint.memory import InMemorySaver

    from convstate.integrations.langchain import ConvstateMiddleware

    model = ScriptedModel()
    mw = ConvstateMiddleware(lambda thread: ConversationMemory(
        thread, store=InMemoryStore(), context_window=WINDOW, system_prompt=PROMPT))
    agent = create_agent(model, [lookup_order], system_prompt=PROMPT, middleware=[mw],
                         checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    calls = []
    for text in user_turns(67):  # 34 with a tool call (4 turns), 33 without (2): 202
        agent.invoke({"messages": [{"role": "user", "content": text}]}, config)
    mem = mw.memory("t1")
    turns = [t.message() for t in mem.history()]
    assert len(turns) >= 200 and any(t.get("tool_calls") for t in turns)
    for seen in model.seen:
        sent = from_langchain(seen)
        assert sent[0] == {"role": "system", "content": PROMPT}  # the agent's, untouched
        assert mem.tokens(sent) <= mem.policy.budget
        calls.append(_stored_before(turns, sent, calls[-1] if calls else 0))
    assert len(mem.compactions()) >= 5
    assert mem.state.model_dump() == replay(turns, calls).state.model_dump()


def _stored_before(turns: list[dict], sent: list[dict], start: int) -> int:
    """How many turns were stored when the model was sent ``sent`` (its last message is
    the newest turn then; calls come in order, so the search starts at ``start``)."""
    last = sent[-1]
    for k in range(start, len(turns)):
        t = turns[k]
        if t["role"] == last["role"] and (t.get("content") or "") == (last.get("content") or "") \
                and t.get("tool_call_id") == last.get("tool_call_id"):
            return k + 1
    raise AssertionError(f"not a stored turn: {last}")


def test_the_langchain_history_gives_the_context_and_stores_turns(tmp_path: Path) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage, HumanMessage

    from convstate.integrations.langchain import ConvstateChatHistory

    mem = ConversationMemory("h", store=str(tmp_path / "h.db"), context_window=300)
    history = ConvstateChatHistory(mem)
    for text in user_turns(30):
        history.add_messages([HumanMessage(text), AIMessage("Noted, checking it now.")])
        messages = history.messages
        assert mem.tokens(from_langchain(messages)) <= mem.policy.budget
    assert len(mem.history()) == 60 and mem.compactions()
    assert messages[0].type == "system" and "SR-20240315-0" in messages[0].content
    assert "SR-20240315-000" in mem.state.values()  # folded, not dropped
    history.clear()
    assert mem.history() == [] and history.messages == []


def test_a_llamaindex_chat_engine_runs_200_turns_within_the_window() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.chat_engine import SimpleChatEngine
    from llama_index.core.llms import MockLLM

    from convstate.integrations.llamaindex import ConvstateMemory, from_llamaindex

    class Recording(MockLLM):
        def chat(self, messages, **kwargs):
            sent.append([from_llamaindex(m) for m in messages])
            return super().chat(messages, **kwargs)

    sent: list[list[dict]] = []
    memory = ConvstateMemory.from_defaults("e1", store=InMemoryStore(), context_window=WINDOW,
                                           system_prompt=PROMPT)
    engine = SimpleChatEngine.from_defaults(llm=Recording(max_tokens=12), memory=memory,
                                            system_prompt=PROMPT)
    for text in user_turns(100):
        engine.chat(text)
    mem = memory.memory
    turns = [t.message() for t in mem.history()]
    assert len(turns) == 200 and len(mem.compactions()) >= 5
    for messages in sent:
        assert messages[0] == {"role": "system", "content": PROMPT}
        assert mem.tokens(messages) <= mem.policy.budget
    assert mem.state.model_dump() == replay(turns, list(range(1, 200, 2))).state.model_dump()
    with pytest.raises(Exception, match="append-only"):
        memory.set(memory.get_all()[1:])
    memory.set(memory.get_all())  # the same history: nothing to add
    assert len(mem.history()) == 200


@pytest.mark.parametrize("example, needs", [("langchain_agent.py", "langchain.agents"),
                                            ("llamaindex_chat.py", "llama_index.core")])
def test_the_examples_run(example: str, needs: str, tmp_path: Path) -> None:
    pytest.importorskip(needs)
    out = subprocess.run([sys.executable, str(ROOT / "examples" / example)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "order SR-20240315-889" in out.stdout and 'order_id: "SR-20240315-889"' in out.stdout


def test_the_chat_history_needs_langchain_core_only(tmp_path: Path) -> None:
    """The README's extras bring langchain-core, not the agents package: the history
    imports without it, and the middleware says what to install."""
    pytest.importorskip("langchain_core")
    code = (BLOCK_IMPORTS + "blocked = {'langchain', 'langgraph'}\n"
            "from langchain_core.messages import AIMessage, HumanMessage\n"
            "from convstate import ConversationMemory, InMemoryStore\n"
            "from convstate.integrations.langchain import ConvstateChatHistory\n"
            "h = ConvstateChatHistory(ConversationMemory('h', store=InMemoryStore()))\n"
            "h.add_messages([HumanMessage('My order is SR-1.'), AIMessage('Noted.')])\n"
            "print(len(h.messages))\n"
            "try:\n"
            "    from convstate.integrations.langchain import ConvstateMiddleware\n"
            "except ImportError as exc:\n"
            "    print('middleware:', exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "2"
    assert 'middleware: ConvstateMiddleware needs LangChain\'s agents: pip install ' \
        '"convstate[langchain]"' in out.stdout


# run first in a subprocess: the named top-level packages cannot be imported, as on a
# machine without them
BLOCK_IMPORTS = """
import sys
class _Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in blocked:
            raise ModuleNotFoundError(f'No module named {name!r}', name=name)
        return None
sys.meta_path.insert(0, _Blocker())
"""


def agent_with(middleware: object, **options: object) -> tuple[Any, Any]:
    """The example's agent (a scripted model that looks orders up) with ``middleware``,
    and its model (``model.seen``: what each call was sent)."""
    from langchain.agents import create_agent
    from langchain_agent import ScriptedModel, lookup_order

    model = ScriptedModel()
    return create_agent(model, [lookup_order], system_prompt=PROMPT, middleware=[middleware],
                        **options), model


def file_memory(db: Path) -> Callable[[str], ConversationMemory]:
    """Memories of threads, all in one SQLite file."""
    return lambda thread: ConversationMemory(thread, store=str(db), context_window=WINDOW,
                                             system_prompt=PROMPT)


def ask(agent: Any, texts: list[str], thread: str = "t1") -> list[list[Any]]:
    """Each text as a user turn of ``thread``; the messages each run returned."""
    config = {"configurable": {"thread_id": thread}}
    return [agent.invoke({"messages": [{"role": "user", "content": t}]}, config)["messages"]
            for t in texts]


def said(runs: list[list[Any]]) -> list[tuple[str, str]]:
    """(role, text) of every message the runs returned, in order, each once (by id)."""
    seen: dict[str, tuple[str, str]] = {}
    for messages in runs:
        for msg, m in zip(messages, from_langchain(messages), strict=True):
            seen.setdefault(msg.id, (m["role"], m.get("content") or ""))
    return list(seen.values())


def stored(db: Path, thread: str = "t1") -> list[tuple[str, str]]:
    """(role, text) of the thread's stored turns."""
    with ConversationMemory(thread, store=str(db)) as mem:
        return [(t.role, t.content or "") for t in mem.history()]


def test_the_middleware_without_a_checkpointer_stores_each_turn_once(tmp_path: Path) -> None:
    """No checkpointer: each run's list holds only that run's messages; the memory's
    session holds the thread, each message once (no 'give each thread its own
    session')."""
    pytest.importorskip("langchain.agents")
    from convstate.integrations.langchain import ConvstateMiddleware

    db = tmp_path / "support.db"
    agent, _ = agent_with(ConvstateMiddleware(file_memory(db)))
    runs = ask(agent, user_turns(6))
    assert stored(db) == said(runs) and len(stored(db)) == 18  # 3 looked up (4), 3 not (2)


def test_the_middleware_goes_on_after_a_restart_and_keeps_the_agents_list_bounded(
        tmp_path: Path) -> None:
    """store="support.db" and InMemorySaver, as the docstring shows: a new process (a new
    middleware, a new saver) goes on with the thread; the agent's own list keeps the
    current exchange only (the store holds the conversation, once)."""
    pytest.importorskip("langchain.agents")
    from langgraph.checkpoint.memory import InMemorySaver

    from convstate.integrations.langchain import ConvstateMiddleware

    db = tmp_path / "support.db"
    config = {"configurable": {"thread_id": "t1"}}
    texts = user_turns(40)
    first, _ = agent_with(ConvstateMiddleware(file_memory(db)), checkpointer=InMemorySaver())
    runs = ask(first, texts[:20])
    assert len(first.get_state(config).values["messages"]) <= 4  # one exchange
    mw = ConvstateMiddleware(file_memory(db))
    second, model = agent_with(mw, checkpointer=InMemorySaver())  # after a restart
    runs += ask(second, texts[20:])
    assert stored(db) == said(runs) and len(stored(db)) == 120
    assert len(second.get_state(config).values["messages"]) <= 4
    mem = mw.memory("t1")
    assert "SR-20240315-000" in mem.state.values()  # said before the restart, folded
    for sent in model.seen:
        assert mem.tokens(from_langchain(sent)) <= mem.policy.budget


def test_the_middleware_lets_go_of_idle_threads(tmp_path: Path) -> None:
    """1,500 threads in one SQLite file, under `ulimit -n 1024`: the middleware keeps the
    most recently used memories open and closes the others (2 descriptors each)."""
    pytest.importorskip("langchain.agents")
    code = f"""
import os, resource
resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
from convstate import ConversationMemory
from convstate.integrations.langchain import ConvstateMiddleware
mw = ConvstateMiddleware(lambda t: ConversationMemory(t, store={str(tmp_path / "s.db")!r}))
for i in range(1500):
    mw.memory(f"t{{i}}").add("user", f"order SR-{{i}}")
print(len(os.listdir("/proc/self/fd")))
print(mw.memory("t0").history()[0].content)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    fds, first = out.stdout.split("\n")[:2]
    assert int(fds) < 400 and first == "order SR-0"  # reopened when asked again


def test_a_memory_in_use_is_closed_only_when_its_use_ends(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents")
    from convstate.errors import StoreError
    from convstate.integrations.langchain_middleware import Memories

    memories = Memories(lambda t: ConversationMemory(t, store=str(tmp_path / f"{t}.db")), 2)
    with memories.using("a") as a:
        for thread in "bcd":
            with memories.using(thread) as mem:
                mem.add("user", "hi")
        a.add("user", "still open")  # evicted, but in use
        assert len(memories) == 2
    with pytest.raises(StoreError):
        a.add("user", "closed")
    with memories.using("a") as again:
        assert [t.content for t in again.history()] == ["still open"]


def history_of(mem: ConversationMemory) -> Callable[[str], Any]:
    """A session's history for RunnableWithMessageHistory: always ``mem``'s."""
    from convstate.integrations.langchain import ConvstateChatHistory

    return lambda session_id: ConvstateChatHistory(mem)


@pytest.mark.filterwarnings("ignore:RunnableWithMessageHistory is deprecated")
def test_runnable_with_message_history_counts_the_input(tmp_path: Path) -> None:
    """RunnableWithMessageHistory reads the history before it sees the input: convstate's
    class stores the input first, so 30 calls of a prompt and a model stay within the
    budget (LangChain's own passes it by the input's size)."""
    pytest.importorskip("langchain_core")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
    from langchain_core.runnables.history import RunnableWithMessageHistory

    from convstate.integrations.langchain import ConvstateRunnableWithMessageHistory

    class Recording(GenericFakeChatModel):
        def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
            sent.append(from_langchain(messages))
            return super()._generate(messages, *args, **kwargs)

    prompt = ChatPromptTemplate.from_messages([("system", PROMPT), MessagesPlaceholder("history"),
                                               ("human", "{question}")])
    questions = [f"{text} Here is everything again: " + " ".join(user_turns(6))
                 for text in user_turns(30)]
    over = {}
    for cls in (ConvstateRunnableWithMessageHistory, RunnableWithMessageHistory):
        sent: list[list[dict[str, Any]]] = []
        mem = ConversationMemory(cls.__name__, store=str(tmp_path / "h.db"),
                                 context_window=WINDOW, system_prompt=PROMPT)
        model = Recording(messages=iter([AIMessage("Noted.")] * 30))
        chain = cls(prompt | model, history_of(mem), input_messages_key="question",
                    history_messages_key="history")
        for q in questions:
            chain.invoke({"question": q}, {"configurable": {"session_id": "s"}})
        assert len(sent) == 30 and len(mem.history()) == 60  # each turn stored once
        assert [t.content for t in mem.history()[:2]] == [questions[0], "Noted."]
        assert all(s[0] == {"role": "system", "content": PROMPT} for s in sent)
        over[cls] = sum(mem.tokens(s) > mem.policy.budget for s in sent)
    assert over[ConvstateRunnableWithMessageHistory] == 0
    assert over[RunnableWithMessageHistory] > 0  # what the class is for


@pytest.mark.filterwarnings("ignore:RunnableWithMessageHistory is deprecated")
def test_runnable_with_message_history_of_messages_counts_the_input(tmp_path: Path) -> None:
    """The same without keys: the runnable is given the messages (context and input)."""
    pytest.importorskip("langchain_core")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage

    from convstate.integrations.langchain import (
        ConvstateChatHistory,
        ConvstateRunnableWithMessageHistory,
    )

    class Recording(GenericFakeChatModel):
        def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
            sent.append(from_langchain(messages))
            return super()._generate(messages, *args, **kwargs)

    sent: list[list[dict[str, Any]]] = []
    mem = ConversationMemory("m", store=str(tmp_path / "m.db"), context_window=WINDOW)
    chain = ConvstateRunnableWithMessageHistory(
        Recording(messages=iter([AIMessage("Noted.")] * 30)),
        lambda _: ConvstateChatHistory(mem))
    for text in user_turns(30):
        chain.invoke([HumanMessage(text + " " + " ".join(user_turns(5)))],
                     {"configurable": {"session_id": "s"}})
        assert sent[-1][-1]["content"].startswith(text)  # the input, last
    assert len(mem.history()) == 60 and mem.compactions()
    assert all(mem.tokens(s) <= mem.policy.budget for s in sent)


def test_llamaindex_memory_takes_memory_from_defaults_arguments(tmp_path: Path) -> None:
    """LlamaIndex's Memory.from_defaults arguments: token_limit is the most a call's
    messages take, chat_history is stored, tokenizer_fn counts; its storage and memory
    blocks are refused by name."""
    pytest.importorskip("llama_index.core")
    from llama_index.core.base.llms.types import ChatMessage

    from convstate import ConfigError
    from convstate.integrations.llamaindex import ConvstateMemory

    memory = ConvstateMemory.from_defaults(token_limit=3000, store=str(tmp_path / "l.db"))
    assert memory.memory.policy.budget == 3000 and memory.memory.session_id == "default"
    history = [ChatMessage(role="user", content="My order is SR-20240315-889."),
               ChatMessage(role="assistant", content="Noted.")]
    words = ConvstateMemory.from_defaults("w", chat_history=history, token_limit=600,
                                          tokenizer_fn=str.split,
                                          store=str(tmp_path / "w.db"))
    assert [m.content for m in words.get_all()] == [m.content for m in history]
    assert words.memory.counter.count("one two three") == 3
    for name, value in (("chat_store", object()), ("memory_blocks", []),
                        ("async_database_uri", "sqlite+aiosqlite:///x.db")):
        with pytest.raises(ConfigError, match=name):
            ConvstateMemory.from_defaults(**{name: value})
    with pytest.raises(ConfigError, match="token_limit"):
        ConvstateMemory.from_defaults(token_limit=3000, context_window=4096)


def test_a_llamaindex_engine_prompt_the_memory_does_not_count_is_refused() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.chat_engine import SimpleChatEngine
    from llama_index.core.llms import MockLLM

    from convstate import ConfigError
    from convstate.integrations.llamaindex import ConvstateMemory

    memory = ConvstateMemory.from_defaults("p", store=InMemoryStore(), context_window=WINDOW)
    engine = SimpleChatEngine.from_defaults(llm=MockLLM(max_tokens=12), memory=memory,
                                            system_prompt=PROMPT)
    with pytest.raises(ConfigError, match="system_prompt"):
        engine.chat("Where is my order SR-20240315-889?")
