"""What folding costs in extractor prompt tokens, against a prose rolling summary.

For each fold of the demo conversation: the tokens of the turns folded; the whole
request convstate's LLM extractor sends for them (instructions, the turns, the id index
and the tool definition that instructor's tools mode sends with every request); and the
request a rolling summary sends for the same batch (its instructions, its previous
summary, the same turns). The summary is really produced, batch after batch: offline by
the eval's extractive summarizer (its previous summary + each turn's first clause, cut
to the block's budget), with --llm by the model. Same token counter (tiktoken), same
batches.

Batches are the ones an LLM extractor gets: at least its ``min_batch_tokens`` (three
times the fixed part) where the window allows.

Run: python benchmarks/bench_extractor_tokens.py [--lang zh|en] [--window N] [--turns N]
     [--llm URL --model NAME]
``--turns`` cycles the demo to that many turns (default: the demo once); past 12 folds
only the totals are printed. With --llm, the folds really go through the hybrid
extractor at URL, and the measured prompt tokens (the server's count) and seconds per
fold are shown.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from convstate import (
    ConversationMemory,
    InMemoryStore,
    LLMExtractor,
    RuleExtractor,
    StateDelta,
)
from convstate.cli import load_demo
from convstate.eval.baselines import extractive_summarizer, llm_summarizer, summary_request
from convstate.extract.base import Extraction
from convstate.extract.llm import HybridExtractor, tool_text
from convstate.state import IndexEntry
from convstate.turns import Turn


class Measured:
    """Delegates to an extractor; records each batch, the index, and the time taken."""

    def __init__(self, inner):
        self.inner, self.name = inner, inner.name
        self.batches: list[tuple[list[Turn], list[IndexEntry], float]] = []

    def extract(self, turns: Sequence[Turn], index: Sequence[IndexEntry],
                delta_model: type[StateDelta] = StateDelta) -> Extraction:
        t0 = time.perf_counter()
        out = self.inner.extract(turns, index, delta_model)
        self.batches.append((list(turns), list(index), time.perf_counter() - t0))
        return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.add_argument("--window", type=int, default=1200)
    p.add_argument("--llm", default=None)
    p.add_argument("--model", default="local")
    p.add_argument("--turns", type=int, default=None)
    args = p.parse_args()
    demo = load_demo(args.lang)
    turns_of = demo["messages"]
    if args.turns:
        turns_of = [turns_of[i % len(turns_of)] for i in range(args.turns)]
    llm = LLMExtractor(base_url=args.llm or "http://127.0.0.1:9/v1", model=args.model,
                       timeout=180)
    ex = Measured(HybridExtractor(llm) if args.llm else RuleExtractor())
    states = []
    mem = ConversationMemory("bench", store=InMemoryStore(), extractor=ex,
                             context_window=args.window, system_prompt=demo["system_prompt"],
                             on_fold=lambda r: states.append(r),
                             min_fold_tokens=llm.min_batch_tokens)
    for m in turns_of:
        mem.add_message(m)
        mem.context()
    c = mem.counter
    summarize = llm_summarizer(args.llm, args.model) if args.llm else extractive_summarizer(c)
    tool = c.count(tool_text(StateDelta))
    print(f"demo {args.lang}, {len(turns_of)} turns, window {args.window}, "
          f"{len(ex.batches)} folds, extractor {ex.name}; convstate's tool definition: "
          f"{tool} tokens a request, a fold's turns at least {llm.min_batch_tokens} "
          f"tokens where the window allows\n")
    rows = len(ex.batches) <= 12
    head = "| fold | turns | turn tokens | convstate request | ratio | rolling summary | ratio |"
    if args.llm:
        head += " measured prompt | seconds |"
    print(head)
    print("|" + "---:|" * (head.count("|") - 1))
    tot = [0, 0, 0]
    summary = ""
    for k, (turns, index, secs) in enumerate(ex.batches):
        turn_tokens = sum(c.message(t.message()) for t in turns)
        ours = c.messages(llm.request(turns, index)) + tool
        messages = [t.message() for t in turns]
        theirs = c.messages(summary_request(summary, messages))
        summary = summarize(summary, messages, mem.state_budget)
        tot = [tot[0] + turn_tokens, tot[1] + ours, tot[2] + theirs]
        row = (f"| {k + 1} | #{turns[0].index}-#{turns[-1].index} | {turn_tokens} | {ours} | "
               f"{ours / turn_tokens:.2f} | {theirs} | {theirs / turn_tokens:.2f} |")
        if args.llm:
            row += f" {states[k].prompt_tokens} | {secs:.1f} |"
        if rows:
            print(row)
    print(f"| all | | {tot[0]} | {tot[1]} | {tot[1] / tot[0]:.2f} | {tot[2]} | "
          f"{tot[2] / tot[0]:.2f} |" + (" | |" if args.llm else ""))
    n = len(ex.batches)
    fixed = llm.fixed_prompt_tokens * n  # instructions + tool definition (cl100k, as here)
    theirs_fixed = c.messages(summary_request("", [])) * n
    print(f"\nthe fixed part of a request (instructions and tool definition; byte-identical "
          f"on every fold, so a provider's prompt cache can serve it): convstate "
          f"{fixed // n}, rolling summary {theirs_fixed // n} tokens. Without it, per "
          f"folded-turn token: convstate {(tot[1] - fixed) / tot[0]:.2f}, rolling summary "
          f"{(tot[2] - theirs_fixed) / tot[0]:.2f}")


if __name__ == "__main__":
    main()
