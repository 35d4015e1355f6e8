"""What the shared tool's stale rate counts: each value it finds stale, sorted by why.

``../shared/tools/state_accuracy.py`` counts a value the gold state replaced for a slot as
stale when its text is in any active anchor's JSON while the replacement is held. This
replays the same dialogues through the same public API and sorts those hits:

- ``substring``: no active anchor's value *is* the old value; the tool found it inside
  other text (a "2" in an anchor's turn numbers, "5分" inside "4.5分以上");
- ``restated``: the old value is the current gold value of another slot at the end (the
  user asked for "4.5分以上" again for the next hotel): live, not stale;
- ``true``: an active anchor holds the old value itself, and no other slot wants it.

    python benchmarks/shared_stale.py FILE:WINDOW[:FIRST|:FROM-] ... [--list]

``:30`` reads the first 30 dialogues, ``:30-`` those past them. ``--list`` prints each true
hit with the anchors that hold it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from convstate import ConversationMemory, InMemoryStore, RuleExtractor

TOOLS = Path(__file__).resolve().parents[2] / "shared" / "tools"


def classify(dialogues: list[dict[str, Any]], window: int, tool: Any, listed: bool
             ) -> tuple[Counter[str], int]:
    """(hits by kind, replaced values) over ``dialogues``, read as the tool reads them."""
    kinds: Counter[str] = Counter()
    replaced = 0
    for d in dialogues:
        mem = ConversationMemory(d["id"], store=InMemoryStore(), extractor=RuleExtractor(),
                                 context_window=window, lang=d.get("language", "en"))
        states, history, last = dict(tool.gold_states(d)), {}, {}
        for t in d["turns"]:
            mem.add("user" if t["speaker"] == "user" else "assistant", t["text"])
            mem.context()
            if gold := states.get(t["idx"]):
                last = gold
                for slot, forms in gold.items():
                    seq = history.setdefault(slot, [])
                    if not seq or seq[-1] != forms:
                        seq.append(forms)
        state = mem.state
        texts = tool.live_texts(state)
        active = [(a, json.dumps(a.model_dump(mode="json"), ensure_ascii=False).lower())
                  for a in state.active_anchors()]
        for slot, seq in history.items():
            newest = {x.lower() for x in seq[-1]}
            for old in seq[:-1]:
                olds = {o.lower() for o in old}
                if any(o in newest or any(o in x or x in o for x in newest) for o in olds):
                    continue  # another form of the same value (the tool's rule)
                replaced += 1
                if not (tool.holds([j for _, j in active], old) and tool.holds(texts, seq[-1])):
                    continue
                exact = [a for a, _ in active if str(a.value).lower() in olds]
                others = {f.lower() for s, fs in last.items() if s != slot for f in fs}
                kind = "substring" if not exact else "restated" if olds & others else "true"
                kinds[kind] += 1
                if listed and kind == "true":
                    print(f"  {d['id']} {slot}: {old} -> {seq[-1]}: "
                          f"{[(a.key, a.value, a.speaker) for a in exact]}")
    return kinds, replaced


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", nargs="+", help="FILE:WINDOW[:FIRST|:FROM-]")
    parser.add_argument("--list", action="store_true", help="print each true hit")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(TOOLS))
    import state_accuracy as tool  # the shared reference measurement, beside the repo

    print("| set | window | replaced | stale (tool) | substring | restated | true | true only |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for spec in args.specs:
        path, window, *part = spec.split(":")
        dialogues = json.loads(Path(path).read_text("utf-8"))
        if part and part[0].endswith("-"):
            dialogues, label = dialogues[int(part[0][:-1]):], f" past {part[0][:-1]}"
        elif part:
            dialogues, label = dialogues[:int(part[0])], f" first {part[0]}"
        else:
            label = ""
        kinds, replaced = classify(dialogues, int(window), tool, args.list)
        print(f"| {Path(path).stem}{label} | {window} | {replaced} | "
              f"{_rate(sum(kinds.values()), replaced)} | {kinds['substring']} | "
              f"{kinds['restated']} | {kinds['true']} | {_rate(kinds['true'], replaced)} |")
    return 0


def _rate(hits: int, replaced: int) -> str:
    return f"{hits / replaced:.3f}" if replaced else "-"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
