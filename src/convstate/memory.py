"""ConversationMemory: add turns, get a context that fits, fold what expires into the state."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .delta import delta_model
from .errors import ConfigError, VersionConflictError
from .extract import default_extractor
from .extract.base import Extraction, Extractor
from .fold import fold_report
from .render import FORMATS, LABELS, render
from .state import ConversationState
from .store.base import CompactionRecord, Store
from .store.sqlite import SQLiteStore
from .tokens import REPLY_PRIMING, TokenCounter
from .turns import DEFAULT_MAX_TURN_CHARS, Turn, check_message
from .window import Slot, WindowPolicy, fit_raw, plan_expiry

log = logging.getLogger("convstate")


@dataclass
class Usage:
    """What extraction cost a session: folds landed and failed, tokens, and a cost."""

    folds: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


_CONFLICT_RETRIES = 3
_RETRY_AFTER_TURNS = 2  # a failed fold is retried after the next exchange, not every call


class ConversationMemory:
    """One conversation: its durable history, its folded state, and a context that fits.

    ``context()`` returns ``[system prompt] + [state block] + [recent raw turns]`` as
    OpenAI message dicts, never more than ``context_window - reply_reserve`` tokens.
    When the raw turns pass ``trigger_ratio`` of that budget, the oldest ones are
    folded into the state by the extractor, exactly once, until under ``target_ratio``.
    """

    def __init__(
        self,
        session_id: str = "default",
        *,
        store: Store | str | Path | None = None,
        extractor: Extractor | None = None,
        context_window: int = 8192,
        model: str = "gpt-4o-mini",
        system_prompt: str | None = None,
        keep_recent_turns: int = 4,
        trigger_ratio: float = 0.7,
        target_ratio: float = 0.5,
        reply_reserve: int | None = None,
        state_format: str = "text",
        lang: str | None = None,
        state_budget: int | None = None,
        max_turn_chars: int = DEFAULT_MAX_TURN_CHARS,
        on_fold: Callable[[CompactionRecord], None] | None = None,
        state_model: type[ConversationState] = ConversationState,
        redact: Callable[[str], str] | None = None,
        background: bool = False,
        lease_ttl: float = 120.0,
    ):
        if not (isinstance(state_model, type) and issubclass(state_model, ConversationState)):
            raise ConfigError("state_model", "expected ConversationState or a subclass")
        if not isinstance(session_id, str) or not session_id:
            raise ConfigError("session_id", "expected a non-empty string")
        if system_prompt is not None and not isinstance(system_prompt, str):
            raise ConfigError("system_prompt", "expected a string or None")
        if state_format not in FORMATS:
            raise ConfigError("state_format", f"expected one of {FORMATS}")
        if lang is not None and lang not in LABELS:
            raise ConfigError("lang", f"expected one of {tuple(LABELS)} or None")
        if isinstance(context_window, int) and reply_reserve is None:
            reply_reserve = min(1024, context_window // 8)
        self.policy = WindowPolicy(context_window=context_window,
                                   reply_reserve=reply_reserve,  # type: ignore[arg-type]
                                   trigger_ratio=trigger_ratio, target_ratio=target_ratio,
                                   keep_recent_turns=keep_recent_turns)
        if state_budget is None:
            state_budget = self.policy.budget // 3
        if not isinstance(state_budget, int) or state_budget < 1:
            raise ConfigError("state_budget", "expected a positive integer")
        self.session_id = session_id
        self._own_store = store is None or isinstance(store, str | Path)
        if store is None:
            store = os.environ.get("CONVSTATE_DB", "convstate.db")
        self.store: Store = SQLiteStore(store) if isinstance(store, str | Path) else store
        self.extractor: Extractor = extractor or default_extractor()
        self.counter = TokenCounter(model)
        self.system_prompt = system_prompt
        self.state_format, self.lang, self.state_budget = state_format, lang, state_budget
        self.max_turn_chars = max_turn_chars
        self.on_fold = on_fold
        self.redact = redact
        self.background, self.lease_ttl = background, lease_ttl
        self._owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._worker: threading.Thread | None = None
        self._task: asyncio.Task[None] | None = None
        self.state_model = state_model
        self.delta_model = delta_model(state_model)
        self._system_tokens = (self.counter.message(self._system_message())
                               if system_prompt else 0)
        if self._system_tokens + REPLY_PRIMING >= self.policy.budget // 2:
            raise ConfigError("system_prompt", f"{self._system_tokens} tokens leave too little "
                              f"of a {self.policy.budget}-token budget")
        self._state: ConversationState = state_model()
        self._raw: list[tuple[Turn, int]] = []  # unfolded turns and their token counts
        self._last = -1  # highest turn index seen
        self._block: tuple[int, str, int] | None = None  # (version, text, tokens)
        self._retry_at = -1  # after a failed extraction, the turn index to try again at
        self._reload()

    # -- adding turns -------------------------------------------------------------------

    def add(self, role: str, content: str | None = None, **fields: Any) -> Turn:
        """Store a turn (``name``, ``tool_calls``, ``tool_call_id`` as keyword fields)."""
        return self.add_message({"role": role, "content": content, **fields})

    def add_message(self, message: dict[str, Any]) -> Turn:
        """Store an OpenAI message dict as a turn. Invalid messages raise before writing."""
        return self._append(check_message(message, self.max_turn_chars))

    def add_messages(self, messages: list[dict[str, Any]]) -> list[Turn]:
        """Store several messages; each is checked before any is written."""
        checked = [check_message(m, self.max_turn_chars) for m in messages]
        return [self._append(fields) for fields in checked]

    def _append(self, fields: dict[str, Any]) -> Turn:
        turn = self.store.append(self.session_id, fields)
        if turn.index == self._last + 1:
            self._take([turn])
        else:  # another writer appended in between: read what we missed, in order
            self._sync()
        return turn

    # -- reading ------------------------------------------------------------------------

    @property
    def state(self) -> ConversationState:
        """The folded state as of the last fold (folds happen in context()/compact())."""
        self._sync()
        return self._state

    def context(self) -> list[dict[str, Any]]:
        """The messages for the next model call: folds first if a fold is due."""
        self._sync()
        if self._last >= self._retry_at:
            self._fold_due(force=False)
        return self._assemble()

    def render(self, format: str | None = None, lang: str | None = None) -> str:
        """The state block as the context carries it (budgeted, redacted); another
        ``format`` or ``lang`` renders the same state differently. '' before any fold."""
        self._sync()
        if format is None and lang is None:
            return self._block_for(self._state)[0]
        return self._render_block(self._state, format, lang)[0]

    def state_at(self, version: int) -> ConversationState:
        """The state as saved at ``version`` (0: the empty state before any fold)."""
        if version == 0:
            return self.state_model()
        data = self.store.load_state(self.session_id, version)
        if data is None:
            raise ConfigError("version", f"session {self.session_id!r} has no version "
                              f"{version}")
        return self.state_model.model_validate(data)

    def history(self) -> list[Turn]:
        """Every stored turn of this session, folded or not."""
        return self.store.turns(self.session_id)

    def compactions(self) -> list[CompactionRecord]:
        """The compaction log of this session, oldest first."""
        return self.store.compactions(self.session_id)

    def usage(self, prices: dict[str, tuple[float, float]] | None = None) -> Usage:
        """Extractor tokens over every fold of this session (failed tries included).

        ``prices`` maps a model name to (input, output) prices per million tokens; the
        cost counts the folds whose model is in it.
        """
        total = Usage()
        for r in self.compactions():
            total.folds += r.error is None
            total.failed += r.error is not None
            total.prompt_tokens += r.prompt_tokens
            total.completion_tokens += r.completion_tokens
            if prices and r.model in prices:
                price_in, price_out = prices[r.model]
                total.cost += (r.prompt_tokens * price_in + r.completion_tokens * price_out) / 1e6
        return total

    def compact(self, keep_recent_turns: int | None = None) -> CompactionRecord | None:
        """Fold now everything but the last ``keep_recent_turns`` user turns (by default
        the memory's setting; 0 folds every turn). None when there was nothing to fold."""
        self._sync()
        return self._fold_due(force=True, policy=self._keeping(keep_recent_turns))

    def tokens(self, messages: list[dict[str, Any]] | None = None) -> int:
        """Token count of ``messages`` (default: the current context) with this model."""
        return self.counter.messages(messages if messages is not None else self._assemble())

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a background fold in flight; True when none is left running."""
        if self._worker is not None:
            self._worker.join(timeout)
            return not self._worker.is_alive()
        return True

    # -- async: the same calls, run off the event loop ----------------------------------

    async def aadd(self, role: str, content: str | None = None, **fields: Any) -> Turn:
        """``add`` in a worker thread (store I/O stays off the event loop)."""
        return await asyncio.to_thread(self.add, role, content, **fields)

    async def aadd_message(self, message: dict[str, Any]) -> Turn:
        return await asyncio.to_thread(self.add_message, message)

    async def acontext(self) -> list[dict[str, Any]]:
        """``context`` for event loops: store and tokenizer work in a worker thread, the
        extractor through its async client (LLMExtractor, HybridExtractor); with
        ``background=True`` a due fold runs as a task and nothing waits for it."""
        await asyncio.to_thread(self._sync)
        if self._last >= self._retry_at:
            await self._afold_due(force=False)
        return await asyncio.to_thread(self._assemble)

    async def acompact(self, keep_recent_turns: int | None = None) -> CompactionRecord | None:
        """``compact`` for event loops (see ``acontext``)."""
        await asyncio.to_thread(self._sync)
        return await self._afold_due(force=True, policy=self._keeping(keep_recent_turns))

    async def aclose(self) -> None:
        """Wait for a background fold, close the extractor's async client, then ``close``."""
        await self.await_fold()
        aclose = getattr(self.extractor, "aclose", None)
        if aclose is not None:
            await aclose()
        await asyncio.to_thread(self.close)

    async def await_fold(self) -> None:
        """Wait for a background fold task started by ``acontext`` (``wait`` for threads)."""
        if self._task is not None:
            await self._task

    def close(self) -> None:
        """Wait for a background fold, then close the store if this memory opened it."""
        self.wait()
        if self._own_store:
            self.store.close()

    def __enter__(self) -> ConversationMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals ----------------------------------------------------------------------

    def _keeping(self, keep_recent_turns: int | None) -> WindowPolicy:
        """The window policy, with another ``keep_recent_turns`` if one is given."""
        if keep_recent_turns is None:
            return self.policy
        return replace(self.policy, keep_recent_turns=keep_recent_turns)

    def _system_message(self) -> dict[str, Any]:
        return {"role": "system", "content": self.system_prompt}

    def _take(self, turns: list[Turn]) -> None:
        for t in turns:
            if t.index > self._state.folded_through:
                self._raw.append((t, self.counter.message(t.message())))
            self._last = max(self._last, t.index)

    def _reload(self) -> None:
        data = self.store.load_state(self.session_id)
        self._state = self.state_model() if data is None else \
            self.state_model.model_validate(data)
        self._raw, self._last, self._block = [], self._state.folded_through, None
        self._take(self.store.turns(self.session_id, after=self._state.folded_through))

    def _sync(self) -> None:
        """Catch up with other writers: a newer state, or turns appended elsewhere."""
        if self.store.state_version(self.session_id) != self._state.version:
            self._reload()
        else:
            self._take(self.store.turns(self.session_id, after=self._last))

    def _block_for(self, state: ConversationState) -> tuple[str, int]:
        """The block of ``state`` and its cost, rendered once per state version (a version
        names one state of the session, so the cache holds across threads too)."""
        cached = self._block
        if cached is not None and cached[0] == state.version:
            return cached[1], cached[2]
        text, tokens = self._render_block(state)
        if state is self._state:
            self._block = (state.version, text, tokens)
        return text, tokens

    def _render_block(self, state: ConversationState, format: str | None = None,
                      lang: str | None = None) -> tuple[str, int]:
        """The state block and its token cost as a system message ('' for no state)."""
        if state.is_empty():
            return "", 0
        format, lang = format or self.state_format, lang or self.lang
        text = render(state, format, lang, budget=self.state_budget, counter=self.counter)
        tokens = self.counter.message({"role": "system", "content": text})
        # Anchors are exempt from the block's own budget, but the block must leave the
        # recent turns room: past the target, even the oldest anchors leave the block
        # (never the state), so that the context still fits.
        hard = self.policy.target - self._system_tokens
        if tokens > hard:
            text = render(state, format, lang, budget=hard - 8, counter=self.counter,
                          keep_anchors=False)
            tokens = self.counter.message({"role": "system", "content": text})
        if self.redact is not None:  # the model sees masked values; the store keeps all
            text = self.redact(text)
            tokens = self.counter.message({"role": "system", "content": text})
        return text, tokens

    def _fixed_tokens(self, state: ConversationState | None = None) -> int:
        """Tokens of everything but the raw turns: reply priming, system prompt, block."""
        return REPLY_PRIMING + self._system_tokens + self._block_for(state or self._state)[1]

    def _assemble(self) -> list[dict[str, Any]]:
        head = [self._system_message()] if self.system_prompt is not None else []
        block, _ = self._block_for(self._state)
        if block:
            head.append({"role": "system", "content": block})
        available = self.policy.budget - self._fixed_tokens()
        fitted = fit_raw([(t.index, t.message(), n) for t, n in self._raw], available,
                         self.counter)
        return head + fitted.messages

    def _plan(self, force: bool, policy: WindowPolicy | None
              ) -> tuple[ConversationState, list[tuple[Turn, int]], int] | None:
        """(state, unfolded turns, last turn to fold) if a fold is due, else None."""
        slots = [Slot(t.index, t.role, n) for t, n in self._raw]
        through = plan_expiry(self._fixed_tokens(), slots, policy or self.policy, force=force)
        return None if through is None else (self._state, list(self._raw), through)

    def _apply(self, result: tuple[CompactionRecord, Any] | None, through: int
               ) -> CompactionRecord | None:
        """Take a fold's outcome into this memory (None: another worker holds the lease)."""
        if result is None:
            return None
        record, landed = result
        if landed is not None:
            self._state, self._block = landed[0], landed[1]
            self._raw = [(t, n) for t, n in self._raw if t.index > through]
        self._notify(record)
        return record

    def _fold_due(self, force: bool, policy: WindowPolicy | None = None
                  ) -> CompactionRecord | None:
        """Fold what the window expires: now, or (``background``) in a thread."""
        for _ in range(_CONFLICT_RETRIES):
            plan = self._plan(force, policy)
            if plan is None:
                return None
            if self.background and not force:
                if self._worker is None or not self._worker.is_alive():
                    self._worker = threading.Thread(target=self._fold_in_background,
                                                    args=plan, daemon=True)
                    self._worker.start()
                return None
            try:
                return self._apply(self._fold_leased(*plan), plan[2])
            except VersionConflictError:
                log.info("convstate: session %r was folded by another writer; reloading",
                         self.session_id)
                self._reload()
        return None

    async def _afold_due(self, force: bool, policy: WindowPolicy | None = None
                         ) -> CompactionRecord | None:
        """``_fold_due`` for event loops: the extractor's async client when it has one,
        everything else off the loop; ``background`` folds in a task."""
        for _ in range(_CONFLICT_RETRIES):
            plan = await asyncio.to_thread(self._plan, force, policy)
            if plan is None:
                return None
            if self.background and not force:
                if self._task is None or self._task.done():
                    self._task = asyncio.create_task(self._afold_in_background(*plan))
                return None
            try:
                return self._apply(await self._afold_leased(*plan), plan[2])
            except VersionConflictError:
                await asyncio.to_thread(self._reload)
        return None

    def _fold_in_background(self, state: ConversationState, raw: list[tuple[Turn, int]],
                            through: int) -> None:
        try:
            result = self._fold_leased(state, raw, through)
        except VersionConflictError:
            return  # another worker's fold landed first; the next context() reloads it
        except Exception:  # noqa: BLE001 - a background thread has no caller to raise to
            log.exception("convstate: background fold of %r failed", self.session_id)
            return
        if result is not None:
            self._notify(result[0])

    async def _afold_in_background(self, state: ConversationState,
                                   raw: list[tuple[Turn, int]], through: int) -> None:
        try:
            result = await self._afold_leased(state, raw, through)
        except VersionConflictError:
            return
        except Exception:  # noqa: BLE001 - a background task has no caller to raise to
            log.exception("convstate: background fold of %r failed", self.session_id)
            return
        if result is not None:
            self._notify(result[0])

    def _fold_leased(self, state: ConversationState, raw: list[tuple[Turn, int]],
                     through: int) -> tuple[CompactionRecord, Any] | None:
        """Fold under the session's lease (one fold per session across workers); None
        when another worker holds it. The lease expires, so a crashed holder's is taken."""
        if not self.store.acquire_lease(self.session_id, self._owner, self.lease_ttl):
            return None
        try:
            batch = [t for t, _ in raw if t.index <= through]
            try:  # outside any store transaction: an extractor may be slow
                extraction = self.extractor.extract(batch, state.index(), self.delta_model)
            except Exception as exc:  # noqa: BLE001 - never into the caller's chat loop
                return self._failed(state, raw, batch, exc)
            return self._land(state, raw, batch, extraction)
        finally:
            self.store.release_lease(self.session_id, self._owner)

    async def _afold_leased(self, state: ConversationState, raw: list[tuple[Turn, int]],
                            through: int) -> tuple[CompactionRecord, Any] | None:
        if not await asyncio.to_thread(self.store.acquire_lease, self.session_id,
                                       self._owner, self.lease_ttl):
            return None
        try:
            batch = [t for t, _ in raw if t.index <= through]
            aextract = getattr(self.extractor, "aextract", None)
            try:
                extraction = await (aextract(batch, state.index(), self.delta_model)
                                    if aextract else asyncio.to_thread(
                                        self.extractor.extract, batch, state.index(),
                                        self.delta_model))
            except Exception as exc:  # noqa: BLE001 - never into the caller's chat loop
                return await asyncio.to_thread(self._failed, state, raw, batch, exc)
            return await asyncio.to_thread(self._land, state, raw, batch, extraction)
        finally:
            await asyncio.to_thread(self.store.release_lease, self.session_id, self._owner)

    def _before(self, state: ConversationState, raw: list[tuple[Turn, int]],
                batch: list[Turn]) -> CompactionRecord:
        return CompactionRecord(session_id=self.session_id, first_turn=batch[0].index,
                                last_turn=batch[-1].index, extractor=self.extractor.name,
                                tokens_before=self._fixed_tokens(state)
                                + sum(n for _, n in raw))

    def _failed(self, state: ConversationState, raw: list[tuple[Turn, int]],
                batch: list[Turn], exc: Exception) -> tuple[CompactionRecord, None]:
        """Log a failed extraction; the turns stay unfolded, retried after an exchange."""
        record = self._before(state, raw, batch)
        record.error = f"{type(exc).__name__}: {exc}"[:500]
        record.prompt_tokens = getattr(exc, "prompt_tokens", 0)
        record.completion_tokens = getattr(exc, "completion_tokens", 0)
        record.tokens_after = record.tokens_before
        self.store.log(record)
        self._retry_at = self._last + _RETRY_AFTER_TURNS
        log.warning("convstate: extraction failed for turns %d-%d (%s); the turns stay "
                    "unfolded and are retried at the next fold", batch[0].index,
                    batch[-1].index, record.error)
        return record, None

    def _land(self, state: ConversationState, raw: list[tuple[Turn, int]],
              batch: list[Turn], extraction: Extraction) -> tuple[CompactionRecord, Any]:
        """Fold the extraction and save it (version-checked); reads ``self`` only for its
        settings, so it runs in any thread. Returns the record and (new state, block)."""
        through = batch[-1].index
        record = self._before(state, raw, batch)
        new, stats = fold_report(state, extraction.delta, {t.index: t for t in batch})
        new.version = state.version + 1
        new.folded_through = through
        record.extractor = extraction.extractor
        record.version = new.version
        record.prompt_tokens = extraction.prompt_tokens
        record.completion_tokens = extraction.completion_tokens
        record.model = extraction.model
        record.notes = "; ".join(extraction.notes) or None
        for name in ("added", "deduplicated", "rejected", "superseded", "updated"):
            setattr(record, name, getattr(stats, name))
        block, block_tokens = self._render_block(new)
        record.tokens_after = REPLY_PRIMING + self._system_tokens + block_tokens + sum(
            n for t, n in raw if t.index > through)
        self.store.save_state(self.session_id, new.model_dump(mode="json"), state.version,
                              record)
        return record, (new, (new.version, block, block_tokens))

    def _notify(self, record: CompactionRecord) -> None:
        if self.on_fold is not None:
            self.on_fold(record)
