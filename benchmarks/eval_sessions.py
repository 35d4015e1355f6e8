"""Does a returning user have to repeat themselves? Multi-session conversations built from
the dialogue sets in shared/data: each dialogue is cut into three sessions of the same
user (at the user turns nearest its thirds). A gold value the user said in session 1 is
"kept" when it is verbatim in session 3's final context. Compared: convstate with a
profile (``user_id``), and each session started empty (convstate without a profile; what
any per-session memory gives).

    python benchmarks/eval_sessions.py [--data ../shared/data] [--window 512]

Only what the user said counts (a value the assistant offered is the assistant's to
repeat), and only values not said again in sessions 2 or 3 (those are in the context
anyway).
"""

from __future__ import annotations

import argparse
import tempfile
import warnings
from collections import Counter
from pathlib import Path

from convstate import ConversationMemory, SQLiteStore
from convstate.eval.run import SYSTEM_PROMPT, Dialogue, _message, load_dialogues

SETS = [("CrossWOZ", "crosswoz/crosswoz_test_subset.json"), ("SGD", "sgd/sgd_test_long.json"),
        ("SGD-USS", "sgd/sgd_uss_satisfaction.json"),
        ("goodai_ltm", "goodai_ltm/goodai_ltm_b3_1k.json")]


def cuts(d: Dialogue) -> list[int]:
    """Turn indexes where sessions 2 and 3 start: user turns nearest the thirds."""
    users = [t.idx for t in d.turns if t.speaker == "user"]
    n = len(d.turns)
    return [min(users, key=lambda i: abs(i - n * k // 3)) for k in (1, 2)]


def run(d: Dialogue, db: Path, window: int, profile: bool) -> str:
    """Session 3's final context, as text."""
    second, third = cuts(d)
    bounds = [(0, second), (second, third), (third, len(d.turns))]
    text = ""
    for k, (lo, hi) in enumerate(bounds):
        mem = ConversationMemory(f"{d.id}-{k}-{profile}", store=SQLiteStore(db),
                                 user_id=d.id if profile else None, context_window=window,
                                 system_prompt=SYSTEM_PROMPT)
        for t in d.turns[lo:hi]:
            mem.add_message(_message(t))
            context = mem.context()
        mem.compact(keep_recent_turns=0)  # the session ends: everything is folded
        text = "\n".join(str(m.get("content") or "") for m in context)
        mem.close()
    return text


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=Path(__file__).parents[2] / "shared" / "data")
    p.add_argument("--window", type=int, default=512)
    p.add_argument("--limit", type=int, default=None)
    args = p.parse_args()
    warnings.simplefilter("ignore")
    print("| set | window | user values of session 1 | kept in session 3: with a profile "
          "| each session empty |")
    print("|---|---:|---:|---:|---:|")
    for label, path in SETS:
        kept: Counter[str] = Counter()
        with tempfile.TemporaryDirectory() as tmp:
            for d in load_dialogues(args.data / path, args.limit):
                second, _ = cuts(d)
                speaker = {t.idx: t.speaker for t in d.turns}
                later = "\n".join(t.text for t in d.turns[second:])
                gold = {a.value for a in d.gold.anchors or []
                        if a.turns() and a.first_turn < second
                        and speaker.get(a.first_turn) == "user" and a.value not in later}
                if not gold:
                    continue
                with_profile = run(d, Path(tmp) / "s.db", args.window, True)
                without = run(d, Path(tmp) / "s.db", args.window, False)
                kept["gold"] += len(gold)
                kept["profile"] += sum(v in with_profile for v in gold)
                kept["empty"] += sum(v in without for v in gold)
        n = max(kept["gold"], 1)
        print(f"| {label} | {args.window} | {kept['gold']} | {kept['profile'] / n:.3f} | "
              f"{kept['empty'] / n:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
