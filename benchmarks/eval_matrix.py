"""Run `convstate eval` over every dialogue set in shared/data at the windows each is
meant for, and print one markdown table: anchor retention per method, context tokens,
(where the code reports them) convstate's losses and block precision, and the state as
code reads it (turn and anchor recall, stale rate, precision, and turn recall with every
turn folded; "-" for a set without per-turn gold state).

    python benchmarks/eval_matrix.py [--data ../shared/data] [--json out.json]
        [--trigger R --target R --block-share R --keep K] [--windows N ...]

Nothing here is tuned to the data: the same settings run on every set.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from convstate.eval.run import EvalConfig, evaluate, load_dialogues
from convstate.eval.state_accuracy import MEASURES

# (label, file under the data folder, first K dialogues or None, windows)
RUNS = [
    ("CrossWOZ 30", "crosswoz/crosswoz_test_subset.json", 30, [400]),
    ("CrossWOZ", "crosswoz/crosswoz_test_subset.json", None, [512]),
    ("SGD 30", "sgd/sgd_test_long.json", 30, [400]),
    ("SGD", "sgd/sgd_test_long.json", None, [512]),
    ("SGD-USS", "sgd/sgd_uss_satisfaction.json", None, [512]),
    ("scm_long", "scm_long/scm_long_dialogues.json", None, [4096, 8192]),
    ("goodai_ltm", "goodai_ltm/goodai_ltm_b3_1k.json", None, [2048, 4096]),
]


def _figure(value: float | None, places: int) -> str:
    return "-" if value is None else f"{value:.{places}f}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=Path(__file__).parents[2] / "shared" / "data")
    p.add_argument("--json", type=Path, default=None, help="write every summary here")
    p.add_argument("--trigger", type=float, default=None)
    p.add_argument("--target", type=float, default=None)
    p.add_argument("--block-share", type=float, default=None)
    p.add_argument("--keep", type=int, default=None, help="keep_recent_turns")
    p.add_argument("--only", default=None, help="run only sets whose label contains this")
    p.add_argument("--windows", type=int, nargs="+", default=None,
                   help="these windows for every set (default: each set's own)")
    args = p.parse_args()
    extra = {k: v for k, v in (("trigger_ratio", args.trigger), ("target_ratio", args.target),
                               ("block_share", args.block_share),
                               ("keep_recent_turns", args.keep)) if v is not None}
    print("| set | window | convstate | truncation | rolling summary | tokens (cs / trunc) "
          "| raw / block / state only / never / unfolded | block precision "
          "| state: turn recall | anchor recall | stale | precision | every turn folded |")
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    out = {}
    for label, path, limit, windows in RUNS:
        if args.only and args.only not in label:
            continue
        dialogues = load_dialogues(args.data / path, limit)
        for window in args.windows or windows:
            start = time.perf_counter()
            s = evaluate(dialogues, EvalConfig(window=window, **extra))["summary"]
            out[f"{label}@{window}"] = s
            cs, tr, rs = s["convstate"], s["truncation"], s["rolling_summary"]
            loss = cs.get("loss") or {}
            losses = " / ".join(f"{loss[k]:.0%}" for k in
                                ("raw", "block", "state", "never_extracted", "unfolded")
                                if k in loss) or "-"
            state = " | ".join(_figure(cs.get(name), 3) for name in MEASURES)
            print(f"| {label} | {window} | {cs['anchor_retention']:.3f} | "
                  f"{tr['anchor_retention']:.3f} | {rs['anchor_retention']:.3f} | "
                  f"{cs['context_tokens']:.0f} / {tr['context_tokens']:.0f} | {losses} | "
                  f"{_figure(cs.get('block_precision'), 2)} | {state} |", flush=True)
            print(f"  ({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
