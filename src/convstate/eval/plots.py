"""PNG charts of an evaluation (needs matplotlib: ``pip install "convstate[eval]"``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise ImportError('plots need matplotlib: pip install "convstate[eval]"') from None
    matplotlib.use("Agg")  # files only, no screen
    import matplotlib.pyplot as plt

    return plt


def retention_by_window(runs: dict[int, dict[str, Any]], path: Path,
                        metric: str = "anchor_retention") -> Path:
    """One line per method: ``metric`` against the window size."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    windows = sorted(runs)
    for method in runs[windows[0]]["summary"]:
        ys = [runs[w]["summary"][method][metric] or 0 for w in windows]
        ax.plot(windows, ys, marker="o", label=method)
    ax.set(xlabel="context window (tokens)", ylabel=metric.replace("_", " "), ylim=(0, 1.02),
           title=f"{metric.replace('_', ' ')} by window")
    return _save(plt, fig, ax, path)


def retention_by_budget(results: dict[str, dict[float, dict[str, Any]]], path: Path) -> Path:
    """One panel per QA set: each method's answer retention at each budget."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(results), figsize=(3.2 * len(results), 3.4),
                             squeeze=False)
    for ax, (name, runs) in zip(axes[0], results.items(), strict=True):
        ratios = sorted(runs)
        for method in runs[ratios[0]]["methods"]:
            # in the gold document; anywhere in the output when the set names none
            ys = [runs[r]["methods"][method]["answer_retention"]
                  if runs[r]["methods"][method]["answer_retention"] is not None
                  else runs[r]["methods"][method]["answer_anywhere"] for r in ratios]
            ax.plot([f"{r:.0%}" for r in ratios], ys, marker="o", label=method)
        ax.set(title=name, xlabel="budget", ylim=(0, 1.02))
    axes[0][0].set_ylabel("answer retention")
    return _save(plt, fig, axes[0][-1], path)


def tokens_by_turn(result: dict[str, Any], path: Path) -> Path:
    """Context tokens against turn index for each method, averaged over the dialogues,
    with the full history for scale."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    dialogues = result["dialogues"]
    for method in result["summary"]:
        curves = [d["methods"][method]["context_tokens_by_turn"] for d in dialogues]
        n = min(len(c) for c in curves)
        ax.plot(range(n), [sum(c[i] for c in curves) / len(curves) for i in range(n)],
                label=method)
    ax.axhline(result["config"]["window"], color="grey", ls="--", lw=1, label="window")
    ax.set(xlabel="turn index", ylabel="context tokens (mean over dialogues)",
           title="context size as the conversation grows")
    return _save(plt, fig, ax, path)


def _save(plt: Any, fig: Any, ax: Any, path: Path) -> Path:
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    if not path.suffix:  # matplotlib would add it: say the file it writes
        path = path.with_suffix(".png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
