"""Where the time of add() + context() goes, step by step, late in a session in memory
(rule extractor, window 4096, the repeated bench_core conversation, or with --worst the
one naming a new order id every cycle): what a faster memory would have to cut.

    python benchmarks/bench_fold_steps.py [--warm 1000] [--turns 1000] [--worst] [--no-gc]

Each step is timed by wrapping the method that does it (nested steps are counted in
their parents too), and Python's garbage collector by its callbacks; the table gives the
total per 1,000 turns and the time per call, and the turns that folded apart from the
rest. A collection runs inside whatever step allocated last, so its pauses are counted
there too; ``--no-gc`` turns the collector off for the timed turns, which shows what
the steps cost without them.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_core import conversation  # noqa: E402

import convstate.assembly as assembly  # noqa: E402
import convstate.compactor as compactor  # noqa: E402
from convstate import (  # noqa: E402
    ConversationMemory,
    ConversationState,
    InMemoryStore,
    RuleExtractor,
)
from convstate.assembly import Assembler  # noqa: E402
from convstate.store.sql import SQLStore  # noqa: E402

# (owner, method, what it does)
STEPS = [
    (RuleExtractor, "extract", "rule extraction (a fold)"),
    (compactor.Compactor, "_land", "landing a fold (fold, log, save)"),
    (compactor, "fold_report", "landing: fold_report"),
    (Assembler, "fixed_tokens", "landing: the new block's tokens, for the log (its rows and "
     "their costs, which the next layouts use)"),
    (SQLStore, "save_state", "landing: save_state (diff, pack, insert)"),
    (ConversationState, "index", "the item index handed to the extractor"),
    (assembly, "block_rows", "the block's rows (once per state)"),
    (compactor.Compactor, "plan", "planning (is a fold due?)"),
    (Assembler, "layout", "laying out a context"),
]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--warm", type=int, default=1000, help="turns played before timing")
    p.add_argument("--turns", type=int, default=1000, help="turns timed")
    p.add_argument("--worst", action="store_true", help="a new order id every cycle")
    p.add_argument("--no-gc", action="store_true", help="no garbage collection while timed")
    args = p.parse_args()
    spent: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    collecting = [0.0]
    GC = "garbage collection (all generations)"

    def collector(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collecting[0] = time.perf_counter()
        else:
            spent[GC] += time.perf_counter() - collecting[0]
            calls[GC] += 1

    def timed(fn: Any, label: str) -> Any:
        def run(*a: Any, **k: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[label] += time.perf_counter() - start
                calls[label] += 1
        return run

    for owner, name, label in STEPS:
        setattr(owner, name, timed(getattr(owner, name), label))
    messages = list(conversation(args.warm + args.turns, args.worst))
    mem = ConversationMemory("steps", store=InMemoryStore(), context_window=4096)
    for m in messages[:args.warm]:
        mem.add_message(m)
        mem.context()
    spent.clear()
    calls.clear()
    gc.callbacks.append(collector)
    if args.no_gc:
        gc.disable()
    turns: dict[bool, list[float]] = {True: [], False: []}  # by whether the turn folded
    for m in messages[args.warm:]:
        version, start = mem.state.version, time.perf_counter()
        mem.add_message(m)
        mem.context()
        turns[mem.state.version != version].append(time.perf_counter() - start)
    gc.enable()
    gc.callbacks.remove(collector)
    total = sum(turns[True]) + sum(turns[False])
    per = 1000 / args.turns
    print("| step | calls per 1,000 turns | ms per 1,000 turns | ms per call |")
    print("|---|---:|---:|---:|")
    print(f"| add() + context(), all of it | {1000} | {total * 1000 * per:.0f} | "
          f"{total * 1000 / args.turns:.3f} |")
    for folded, label in ((True, "a turn that folded"), (False, "a turn that did not")):
        if turns[folded]:
            print(f"| {label} | {len(turns[folded]) * per:.0f} | "
                  f"{sum(turns[folded]) * 1000 * per:.0f} | "
                  f"{statistics.fmean(turns[folded]) * 1000:.3f} |")
    for label in [label for _, _, label in STEPS] + [GC]:
        if calls[label]:
            print(f"| {label} | {calls[label] * per:.0f} | {spent[label] * 1000 * per:.0f} | "
                  f"{spent[label] * 1000 / calls[label]:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
