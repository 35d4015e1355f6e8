"""K worker processes x M shared sessions: add() + context() per turn, on SQLite and on
PostgreSQL, with the rule extractor and with an extractor that takes 1-3 s (folding in
the background). Reports turns/s, p50/p99 latency of add + context, folds, and checks
that no turn was lost and no turn folded twice.

Run: python benchmarks/bench_workers.py [--workers 4] [--sessions 8] [--turns 150]
         [--pg postgresql://...]   (without --pg: SQLite only)
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import statistics
import tempfile
import time
from pathlib import Path

from convstate import ConversationMemory, RuleExtractor
from convstate.cli import load_demo
from convstate.store import open_store


class SlowExtractor(RuleExtractor):
    """The rule extractor behind a simulated 1-3 s model call."""

    name = "slow"

    def extract(self, turns, index, delta_model=None):  # type: ignore[override]
        time.sleep(random.uniform(1.0, 3.0))
        return super().extract(turns, index)


def worker(target: str, k: int, sessions: int, turns: int, slow: bool, out: mp.Queue) -> None:
    store = open_store(target)
    texts = [m["content"] for m in load_demo("zh")["messages"] if m.get("content")]
    mems = [ConversationMemory(f"s{j}", store=store, context_window=1000, background=slow,
                               extractor=SlowExtractor() if slow else None)
            for j in range(sessions)]
    lat = []
    for i in range(turns):
        mem = mems[i % sessions]
        t0 = time.perf_counter()
        mem.add("user" if i % 2 == 0 else "assistant", f"[w{k}#{i}] {texts[i % len(texts)]}")
        mem.context()
        lat.append(time.perf_counter() - t0)
    for mem in mems:
        mem.wait()
    out.put(lat)


def run(target: str, workers: int, sessions: int, turns: int, slow: bool) -> str:
    q: mp.Queue = mp.Queue()
    t0 = time.perf_counter()
    procs = [mp.Process(target=worker, args=(target, k, sessions, turns, slow, q))
             for k in range(workers)]
    for p in procs:
        p.start()
    lat = [x for _ in procs for x in q.get()]
    for p in procs:
        p.join()
    wall = time.perf_counter() - t0
    store = open_store(target)
    lost = dup_folds = folds = 0
    for j in range(sessions):
        stored = store.turns(f"s{j}")
        expected = {f"[w{k}#{i}]" for k in range(workers) for i in range(turns)
                    if i % sessions == j}
        got = [t.content.split()[0] for t in stored]
        lost += len(expected - set(got)) + (len(got) - len(set(got)))
        log = [r for r in store.compactions(f"s{j}") if r.error is None]
        folds += len(log)
        starts = [r.first_turn for r in log]
        ends = [r.last_turn + 1 for r in log[:-1]]
        dup_folds += sum(a != b for a, b in zip(starts[1:], ends, strict=True))
    lat.sort()
    kind = "PostgreSQL" if target.startswith("postgres") else "SQLite"
    return (f"| {kind} | {'1-3 s, background' if slow else 'rules'} | {workers}x{sessions} "
            f"| {len(lat)} | {len(lat) / wall:.0f} | {1000 * statistics.median(lat):.1f} "
            f"| {1000 * lat[int(0.99 * (len(lat) - 1))]:.1f} | {folds} | {lost} | {dup_folds} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--sessions", type=int, default=8)
    p.add_argument("--turns", type=int, default=150, help="turns per worker")
    p.add_argument("--pg", default=None, help="a PostgreSQL DSN (its tables are reused)")
    args = p.parse_args()
    print("| store | extractor | workers x sessions | turns | turns/s | p50 ms | p99 ms "
          "| folds | lost turns | duplicate folds |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for slow in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            print(run(str(Path(tmp) / "w.db"), args.workers, args.sessions, args.turns, slow),
                  flush=True)
        if args.pg:
            pg = open_store(args.pg)
            for table in ("turns", "states", "compactions", "leases"):
                with pg._write("bench") as db:  # a clean slate for the counts
                    db.execute(f"DELETE FROM {table}")
            print(run(args.pg, args.workers, args.sessions, args.turns, slow), flush=True)


if __name__ == "__main__":
    main()
