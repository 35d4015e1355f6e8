"""Folding a session: plan what expires, extract what is not read yet, land it in the
store, apply it.

There is one fold path, ``Compactor.steps``: a generator that plans, takes the session's
lease, yields the batch for extraction (none when the live state has read every turn
already: live.py), lands the answer (or logs the failure) and applies it, retrying after
another writer's fold. Two small runners drive it: ``run`` calls the extractor's
``extract``, ``arun`` its ``aextract`` and runs the store steps off the event loop. One
fold of a memory runs at a time (``folding``). A fold lets turns go from the context
(``evicted_through``); a refresh only reads and saves.
"""

from __future__ import annotations

import inspect
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .aio import in_thread
from .delta import logged
from .errors import ExtractionError, StoreError, VersionConflictError
from .extract.base import Extraction
from .fold import FoldKeys, FoldStats, fold_report
from .live import STATS
from .plans import FoldView, Plan, due_plan, refresh_plan
from .state import ConversationState, IndexEntry, Item
from .store.base import CompactionRecord
from .window import WindowPolicy

if TYPE_CHECKING:
    import asyncio

log = logging.getLogger("convstate")

_CONFLICT_RETRIES = 3
_RETRY_AFTER_TURNS = 2  # a failed fold is retried after the next exchange, not every call
MAX_BATCHES = 16  # folds one call may run through a backlog (the rest wait for the next)


@dataclass(frozen=True)
class FoldOutcome:
    """What a fold did: its log record, and the state it saved (None: the extraction
    failed and the turns wait for a later fold); ``live``: the live state it saved as
    it was (it shares its items and dedup keys), None when it folded an extraction."""

    record: CompactionRecord
    state: ConversationState | None
    generation: int  # the session's generation it was planned in
    live: ConversationState | None = None


Steps = Generator[Plan, "Extraction | Exception", "CompactionRecord | None"]
Planner = Callable[[], "Plan | None"]


class Compactor:
    """Runs the folds of one session (its store, extractor and cached view)."""

    def __init__(self, view: FoldView):
        self.view = view
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        # one fold of this memory at a time, from plan to landing, so no turn is planned
        # twice; a plain Lock, not an RLock: an async fold may release it from a thread
        self.folding = threading.Lock()
        self.retry_at = -1  # after a failed extraction, the turn index to try again at
        self.worker: threading.Thread | None = None
        self.task: asyncio.Task[None] | None = None
        # whether the store's save gives the fold lease back in its own transaction
        self.saves_releasing = _takes(view.store.save_state, "release")
        # whether the store refuses a save or log line planned before an erasure
        self.checks_generation = _takes(view.store.save_state, "generation")
        # the last index's entries, by item: the next fold's state shares most items
        self.entries: dict[int, tuple[Item, IndexEntry]] = {}
        # and the last saved state's item dicts (ConversationState.dump), likewise
        self.dumped: dict[int, tuple[Item, dict[str, Any]]] = {}
        self.keys = FoldKeys()  # and the dedup keys of the state the last fold made

    # -- the one fold path --------------------------------------------------------------

    def steps(self, planner: Planner) -> Steps:
        """Fold batch after batch while ``planner`` finds one due (at most MAX_BATCHES,
        stopping at a failure); the last record, or None when nothing was due."""
        last = None
        for _ in range(MAX_BATCHES):
            record = yield from self._fold_once(planner)
            if record is None:
                break
            last = record
            if record.error is not None:
                break
        return last

    def _fold_once(self, planner: Planner) -> Steps:
        """Plan, lease, yield the plan for extraction (when it has turns to read), land
        or log, apply; after another writer's fold, reload and plan again."""
        m = self.view
        for _ in range(_CONFLICT_RETRIES):
            plan = planner()
            if plan is None or not m.store.acquire_lease(m.session_id, self.owner,
                                                         m.lease_ttl):
                return None  # nothing due, or another worker is folding this session
            renewal = _RENEWALS.add(m.store, m.session_id, self.owner, m.lease_ttl)
            released = False
            try:
                answer = (yield plan) if plan.batch else None
                _RENEWALS.drop(renewal)  # before a save that may give the lease back
                if answer is None or isinstance(answer, Extraction):
                    outcome = self._land(plan, answer)
                    released = self.saves_releasing
                else:
                    outcome = self._failed(plan, answer)
            except VersionConflictError:
                log.info("convstate: session %r was folded by another writer; reloading",
                         m.session_id)
                m.reload_locked()
                continue
            finally:
                _RENEWALS.drop(renewal)
                if not released:
                    self._release()
            return self._apply(outcome)
        return None

    def run(self, planner: Planner) -> CompactionRecord | None:
        """Drive the fold path with the extractor's ``extract``."""
        m, steps = self.view, self.steps(planner)
        done, value = _step(steps, None)
        while not done:
            plan: Plan = value
            try:  # outside any store transaction: an extractor may be slow
                answer: Extraction | Exception = m.extractor.extract(
                    plan.batch, plan.state.index(self.entries), m.delta_model)
            except Exception as exc:  # noqa: BLE001 - the fold path tells a failure from a bug
                answer = exc
            done, value = _step(steps, answer)
        return value  # type: ignore[no-any-return]

    async def arun(self, planner: Planner) -> CompactionRecord | None:
        """Drive the fold path with the extractor's ``aextract``; store and tokenizer
        work runs in a worker thread."""
        m, steps = self.view, self.steps(planner)
        done, value = await in_thread(_step, steps, None)
        while not done:
            plan: Plan = value
            try:
                answer: Extraction | Exception = await m.extractor.aextract(
                    plan.batch, plan.state.index(self.entries), m.delta_model)
            except Exception as exc:  # noqa: BLE001 - the fold path tells a failure from a bug
                answer = exc
            done, value = await in_thread(_step, steps, answer)
        return value  # type: ignore[no-any-return]

    # -- when to fold -------------------------------------------------------------------

    def due(self, force: bool, policy: WindowPolicy | None = None) -> CompactionRecord | None:
        """Fold what the window expires: now, or (``background``) in a thread. A caller
        waits for a fold in flight (in the background, it goes on without waiting)."""
        if self.view.background and not force:
            if self.plan(False, policy) is not None and self.folding.acquire(blocking=False):
                try:
                    self.worker = threading.Thread(target=self._in_background,
                                                   args=(policy,), daemon=True)
                    self.worker.start()
                except BaseException:
                    self.folding.release()
                    raise
            return None
        with self.folding:
            return self.run(self._planner(force, policy))

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a background fold thread in flight; True when none is left running."""
        worker = self.worker
        if worker is not None:
            worker.join(timeout)
            return not worker.is_alive()
        return True

    def refresh(self) -> CompactionRecord | None:
        """Read and save every stored turn now, letting none go (``mem.refresh``)."""
        with self.folding:
            return self.run(self.plan_refresh)

    async def arefresh(self) -> CompactionRecord | None:
        """``refresh`` for event loops."""
        import asyncio

        while not self.folding.acquire(blocking=False):  # never block the event loop
            await asyncio.sleep(0.005)
        try:
            return await self.arun(self.plan_refresh)
        finally:
            self.folding.release()

    def _planner(self, force: bool, policy: WindowPolicy | None) -> Planner:
        return lambda: self.plan(force, policy)

    async def adue(self, force: bool, policy: WindowPolicy | None = None
                   ) -> CompactionRecord | None:
        """``due`` for event loops; ``background`` folds in a task."""
        import asyncio  # only async callers load it (see aio.py)

        if self.view.background and not force:
            plan = await in_thread(self.plan, False, policy)
            if plan is not None and self.folding.acquire(blocking=False):
                self.task = asyncio.create_task(self._ain_background(policy))
            return None
        while not self.folding.acquire(blocking=False):  # never block the event loop
            await asyncio.sleep(0.005)
        try:
            return await self.arun(self._planner(force, policy))
        finally:
            self.folding.release()

    def _in_background(self, policy: WindowPolicy | None) -> None:
        try:
            self.run(self._planner(False, policy))
        except Exception:  # noqa: BLE001 - a background thread has no caller to raise to
            log.exception("convstate: background fold of %r failed", self.view.session_id)
        finally:
            self.folding.release()

    async def _ain_background(self, policy: WindowPolicy | None) -> None:
        try:
            await self.arun(self._planner(False, policy))
        except Exception:  # noqa: BLE001 - a background task has no caller to raise to
            log.exception("convstate: background fold of %r failed", self.view.session_id)
        finally:
            self.folding.release()

    def plan(self, force: bool, policy: WindowPolicy | None) -> Plan | None:
        """The fold that is due, if any (see plans.due_plan)."""
        return due_plan(self.view, force, policy, self.retry_at)

    def plan_refresh(self) -> Plan | None:
        """A fold that reads every stored turn not read yet and lets none go."""
        return refresh_plan(self.view)

    # -- the steps ----------------------------------------------------------------------

    def _release(self) -> None:
        """Give the fold lease back; if the store cannot take even that, the lease
        expires by itself (the error that stopped the fold is the one raised)."""
        m = self.view
        try:
            m.store.release_lease(m.session_id, self.owner)
        except StoreError as exc:
            log.warning("convstate: could not release the fold lease of %r (%s); it "
                        "expires in %.0f s", m.session_id, exc, m.lease_ttl)

    def _record(self, plan: Plan) -> CompactionRecord:
        """The log line of a fold: the turns it lets go (a refresh's: those it reads)."""
        m, batch = self.view, plan.batch
        first: int | None = None
        last: int | None = None
        if plan.evict > m.state.evicted_through:
            first, last = m.state.evicted_through + 1, plan.evict
        elif batch:
            first, last = batch[0].index, batch[-1].index
        return CompactionRecord(session_id=m.session_id, first_turn=first, last_turn=last,
                                extractor=m.extractor.name,
                                tokens_before=m.assembler.fixed_tokens(m.state)
                                + sum(n for _, n in plan.raw))

    def _failed(self, plan: Plan, exc: Exception) -> FoldOutcome:
        """Log a failed extraction; the turns stay unfolded, retried after an exchange.
        A known failure (ExtractionError) is a warning; anything else is a bug in the
        extractor: logged at ERROR with its traceback, and raised by a strict memory."""
        m, batch = self.view, plan.batch
        bug = not isinstance(exc, ExtractionError)
        if bug:
            log.error("convstate: extractor %r raised a %s folding turns %d-%d",
                      m.extractor.name, type(exc).__name__, batch[0].index,
                      batch[-1].index, exc_info=exc)
            if m.strict:
                raise exc
        record = self._record(plan)
        record.error = f"{'bug: ' if bug else ''}{type(exc).__name__}: {exc}"[:500]
        record.prompt_tokens = getattr(exc, "prompt_tokens", 0)
        record.cached_tokens = getattr(exc, "cached_tokens", 0)
        record.completion_tokens = getattr(exc, "completion_tokens", 0)
        record.tokens_after = record.tokens_before
        m.store.log(record, **self._checked(plan))
        with m.lock:
            self.retry_at = m.last + _RETRY_AFTER_TURNS
        if not bug:
            log.warning("convstate: extraction failed for turns %d-%d (%s); the turns "
                        "stay unfolded and are retried at the next fold", batch[0].index,
                        batch[-1].index, record.error)
        return FoldOutcome(record, None, plan.generation)

    def _land(self, plan: Plan, extraction: Extraction | None) -> FoldOutcome:
        """Fold the extraction (if the plan had turns to read) and save the state
        (version-checked), its turns up to ``plan.evict`` let go."""
        m, state, reader = self.view, plan.state, self.view.reader
        record = self._record(plan)
        live = state if state is reader.state and reader.own else None
        stats, notes = (reader.stats, list(reader.notes)) if live else (FoldStats(), [])
        if extraction is None:
            new = state.model_copy()  # read already: the live state, saved as it is
        else:
            new, more = fold_report(state, extraction.delta,
                                    {t.index: t for t in plan.batch}, self.keys)
            stats = _sum(stats, more)
            notes += extraction.notes
            record.extractor = extraction.extractor
            record.prompt_tokens = extraction.prompt_tokens
            record.cached_tokens = extraction.cached_tokens
            record.completion_tokens = extraction.completion_tokens
            record.model = extraction.model
            record.fallback = extraction.fell_back
            live = None
        saved = reader.saved
        new.version = saved.version + 1
        new.evicted_through = max(plan.evict, saved.evicted_through)
        new.provisional = []
        record.version = new.version
        record.notes = "; ".join(notes + logged(stats.dropped)) or None
        for name in STATS:
            setattr(record, name, getattr(stats, name))
        record.tokens_after = m.assembler.fixed_tokens(new) + sum(
            n for t, n in plan.raw if t.index > new.evicted_through)
        extra: dict[str, Any] = {"release": self.owner} if self.saves_releasing else {}
        m.store.save_state(m.session_id, new.dump(self.dumped), saved.version, record,
                           **extra, **self._checked(plan))
        return FoldOutcome(record, new, plan.generation, live)

    def _checked(self, plan: Plan) -> dict[str, int]:
        """A write's ``generation`` argument, where the store takes one."""
        return {"generation": plan.generation} if self.checks_generation else {}

    def _apply(self, outcome: FoldOutcome) -> CompactionRecord:
        """Take a fold's outcome into the memory's view and tell ``on_fold``."""
        m = self.view
        if outcome.state is not None:
            with m.lock:  # (a state of an erased generation is never shown)
                if outcome.state.version > m.reader.saved.version \
                        and outcome.generation == m.generation:
                    reader = m.reader
                    # the same items: their keys and index entries too, unless another
                    # call read on since the fold was planned (they hold items it lacks)
                    if outcome.live is not None and outcome.live is reader.state:
                        m.set_saved(outcome.state, reader.keys, reader.index)
                    else:
                        m.set_saved(outcome.state)
            if m.user_id is not None:
                m.promote(outcome.state, outcome.generation)
        if m.on_fold is not None:
            m.on_fold(outcome.record)
        return outcome.record


def _sum(a: FoldStats, b: FoldStats) -> FoldStats:
    """What two folds did together."""
    out = FoldStats(**{name: getattr(a, name) + getattr(b, name) for name in STATS})
    out.reasons = a.reasons + b.reasons
    out.dropped = a.dropped + b.dropped
    return out


def _takes(method: Any, name: str) -> bool:
    """Whether ``method`` has a parameter ``name`` (a store's optional ability)."""
    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):  # a builtin or C method: assume the plain protocol
        return False


class _Renewals:
    """Keeps fold leases alive while their folds run — each renewed every third of its
    time — so a short lease (a dead worker's sessions resume in seconds) never expires
    under a slow extractor. One thread per process, started at the first fold, renews
    every running fold's lease: a fold does not start a thread of its own."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """No leases, a new lock, no thread: also in a forked child, which runs none of
        its parent's folds and may have inherited the lock held by the parent's thread."""
        # token -> (next renewal, store, session, owner, ttl)
        self._leases: dict[int, tuple[float, Any, str, str, float]] = {}
        self._renewing: set[int] = set()
        self._changed = threading.Condition()
        self._started = False
        self._next = 0

    def add(self, store: Any, session_id: str, owner: str, ttl: float) -> int:
        """Renew this lease until ``drop``; the token to drop it with."""
        with self._changed:
            self._next += 1
            self._leases[self._next] = (time.monotonic() + ttl / 3, store, session_id,
                                        owner, ttl)
            if not self._started:
                self._started = True
                threading.Thread(target=self._run, daemon=True,
                                 name="convstate-leases").start()
            self._changed.notify_all()
            return self._next

    def drop(self, token: int) -> None:
        """No renewal after this returns (one under way is waited for: it would take the
        lease back after the save gave it up). Dropping twice is harmless."""
        with self._changed:
            self._leases.pop(token, None)
            while token in self._renewing:
                self._changed.wait()

    def _run(self) -> None:
        while True:
            with self._changed:
                now = time.monotonic()
                due = {t: lease for t, lease in self._leases.items() if lease[0] <= now}
                if not due:
                    soonest = min((lease[0] for lease in self._leases.values()), default=None)
                    self._changed.wait(None if soonest is None else soonest - now)
                    continue
                for t, (_, store, session_id, owner, ttl) in due.items():
                    self._leases[t] = (now + ttl / 3, store, session_id, owner, ttl)
                self._renewing = set(due)
            for t, (_, store, session_id, owner, ttl) in due.items():
                kept = self._renew(store, session_id, owner, ttl)
                with self._changed:
                    if not kept:  # taken over: the save's version check decides
                        self._leases.pop(t, None)
                    self._renewing.discard(t)
                    self._changed.notify_all()

    @staticmethod
    def _renew(store: Any, session_id: str, owner: str, ttl: float) -> bool:
        try:
            return bool(store.acquire_lease(session_id, owner, ttl))
        except Exception as exc:  # noqa: BLE001 - the thread serves every fold: it goes on
            log.warning("convstate: could not renew the fold lease of %r (%s)",
                        session_id, exc)
            return True


_RENEWALS = _Renewals()
os.register_at_fork(after_in_child=_RENEWALS.reset)


def _step(steps: Steps, answer: Extraction | Exception | None) -> tuple[bool, Any]:
    """Advance the fold path: (False, the next plan) or (True, its result). A
    StopIteration never crosses a thread (a Future cannot carry one)."""
    try:
        return False, (next(steps) if answer is None else steps.send(answer))
    except StopIteration as done:
        return True, done.value
