"""ConversationMemory: add turns, get a context that fits, fold what expires into the state."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from .delta import delta_model
from .errors import ConfigError, ExtractionError, StoreError, VersionConflictError
from .extract import default_extractor
from .extract.base import Extraction, Extractor, as_extractor
from .fold import fold_report
from .layout import first_shown, next_start, recent_start
from .render import FORMATS, LABELS, RANK_BEFORE_RAW, Row, block_rows, render
from .state import ConversationState
from .store.base import CompactionRecord, Store
from .store.sqlite import SQLiteStore
from .tokens import REPLY_PRIMING, TokenCounter
from .turns import DEFAULT_MAX_TURN_CHARS, Turn, check_message
from .window import (
    BLOCK_SHARE,
    KEEP_RECENT_TURNS,
    TARGET_RATIO,
    TRIGGER_RATIO,
    Entry,
    Slot,
    WindowPolicy,
    cut_entry,
    default_reserve,
    fit_raw,
    plan_expiry,
)

log = logging.getLogger("convstate")


Where = Literal["raw", "block", "state", "pending", "store", "nowhere"]


@dataclass
class Usage:
    """What extraction cost a session: folds landed and failed, tokens, and a cost."""

    folds: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0


_CONFLICT_RETRIES = 3
_MESSAGE_OVERHEAD = 8  # a system message's tokens beyond its text, with a margin
_LAYOUT_TRIES = 4
_BLOCK_CACHE = 64  # rendered blocks kept per state version
_MIN_PART = 32  # the fewest tokens worth showing of a turn cut to fill a context
_RETRY_AFTER_TURNS = 2  # a failed fold is retried after the next exchange, not every call


class ConversationMemory:
    """One conversation: its durable history, its folded state, and a context that fits.

    ``context()`` returns ``[system prompt] + [state block] + [recent raw turns]`` as
    OpenAI message dicts, never more than ``context_window - reply_reserve`` tokens.
    When the raw turns pass ``trigger_ratio`` of that budget, the oldest ones are
    folded into the state by the extractor, exactly once, until under ``target_ratio``.

    An extractor's known failure (``ExtractionError``) leaves the turns for a later fold;
    any other exception is a bug, logged at ERROR with its traceback and counted as a
    failed fold, or raised with ``strict=True`` (default: ``CONVSTATE_STRICT=1``).
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
        keep_recent_turns: int = KEEP_RECENT_TURNS,
        trigger_ratio: float = TRIGGER_RATIO,
        target_ratio: float = TARGET_RATIO,
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
        strict: bool | None = None,
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
            reply_reserve = default_reserve(context_window)
        self.policy = WindowPolicy(context_window=context_window,
                                   reply_reserve=reply_reserve,  # type: ignore[arg-type]
                                   trigger_ratio=trigger_ratio, target_ratio=target_ratio,
                                   keep_recent_turns=keep_recent_turns)
        if state_budget is None:
            state_budget = int(self.policy.budget * BLOCK_SHARE)
        if not isinstance(state_budget, int) or state_budget < 1:
            raise ConfigError("state_budget", "expected a positive integer")
        self.session_id = session_id
        self._own_store = store is None or isinstance(store, str | Path)
        if store is None:
            store = os.environ.get("CONVSTATE_DB", "convstate.db")
        self.store: Store = SQLiteStore(store) if isinstance(store, str | Path) else store
        self.extractor: Extractor = extractor or default_extractor()
        self._extractor = as_extractor(self.extractor)
        # a bug in an extractor (not an ExtractionError) raises instead of being logged
        self.strict = os.environ.get("CONVSTATE_STRICT") == "1" if strict is None \
            else strict
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
        # The newest turns (folded ones as far as a context could show them, then every
        # unfolded one) with their messages and token counts.
        self._recent: list[tuple[Turn, dict[str, Any], int]] = []
        self._last = -1  # highest turn index seen
        self._blocks: dict[tuple[Any, ...], tuple[str, int]] = {}  # of self._state only
        self._costs: tuple[int, list[tuple[int | None, int]], int] | None = None
        self._rows: tuple[tuple[int, str], list[Row]] | None = None
        self._retry_at = -1  # after a failed extraction, the turn index to try again at
        # One memory may be shared by threads and async tasks (a web app's session).
        # _lock guards the cached view (state, raw turns, block); _folding lets one fold
        # of this memory run at a time, from plan to landing, so no turn is planned twice.
        # A plain Lock, not an RLock: an async fold may release it from another thread.
        self._lock = threading.RLock()
        self._folding = threading.Lock()
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
        with self._lock:
            if turn.index == self._last + 1:
                self._take([turn])
            else:  # another writer appended in between: read what we missed, in order
                self._sync()
        return turn

    # -- reading ------------------------------------------------------------------------

    @property
    def state(self) -> ConversationState:
        """The folded state as of the last fold (folds happen in context()/compact())."""
        with self._lock:
            self._sync()
            return self._state

    def context(self) -> list[dict[str, Any]]:
        """The messages for the next model call: folds first if a fold is due."""
        self._fold_due(force=False)
        with self._lock:
            return self._assemble()

    def render(self, format: str | None = None, lang: str | None = None) -> str:
        """The state block as the context carries it (budgeted, redacted, less what the
        context's raw turns hold); another ``format`` or ``lang`` renders the whole state
        within the block's budget. '' when there is nothing to say."""
        with self._lock:
            self._sync()
            state = self._state
            if format is None and lang is None:
                return self._layout()[0]
        return self._render_block(state, format, lang)[0]

    def where(self, text: str) -> Where:
        """Where ``text`` (a value someone said) lives now, the first that holds it:
        ``"raw"`` a raw turn of the current context, ``"block"`` the context's state
        block, ``"state"`` the state but not the context (left out of the block by its
        budget), ``"pending"`` an unfolded turn the context left out, ``"store"`` only a
        folded turn the state kept nothing of, ``"nowhere"`` not said in this session.
        The first question a support team asks: why did the bot forget X?"""
        with self._lock:
            self._sync()
            block, raw = self._layout()
            state = self._state
        if any(text in str(m.get("content") or "") for m in raw):
            return "raw"
        if text in block or json.dumps(text, ensure_ascii=False)[1:-1] in block:
            return "block"
        if any(text in value for value in state.values()):
            return "state"
        said = [t.index for t in self.store.turns(self.session_id) if text in t.text]
        if not said:
            return "nowhere"
        return "pending" if said[-1] > state.folded_through else "store"

    def state_at(self, version: int) -> ConversationState:
        """The state as saved at ``version`` (0: the empty state before any fold)."""
        if version == 0:
            return self.state_model()
        data = self.store.load_state(self.session_id, version)
        if data is None:
            raise ConfigError("version", f"session {self.session_id!r} has no version "
                              f"{version}")
        return self._validated(data)

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
        return self._fold_due(force=True, policy=self._keeping(keep_recent_turns))

    def tokens(self, messages: list[dict[str, Any]] | None = None) -> int:
        """Token count of ``messages`` (default: the current context) with this model."""
        if messages is None:
            with self._lock:
                messages = self._assemble()
        return self.counter.messages(messages)

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
        await self._afold_due(force=False)
        return await asyncio.to_thread(self._assemble_locked)

    async def acompact(self, keep_recent_turns: int | None = None) -> CompactionRecord | None:
        """``compact`` for event loops (see ``acontext``)."""
        return await self._afold_due(force=True, policy=self._keeping(keep_recent_turns))

    async def aclose(self) -> None:
        """Wait for a background fold, close the extractor's async client, then ``close``."""
        await self.await_fold()
        await self._extractor.aclose()
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
            if t.index > self._last:
                message = t.message()
                self._recent.append((t, message, self.counter.message(message)))
                self._last = t.index

    def _raw(self) -> list[tuple[Turn, int]]:
        """The unfolded turns and their token counts."""
        through = self._state.folded_through
        return [(t, n) for t, _, n in self._recent if t.index > through]

    def _trim(self) -> None:
        """Forget folded turns older than any context could show (the store has them)."""
        through, room, used = self._state.folded_through, self.policy.budget, 0
        for p in range(len(self._recent) - 1, -1, -1):
            used += self._recent[p][2]
            if used > room and self._recent[p][0].index <= through:
                del self._recent[:p + 1]
                break
        while self._recent and self._recent[0][0].role == "tool" \
                and self._recent[0][0].index <= through:  # never results without their call
            del self._recent[0]

    def _set_state(self, state: ConversationState) -> None:
        self._state, self._blocks, self._costs, self._rows = state, {}, None, None
        self._trim()

    def _validated(self, data: dict[str, Any]) -> ConversationState:
        """A saved state as this memory's model, or a clear error when the model that
        wrote it differs (never a silent drop of fields this model does not know)."""
        model = self.state_model
        unknown = sorted(set(data) - set(model.model_fields))
        if unknown:
            raise ConfigError("state_model", f"session {self.session_id!r} was saved with "
                              f"field(s) {', '.join(unknown)} that {model.__name__} does "
                              "not have; open it with the state model that wrote it")
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "state"
            raise ConfigError(field, f"the saved state of session {self.session_id!r} does "
                              f"not fit {model.__name__} ({err['msg']}); migrate it: load "
                              "it with the old model, convert, and save it as a new "
                              "session") from None

    def _reload(self) -> None:
        data = self.store.load_state(self.session_id)
        state = self.state_model() if data is None else self._validated(data)
        through, tail, back = state.folded_through, [], 16
        while through >= 0:  # the folded turns a context may show again, newest last
            tail = self.store.turns(self.session_id, after=max(through - back, -1),
                                    through=through)
            if (sum(self.counter.message(t.message()) for t in tail) > self.policy.budget
                    or through - back < 0):
                break
            back *= 4
        self._recent, self._last = [], (tail[0].index - 1 if tail else through)
        self._take(tail + self.store.turns(self.session_id, after=through))
        self._set_state(state)

    def _sync(self) -> None:
        """Catch up with other writers: a newer state, or turns appended elsewhere."""
        if self.store.state_version(self.session_id) != self._state.version:
            self._reload()
        else:
            self._take(self.store.turns(self.session_id, after=self._last))

    def _block_at(self, state: ConversationState, budget: int, shown: list[Entry],
                  first_rows: bool = False) -> tuple[str, int]:
        """The block of ``state`` within ``budget`` tokens, less what the ``shown`` raw
        turns hold verbatim, and its cost as a system message ('' for nothing to say).
        ``first_rows``: only the rows that come before earlier raw turns."""
        key = (state.version, budget, shown[0][0] if shown else None,
               shown[-1][0] if shown else None, first_rows)
        if state is self._state and key in self._blocks:
            return self._blocks[key]
        out = self._render_block(state, budget=budget, shown=shown, first_rows=first_rows)
        if state is self._state:
            if len(self._blocks) >= _BLOCK_CACHE:  # one entry per shown range: bounded
                self._blocks.clear()  # even when no fold comes to reset it
            self._blocks[key] = out
        return out

    def _render_block(self, state: ConversationState, format: str | None = None,
                      lang: str | None = None, budget: int | None = None,
                      shown: list[Entry] | None = None, first_rows: bool = False
                      ) -> tuple[str, int]:
        """The state block and its token cost as a system message ('' for no state)."""
        budget = self.state_budget if budget is None else budget
        if state.is_empty() or budget <= _MESSAGE_OVERHEAD:
            return "", 0
        lang = lang or self.lang or state.language or "en"
        rows = self._rows_of(state, lang) if lang in LABELS else None
        if first_rows and rows is not None:
            rows = [r for r in rows if r.rank >= RANK_BEFORE_RAW]
        text = render(state, format or self.state_format, lang,
                      budget=budget - _MESSAGE_OVERHEAD, counter=self.counter,
                      keep_anchors=False, shown_from=shown[0][0] if shown else None,
                      shown_text="\n".join(str(m.get("content") or "")
                                            for _, m, _ in shown or []), rows=rows)
        if self.redact is not None:  # the model sees masked values; the store keeps all
            text = self.redact(text)
        return text, self.counter.message({"role": "system", "content": text}) if text else 0

    def _rows_of(self, state: ConversationState, lang: str) -> list[Row]:
        """The block rows of ``state``, built once per state version and language."""
        if state is not self._state:
            return block_rows(state, lang)
        key = (state.version, lang)
        if self._rows is None or self._rows[0] != key:
            self._rows = (key, block_rows(state, lang))
        return self._rows[1]

    def _row_costs(self) -> tuple[list[tuple[int | None, int]], int]:
        """Estimated tokens of each block row, and of the block's title and headers."""
        state = self._state
        if self._costs is None or self._costs[0] != state.version:
            lang = self.lang or state.language or "en"
            rows = self._rows_of(state, lang)
            costs = [(r.turn, self.counter.count(f"{r.value}") + 3) for r in rows]
            overhead = self.counter.count(LABELS[lang]["title"]) + 6 * len(
                {r.section for r in rows}) + _MESSAGE_OVERHEAD
            # calibrated on the whole block, rendered anyway for the fold trigger
            whole = self._block_at(state, 10**9, [])[1] - overhead
            estimate = sum(n for _, n in costs)
            if whole > 0 and estimate > 0:
                costs = [(t, max(1, round(n * whole / estimate))) for t, n in costs]
            # the rows that come before earlier raw turns (the rest fill what is left)
            costs = [c for c, r in zip(costs, rows, strict=True) if r.rank >= RANK_BEFORE_RAW]
            self._costs = (state.version, costs, overhead)
        return self._costs[1], self._costs[2]

    def _layout(self) -> tuple[str, list[dict[str, Any]]]:
        """The block and the raw messages of the context (see layout.py)."""
        state, room = self._state, self.policy.budget - REPLY_PRIMING - self._system_tokens
        entries: list[Entry] = [(t.index, m, n) for t, m, n in self._recent]
        # shown raw whatever the block: every unfolded turn, and the last
        # keep_recent_turns user turns (the conversation as it stands)
        unfolded_at = next((p for p, e in enumerate(entries) if e[0] > state.folded_through),
                           len(entries))
        first = min(unfolded_at, recent_start(entries, self.policy.keep_recent_turns))
        if sum(e[2] for e in entries[first:]) > room or self.redact is not None:
            # the recent floor alone does not fit: the block gets room; with redaction,
            # what was folded reaches the model only masked, in the block
            first = unfolded_at
        p = first
        if self.redact is None:
            rows, overhead = self._row_costs()
            p = first_shown(entries, first, room, rows, overhead, self.state_budget)
        for _ in range(_LAYOUT_TRIES):  # the estimate may be off: check, show fewer
            if p >= first:
                break
            raw = sum(e[2] for e in entries[p:])
            left = room - raw - self._block_at(state, self.state_budget, entries[p:],
                                               first_rows=True)[1]
            if left >= 0:  # the rows that matter fit: the rest fill the room left
                text, tokens = self._block_at(state, min(self.state_budget, room - raw),
                                              entries[p:])
                return text, self._filled(entries, p, room - raw - tokens)
            while left < 0 and p < first:  # show fewer turns, as many as the overshoot
                q = next_start(entries, p)
                left += sum(e[2] for e in entries[p:q])
                p = q
        shown = entries[first:]
        raw = sum(e[2] for e in shown)
        text, tokens = self._block_at(state, min(self.state_budget, room - raw), shown)
        if raw + tokens <= room and self.redact is None:
            return text, self._filled(entries, first, room - raw - tokens)
        return text, fit_raw(shown, room - tokens, self.counter).messages

    def _filled(self, entries: list[Entry], p: int, left: int) -> list[dict[str, Any]]:
        """The turns from ``p`` on, and in the ``left`` tokens of room, the start of the
        turn before them, cut visibly (its values are in the block or the store)."""
        part = cut_entry(entries[p - 1], left, self.counter) \
            if p > 0 and left >= _MIN_PART else None
        return ([part[1]] if part else []) + [m for _, m, _ in entries[p:]]

    def _fixed_tokens(self, state: ConversationState | None = None) -> int:
        """Tokens of a context but its raw turns, with the whole block (within its cap)."""
        block = self._block_at(state or self._state, self.state_budget, [])[1]
        return REPLY_PRIMING + self._system_tokens + block

    def _assemble(self) -> list[dict[str, Any]]:
        head = [self._system_message()] if self.system_prompt is not None else []
        block, raw = self._layout()
        if block:
            head.append({"role": "system", "content": block})
        return head + raw

    def _assemble_locked(self) -> list[dict[str, Any]]:
        with self._lock:
            return self._assemble()

    def _plan(self, force: bool, policy: WindowPolicy | None
              ) -> tuple[ConversationState, list[tuple[Turn, int]], int] | None:
        """(state, unfolded turns, last turn to fold) if a fold is due, else None. Reads
        the store first (other writers); after a failed fold only ``force`` retries early."""
        with self._lock:
            self._sync()
            if not force and self._last < self._retry_at:
                return None
            raw = self._raw()
            slots = [Slot(t.index, t.role, n) for t, n in raw]
            through = plan_expiry(REPLY_PRIMING + self._system_tokens, slots,
                                  policy or self.policy, force=force)
            return None if through is None else (self._state, raw, through)

    def _apply(self, result: tuple[CompactionRecord, ConversationState | None] | None
               ) -> CompactionRecord | None:
        """Take a fold's outcome into this memory (None: another worker holds the lease)."""
        if result is None:
            return None
        record, landed = result
        if landed is not None:
            with self._lock:
                if landed.version > self._state.version:
                    self._set_state(landed)
        self._notify(record)
        return record

    def _fold_due(self, force: bool, policy: WindowPolicy | None = None
                  ) -> CompactionRecord | None:
        """Fold what the window expires: now, or (``background``) in a thread. One fold
        of this memory at a time: a caller waits for a fold in flight (in the
        background, it goes on without waiting)."""
        if self.background and not force:
            if self._plan(False, policy) is not None and self._folding.acquire(blocking=False):
                try:
                    self._worker = threading.Thread(target=self._fold_in_background,
                                                    args=(policy,), daemon=True)
                    self._worker.start()
                except BaseException:
                    self._folding.release()
                    raise
            return None
        with self._folding:
            return self._fold_now(force, policy)

    def _fold_now(self, force: bool, policy: WindowPolicy | None) -> CompactionRecord | None:
        """Plan, extract, land and apply; the caller holds ``_folding``."""
        for _ in range(_CONFLICT_RETRIES):
            plan = self._plan(force, policy)
            if plan is None:
                return None
            try:
                return self._apply(self._fold_leased(*plan))
            except VersionConflictError:
                log.info("convstate: session %r was folded by another writer; reloading",
                         self.session_id)
                self._reload_locked()
        return None

    def _fold_in_background(self, policy: WindowPolicy | None) -> None:
        try:
            self._fold_now(False, policy)
        except Exception:  # noqa: BLE001 - a background thread has no caller to raise to
            log.exception("convstate: background fold of %r failed", self.session_id)
        finally:
            self._folding.release()

    async def _afold_due(self, force: bool, policy: WindowPolicy | None = None
                         ) -> CompactionRecord | None:
        """``_fold_due`` for event loops: the extractor's async client when it has one,
        everything else off the loop; ``background`` folds in a task."""
        if self.background and not force:
            plan = await asyncio.to_thread(self._plan, False, policy)
            if plan is not None and self._folding.acquire(blocking=False):
                self._task = asyncio.create_task(self._afold_in_background(policy))
            return None
        while not self._folding.acquire(blocking=False):  # never block the event loop
            await asyncio.sleep(0.005)
        try:
            return await self._afold_now(force, policy)
        finally:
            self._folding.release()

    async def _afold_now(self, force: bool, policy: WindowPolicy | None
                         ) -> CompactionRecord | None:
        for _ in range(_CONFLICT_RETRIES):
            plan = await asyncio.to_thread(self._plan, force, policy)
            if plan is None:
                return None
            try:
                result = await self._afold_leased(*plan)
                return await asyncio.to_thread(self._apply, result)
            except VersionConflictError:
                await asyncio.to_thread(self._reload_locked)
        return None

    async def _afold_in_background(self, policy: WindowPolicy | None) -> None:
        try:
            await self._afold_now(False, policy)
        except Exception:  # noqa: BLE001 - a background task has no caller to raise to
            log.exception("convstate: background fold of %r failed", self.session_id)
        finally:
            self._folding.release()

    def _reload_locked(self) -> None:
        with self._lock:
            self._reload()

    def _fold_leased(self, state: ConversationState, raw: list[tuple[Turn, int]],
                     through: int) -> tuple[CompactionRecord, Any] | None:
        """Fold under the session's lease (one fold per session across workers); None
        when another worker holds it. The lease expires, so a crashed holder's is taken."""
        if not self.store.acquire_lease(self.session_id, self._owner, self.lease_ttl):
            return None
        try:
            batch = [t for t, _ in raw if t.index <= through]
            try:  # outside any store transaction: an extractor may be slow
                extraction = self._extractor.extract(batch, state.index(), self.delta_model)
            except Exception as exc:  # noqa: BLE001 - never into the caller's chat loop
                return self._failed(state, raw, batch, exc)
            return self._land(state, raw, batch, extraction)
        finally:
            self._release()

    async def _afold_leased(self, state: ConversationState, raw: list[tuple[Turn, int]],
                            through: int) -> tuple[CompactionRecord, Any] | None:
        if not await asyncio.to_thread(self.store.acquire_lease, self.session_id,
                                       self._owner, self.lease_ttl):
            return None
        try:
            batch = [t for t, _ in raw if t.index <= through]
            try:
                extraction = await self._extractor.aextract(batch, state.index(),
                                                            self.delta_model)
            except Exception as exc:  # noqa: BLE001 - never into the caller's chat loop
                return await asyncio.to_thread(self._failed, state, raw, batch, exc)
            return await asyncio.to_thread(self._land, state, raw, batch, extraction)
        finally:
            await asyncio.to_thread(self._release)

    def _release(self) -> None:
        """Give the fold lease back; if the store cannot take even that, the lease
        expires by itself (the error that stopped the fold is the one raised)."""
        try:
            self.store.release_lease(self.session_id, self._owner)
        except StoreError as exc:
            log.warning("convstate: could not release the fold lease of %r (%s); it "
                        "expires in %.0f s", self.session_id, exc, self.lease_ttl)

    def _before(self, state: ConversationState, raw: list[tuple[Turn, int]],
                batch: list[Turn]) -> CompactionRecord:
        return CompactionRecord(session_id=self.session_id, first_turn=batch[0].index,
                                last_turn=batch[-1].index, extractor=self.extractor.name,
                                tokens_before=self._fixed_tokens(state)
                                + sum(n for _, n in raw))

    def _failed(self, state: ConversationState, raw: list[tuple[Turn, int]],
                batch: list[Turn], exc: Exception) -> tuple[CompactionRecord, None]:
        """Log a failed extraction; the turns stay unfolded, retried after an exchange.
        A known failure (ExtractionError) is a warning; anything else is a bug in the
        extractor: logged at ERROR with its traceback, and raised by a strict memory."""
        bug = not isinstance(exc, ExtractionError)
        if bug:
            log.error("convstate: extractor %r raised a %s folding turns %d-%d",
                      self._extractor.name, type(exc).__name__, batch[0].index,
                      batch[-1].index, exc_info=exc)
            if self.strict:
                raise exc
        record = self._before(state, raw, batch)
        record.error = f"{'bug: ' if bug else ''}{type(exc).__name__}: {exc}"[:500]
        record.prompt_tokens = getattr(exc, "prompt_tokens", 0)
        record.completion_tokens = getattr(exc, "completion_tokens", 0)
        record.tokens_after = record.tokens_before
        self.store.log(record)
        with self._lock:
            self._retry_at = self._last + _RETRY_AFTER_TURNS
        if not bug:
            log.warning("convstate: extraction failed for turns %d-%d (%s); the turns "
                        "stay unfolded and are retried at the next fold", batch[0].index,
                        batch[-1].index, record.error)
        return record, None

    def _land(self, state: ConversationState, raw: list[tuple[Turn, int]],
              batch: list[Turn], extraction: Extraction
              ) -> tuple[CompactionRecord, ConversationState]:
        """Fold the extraction and save it (version-checked); reads ``self`` only for its
        settings, so it runs in any thread. Returns the record and the new state."""
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
        return record, new

    def _notify(self, record: CompactionRecord) -> None:
        if self.on_fold is not None:
            self.on_fold(record)
