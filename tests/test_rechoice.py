"""A choice made again supersedes the choice it changes (extract/rechoice.py), zh and en:
only a parallel one (the same unit, the same head), only by a change said as one."""

from __future__ import annotations

import pytest

from convstate import ConversationMemory, InMemoryStore

A, U = "assistant", "user"


def decisions(*turns: tuple[str, str]) -> list[tuple[str, str]]:
    mem = ConversationMemory("rc", store=InMemoryStore(), context_window=8192)
    for role, text in turns:
        mem.add(role, text)
        mem.context()  # the rule extractor reads each turn as it comes
    return [(d.text, d.status) for d in mem.state.decisions]


@pytest.mark.parametrize("first, again, new", [
    ("I'll take the 12-month installment plan.", "Actually, make it 6 months instead.",
     "make it 6 months instead"),
    ("Let's go with the blue one.", "On second thought, I'll take the red one.",
     "I'll take the red one"),
    ("I'll go with the express shipping.", "Wait, switch to standard shipping please.",
     "switch to standard shipping please"),
    ("I'll take two tickets.", "Actually, make it 3 tickets.", "make it 3 tickets"),
    ("I'll take the chicken salad.", "Actually, I'll have the tuna salad.",
     "I'll have the tuna salad"),
    ("我选12期免息。", "还是改成6期吧。", "还是改成6期吧"),
    ("I'll take the 12-month plan.", "Actually, make it 6 months instead of 12 months.",
     "make it 6 months instead of 12 months"),
    ("那就选顺丰快递。", "算了，还是改成京东快递吧。", "还是改成京东快递吧"),
])
def test_a_choice_made_again_supersedes_the_one_it_changes(first: str, again: str,
                                                          new: str) -> None:
    got = decisions((U, first), (A, "OK."), (U, again))
    assert got[0][1] == "superseded", got
    assert (new, "active") in got, got
    assert [t for t, s in got if s == "active"] == [new]


@pytest.mark.parametrize("first, later", [
    ("I'll take the blue shirt.", "Actually, I'll take a receipt too."),  # another thing
    ("I'll take the 12-month plan.", "Actually, don't make it 6 months."),  # negated
    ("I'll take the 12-month plan.", "Could you make it 6 months instead?"),  # asked
    ("I'll take the 12-month plan.", "I'll take the 12-month plan, yes."),  # said again
    ("那就选顺丰快递。", "还是要开发票。"),
    # not the speaker's own choice now, or one more beside it
    ("I'll go with express shipping.", "I refuse to switch to standard shipping."),
    ("那就选顺丰快递。", "不想换成京东快递。"),
    ("I'll take the 12-month plan.", "Actually, my wife will take the 6-month plan."),
    ("I'll take the 12-month plan.", "Actually, if it's cheaper, make it 6 months."),
    ("I'll take the blue shirt.", "Actually, I'll also take the red shirt."),
    ("那就两杯拿铁。", "其实我还要一杯美式。"),
    ("I'll go with the premium plan.", "Actually, I want to cancel my basic plan."),  # an act
    ("I'll go with express shipping.", "No need to switch to standard shipping."),
    ("我选红色的。", "要红色的还是蓝色的，我再想想。"),  # still between two
    # a number of the unit, but not what the choice is: its head is another thing
    ("I'll take the 12-month plan.", "Actually, I want 2 months of free trial."),
    ("I'll take the 12-month plan.", "Actually, I'll take the 6-month plan for my son."),
    ("Let's go with the blue one.", "Actually, I have a question about the red one."),
])
def test_what_changes_nothing_parallel_supersedes_nothing(first: str, later: str) -> None:
    got = decisions((U, first), (A, "OK."), (U, later))
    assert got[0] == (got[0][0], "active"), got


def test_only_the_newest_parallel_choice_is_changed() -> None:
    got = dict(decisions((U, "Let's go with the blue one."), (A, "OK."),
                         (U, "Actually, I'll take the green one."), (A, "OK."),
                         (U, "On second thought, I'll take the red one.")))
    assert got == {"Let's go with the blue one": "superseded",
                   "I'll take the green one": "superseded",
                   "I'll take the red one": "active"}
