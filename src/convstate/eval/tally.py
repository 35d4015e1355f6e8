"""Hits over totals, by name: how every score of ``convstate eval`` is counted."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Tally:
    """Hits over totals, by name."""

    hits: Counter[str] = field(default_factory=Counter)
    totals: Counter[str] = field(default_factory=Counter)

    def add(self, name: str, hit: bool) -> None:
        self.totals[name] += 1
        self.hits[name] += hit

    def rate(self, name: str) -> float | None:
        """hits / total, to 4 places; None when nothing was counted under ``name``."""
        return round(self.hits[name] / self.totals[name], 4) if self.totals[name] else None

    def merge(self, other: Tally) -> None:
        self.hits.update(other.hits)
        self.totals.update(other.totals)
