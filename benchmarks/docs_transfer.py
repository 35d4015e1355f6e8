"""Does each rule of compress_documents earn its place out of sample?

Every rule is a constant (or two) of convstate.documents; turned off, it adds nothing.
This script measures answer retention (the answer in the gold document's kept text, the
sets' README's definition) at 25% of each instance's tokens on the shared QA sets and on
their hard-distractor variants (benchmarks/build_hard_distractors.py), with a rule's
constants set as asked, and reports:

- ``ablate``: each rule turned off, alone, against the code as it is: the change on
  every set, with a paired 95% bootstrap interval (instances resampled, fixed seed);
- ``loso``: leave one corpus out. For each corpus (SQuAD and its hard variant are one
  corpus, as are CMRC and its variant: they share their questions), each rule's value
  is chosen on the other corpora (the best mean retention over their sets among the
  rule's grid, "off" included; a tie goes to "off", then to the smaller change), and
  measured on the corpus left out, against the rule off. A rule that loses, summed over
  the corpora left out, does not transfer.

    python benchmarks/build_hard_distractors.py ../shared/data/qa/squad2_dev_multidoc.json \\
        ../shared/data/qa/cmrc2018_dev_multidoc.json --out /tmp/qa_hard
    taskset -c 0 python benchmarks/docs_transfer.py ablate --hard /tmp/qa_hard
    taskset -c 0 python benchmarks/docs_transfer.py loso --hard /tmp/qa_hard

Results are cached by the source of documents.py and the constants (``--cache``), so a
rerun only measures what changed; one measurement of the six sets takes about 15 s of
one core.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import math
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from convstate import documents
from convstate.eval.docs import answer_kept, load_qa
from convstate.tokens import TokenCounter

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "qa"
SETS = {"squad": "squad2_dev_multidoc.json", "cmrc": "cmrc2018_dev_multidoc.json",
        "hotpotqa": "hotpotqa_dev_distractor_sample.json",
        "dureader": "dureader_search_demo_multidoc.json"}
HARD = ("squad", "cmrc")  # the corpora with hard-distractor variants
RATIO, SEED, SAMPLES = 0.25, 46, 2000

# Each rule: the constants that turn it off, then the grid its value is chosen from.
Setting = dict[str, float]
RULES: dict[str, tuple[Setting, list[Setting]]] = {
    "document share": ({"DOC_WEIGHT": 0}, [{"DOC_WEIGHT": v} for v in (0.15, 0.25, 0.4)]),
    "neighbour share": ({"NEIGHBOUR_WEIGHT": 0},
                        [{"NEIGHBOUR_WEIGHT": v} for v in (0.125, 0.25, 0.4)]),
    "retriever's order": ({"RANK_WEIGHT": 0}, [{"RANK_WEIGHT": v} for v in (0.1, 0.2, 0.3)]),
    "value asked": ({"VALUE_BONUS": 0}, [{"VALUE_BONUS": v} for v in (0.15, 0.3, 0.5)]),
    "lead's own match": ({"LEAD_WEIGHT": 0}, [{"LEAD_WEIGHT": v} for v in (0.25, 0.5, 1)]),
    "lead prior": ({"LEAD_PRIOR": 0}, [{"LEAD_PRIOR": v} for v in (0.2, 0.4, 0.6)]),
    "kept neighbour": ({"ADJACENT_BONUS": 0},
                       [{"ADJACENT_BONUS": v} for v in (0.1, 0.2, 0.3)]),
    "runs on": ({"CONTINUE_BONUS": 0}, [{"CONTINUE_BONUS": v} for v in (0.1, 0.2, 0.3)]),
    "near copy waits": ({"NEAR_COPY_MIN": 10**9},
                        [{"NEAR_COPY_MIN": 5, "NEAR_COPY": v} for v in (0.6, 0.7, 0.8)]),
    "term decay": ({"TERM_DECAY": 1}, [{"TERM_DECAY": v} for v in (0.25, 0.5, 0.75)]),
    "names looked for": ({"FEEDBACK_WEIGHT": 0},
                         [{"FEEDBACK_WEIGHT": v} for v in (0.25, 0.5, 0.75)]),
    "page about": ({"ABOUT_BONUS": 0, "ABOUT_SENTENCES": 0},
                   [{"ABOUT_SENTENCES": 2, "ABOUT_BONUS": v} for v in (0, 0.15, 0.3, 0.45)]),
    "asking counts less": ({"ASKING_WEIGHT": 1},
                           [{"ASKING_WEIGHT": v} for v in (0.25, 0.5, 0.75)]),
    "restating counts less": ({"RESTATING_WEIGHT": 1},
                              [{"RESTATING_WEIGHT": v} for v in (0.25, 0.5, 0.75)]),
    "what pages share": ({"CENTROID_WEIGHT": 0},
                         [{"CENTROID_WEIGHT": v} for v in (0.3, 0.6, 0.9)]),
}


def rules() -> dict[str, tuple[Setting, list[Setting]]]:
    """The rules whose constants the code has (an ablated one is gone)."""
    return {n: r for n, r in RULES.items() if all(hasattr(documents, c) for c in r[0])}


@contextmanager
def constants(setting: Setting) -> Iterator[None]:
    """documents' constants set as ``setting`` says, for the block."""
    before = {name: getattr(documents, name) for name in setting}
    try:
        for name, value in setting.items():
            setattr(documents, name, value)
        yield
    finally:
        for name, value in before.items():
            setattr(documents, name, value)


class Bench:
    """The sets, their budgets, and cached measurements of a setting."""

    def __init__(self, shared: Path, hard: Path | None, cache: Path):
        self.counter = TokenCounter("gpt-4")  # cl100k_base, as the sets count
        self.data: dict[str, list[dict[str, Any]]] = {}
        for name, file in SETS.items():
            self.data[name] = load_qa(shared / file)
            if hard is not None and name in HARD:
                self.data[f"{name} hard"] = load_qa(hard / file)
        self.budgets = {name: [math.floor(RATIO * (self.counter.count(x["question"]) + sum(
            self.counter.count(d["text"]) for d in x["documents"]))) for x in data]
            for name, data in self.data.items()}
        self.source = hashlib.sha256(inspect.getsource(documents).encode()).hexdigest()[:16]
        self.cache_path = cache
        self.cache: dict[str, str] = json.loads(cache.read_text()) if cache.exists() else {}

    def hits(self, setting: Setting, name: str) -> list[bool]:
        """Per instance of set ``name``: the answer in the gold document's kept text."""
        key = f"{self.source} {json.dumps(setting, sort_keys=True)} {name}"
        if key not in self.cache:
            with constants(setting):
                bits = []
                for x, budget in zip(self.data[name], self.budgets[name], strict=True):
                    out = documents.compress_documents(x["question"], x["documents"], budget,
                                                       counter=self.counter)
                    assert out.tokens <= budget
                    bits.append("1" if answer_kept(x, out.kept, out.text)[0] else "0")
            self.cache[key] = "".join(bits)
            self.cache_path.write_text(json.dumps(self.cache))
        return [b == "1" for b in self.cache[key]]

    def corpus(self, name: str) -> list[str]:
        """The sets of a corpus: the shared one and its hard variant."""
        return [s for s in self.data if s.split()[0] == name]


def share(hits: list[bool]) -> float:
    return sum(hits) / len(hits)


def paired_interval(a: list[bool], b: list[bool]) -> tuple[float, float]:
    """95% bootstrap interval of share(a) - share(b), the same instances resampled."""
    rng, n = random.Random(SEED), len(a)
    diffs = [int(x) - int(y) for x, y in zip(a, b, strict=True)]
    means = sorted(sum(rng.choices(diffs, k=n)) / n for _ in range(SAMPLES))
    return means[int(0.025 * SAMPLES)], means[int(0.975 * SAMPLES)]


def ablate(bench: Bench, base: Setting) -> None:
    now = {s: bench.hits(base, s) for s in bench.data}
    print("rule off".ljust(24) + "".join(f"{s:>22}" for s in now))
    print("as it is".ljust(24) + "".join(f"{share(h):>22.3f}" for h in now.values()))
    for rule, (off, _) in rules().items():
        row = rule.ljust(24)
        for s, h in now.items():
            o = bench.hits(base | off, s)
            lo, hi = paired_interval(o, h)
            row += f"{share(o) - share(h):+.3f} ({lo:+.3f},{hi:+.3f})".rjust(22)
        print(row, flush=True)


def loso(bench: Bench, base: Setting) -> None:
    corpora = list(SETS)
    print("rule".ljust(24) + "".join(f"{c:>26}" for c in corpora) + "   sum")
    for rule, (off, grid) in rules().items():
        options = [base | off, *[base | off | g for g in grid]]
        row, total = rule.ljust(24), 0.0
        for out in corpora:
            tune = [s for c in corpora if c != out for s in bench.corpus(c)]
            # the best on the other corpora; a tie goes to "off", then the first listed
            pick = max(range(len(options)), key=lambda k: (
                round(sum(share(bench.hits(options[k], s)) for s in tune) / len(tune), 6),
                -k))
            gain = sum(share(bench.hits(options[pick], s)) - share(bench.hits(options[0], s))
                       for s in bench.corpus(out))
            total += gain
            chosen = "off" if pick == 0 else ",".join(f"{v:g}" for v in grid[pick - 1].values())
            row += f"{chosen:>12} {gain:+.3f}".rjust(26)
        print(f"{row}   {total:+.3f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("ablate", "loso"))
    parser.add_argument("--data", type=Path, default=SHARED, metavar="DIR",
                        help="the shared QA sets (default: ../shared/data/qa)")
    parser.add_argument("--hard", type=Path, default=None, metavar="DIR",
                        help="the hard-distractor variants (build_hard_distractors.py --out)")
    parser.add_argument("--base", type=json.loads, default={}, metavar="JSON",
                        help='constants to measure around, e.g. {"TERM_DECAY": 1}')
    parser.add_argument("--cache", type=Path, default=Path("/tmp/convstate_docs_transfer.json"))
    args = parser.parse_args()
    bench = Bench(args.data, args.hard, args.cache)
    {"ablate": ablate, "loso": loso}[args.mode](bench, args.base)


if __name__ == "__main__":
    main()
