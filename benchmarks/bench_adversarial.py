"""Time of the rule extractor against the size of adversarial text: linear or not.

Run: python benchmarks/bench_adversarial.py [--sizes 12500 50000 200000] [--reps 3]
     [--only NAME ...]

Each family is a text an attacker (or a careless paste) can send: runs of digits, of
separators, of letters, punctuation or CJK, a cue word repeated or followed by a long
gap, many values in one turn. For each size, one batch of three turns (the assistant
asking for an address, the text as the user's answer — read for a value of the asked
kind by its shape — and as the assistant's: a long assistant turn takes the outline
path) is extracted ``--reps`` times and the best time is kept (CPU time of the thread:
the time a shared machine makes it wait is not the extraction's). The table gives seconds
per size, the ratio of each size's time to the one before (4x the input: about 4x the
time when linear, 16x when quadratic) and microseconds per character read at the
largest size (the text is read twice). A benchmark, not a test: nothing here asserts a
timing (tests/test_linear.py checks a ratio).
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable

from convstate import RuleExtractor, Turn


def _run(unit: str) -> Callable[[int], str]:
    return lambda n: unit * max(1, n // len(unit))


def _after(head: str, unit: str, tail: str = "x") -> Callable[[int], str]:
    return lambda n: head + unit * max(1, (n - len(head) - len(tail)) // len(unit)) + tail


FAMILIES: dict[str, Callable[[int], str]] = {
    "digits": _run("1"),
    "digits, commas": _run("1,"),
    "digits, spaces": _run("1 "),
    "digits after a cue": _after("My order number is ", "1", ""),
    "dashes": _run("-"),
    "dots": _run("."),
    "spaces": _after("", " "),
    "newlines": _run("\n"),
    "letters": _run("a"),
    "capitals": _run("A"),
    "capitalized words": _run("Xyzw. "),
    "CJK": _run("北京"),
    "CJK kinds": _run("地址"),
    "emoji": _run("😀"),
    "quotes": _run('"'),
    "cue repeated": _run("order"),
    "cue, spaces": _after("tracking", " "),
    "zh cue, spaces": _after("地址", " "),
    "zh question, spaces": _after("吗", " "),
    "email-like run": _after("", "a.", "@"),
    "many values": _run("Hilton 1元 "),
    "tasks and completions": _run("我会处理这个问题，已经处理好了，"),
    "an answer with a gap": _after("", " "),  # after ASKED, read by the value's shape
    "a zh ask with a gap": _after("可以提供订单号吗", " "),
    "a list of ids": lambda n: "My orders: " + ", ".join(
        f"SR-{20240000 + i}-889" for i in range(max(1, n // 17))),
}


ASKED = "What is your address?"  # the assistant's turn before each text


def timed(text: str, reps: int) -> float:
    """Best of ``reps`` extractions of the text as the user's answer to ASKED and as an
    assistant turn."""
    turns = [Turn(index=0, role="assistant", content=ASKED),
             Turn(index=1, role="user", content=text),
             Turn(index=2, role="assistant", content=text)]
    extractor, best = RuleExtractor(), float("inf")
    for _ in range(reps):
        gc.collect()
        t0 = time.thread_time()
        extractor.extract(turns, [])
        best = min(best, time.thread_time() - t0)
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[12_500, 50_000, 200_000])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--only", nargs="+", default=None, help="families to run")
    args = p.parse_args()
    sizes = sorted(args.sizes)
    head = " | ".join(f"{n:,} chars" for n in sizes)
    ratios = " | ".join(f"x {b // a}" for a, b in zip(sizes, sizes[1:], strict=False))
    print(f"| family | {head} | {ratios} | µs/char |")
    print("|---" * (2 + 2 * len(sizes)) + "|")
    for name, make in FAMILIES.items():
        if args.only and name not in args.only:
            continue
        times = [timed(make(n), args.reps) for n in sizes]
        cells = " | ".join(f"{t:.3f} s" for t in times)
        steps = " | ".join(f"{b / a:.1f}" for a, b in zip(times, times[1:], strict=False))
        print(f"| {name} | {cells} | {steps} | {times[-1] / (2 * sizes[-1]) * 1e6:.1f} |",
              flush=True)


if __name__ == "__main__":
    main()
