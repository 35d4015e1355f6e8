"""Shared helpers: turns from plain tuples, a recording extractor, the demo data."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from convstate import Extraction, IndexEntry, RuleExtractor, StateDelta, Turn


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


@pytest.fixture
def recording() -> RecordingExtractor:
    return RecordingExtractor()
