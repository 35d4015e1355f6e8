"""What every extractor is: expiring turns + an index of existing ids -> a delta.

``Extractor`` is the whole protocol the memory relies on, sync and async.
``BaseExtractor`` gives the async half for free (``aextract`` runs ``extract`` in a
worker thread; ``aclose`` has nothing to close); ``as_extractor`` completes an object
that only has ``name`` and ``extract``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..aio import in_thread
from ..delta import StateDelta
from ..errors import ConfigError
from ..state import IndexEntry
from ..turns import Turn


@dataclass
class Extraction:
    """An extractor's answer: the delta, and what producing it cost. ``fell_back``: the
    error after which a fallback extractor gave this answer (None: the extractor's own)."""

    delta: StateDelta
    extractor: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # of the prompt tokens, those the provider's cache served
    model: str | None = None
    notes: list[str] = field(default_factory=list)
    fell_back: str | None = None


@runtime_checkable
class Extractor(Protocol):
    """Reads only the expiring turns (never a rendered state) and returns a delta.

    ``index`` lists existing items by id so an extractor can resolve or supersede them.
    ``delta_model`` is the delta of the session's state model (``delta_model(RefundCase)``
    for a state with fields of your own): an extractor fills what it can of it.
    An extractor with ``live = True`` is cheap enough to read every turn as it comes
    (the rules); any other reads the turns a fold takes, in batches, and the rules read
    ahead of it provisionally (live.py).
    Raising ``ExtractionError`` (a known failure: a timeout, a refused request) means the
    turns stay unfolded and are retried at a later fold; any other exception is a bug,
    logged with its traceback (and raised by a ``strict`` memory).
    """

    name: str

    def extract(self, turns: Sequence[Turn], index: Sequence[IndexEntry],
                delta_model: type[StateDelta] = StateDelta) -> Extraction: ...

    async def aextract(self, turns: Sequence[Turn], index: Sequence[IndexEntry],
                       delta_model: type[StateDelta] = StateDelta) -> Extraction: ...

    async def aclose(self) -> None: ...


class BaseExtractor:
    """Defaults for an extractor: write ``name`` and ``extract``, get the async half."""

    name = "extractor"
    live = False  # True: cheap enough to read every turn as it comes (live.py)

    def extract(self, turns: Sequence[Turn], index: Sequence[IndexEntry],
                delta_model: type[StateDelta] = StateDelta) -> Extraction:
        raise NotImplementedError

    async def aextract(self, turns: Sequence[Turn], index: Sequence[IndexEntry],
                       delta_model: type[StateDelta] = StateDelta) -> Extraction:
        """``extract`` in a worker thread, so the event loop keeps running."""
        return await in_thread(self.extract, turns, index, delta_model)

    async def aclose(self) -> None:
        """Nothing to close."""


class _Completed(BaseExtractor):
    """An object with ``name`` and ``extract`` only, given the async defaults."""

    def __init__(self, inner: Any):
        self.inner, self.name = inner, inner.name
        self.live = bool(getattr(inner, "live", False))

    def extract(self, turns: Sequence[Turn], index: Sequence[IndexEntry],
                delta_model: type[StateDelta] = StateDelta) -> Extraction:
        return self.inner.extract(turns, index, delta_model)  # type: ignore[no-any-return]


def as_extractor(obj: Any) -> Extractor:
    """``obj`` as a whole Extractor: as is when it is one, completed with the defaults
    when it has only ``name`` and ``extract``; ConfigError otherwise."""
    if isinstance(obj, Extractor):
        return obj
    if not callable(getattr(obj, "extract", None)) or not isinstance(
            getattr(obj, "name", None), str):
        raise ConfigError("extractor", "expected an object with a str `name` and an "
                          f"`extract(turns, index, delta_model)` method, got {obj!r}")
    return _Completed(obj)
