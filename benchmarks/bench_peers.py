"""Per-turn cost of add + context: convstate against LangChain's
ConversationSummaryBufferMemory and LlamaIndex's ChatSummaryMemoryBuffer, like for like.

- Same context: the peers keep a budget of 2,000 tokens (tiktoken cl100k); convstate's
  window is then chosen (by bisection, on a run that is not timed) so that its context
  late in the session is at least as large as the larger peer's. The table prints the
  mean context each method hands the model over the last 10% of turns, so a cheaper
  method cannot be one that keeps less.
- Equally instant summaries: the peers' LLM is a fake that answers at once; convstate's
  extractor is an equally instant one (an empty delta). A row with convstate's real
  offline extractor (rules) is printed too: that is work the peers' fake never does.
- Same kind of store: each library on memory, and each on its durable store — convstate
  on its default SQLite file; LangChain on `SQLChatMessageHistory` (a SQLite file);
  LlamaIndex's `SimpleChatStore` persisted to its JSON file after every turn (its
  documented persistence; a crash loses no more than convstate's per-turn commit).
- Interleaved: every repetition runs all methods one after the other in a rotated order,
  in one process; the table gives medians over the repetitions, of the mean per-turn cost
  over the whole run and over the last 10% of turns (the cost late in a long session).

The peers are not project dependencies; install them in a benchmark environment:

    python -m venv /tmp/peers && /tmp/peers/bin/pip install -e . \\
        langchain-classic langchain-core langchain-community llama-index-core \\
        "pydantic<2.13"  # llama-index-core 0.14's SimpleChatStore.persist fails on 2.14
    /tmp/peers/bin/python benchmarks/bench_peers.py [--turns 100 1000 5000] [--reps 3]
        [--store memory|durable|both]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from convstate import (
    BaseExtractor,
    ConversationMemory,
    Extraction,
    InMemoryStore,
    SQLiteStore,
    StateDelta,
)
from convstate.cli import load_demo
from convstate.tokens import encoding_for

BUDGET = 2000  # tokens of turns every method may keep
ENC = encoding_for("gpt-4o-mini")
# one add + context; returns the context's texts, whose tokens are counted untimed (a
# count of ~2,000 tokens a turn, the same for every method, would blur the ratios)
Step = Callable[[dict[str, Any]], list[str]]
# LangChain's summary buffer never prunes a SQL history (it pops from a copy), so its
# context and cost grow with every turn: runs past this length would take hours.
LANGCHAIN_SQL_MAX = 1000


def conversation(n: int) -> list[dict[str, Any]]:
    demo = [m for m in load_demo("zh")["messages"] if m.get("content") and m["role"] != "tool"]
    return [demo[i % len(demo)] for i in range(n)]


def tokens(texts: Sequence[str]) -> int:
    return sum(len(ENC.encode(t)) for t in texts)


class InstantExtractor(BaseExtractor):
    """As instant as the peers' fake LLM: reads nothing, returns an empty delta."""

    name = "instant"

    def extract(self, turns: Sequence[Any], index: Sequence[Any],
                delta_model: type[StateDelta] = StateDelta) -> Extraction:
        return Extraction(delta=delta_model(), extractor=self.name)


def convstate_step(tmp: Path, durable: bool, rules: bool, window: int) -> Step:
    store = SQLiteStore(tmp / "convstate.db") if durable else InMemoryStore()
    mem = ConversationMemory("bench", store=store, context_window=window, reply_reserve=0,
                             **({} if rules else {"extractor": InstantExtractor()}))

    def step(m: dict[str, Any]) -> int:
        mem.add_message(m)
        return [c["content"] for c in mem.context() if c.get("content")]
    return step


def langchain_step(tmp: Path, durable: bool) -> Step:
    from langchain_classic.memory import ConversationSummaryBufferMemory
    from langchain_core.chat_history import InMemoryChatMessageHistory
    from langchain_core.language_models.fake import FakeListLLM

    warnings.simplefilter("ignore")  # its deprecation notices, re-enabled by its import

    class Fake(FakeListLLM):  # count with tiktoken, not a tokenizer from a hub
        def get_token_ids(self, text: str) -> list[int]:
            return ENC.encode(text)

    if durable:
        from langchain_community.chat_message_histories import SQLChatMessageHistory
        history: Any = SQLChatMessageHistory(session_id="bench",
                                             connection=f"sqlite:///{tmp / 'langchain.db'}")
    else:
        history = InMemoryChatMessageHistory()
    mem = ConversationSummaryBufferMemory(llm=Fake(responses=["用户要求退款。"]),
                                          max_token_limit=BUDGET, chat_memory=history,
                                          return_messages=True)
    pending: list[str] = []

    def step(m: dict[str, Any]) -> int:
        if m["role"] == "user":  # LangChain stores (input, output) pairs
            pending.append(m["content"])
        else:
            mem.save_context({"input": pending.pop() if pending else ""},
                             {"output": m["content"]})
        messages = mem.load_memory_variables({})["history"]
        return [str(x.content) for x in messages] + pending
    return step


def llamaindex_step(tmp: Path, durable: bool) -> Step:
    from llama_index.core.llms import ChatMessage, MockLLM
    from llama_index.core.memory import ChatSummaryMemoryBuffer
    from llama_index.core.storage.chat_store import SimpleChatStore

    store = SimpleChatStore()
    mem = ChatSummaryMemoryBuffer.from_defaults(llm=MockLLM(max_tokens=20), chat_store=store,
                                                token_limit=BUDGET, tokenizer_fn=ENC.encode)
    path = str(tmp / "llamaindex.json")

    def step(m: dict[str, Any]) -> int:
        mem.put(ChatMessage(role=m["role"], content=m["content"]))
        if durable:
            store.persist(persist_path=path)
        return [str(x.content or "") for x in mem.get()]
    return step


def one_run(make: Callable[[Path], Step], msgs: list[dict[str, Any]]) -> tuple[float, float,
                                                                               float]:
    """(mean ms per turn, mean ms and mean context tokens over the last 10% of turns)."""
    late = max(1, len(msgs) // 10)
    with tempfile.TemporaryDirectory() as tmp:
        step = make(Path(tmp))
        costs, sizes = [], []
        for i, m in enumerate(msgs):
            t0 = time.perf_counter()
            context = step(m)
            costs.append(time.perf_counter() - t0)
            if i >= len(msgs) - late:
                sizes.append(tokens(context))
    return (1000 * statistics.fmean(costs), 1000 * statistics.fmean(costs[-late:]),
            statistics.fmean(sizes))


def window_for(target: float, rules: bool) -> int:
    """The smallest convstate window whose late context holds ``target`` tokens or more."""
    msgs, low, high = conversation(400), BUDGET // 2, BUDGET * 3
    while high - low > 8:
        mid = (low + high) // 2
        size = one_run(lambda tmp, w=mid: convstate_step(tmp, False, rules, w), msgs)[2]
        low, high = (mid, high) if size < target else (low, mid)
    return high


def methods(durable: bool, windows: dict[bool, int]) -> dict[str, Callable[[Path], Step]]:
    return {
        "convstate (instant extractor)":
            lambda tmp: convstate_step(tmp, durable, False, windows[False]),
        "convstate (rules)": lambda tmp: convstate_step(tmp, durable, True, windows[True]),
        "LangChain": lambda tmp: langchain_step(tmp, durable),
        "LlamaIndex": lambda tmp: llamaindex_step(tmp, durable),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--turns", type=int, nargs="+", default=[100, 1000, 5000])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--store", choices=("memory", "durable", "both"), default="both")
    args = p.parse_args()
    warnings.filterwarnings("ignore")
    calibration = conversation(400)
    target = max(one_run(lambda tmp: langchain_step(tmp, False), calibration)[2],
                 one_run(lambda tmp: llamaindex_step(tmp, False), calibration)[2])
    windows = {rules: window_for(target, rules) for rules in (False, True)}
    print(f"peers' budget {BUDGET} tokens; convstate's window {windows[False]} (instant) and "
          f"{windows[True]} (rules), for a late context of >= {target:.0f} tokens; the zh "
          f"demo cycled; medians of {args.reps} interleaved repetitions\n")
    print("| store | turns | method | ms/turn | ms/turn, last 10% | context tokens, last 10% "
          "| x convstate (instant) |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for durable in {"memory": (False,), "durable": (True,), "both": (False, True)}[args.store]:
        store = "durable" if durable else "memory"
        for n in args.turns:
            msgs = conversation(n)
            table = methods(durable, windows)
            if durable and n > LANGCHAIN_SQL_MAX:
                del table["LangChain"]
            runs: dict[str, list[tuple[float, float, float]]] = {k: [] for k in table}
            names = list(table)
            for rep in range(args.reps):
                for name in names[rep % len(names):] + names[:rep % len(names)]:
                    runs[name].append(one_run(table[name], msgs))
            med = {k: tuple(statistics.median(r[i] for r in v) for i in range(3))
                   for k, v in runs.items()}
            base = med[names[0]][1]
            for name, (mean, late, size) in med.items():
                print(f"| {store} | {n} | {name} | {mean:.2f} | {late:.2f} | {size:.0f} "
                      f"| {late / base:.1f} |", flush=True)


if __name__ == "__main__":
    main()
