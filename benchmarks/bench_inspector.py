"""The inspector's pages of a long session, over real HTTP (`convstate serve` in a
subprocess over a SQLite file or PostgreSQL): how long the session page takes the first
time (the server opens the session's memory) and then, the first page of turns, a
where() question, and the sessions list, with each page's size.

Run: python benchmarks/bench_inspector.py [--turns 50000] [--store DSN] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

from convstate import ConversationMemory
from convstate.extract.local import free_port, wait_ready

TOKEN = "bench-token"


def build(store: str, session: str, turns: int) -> float:
    """A session of ``turns`` turns, folded as a bot would (a context every exchange);
    every 10th exchange gives a new order number, every 50th a new phone."""
    started = time.perf_counter()
    mem = ConversationMemory(session, store=store, context_window=8192, background=False)
    for i in range(turns // 2):
        said = f"About the parcel, exchange {i}: it still has not arrived, please check."
        if i % 10 == 0:
            said = f"My order is SR-{20240000 + i}-{i % 997:03d}, it arrived broken."
        if i % 50 == 0:
            said += f" Call me at 138{i:08d}."
        mem.add("user", said)
        mem.add("assistant", f"Sorry about that, I am checking exchange {i} now.")
        mem.context()
    mem.close()
    return time.perf_counter() - started


def get(base: str, path: str) -> tuple[float, int]:
    req = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {TOKEN}"})
    started = time.perf_counter()
    with urllib.request.urlopen(req, timeout=600) as r:
        size = len(r.read())
    return time.perf_counter() - started, size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=50_000)
    ap.add_argument("--store", help="a postgresql:// DSN (default: a SQLite file)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = args.store or str(Path(tmp) / "inspector.db")
        session = f"long-{uuid.uuid4().hex[:6]}"
        print(f"built {args.turns} turns in {build(store, session, args.turns):.1f} s")
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "convstate.cli", "serve", "--store",
                                 store, "--port", str(port)],
                                env=dict(os.environ, CONVSTATE_API_TOKEN=TOKEN),
                                stdout=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_ready(base + "/v1", 60, proc, path="/health")
            first, size = get(base, f"/ui/sessions/{session}")
            print(f"session page, first time (opens the memory): {first * 1000:.0f} ms, "
                  f"{size / 1000:.0f} kB")
            for name, path in (("session page (newest turns)", f"/ui/sessions/{session}"),
                               ("first page of turns", f"/ui/sessions/{session}?tpage=0"),
                               ("where a value is", f"/ui/sessions/{session}?where=13800000050"),
                               ("sessions list", "/ui")):
                runs = [get(base, path) for _ in range(args.repeat)]
                times = sorted(t for t, _ in runs)
                print(f"{name}: median {statistics.median(times) * 1000:.0f} ms, "
                      f"max {times[-1] * 1000:.0f} ms, {runs[0][1] / 1000:.0f} kB")
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
