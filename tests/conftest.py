"""Shared helpers: turns from plain tuples, a recording extractor, the demo data."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import settings

from convstate import (
    ConversationMemory,
    ConversationState,
    Extraction,
    IndexEntry,
    RuleExtractor,
    StateDelta,
    Turn,
)

# A bug in an extractor fails the test that meets it, instead of becoming a logged,
# failed fold (tests of that path pass strict=False).
os.environ["CONVSTATE_STRICT"] = "1"

# .ci/run draws the same examples on every run: a red CI means the change broke one, not
# that this run drew a new one. Other runs draw new ones (failures kept in .hypothesis/).
settings.register_profile("ci", derandomize=True, database=None)
settings.load_profile(os.environ.get("CONVSTATE_HYPOTHESIS", "default"))


class Chars:
    """A counter of characters: any object with count() and message() will do."""

    def count(self, text: str) -> int:
        return len(text)

    def message(self, msg: dict[str, Any]) -> int:
        return 4 + len(str(msg.get("content") or ""))


@pytest.fixture(autouse=True)
def folds_never_change_their_input(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fold of every test checks that the state it was given is unchanged: the new
    state shares the items a fold leaves alone, and contexts read the old one meanwhile
    (fold.py's ``_Draft``). A fold that changed a shared item in place fails the test
    that made it."""
    import importlib

    # the modules (the package's names `fold` and `compactor` may be its functions)
    compactor = importlib.import_module("convstate.compactor")
    fold_module = importlib.import_module("convstate.fold")

    real = fold_module.fold_report
    # the package binds a public name at its first lookup: bind the real function
    # before the patch, or a test run alone would leave the wrapper in the package
    import convstate
    assert convstate.fold_report is real

    def checked(state: Any, delta: Any, sources: Any, keys: Any = None) -> Any:
        before = state.model_dump()
        out = real(state, delta, sources, keys)
        assert state.model_dump() == before, "a fold changed the state it was given"
        return out

    monkeypatch.setattr(fold_module, "fold_report", checked)
    monkeypatch.setattr(compactor, "fold_report", checked)


@pytest.fixture(autouse=True)
def saved_states_are_the_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every state a fold saves (``ConversationState.dump``, which hands out the dicts
    of the items an earlier save had) is the state's full JSON form, keys in order: a
    reused dict that went stale, or that a store changed, fails the test that met it."""
    real = ConversationState.dump

    def checked(self: ConversationState, known: Any = None) -> dict[str, Any]:
        out = real(self, known)
        fresh = self.model_dump(mode="json")
        assert out == fresh and list(out) == list(fresh), "a saved state is not the state"
        return out

    monkeypatch.setattr(ConversationState, "dump", checked)


def make_turns(*rows: tuple[str, str], start: int = 0) -> list[Turn]:
    """Turns numbered from ``start`` out of (role, content) pairs."""
    return [Turn(index=start + i, role=r, content=c) for i, (r, c) in enumerate(rows)]


def sources(turns: Sequence[Turn]) -> dict[int, Turn]:
    return {t.index: t for t in turns}


class RecordingExtractor:
    """The rule extractor, keeping what every call received (the turns, the index)."""

    name = "recording"

    def __init__(self) -> None:
        self.calls: list[tuple[list[Turn], list[IndexEntry]]] = []
        self.inner = RuleExtractor()

    def extract(self, turns: Sequence[Turn], index: Sequence[IndexEntry],
                delta_model=StateDelta) -> Extraction:
        self.calls.append((list(turns), list(index)))
        return self.inner.extract(turns, index, delta_model)

    @property
    def seen(self) -> list[int]:
        return [t.index for turns, _ in self.calls for t in turns]


def small_talk(mem: ConversationMemory, exchanges: int) -> None:
    """``exchanges`` questions and answers about the delivery, each then a context: turns
    that push earlier ones out of a small window and state no value."""
    for i in range(exchanges):
        mem.add("user", f"第{i}个问题：物流到哪里了？包装和配送时间能说明一下吗？")
        mem.add("assistant", f"第{i}个回答：正在配送中，预计明天送达，请耐心等待。")
        mem.context()


def replay_async(messages: Sequence[dict], **memory: object) -> ConversationMemory:
    """Drive ``messages`` through ConversationMemory(**memory) with the async methods:
    aadd_message + acontext per turn, then acompact and aclose."""
    async def chat() -> ConversationMemory:
        mem = ConversationMemory(**memory)  # type: ignore[arg-type]
        for m in messages:
            await mem.aadd_message(m)
            await mem.acontext()
        await mem.acompact()
        await mem.aclose()
        return mem

    return asyncio.run(chat())


@pytest.fixture
def recording() -> RecordingExtractor:
    return RecordingExtractor()


def conversation(n: int) -> list[dict[str, Any]]:
    """n turns of the demo's after-sales talk (its tool call left out), repeated."""
    from convstate.cli import load_demo

    demo = [m for m in load_demo("zh")["messages"] if m["role"] in ("user", "assistant")
            and m.get("content")]
    return [demo[i % len(demo)] for i in range(n)]


@pytest.fixture(params=["sqlite", "postgres"])
def store_target(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """Where copies of a session meet: a SQLite file, or the PostgreSQL database of
    ``CONVSTATE_TEST_PG_DSN`` (`.ci/run` starts one; in CI a missing one fails)."""
    if request.param == "sqlite":
        return str(tmp_path / "erase.db")
    dsn = os.environ.get("CONVSTATE_TEST_PG_DSN")
    if not dsn:
        if os.environ.get("CI"):
            pytest.fail("CI must start PostgreSQL and set CONVSTATE_TEST_PG_DSN")
        pytest.skip("no PostgreSQL: set CONVSTATE_TEST_PG_DSN (.ci/run starts one)")
    pytest.importorskip("psycopg_pool", reason="needs convstate[postgres]")
    return dsn


class Said:
    """A user's values for one test, unique (the PostgreSQL database outlives tests, and
    erasure tests scan its files for these very bytes)."""

    def __init__(self) -> None:
        digits = f"{uuid.uuid4().int % 10**11:011d}"
        self.user, self.session = f"u-{uuid.uuid4().hex[:12]}", f"s-{uuid.uuid4().hex[:12]}"
        self.phone, self.order = "139" + digits[:8], "DD" + digits
        self.email = f"erase.{uuid.uuid4().hex[:10]}@example.com"

    @property
    def values(self) -> list[str]:
        return [self.phone, self.order, self.email]

    @property
    def message(self) -> str:
        return (f"My phone is {self.phone}. Order {self.order} came broken. My email is "
                f"{self.email}.")
