"""A LlamaIndex chat engine whose memory is convstate: turns that leave the window are
folded into the state, not dropped. Offline: LlamaIndex's MockLLM stands in for a real
model (swap in any LlamaIndex LLM and nothing else changes).

    pip install -e ".[llamaindex]" && python examples/llamaindex_chat.py
"""

from __future__ import annotations

import json
from pathlib import Path

from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import MockLLM

from convstate import InMemoryStore
from convstate.integrations.llamaindex import ConvstateMemory

PROMPT = "You are the after-sales assistant of ShopRight. Never offer an exchange."
# the user's turns of the example support chat
SAID = [m["content"] for m in json.loads(
    (Path(__file__).parent / "support_chat.json").read_text("utf-8")) if m["role"] == "user"]


def main() -> None:
    memory = ConvstateMemory.from_defaults("order-889", store=InMemoryStore(),
                                           context_window=300, system_prompt=PROMPT)
    engine = SimpleChatEngine.from_defaults(llm=MockLLM(max_tokens=12), memory=memory,
                                            system_prompt=PROMPT)
    for text in SAID:
        engine.chat(text)
    mem = memory.memory
    print(f"{len(mem.history())} turns stored, {len(mem.compactions())} folds; "
          f"order {mem.state.anchor('order_id').value}")
    given = memory.get()
    print(f"the engine's next call gets {len(given)} messages after its prompt; the block:")
    print(given[0].content)


if __name__ == "__main__":
    main()
