"""The rule extractor reads any text in time linear in its length: 4x the text takes at
most ~6x the time. A ratio of two measured times (each the best of several runs), never
seconds; benchmarks/bench_adversarial.py has the times."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Annotated, Literal

import pytest

from convstate import ConversationState, Cue, RuleExtractor, StateDelta, Turn, delta_model
from convstate.extract.products import find_products

# Texts that took time quadratic (or worse) in their length: the patterns tried a long
# run again from each of its characters, or a long gap split every way between two
# quantifiers; a completion was compared with every task of the turn. (Copies of the
# text per value or per name were quadratic too, but show only at sizes too slow for a
# test: see the benchmark's "many values" and "capitalized words".)
FAMILIES: dict[str, Callable[[int], str]] = {
    "digits": lambda n: "1" * n,
    "digits and commas": lambda n: "1," * (n // 2),
    "a cue, then spaces": lambda n: "tracking" + " " * n + "x",
    "a zh cue, then spaces": lambda n: "地址" + " " * n + "x",
    "a zh question, then spaces": lambda n: "吗" + " " * n + "x",
    "a cue repeated": lambda n: "order" * (n // 5),
    "an email's run": lambda n: "a." * (n // 2),
    "tasks and completions": lambda n: "我会处理这个问题，已经处理好了，" * (n // 16),
    # what the assistant asked for, looked for in the answer by its shape alone
    "an answer with a gap": lambda n: "x" + " " * n + "y",
    "a zh ask with a gap": lambda n: "可以提供订单号吗" + " " * n + "x",
    # an answer's values looked for again at every place each other value stands
    "many values in an answer": lambda n: "Hilton " + "1元 " * (n // 3),
    "branches and attributes": lambda n: "全聚德(王府井店)的电话" * (n // 13),
    # a reply about an offer, one run of word characters: "…er than" tried at each
    "a zh reply that refers back": lambda n: "这个" + "好" * n + "吗？",
    # values of one key, each compared with the next for a correction between them
    "plans switched to, over and over": lambda n: "move me to the Gold 5 plan, " * (n // 28),
    "phones corrected, over and over": lambda n: "415-555-0100, sorry, " * (n // 21),
    # a phone's digit groups, each a place an international or a national number starts
    "digit groups after a country code": lambda n: "+44 (0)20 " + "12 " * (n // 3),
    "trunk zeros": lambda n: "+1 0 " * (n // 5),
}
ASKED = "What is your address?"  # the assistant's turn before every text
SLOWEST = 6.0  # 4x the text, linear: ~4x the time; quadratic: ~16x
START, MEASURABLE, REPS = 250, 0.03, 5


def times(texts: list[str], reps: int = REPS,
          delta_model: type[StateDelta] = StateDelta) -> list[float]:
    """The best of ``reps`` extractions of each text as a user's answer to ASKED and as an
    assistant turn (a long one takes the outline path), in CPU time (the time a busy
    machine lets this thread wait is not the extraction's), the texts taken in turn."""
    extractor = RuleExtractor()
    best = [float("inf")] * len(texts)
    enabled = gc.isenabled()
    gc.disable()  # a collection's pause would land in whichever run it met
    try:
        for _ in range(reps):
            for k, text in enumerate(texts):
                turns = [Turn(index=0, role="assistant", content=ASKED),
                         Turn(index=1, role="user", content=text),
                         Turn(index=2, role="assistant", content=text)]
                t0 = time.thread_time()
                extractor.extract(turns, [], delta_model)
                best[k] = min(best[k], time.thread_time() - t0)
    finally:
        if enabled:
            gc.enable()
    return best


def ratio(make: Callable[[int], str], delta_model: type[StateDelta] = StateDelta
          ) -> tuple[int, float]:
    """(n, the time of 4n characters over the time of n), n the smallest size (doubling
    from START) whose time can be measured."""
    times(["warm up: the patterns compile at their first use"], 1, delta_model)
    n = START
    while times([make(n)], delta_model=delta_model)[0] < MEASURABLE and n < 100_000:
        n *= 2
    small, large = times([make(n), make(4 * n)], delta_model=delta_model)
    return n, large / small


@pytest.mark.parametrize("name", FAMILIES)
def test_four_times_the_text_takes_at_most_six_times_as_long(name: str) -> None:
    n, slower = ratio(FAMILIES[name])
    assert slower <= SLOWEST, f"{name}: {n} -> {4 * n} characters took {slower:.1f}x the time"


class Case(ConversationState):
    method: Annotated[Literal["refund", "exchange"] | None,
                      Cue({"refund": "退款|refund", "exchange": "换货|exchange"})] = None


@pytest.mark.parametrize("unit", ["refund ", "退款"])
def test_a_choice_named_over_and_over_is_read_in_linear_time(unit: str) -> None:
    # each mention of an option was read against every word before it in its clause
    n, slower = ratio(lambda k: unit * (k // len(unit)), delta_model(Case))
    assert slower <= SLOWEST, f"{unit!r}: {n} -> {4 * n} characters took {slower:.1f}x"


def test_dishes_named_in_a_row_are_found_in_linear_time() -> None:
    # each dish looked back to the start of the text for a joining word: 100k characters
    # took 6 s; sizes where that shows (the whole extraction at START hides it)
    text = "米饭和鸡蛋这两道菜，"
    best = [min(_cpu(find_products, text * k) for _ in range(3)) for k in (1250, 5000)]
    assert best[1] / best[0] <= SLOWEST, f"4x the dishes took {best[1] / best[0]:.1f}x"


def _cpu(call: Callable[[str], object], text: str) -> float:
    t0 = time.process_time()
    call(text)
    return time.process_time() - t0
