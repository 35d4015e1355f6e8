"""The live state: the saved state, and every stored turn after its watermark read as it
comes, so what code reads (``mem.state``) is the truth now, at any window.

Two watermarks (invariant 8): what the extractor has read (``folded_through``) and what
the context has let go (``evicted_through``). A ``LiveReader`` reads the turns after the
saved state's ``folded_through`` as they arrive, once each, and folds them in at once;
eviction (compactor.py) then only moves ``evicted_through`` and saves what was read.

Which extractor reads them (the batching rule):

- an extractor cheap enough for every turn (``live = True``: the rules) reads them itself;
  the live state is the real one, and a fold saves it as it is, with no extraction left;
- any other (an LLM's, ``HybridExtractor``) reads its turns in the batches a fold takes
  (worth its fixed prompt), or on ``mem.refresh()``; until then the rules read the turns
  after its watermark as a *provisional* layer (``state.provisional`` lists the items they
  added or changed; ``folded_through`` stays the configured extractor's), replaced when
  the configured extractor's fold lands.

A context shows the live state as far as it was let go: its block has the rows of the
items first stated at or before ``evicted_through`` (later ones are in the raw turns; an
item said again there keeps its row as it was), the mood if it was read by then, and
your own fields as they are now. That part changes far less often than the live state
(a shown value closed, replaced or live again, the mood, a fold), so a context takes a
snapshot of the live state (``view``) and renews it only then: block rows are ranked and
costed once per change, not once per turn. A context depends on the turns and on what
was let go, not on when the state was last saved; and it never shows a value as active
beside the raw turn that replaced it.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable
from typing import Any

from .errors import ExtractionError
from .extract.base import Extractor
from .extract.rules import RuleExtractor
from .fold import FoldKeys, FoldStats, fold_report
from .render import said_by
from .state import ConversationState, Index, IndexEntry, index_entry
from .turns import Turn

log = logging.getLogger("convstate")

_RETRY_AFTER_TURNS = 2  # a failed reading is tried again after the next exchange
STATS = ("added", "deduplicated", "rejected", "superseded", "updated")


def reads_live(extractor: Any) -> bool:
    """Whether ``extractor`` is cheap enough to read every turn as it comes (its
    ``live`` attribute; an unknown extractor is not)."""
    return bool(getattr(extractor, "live", False))


class LiveReader:
    """Reads the turns after a saved state's watermark into the live state."""

    def __init__(self, extractor: Extractor, delta_model: Any, strict: bool):
        self.own = reads_live(extractor)  # False: the rules read ahead, provisionally
        self.extractor: Extractor = extractor if self.own else RuleExtractor()
        self.delta_model, self.strict = delta_model, strict
        self.reset(ConversationState())

    def reset(self, saved: ConversationState, keys: FoldKeys | None = None,
              index: LiveIndex | None = None) -> None:
        """Start again from ``saved`` (loaded, or a fold's). ``keys``/``index``: the
        dedup keys and index of a state sharing ``saved``'s items (a fold that saved the
        live state as it was), so nothing is keyed or indexed again."""
        self.saved = self.state = saved
        self.read_through = saved.folded_through  # the newest turn read, provisionally too
        self.keys = keys if keys is not None else FoldKeys()
        if keys is not None:
            self.keys.state = saved
        self.index = index if index is not None else LiveIndex(saved)
        self.stats = FoldStats()  # what the readings since ``saved`` did
        self.notes: list[str] = []
        self.retry_at = -1
        self._view = saved  # the snapshot a context shows (see above)

    def read(self, turns: Iterable[Turn], last: int) -> None:
        """Read ``turns`` (the memory's newest, oldest first; ``last`` the newest index)
        after the live state's watermark, one turn at a time: every copy of a session
        (another worker, a restart, ``compress()``) reads the same turns the same way,
        whenever it reads them, so all come to the same state."""
        if last <= self.read_through or last < self.retry_at:
            return
        for turn in turns:
            if turn.index > self.read_through and not self._read_one(turn, last):
                return

    def _read_one(self, turn: Turn, last: int) -> bool:
        try:
            extraction = self.extractor.extract([turn], self.index.entries(),
                                                self.delta_model)
            new, stats = fold_report(self.state, extraction.delta, {turn.index: turn},
                                     self.keys, provisional=not self.own)
        except Exception as exc:  # noqa: BLE001 - a failure waits; a bug is told
            self.retry_at = last + _RETRY_AFTER_TURNS
            if not isinstance(exc, ExtractionError) and self.strict:
                raise
            log.log(logging.WARNING if isinstance(exc, ExtractionError) else logging.ERROR,
                    "convstate: reading turn %d into the live state failed (%s: %s); a "
                    "fold reads it again", turn.index, type(exc).__name__, exc,
                    exc_info=not isinstance(exc, ExtractionError))
            return False
        if not self.own:  # the configured extractor has not read this turn
            new.folded_through = self.state.folded_through
        if self._shows_change(new, stats.changed):
            self._view = new
        self.state, self.read_through = new, turn.index
        self.index.update(new, stats.changed)
        for name in STATS:
            setattr(self.stats, name, getattr(self.stats, name) + getattr(stats, name))
        self.stats.reasons += stats.reasons
        self.stats.dropped += stats.dropped
        self.notes += extraction.notes
        return True

    def _shows_change(self, new: ConversationState, changed: list[str]) -> bool:
        """Whether ``new`` changes what a context shows of the current snapshot: an item
        it shows (first stated at or before ``evicted_through``) no longer live (closed,
        replaced) or stated there again, or an unquoted field changed (a value said again
        or live again in a later turn is in that raw turn: its row stays as it was)."""
        view, through = self._view, self._view.evicted_through
        if any(getattr(new, name) != getattr(view, name) for name in self._unquoted) \
                or _mood(new, through) != _mood(view, through):
            return True
        for item_id in changed:
            spec = next((s for s in view.sections() if s.owns(item_id)), None)
            if spec is None:
                continue
            at = int(item_id[len(spec.prefix):]) - 1
            was = _at(view, spec.name, at, item_id)
            if was is None or was.first_turn > through:
                continue
            now = _at(new, spec.name, at, item_id)
            # stated there again: later by then (an item keeps its first and latest turns
            # only, so one said again after ``through`` no longer holds the turn the
            # snapshot shows: the snapshot keeps it, nothing changed by then). No longer
            # live: the block must not show it as it was beside the raw turn that ended
            # it; live again: a state saved now and loaded (another worker, compress())
            # shows it, so this one must too
            if now is None or now.status != was.status \
                    or said_by(now, through) > said_by(was, through):
                return True
        return False

    @property
    def _unquoted(self) -> list[str]:
        """The fields a context takes from the live state as they are: your own fields
        and their log (no block row of theirs quotes a turn)."""
        return ["field_log", *type(self.saved).custom_fields()]

    def view(self) -> ConversationState:
        """The snapshot of the live state a context shows (see above)."""
        return self._view


class LiveIndex:
    """The live state's index (what ``state.index()`` gives), kept from reading to
    reading: a reading changes a few items, so only their entries are made again, not one
    per item of a long session's state."""

    def __init__(self, state: ConversationState):
        self.live: dict[str, dict[int, IndexEntry]] = {}
        for spec in state.sections():
            alive = spec.live
            self.live[spec.name] = {at: index_entry(spec.name, item) for at, item in
                                    enumerate(getattr(state, spec.name))
                                    if item.status == alive}
        self._sorted: dict[str, list[IndexEntry]] = {}
        self._all: Index | None = None

    def update(self, state: ConversationState, changed: list[str]) -> None:
        """Take the items a reading changed (by id) as they are in ``state``."""
        for item_id in changed:
            spec = next((s for s in state.sections() if s.owns(item_id)), None)
            if spec is None:
                continue
            at = int(item_id[len(spec.prefix):]) - 1
            item, live = _at(state, spec.name, at, item_id), self.live[spec.name]
            if item is not None and item.status == spec.live:
                live[at] = index_entry(spec.name, item)
            elif live.pop(at, None) is None:
                continue
            self._sorted.pop(spec.name, None)
            self._all = None

    def entries(self) -> Index:
        """The entries, in the order ``state.index()`` gives them (the same object until
        a reading changes one), with each section's at hand."""
        if self._all is None:
            for name, live in self.live.items():
                if name not in self._sorted:
                    self._sorted[name] = [live[at] for at in sorted(live)]
            sections = {name: self._sorted[name] for name in self.live}  # in state order
            self._all = Index(itertools.chain.from_iterable(sections.values()), sections)
        return self._all


def _mood(state: ConversationState, through: int) -> Any:
    """The mood a context shows: the live state's, once its turn was let go (the raw
    turns after that show how the user sounds)."""
    s = state.sentiment
    return s if s is not None and s.turn <= through else None


def _at(state: ConversationState, section: str, at: int, item_id: str) -> Any:
    """The item ``item_id`` of ``section`` at position ``at`` (ids are the prefix and
    the position + 1: items are never removed), or None."""
    items = getattr(state, section)
    return items[at] if 0 <= at < len(items) and items[at].id == item_id else None
