"""What every extractor is: expiring turns + an index of existing ids -> a delta."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ..delta import StateDelta
from ..state import IndexEntry
from ..turns import Turn


@dataclass
class Extraction:
    """An extractor's answer: the delta, and what producing it cost."""

    delta: StateDelta
    extractor: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str | None = None
    notes: list[str] = field(default_factory=list)


@runtime_checkable
class Extractor(Protocol):
    """Reads only the expiring turns (never a rendered state) and returns a delta.

    ``index`` lists existing items by id so an extractor can resolve or supersede them.
    ``delta_model`` is the delta of the session's state model (``delta_model(RefundCase)``
    for a state with fields of your own): an extractor fills what it can of it.
    Raising means the turns stay unfolded and are retried at the next fold.
    """

    name: str

    def extract(self, turns: Sequence[Turn], index: Sequence[IndexEntry],
                delta_model: type[StateDelta] = StateDelta) -> Extraction: ...
