"""A LangChain agent (create_agent) whose model sees convstate's context: the agent's
system prompt, the state block, the raw turns that fit. Offline: a scripted chat model
stands in for a real one (swap in ChatOpenAI(...) and nothing else changes).

    pip install -e ".[langchain]" && python examples/langchain_agent.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from convstate import ConversationMemory, InMemoryStore
from convstate.integrations.langchain import ConvstateMiddleware

PROMPT = "You are the after-sales assistant of ShopRight. Never offer an exchange."


@tool
def lookup_order(order_id: str) -> str:
    """Look an order up by its id."""
    return f"order {order_id}: delivered 2024-03-15, ¥459.00, AirSound Pro earbuds"


class ScriptedModel(BaseChatModel):
    """Calls lookup_order when the user names an order, answers otherwise; keeps what
    it was sent, so you can see the context."""

    seen: list[list[BaseMessage]] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        last = messages[-1]
        order = re.search(r"SR-\d{8}-\d{3}", str(last.content))
        if isinstance(last, ToolMessage):
            reply = AIMessage(f"I found it: {last.content}. A refund is on its way.")
        elif order:
            reply = AIMessage("", tool_calls=[{"id": f"call_{len(self.seen)}",
                                               "name": "lookup_order",
                                               "args": {"order_id": order.group()}}])
        else:
            reply = AIMessage("Noted. Anything else?")
        return ChatResult(generations=[ChatGeneration(message=reply)])


# the user's turns of the example support chat
SAID = [m["content"] for m in json.loads(
    (Path(__file__).parent / "support_chat.json").read_text("utf-8")) if m["role"] == "user"]


def main() -> None:
    model = ScriptedModel()
    middleware = ConvstateMiddleware(lambda thread: ConversationMemory(
        thread, store=InMemoryStore(), context_window=300, system_prompt=PROMPT))
    agent = create_agent(model, [lookup_order], system_prompt=PROMPT,
                         middleware=[middleware], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "order-889"}}
    for text in SAID:
        out = agent.invoke({"messages": [{"role": "user", "content": text}]}, config)
    print("agent:", out["messages"][-1].content)
    mem = middleware.memory("order-889")
    print(f"{len(mem.history())} turns stored, {len(out['messages'])} messages in the "
          f"agent's own list (the current exchange), {len(mem.compactions())} folds; "
          f"order {mem.state.anchor('order_id').value}")
    last = model.seen[-1]
    print(f"the model's last call got {len(last)} messages; the state block among them:")
    print(next(m.content for m in last[1:] if m.type == "system"))


if __name__ == "__main__":
    main()
