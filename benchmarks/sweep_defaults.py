"""The sweep that chose the defaults of trigger, target, block share and keep-recent:
`convstate eval` (rule extractor) on every dialogue set, each setting against
truncation at the same budget. Writes docs/sweep.json and docs/sweep.png.

    python benchmarks/sweep_defaults.py [--data ../shared/data]

Every set counts the same; the defaults are the setting with the best worst-case ratio
to truncation (no set harmed), then the best mean.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

from convstate.eval.run import EvalConfig, evaluate, load_dialogues

SETS = [  # (label, file, first K, window)
    ("CrossWOZ@400", "crosswoz/crosswoz_test_subset.json", 30, 400),
    ("SGD@400", "sgd/sgd_test_long.json", 30, 400),
    ("SGD-USS@512", "sgd/sgd_uss_satisfaction.json", 30, 512),
    ("scm_long@4096", "scm_long/scm_long_dialogues.json", None, 4096),
    ("goodai_ltm@2048", "goodai_ltm/goodai_ltm_b3_1k.json", None, 2048),
]
FOLDS = [(0.7, 0.5), (0.5, 0.3), (0.3, 0.1)]
SHARES = [0.5, 0.7, 0.85]
KEEPS = [2, 4]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=Path(__file__).parents[2] / "shared" / "data")
    p.add_argument("--out", type=Path, default=Path(__file__).parents[1] / "docs")
    args = p.parse_args()
    data = {label: load_dialogues(args.data / path, limit) for label, path, limit, _ in SETS}
    rows = []
    for (trigger, target), share, keep in itertools.product(FOLDS, SHARES, KEEPS):
        row = {"trigger": trigger, "target": target, "block_share": share, "keep": keep,
               "sets": {}}
        for label, _, _, window in SETS:
            s = evaluate(data[label], EvalConfig(window=window, trigger_ratio=trigger,
                                                 target_ratio=target, block_share=share,
                                                 keep_recent_turns=keep))["summary"]
            row["sets"][label] = {m: s[m]["anchor_retention"] for m in
                                  ("convstate", "truncation", "rolling_summary")}
        ratios = [v["convstate"] / v["truncation"] for v in row["sets"].values()]
        row["worst_ratio"], row["mean_ratio"] = min(ratios), sum(ratios) / len(ratios)
        rows.append(row)
        print(f"trigger {trigger} target {target} block {share} keep {keep}: worst "
              f"{row['worst_ratio']:.3f} mean {row['mean_ratio']:.3f}", file=sys.stderr)
    best = max(rows, key=lambda r: (round(r["worst_ratio"], 2), r["mean_ratio"]))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "sweep.json").write_text(json.dumps({"best": best, "rows": rows}, indent=1))
    _chart(rows, args.out / "sweep.png")
    print(f"best: trigger {best['trigger']} target {best['target']} block share "
          f"{best['block_share']} keep {best['keep']} (worst ratio {best['worst_ratio']:.3f},"
          f" mean {best['mean_ratio']:.3f})")
    return 0


def _chart(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{r['trigger']}/{r['target']}\n{r['block_share']} k{r['keep']}" for r in rows]
    fig, ax = plt.subplots(figsize=(14, 5))
    width = 0.8 / len(SETS)
    for k, (name, *_rest) in enumerate(SETS):
        ax.bar([i + k * width for i in range(len(rows))],
               [r["sets"][name]["convstate"] / r["sets"][name]["truncation"] for r in rows],
               width, label=name)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(rows))], labels, fontsize=7)
    ax.set_ylabel("anchor retention / truncation's")
    ax.set_title("convstate eval, rule extractor: trigger/target, block share, keep-recent")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
