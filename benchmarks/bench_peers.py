"""Per-turn cost of add + context: convstate against LangChain's
ConversationSummaryBufferMemory and LlamaIndex's ChatSummaryMemoryBuffer, each with an
instant fake LLM, on the same conversation, the same token budget and tokenizer.

The peers are not project dependencies; install them in a benchmark environment:

    python -m venv /tmp/peers && /tmp/peers/bin/pip install -e . \\
        langchain-classic langchain-core llama-index-core
    /tmp/peers/bin/python benchmarks/bench_peers.py [--turns 100 1000 5000]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

from convstate import ConversationMemory, InMemoryStore
from convstate.cli import load_demo
from convstate.tokens import encoding_for

BUDGET = 2000


def conversation(n: int) -> list[dict]:
    demo = [m for m in load_demo("zh")["messages"] if m.get("content") and m["role"] != "tool"]
    return [demo[i % len(demo)] for i in range(n)]


def per_turn(step: Callable[[dict], object], msgs: list[dict]) -> float:
    """Mean milliseconds of one add + context."""
    costs = []
    for m in msgs:
        t0 = time.perf_counter()
        step(m)
        costs.append(time.perf_counter() - t0)
    return 1000 * statistics.fmean(costs)


def convstate_step() -> Callable[[dict], object]:
    mem = ConversationMemory("bench", store=InMemoryStore(), context_window=BUDGET + 48,
                             reply_reserve=48)

    def step(m: dict) -> object:
        mem.add_message(m)
        return mem.context()
    return step


def langchain_step() -> Callable[[dict], object]:
    from langchain_classic.memory import ConversationSummaryBufferMemory
    from langchain_core.language_models.fake import FakeListLLM

    enc = encoding_for("gpt-4o-mini")

    class Fake(FakeListLLM):  # count with tiktoken, not a tokenizer from a hub
        def get_token_ids(self, text: str) -> list[int]:
            return enc.encode(text)

    mem = ConversationSummaryBufferMemory(llm=Fake(responses=["用户要求退款。"]),
                                          max_token_limit=BUDGET)
    pending: list[str] = []

    def step(m: dict) -> object:
        if m["role"] == "user":  # LangChain stores (input, output) pairs
            pending.append(m["content"])
            return mem.load_memory_variables({})
        mem.save_context({"input": pending.pop() if pending else ""},
                         {"output": m["content"]})
        return mem.load_memory_variables({})
    return step


def llamaindex_step() -> Callable[[dict], object]:
    from llama_index.core.llms import ChatMessage, MockLLM
    from llama_index.core.memory import ChatSummaryMemoryBuffer

    enc = encoding_for("gpt-4o-mini")
    mem = ChatSummaryMemoryBuffer.from_defaults(llm=MockLLM(max_tokens=20),
                                                token_limit=BUDGET, tokenizer_fn=enc.encode)

    def step(m: dict) -> object:
        mem.put(ChatMessage(role=m["role"], content=m["content"]))
        return mem.get()
    return step


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--turns", type=int, nargs="+", default=[100, 1000, 5000])
    args = p.parse_args()
    warnings.filterwarnings("ignore")
    print(f"budget {BUDGET} tokens, the zh demo conversation cycled, instant fake LLMs\n")
    print("| turns | convstate ms/turn | LangChain ms/turn | LlamaIndex ms/turn "
          "| LangChain / convstate | LlamaIndex / convstate |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in args.turns:
        msgs = conversation(n)
        ours, lc, li = (per_turn(f(), msgs) for f in (convstate_step, langchain_step,
                                                       llamaindex_step))
        print(f"| {n} | {ours:.2f} | {lc:.2f} | {li:.2f} | {lc / ours:.1f} | {li / ours:.1f} |",
              flush=True)


if __name__ == "__main__":
    main()
