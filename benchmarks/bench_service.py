"""`convstate serve` under an integrator's load, over real HTTP (the command in a
subprocess, a SQLite file or PostgreSQL): how long a long session takes to post as lists,
the server's RSS as a client asks for many distinct ``?window=`` values of it, and how
long ``/v1/health`` takes while list POSTs keep every worker busy. ``--sessions N``
instead: the RSS as a client reads N long sessions (``--session-turns`` each) in turn,
for the cache's byte budget (``--cache-mb``, passed to the server). ``--footprint FILE``:
no server; what a memory of each dialogue set (the shared data's layout), all its
dialogues as one session, holds by tracemalloc against ``held_bytes()``'s estimate.

Run: python benchmarks/bench_service.py [--turns 20000] [--windows 1000] [--store DSN]
     python benchmarks/bench_service.py --sessions 30 --session-turns 2000 [--cache-mb 64]
     python benchmarks/bench_service.py --footprint data/sgd/sgd_test_long.json ...
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from convstate.extract.local import free_port, wait_ready

TOKEN = "bench-token"


def call(base: str, method: str, path: str, body: object = None) -> dict:
    req = urllib.request.Request(base + path, method=method, headers={
        "Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        data=json.dumps(body).encode() if body is not None else None)
    with urllib.request.urlopen(req, timeout=600) as r:
        out: dict = json.load(r)
        return out


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=20_000)
    ap.add_argument("--windows", type=int, default=1000)
    ap.add_argument("--store", default=None, help="a postgresql:// DSN (default: SQLite)")
    ap.add_argument("--sessions", type=int, default=0, help="read this many long sessions")
    ap.add_argument("--session-turns", type=int, default=2000)
    ap.add_argument("--cache-mb", default=None, help="the server's --cache-mb")
    ap.add_argument("--footprint", nargs="+", default=None, metavar="FILE")
    args = ap.parse_args()
    if args.footprint:
        footprint(args.footprint)
        return
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        budget = ["--cache-mb", args.cache_mb] if args.cache_mb else []
        proc = subprocess.Popen(
            [sys.executable, "-m", "convstate.cli", "serve", "--store",
             args.store or str(Path(tmp) / "bench.db"), "--port", str(port), *budget],
            env=dict(os.environ, CONVSTATE_API_TOKEN=TOKEN), stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}/v1"
        try:
            wait_ready(base, 60, proc, path="/health")
            if args.sessions:
                many_sessions(base, proc.pid, args)
            else:
                run(base, proc.pid, args)
        finally:
            proc.terminate()
            proc.wait(30)


def orders(n: int) -> list[dict[str, str]]:
    """A long session of orders, each with its own number (an anchor each)."""
    return [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"Order SR-{i:07d}: the parcel {i} came broken; refund it to card "
                        f"{4000 + i % 97} by Friday."} for i in range(n)]


def many_sessions(base: str, pid: int, args: argparse.Namespace) -> None:
    run_id, talk = int(time.time()), orders(args.session_turns)
    print(f"RSS at start: {rss_mb(pid):.0f} MB")
    start = time.perf_counter()
    for k in range(1, args.sessions + 1):
        chat = f"/sessions/many-{run_id}-{k}"
        for i in range(0, len(talk), 500):
            call(base, "POST", f"{chat}/messages", talk[i:i + 500])
        call(base, "GET", f"{chat}/context")
        if k % max(args.sessions // 5, 1) == 0 or k == args.sessions:
            print(f"RSS after {k} sessions of {args.session_turns} turns read: "
                  f"{rss_mb(pid):.0f} MB ({time.perf_counter() - start:.0f} s)", flush=True)


def footprint(files: list[str]) -> None:
    import gc
    import tracemalloc

    from convstate import ConversationMemory, InMemoryStore

    sets = [("orders", orders(3000))] + [(Path(f).stem, [
        {"role": "user" if t["speaker"].lower() in ("user", "usr") else "assistant",
         "content": t["text"]} for d in json.loads(Path(f).read_text("utf-8"))
        for t in d["turns"]]) for f in files]
    store = InMemoryStore()
    for name, talk in sets:
        store.append_many(name, talk)
        ConversationMemory(name, store=store).context()  # folded, as a service's would be
        for window in (1000, 8192, 64000):
            gc.collect()
            tracemalloc.start()
            mem = ConversationMemory(name, store=store, context_window=window)
            mem.context()
            gc.collect()
            held = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            guess = mem.held_bytes()
            print(f"{name:28} {len(talk):5} turns, window {window:5}: tracemalloc "
                  f"{held / 2**20:6.1f} MB, held_bytes {guess / 2**20:6.1f} MB "
                  f"(x{guess / held:.2f})", flush=True)
            mem.wait()
            del mem


def run(base: str, pid: int, args: argparse.Namespace) -> None:
    chat = f"/sessions/bench-{int(time.time())}"
    talk = orders(args.turns)
    start = time.perf_counter()
    for i in range(0, len(talk), 500):
        call(base, "POST", f"{chat}/messages", talk[i:i + 500])
    print(f"posted {args.turns} turns in lists of 500: {time.perf_counter() - start:.1f} s")
    call(base, "GET", f"{chat}/context")
    print(f"RSS after one context: {rss_mb(pid):.0f} MB")
    marks = {10, 50, 100, 250, 500, 1000, args.windows}
    start = time.perf_counter()
    for k in range(1, args.windows + 1):
        call(base, "GET", f"{chat}/context?window={512 + k}")
        if k in marks:
            print(f"RSS after {k} distinct windows: {rss_mb(pid):.0f} MB "
                  f"({time.perf_counter() - start:.0f} s)")
    health_under_load(base, chat)


def health_under_load(base: str, chat: str) -> None:
    stop = threading.Event()

    def post(k: int) -> None:
        while not stop.is_set():
            call(base, "POST", f"{chat}-load-{k}/messages",
                 [{"role": "user", "content": f"load {k} {i}"} for i in range(200)])

    threads = [threading.Thread(target=post, args=(k,), daemon=True) for k in range(42)]
    for t in threads:
        t.start()
    time.sleep(3)
    took = []
    for _ in range(5):
        start = time.perf_counter()
        urllib.request.urlopen(base + "/health", timeout=600).read()
        took.append(time.perf_counter() - start)
    stop.set()
    for t in threads:
        t.join(600)
    print(f"/v1/health with 42 clients posting lists of 200: max {max(took) * 1000:.0f} ms "
          f"of 5")


if __name__ == "__main__":
    main()
