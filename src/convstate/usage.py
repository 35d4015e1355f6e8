"""What extraction cost a session, summed from its compaction log."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .store.base import CompactionRecord


@dataclass
class Usage:
    """What extraction cost a session: folds landed (``fell_back`` of them by a fallback
    after the extractor failed) and failed, tokens, and a cost."""

    folds: int = 0
    failed: int = 0
    fell_back: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost: float = 0.0


def usage_of(records: Iterable[CompactionRecord],
             prices: dict[str, tuple[float, ...]] | None = None) -> Usage:
    """The usage over ``records``; ``prices`` maps a model name to (input, output[,
    cached input]) prices per million tokens, and the cost counts the records whose
    model is in it."""
    total = Usage()
    for r in records:
        total.folds += r.error is None
        total.failed += r.error is not None
        total.fell_back += r.error is None and r.fallback is not None
        total.prompt_tokens += r.prompt_tokens
        total.completion_tokens += r.completion_tokens
        total.cached_tokens += r.cached_tokens
        if prices and r.model in prices:
            price_in, price_out, *cached = prices[r.model]
            price_cached = cached[0] if cached else price_in
            total.cost += ((r.prompt_tokens - r.cached_tokens) * price_in
                           + r.cached_tokens * price_cached
                           + r.completion_tokens * price_out) / 1e6
    return total
