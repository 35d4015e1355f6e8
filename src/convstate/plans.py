"""What a fold is to do: the turns it reads and lets go, planned from a session's cached
view under its lock (window.py decides what expires)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from .delta import StateDelta
from .extract.base import Extractor
from .fold import FoldKeys
from .live import LiveIndex, LiveReader
from .state import ConversationState
from .store.base import CompactionRecord, Store
from .turns import Turn
from .window import Slot, WindowPolicy, bounded_batch, plan_expiry


class Costs(Protocol):
    """What the compactor asks the assembler: a context's fixed cost for a state."""

    def fixed_tokens(self, state: ConversationState | None = None) -> int: ...


class FoldView(Protocol):
    """What the compactor reads and changes of a session's cached view (view.py's
    SessionView): its store, settings, live reader and saved state, under ``lock``."""

    session_id: str
    user_id: str | None
    store: Store
    extractor: Extractor
    delta_model: type[StateDelta]
    policy: WindowPolicy
    priming: int
    system_tokens: int
    strict: bool
    background: bool
    lease_ttl: float
    on_fold: Callable[[CompactionRecord], None] | None
    reader: LiveReader
    state: ConversationState
    last: int
    generation: int

    @property
    def lock(self) -> AbstractContextManager[Any]: ...

    @property
    def assembler(self) -> Costs: ...

    def current(self) -> None: ...

    def raw(self) -> list[tuple[Turn, int]]: ...

    def set_saved(self, state: ConversationState, keys: FoldKeys | None = None,
                  index: LiveIndex | None = None) -> None: ...

    def promote(self, state: ConversationState, generation: int) -> None: ...

    def reload_locked(self) -> None: ...


@dataclass(frozen=True)
class Plan:
    """A fold that is due: the state it starts from (the live one, when the configured
    extractor reads live), the turns the context has not let go (with their token
    counts), the last turn to read and the last to let go."""

    state: ConversationState
    raw: list[tuple[Turn, int]]
    through: int
    evict: int
    generation: int  # the session's, when planned: a save after an erasure is refused

    @property
    def batch(self) -> list[Turn]:
        """The turns this fold reads: those up to ``through`` its state has not read."""
        read = self.state.folded_through
        return [t for t, _ in self.raw if read < t.index <= self.through]


def due_plan(view: FoldView, force: bool, policy: WindowPolicy | None, retry_at: int
             ) -> Plan | None:
    """The fold that is due, if any. Reads the store first (other writers); after a
    failed fold (before turn ``retry_at``) only ``force`` retries early."""
    m = view
    with m.lock:
        m.current()
        if not force and m.last < retry_at:
            return None
        raw, policy, fixed = m.raw(), policy or m.policy, m.priming + m.system_tokens
        if not force and not policy.due(fixed + sum(n for _, n in raw)):
            return None  # most turns: decided before the window's slots are built
        slots = [Slot(t.index, t.role, n) for t, n in raw]
        through = plan_expiry(fixed, slots, policy, force=force)
        if through is None:
            return None
        # a backlog (after an outage, or a long compact) goes in window-sized batches
        through = bounded_batch(slots, through, m.policy.budget)
        return Plan(fold_base(m), raw, through, through, m.generation)


def refresh_plan(view: FoldView) -> Plan | None:
    """A fold that reads every stored turn not read by the configured extractor yet
    (in window-sized batches) and lets none go; None when there is none."""
    m = view
    with m.lock:
        m.current()
        base = fold_base(m)
        if m.last <= base.folded_through and base is m.reader.saved:
            return None
        raw = m.raw()
        slots = [Slot(t.index, t.role, n) for t, n in raw
                 if t.index > base.folded_through]
        through = bounded_batch(slots, m.last, m.policy.budget) if slots else m.last
        return Plan(base, raw, through, m.state.evicted_through, m.generation)


def fold_base(view: FoldView) -> ConversationState:
    """What a fold starts from: the live state when the configured extractor read
    it, else the saved state (the rules' provisional reading is never saved)."""
    reader = view.reader
    return reader.state if reader.own else reader.saved
