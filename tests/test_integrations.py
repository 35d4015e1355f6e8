"""LangChain and LlamaIndex, with the real packages: a 200-turn conversation through each,
every model call within the window, and the state a plain ConversationMemory gives for
the same turns at the same calls."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
