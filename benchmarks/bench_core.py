"""Per-turn cost of add() + context() with the rule extractor, as the history grows.

Run: python benchmarks/bench_core.py [--turns 100 1000 10000] [--store sqlite|memory]
Prints a Markdown table. A benchmark, not a test: nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from convstate import ConversationMemory, InMemoryStore, SQLiteStore
from convstate.cli import load_demo


def conversation(n: int, unique_orders: bool) -> list[dict]:
    """n turns cycling through the demo conversation's text; with ``unique_orders`` each
    cycle names a new order number, so the state keeps growing (the worst case)."""
    demo = [m for m in load_demo("zh")["messages"] if m["role"] in ("user", "assistant")
            and m.get("content")]
    out = []
    for i in range(n):
        m = dict(demo[i % len(demo)])
        if unique_orders and i % len(demo) == 2:
            m["content"] = f"订单号是 DD{20240000000 + i}，3月15日下的单。"
        out.append(m)
    return out


def run(n: int, store_kind: str, window: int, unique_orders: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "b.db") if store_kind == "sqlite" else InMemoryStore()
        mem = ConversationMemory("bench", store=store, context_window=window)
        costs = []
        for m in conversation(n, unique_orders):
            t0 = time.perf_counter()
            mem.add_message(m)
            mem.context()
            costs.append(time.perf_counter() - t0)
        folds = mem.state.version
        store.close()
    last = costs[-min(100, n):]  # the cost once the history is long
    return {"turns": n, "mean_ms": 1000 * statistics.fmean(costs),
            "last100_mean_ms": 1000 * statistics.fmean(last),
            "p50_ms": 1000 * statistics.median(costs),
            "p99_ms": 1000 * sorted(costs)[int(0.99 * (len(costs) - 1))],
            "folds": folds}


def demo_ratio() -> str:
    demo = load_demo("zh")
    mem = ConversationMemory("d", store=InMemoryStore(), context_window=1200,
                             system_prompt=demo["system_prompt"])
    peak = 0
    for m in demo["messages"]:
        mem.add_message(m)
        peak = max(peak, mem.tokens(mem.context()))
    full = mem.tokens([{"role": "system", "content": demo["system_prompt"]}]
                      + [t.message() for t in mem.history()])
    final = mem.tokens(mem.context())
    return (f"demo (zh, 48 turns, window 1200): final context {final} tokens, peak {peak}, "
            f"full history {full} tokens ({final / full:.0%}), {mem.state.version} folds")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--turns", type=int, nargs="+", default=[100, 1000, 10000])
    p.add_argument("--store", choices=("sqlite", "memory"), default="sqlite")
    p.add_argument("--window", type=int, default=4096)
    args = p.parse_args()
    print(f"store={args.store} window={args.window} extractor=rules\n")
    print("| conversation | turns | mean ms/turn | mean of last 100 | p50 ms | p99 ms | folds |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for unique in (False, True):
        kind = "new order id every cycle" if unique else "one case, repeated"
        for n in args.turns:
            r = run(n, args.store, args.window, unique)
            print(f"| {kind} | {n} | {r['mean_ms']:.2f} | {r['last100_mean_ms']:.2f} "
                  f"| {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['folds']} |", flush=True)
    print()
    print(demo_ratio())


if __name__ == "__main__":
    main()
