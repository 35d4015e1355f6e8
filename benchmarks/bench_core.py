"""Per-turn cost of add() + context() with the rule extractor, late in a long session.

Run: python benchmarks/bench_core.py [--turns 100 1000 10000 50000] [--store sqlite|memory]
     [--reps 3]

A session of n turns is played for each n, and the cost is measured over its last
LATE turns (all of them when n is smaller): the mean per turn, the mean of a turn
without a fold and the mean of a fold. The floor is what any durable chat memory pays
per turn: one token count of the new turn and one SQLite insert of it (a file with
convstate's settings, WAL and synchronous=FULL, or ``:memory:`` for ``--store memory``).
Every repetition plays every length and conversation (interleaved), a short session
again until SAMPLE turns of it were played (a 100-turn session folds twice: one session
a repetition would rest the base of every ratio on a few folds, the first of them cold);
the table gives medians over all the sessions of a length. A benchmark, not a test:
nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from convstate import ConversationMemory, InMemoryStore, SQLiteStore
from convstate.cli import load_demo
from convstate.tokens import encoding_for

LATE = 200
SAMPLE = 2000  # turns of each length a repetition plays at least


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
    """Play n turns; the costs of the last LATE, split into folds and the rest."""
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "b.db") if store_kind == "sqlite" else InMemoryStore()
        mem = ConversationMemory("bench", store=store, context_window=window)
        costs, folded = [], []
        for m in conversation(n, unique_orders):
            version = mem.state.version
            t0 = time.perf_counter()
            mem.add_message(m)
            mem.context()
            costs.append(time.perf_counter() - t0)
            folded.append(mem.state.version != version)
        store.close()
    late = list(zip(costs[-LATE:], folded[-LATE:], strict=True))
    folds = [c for c, f in late if f]
    plain = [c for c, f in late if not f]
    return {"late_ms": 1000 * statistics.fmean(costs[-LATE:]),
            "plain_ms": 1000 * statistics.fmean(plain) if plain else float("nan"),
            "fold_ms": 1000 * statistics.fmean(folds) if folds else float("nan"),
            "folds": sum(folded)}


def floor(n: int, store_kind: str, unique_orders: bool) -> float:
    """Milliseconds per turn of one token count and one SQLite insert, over the last LATE
    turns of the same conversation."""
    enc = encoding_for("gpt-4o-mini")
    with tempfile.TemporaryDirectory() as tmp:
        db = sqlite3.connect(":memory:" if store_kind == "memory" else Path(tmp) / "f.db",
                             isolation_level=None)  # autocommit: one transaction a turn
        if store_kind == "sqlite":
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE turns (seq INTEGER PRIMARY KEY, role TEXT, content TEXT, "
                   "tokens INTEGER)")
        enc.encode("warm up")  # the first call loads the encoding: not a turn's cost
        costs = []
        for m in conversation(n, unique_orders)[-LATE:]:
            t0 = time.perf_counter()
            tokens = len(enc.encode(m["content"]))
            db.execute("INSERT INTO turns (role, content, tokens) VALUES (?, ?, ?)",
                       (m["role"], m["content"], tokens))
            costs.append(time.perf_counter() - t0)
        db.close()
    return 1000 * statistics.fmean(costs)


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
    p.add_argument("--turns", type=int, nargs="+", default=[100, 1000, 10000, 50000])
    p.add_argument("--store", choices=("sqlite", "memory"), default="sqlite")
    p.add_argument("--window", type=int, default=4096)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--sample", type=int, default=SAMPLE,
                   help="turns of each length a repetition plays at least")
    args = p.parse_args()
    cases = [(unique, n) for unique in (False, True) for n in args.turns]
    runs: dict[tuple[bool, int], list[dict[str, float]]] = {c: [] for c in cases}
    for rep in range(args.reps):
        for unique, n in cases:
            for _ in range(-(-args.sample // n)):  # sessions: at least one
                r = run(n, args.store, args.window, unique)
                r["floor_ms"] = floor(n, args.store, unique)
                runs[unique, n].append(r)
            print(f"  rep {rep + 1}/{args.reps}: {n} turns done", flush=True, end="\r")
    print(f"store={args.store} window={args.window} extractor=rules; the last {LATE} turns "
          f"of each session; medians over {args.reps} interleaved repetitions, each "
          f"playing at least {args.sample} turns of every length\n")
    print("| conversation | turns | ms/turn | x 100 turns | no-fold turn ms | fold ms "
          "| fold x 100 turns | floor ms | turn x floor | folds |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for unique in (False, True):
        kind = "new order id every cycle" if unique else "one case, repeated"
        med = {n: {k: statistics.median(r[k] for r in runs[unique, n]) for k in runs[unique, n][0]}
               for n in args.turns}
        base = med[min(args.turns)]
        for n in args.turns:
            r = med[n]
            print(f"| {kind} | {n} | {r['late_ms']:.2f} | {r['late_ms'] / base['late_ms']:.2f} "
                  f"| {r['plain_ms']:.2f} | {r['fold_ms']:.2f} "
                  f"| {r['fold_ms'] / base['fold_ms']:.2f} | {r['floor_ms']:.3f} "
                  f"| {r['late_ms'] / r['floor_ms']:.1f} | {r['folds']:.0f} |", flush=True)
    print()
    print(demo_ratio())


if __name__ == "__main__":
    main()
