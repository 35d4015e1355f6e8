"""About how many bytes of RAM a memory holds, for a cache that keeps many of them (the
service's): its state's items and the recent turns it keeps, counted, not walked, so it
is cheap enough for every request.

The constants are tracemalloc's measure of a memory read from a SQLite store (a context
and its state; ``benchmarks/bench_service.py --footprint`` prints both figures): a state
item (its model, its index entries and fold keys) took 1.7-2.7 KB on sgd, CrossWOZ,
scm_long and a synthetic order log; a recent turn (the Turn, its message, its count)
about 1.2 KB besides its text. Item texts are bounded (a clause, an anchor's value), turn
texts are not, so those are counted by character.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from .turns import Turn

ITEM_BYTES = 2_500  # one state or profile item, with what indexes it
TURN_BYTES = 1_200  # one recent turn, its text aside
CHAR_BYTES = 2  # one character of a turn's text (a str takes 1, 2 or 4 bytes a character)
BASE_BYTES = 64_000  # a memory without turns or items: its settings, extractor, assembler


def footprint(models: Iterable[BaseModel | None], recent: Sequence[tuple[Turn, Any, Any]]
              ) -> int:
    """About the bytes of a memory whose states and profile are ``models`` and whose
    recent turns (with their messages and counts, as a view keeps them) are ``recent``."""
    items = sum(len(value) for model in models if model is not None
                for value in model.__dict__.values() if isinstance(value, list))
    chars = sum(len(t.content or "") + (_parts(t.parts) if t.parts else 0)
                for t, _, _ in recent)
    return BASE_BYTES + ITEM_BYTES * items + TURN_BYTES * len(recent) + CHAR_BYTES * chars


def _parts(parts: list[dict[str, Any]]) -> int:
    """The characters of a content list's strings (an image's data URL is most of them)."""
    return sum(len(v) if isinstance(v, str) else
               sum(len(w) for w in v.values() if isinstance(w, str)) if isinstance(v, dict)
               else 0 for part in parts for v in part.values())
