"""CPU time of compress_documents, this tree's against another commit's, interleaved.

Each round runs one process per version, alternating (ref, this, ref, this, ...), so a
machine shared with others loads both alike. A process reads the QA files, sets each
instance's budget (25% of its tokens, counted before the clock starts), compresses every
instance once to warm up, then again under ``time.process_time()`` (CPU seconds, not
wall time). The other version is this tree's package with that commit's documents.py.

    taskset -c 0 python benchmarks/bench_documents.py ../shared/data/qa/*.json \\
        /tmp/qa_hard/*.json --ref main --rounds 5

A benchmark, not a test: nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, math, sys, time
from convstate.documents import compress_documents
from convstate.eval.docs import load_qa
from convstate.tokens import TokenCounter
counter = TokenCounter("gpt-4")
out = {}
for path in sys.argv[1:]:
    data = load_qa(path)
    budgets = [math.floor(0.25 * (counter.count(x["question"]) + sum(
        counter.count(d["text"]) for d in x["documents"]))) for x in data]
    for timed in (False, True):
        start = time.process_time()
        for x, budget in zip(data, budgets):
            compress_documents(x["question"], x["documents"], budget, counter=counter)
        if timed:
            out[path] = (time.process_time() - start) * 1000 / len(data)
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+", help="QA files")
    parser.add_argument("--ref", default="main", help="the commit to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(ROOT / "src" / "convstate", Path(tmp) / "convstate")
        old = subprocess.run(["git", "-C", str(ROOT), "show",
                              f"{args.ref}:src/convstate/documents.py"],
                             capture_output=True, text=True, check=True).stdout
        (Path(tmp) / "convstate" / "documents.py").write_text(old, "utf-8")
        trees = {args.ref: tmp, "this tree": str(ROOT / "src")}
        ms: dict[str, dict[str, list[float]]] = {v: {p: [] for p in args.data} for v in trees}
        for _ in range(args.rounds):
            for version, tree in trees.items():
                run = subprocess.run([sys.executable, "-W", "ignore", "-c", CHILD, *args.data],
                                     capture_output=True, text=True, check=True,
                                     env=dict(os.environ, PYTHONPATH=tree))
                for path, value in json.loads(run.stdout).items():
                    ms[version][path].append(value)
    print(f"{'ms of CPU per instance (median of ' + str(args.rounds) + ')':<46}"
          + "".join(f"{v:>12}" for v in trees) + "      change")
    for path in args.data:
        a, b = (statistics.median(ms[v][path]) for v in trees)
        name = Path(path).parent.name + "/" + Path(path).name
        print(f"{name[-46:]:<46}{a:>12.2f}{b:>12.2f}{(b - a) / a:>+11.0%}")


if __name__ == "__main__":
    main()
