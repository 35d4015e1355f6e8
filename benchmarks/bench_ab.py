"""Per-turn cost of this tree against another checkout of convstate, interleaved.

    python benchmarks/bench_ab.py --baseline ../old/src [--turns 100 10000] [--rounds 5]

Both trees play the same conversation (bench_core's: the zh demo cycled, and the worst
case naming a new order id every cycle) through ``add_message`` + ``context`` (rule
extractor, in-memory store, window 4096), each in a process of its own; the figure is
the CPU time of a turn (``process_time``, so other work on the machine counts less),
the mean of the last 200 turns, the median of ``--reps`` sessions. Rounds alternate the
two trees; the ratio is the median of the rounds' ratios. Use it to state what a change
costs per turn against the release before it (a ratio of one run moves by a few
hundredths on a quiet machine, by a tenth on a busy one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_core import conversation

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"

# what each child runs: its tree's convstate on the given conversation
CHILD = """
import json, statistics, sys, time, warnings
warnings.simplefilter("ignore")
from convstate import ConversationMemory, InMemoryStore
messages, reps = json.load(open(sys.argv[1])), int(sys.argv[2])
def session(messages):
    mem = ConversationMemory("ab", store=InMemoryStore(), context_window=4096)
    costs = []
    for m in messages:
        t0 = time.process_time()
        mem.add_message(m)
        mem.context()
        costs.append(time.process_time() - t0)
    return statistics.fmean(costs[-200:]) * 1000
session(messages[:100])  # warm: patterns compiled, the encoding loaded
print(statistics.median(session(messages) for _ in range(reps)))
"""


def per_turn(src: Path, path: Path, reps: int) -> float:
    """ms of CPU per turn of the conversation in ``path``, with the convstate of ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(reps)], env=env,
                         check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--baseline", type=Path, required=True,
                   help="the src directory of the other checkout")
    p.add_argument("--turns", type=int, nargs="+", default=[100, 10000])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--reps", type=int, default=None,
                   help="sessions a measurement; default 5 under 1,000 turns, else 1")
    args = p.parse_args()
    if not (args.baseline / "convstate").is_dir():
        p.error(f"--baseline {args.baseline}: no convstate package there")
    print("| conversation | turns | baseline ms/turn | this ms/turn | ratio (median of rounds) |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.turns:
            reps = args.reps or (5 if n < 1000 else 1)
            for unique, label in ((False, "one case, repeated"),
                                  (True, "new order id every cycle")):
                path = Path(tmp) / f"c{n}{unique}.json"
                path.write_text(json.dumps(conversation(n, unique), ensure_ascii=False))
                old, new = [], []
                for r in range(args.rounds):
                    print(f"  {label}, {n} turns: round {r + 1}/{args.rounds}",
                          file=sys.stderr)
                    old.append(per_turn(args.baseline, path, reps))
                    new.append(per_turn(SRC, path, reps))
                ratio = statistics.median(b / a for a, b in zip(old, new, strict=True))
                print(f"| {label} | {n} | {statistics.median(old):.3f} | "
                      f"{statistics.median(new):.3f} | {ratio:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
