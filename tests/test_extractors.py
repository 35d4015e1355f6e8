"""The extractor protocol: sync and async with defaults, any two extractors composed,
a fallback given as an extractor, known failures deferred and bugs surfaced."""

from __future__ import annotations

import asyncio
import logging

import pytest
from conftest import make_turns

from convstate import (
    ConversationMemory,
    Extraction,
    ExtractionError,
    Extractor,
    HybridExtractor,
    InMemoryStore,
    RuleExtractor,
    StateDelta,
)
from convstate.delta import NewGoal


class GoalsOnly:
    """A duck-typed extractor: a name and extract, nothing else."""

    name = "goals-only"

    def extract(self, turns, index, delta_model=StateDelta):
        return Extraction(delta=delta_model(goals=[
            NewGoal(text=t.text, turns=[t.index]) for t in turns if t.role == "user"][:3]),
            extractor=self.name)


class Buggy(RuleExtractor):
    name = "buggy"

    def extract(self, turns, index, delta_model=StateDelta):
        return turns.delta  # AttributeError: a plain bug


def chat(mem: ConversationMemory, n: int = 14) -> None:
    for i in range(n):
        mem.add("user", f"My order DD2024{i:04d}88 has not arrived, please check it today.")
        mem.add("assistant", f"Sorry about order {i}, I am checking it with the courier now.")
        mem.context()


def test_a_duck_typed_extractor_gets_the_async_half() -> None:
    async def run() -> ConversationMemory:
        mem = ConversationMemory("s", store=InMemoryStore(), extractor=GoalsOnly(),
                                 context_window=400)
        for i in range(14):
            await mem.aadd("user", f"I want order {i} refunded to my card, thanks a lot.")
            await mem.aadd("assistant", "Noted, I have passed it on to the refund team.")
            await mem.acontext()
        await mem.aclose()
        return mem

    mem = asyncio.run(run())
    assert mem.state.goals and mem.compactions()[0].extractor == "goals-only"
    assert isinstance(RuleExtractor(), Extractor) and not isinstance(GoalsOnly(), Extractor)


def test_a_hybrid_composes_any_two_extractors() -> None:
    turns = make_turns(("user", "Refund order DD20240315889 to my card, please."))
    out = HybridExtractor(GoalsOnly()).extract(turns, [])
    assert [g.text for g in out.delta.goals] == [turns[0].text]  # from the model side
    assert [a.value for a in out.delta.anchors] == ["DD20240315889"]  # from the rules
    assert out.extractor == "hybrid"


class Silent:
    """A model that answers with nothing, as a tiny one often does."""

    name = "silent"

    def extract(self, turns, index, delta_model=StateDelta):
        return Extraction(delta=delta_model(), extractor=self.name)


def test_a_hybrid_never_holds_less_than_the_rules() -> None:
    turns = make_turns(("user", "I want a refund to my card, it must be done today. "
                                "This is terrible, I am angry!"),
                       ("assistant", "I will check the refund for you."))
    ruled = RuleExtractor().extract(turns, []).delta
    out = HybridExtractor(Silent()).extract(turns, [])
    filled = [n for n in type(ruled).model_fields
              if n not in ("anchors", "language") and getattr(ruled, n) not in (None, [])]
    assert {"goals", "sentiment"} <= set(filled)  # the rules found these
    for name in filled:
        assert getattr(out.delta, name) == getattr(ruled, name), name
    assert any("left" in n and "rules' items kept" in n for n in out.notes)
    assert out.fell_back is None  # the model answered: not a fallback


def test_a_bug_is_logged_with_its_traceback_and_counted(caplog) -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), extractor=Buggy(),
                             context_window=400, strict=False)
    with caplog.at_level(logging.ERROR, logger="convstate"):
        chat(mem)
    bugs = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert bugs and bugs[0].exc_info and bugs[0].exc_info[0] is AttributeError
    assert mem.usage().failed >= 1 and mem.compactions()[0].error.startswith("bug: ")
    assert len(mem.history()) == 28  # nothing lost


def test_a_strict_memory_raises_the_bug() -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), extractor=Buggy(),
                             context_window=400, strict=True)
    with pytest.raises(AttributeError):
        chat(mem)
    assert len(mem.history()) >= 2  # what was added is stored


def test_a_known_failure_is_not_a_bug(caplog) -> None:
    class Down(RuleExtractor):
        def extract(self, turns, index, delta_model=StateDelta):
            raise ExtractionError("model down")

    mem = ConversationMemory("s", store=InMemoryStore(), extractor=Down(),
                             context_window=400, strict=True)
    with caplog.at_level(logging.WARNING, logger="convstate"):
        chat(mem)  # never raises
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert mem.compactions()[0].error == "ExtractionError: model down"


def test_a_non_extractor_is_a_clear_error() -> None:
    from convstate import ConfigError

    with pytest.raises(ConfigError, match="extractor"):
        ConversationMemory("s", store=InMemoryStore(), extractor=object())
