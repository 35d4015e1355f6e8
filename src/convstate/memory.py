"""ConversationMemory: add turns, get a context that fits, fold what expires into the state."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .aio import in_thread
from .assembly import MESSAGE_OVERHEAD, Assembler
from .compactor import Compactor
from .config import LEASE_TTL, MemoryConfig
from .delta import delta_model
from .errors import ConfigError, SessionErasedError, VersionConflictError
from .extract import default_extractor
from .extract.base import Extractor, as_extractor
from .fold import FoldKeys
from .live import LiveIndex, LiveReader
from .lookup import Found, locate
from .profile import Profile, promote
from .state import ConversationState
from .store.base import CompactionRecord, Head, Store, append_turns, changes
from .store.sqlite import SQLiteStore
from .tokens import DEFAULT_COUNT, Counter, count_messages, counter_for, reply_priming
from .turns import DEFAULT_MAX_TURN_CHARS, Turn, check_message, check_messages
from .window import (
    KEEP_RECENT_TURNS,
    TARGET_RATIO,
    TRIGGER_RATIO,
    WindowPolicy,
)

log = logging.getLogger("convstate")
DOCUMENT_SHARE = 0.4  # of the budget, at most, for documents given to context()
_PROFILE_TRIES = 8
_ERASED_TRIES = 8  # appends refused by erasures in a row before the error is raised




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




class ConversationMemory:
    """One conversation: its durable history, its folded state, and a context that fits.

    ``context()`` returns ``[system prompt] + [state block] + [recent raw turns]`` as
    OpenAI message dicts, never more than ``context_window - reply_reserve`` tokens.
    When the raw turns pass ``trigger_ratio`` of that budget, the oldest ones are
    folded into the state by the extractor, exactly once, until under ``target_ratio``
    and at least ``min_fold_tokens`` of turns (default: the extractor's
    ``min_batch_tokens``, an LLM's fixed prompt; 0 for the rules) as far as
    ``keep_recent_turns`` allows.

    An extractor's known failure (``ExtractionError``) leaves the turns for a later fold;
    any other exception is a bug, logged at ERROR with its traceback and counted as a
    failed fold, or raised with ``strict=True`` (default: ``CONVSTATE_STRICT=1``).

    Tokens are counted with ``token_counter`` (any ``convstate.tokens.Counter``; by
    default tiktoken's for ``model``, with a warning when the model is not an OpenAI one
    and the counts are estimates). A tool-call turn without content is given to the model
    with ``tool_call_content`` ('' by default; None keeps it null). Without ``store``
    the history goes to the SQLite file ``convstate.db`` (or ``$CONVSTATE_DB``). With
    ``user_id`` the session is that user's: each fold promotes the user's stable values
    into their profile, and the block shows what earlier sessions kept (``profile.py``).
    """

    def __init__(
        self,
        session_id: str = "default",
        *,
        store: Store | str | Path | None = None,
        extractor: Extractor | None = None,
        context_window: int = 8192,
        model: str = DEFAULT_COUNT,
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
        lease_ttl: float = LEASE_TTL,
        strict: bool | None = None,
        token_counter: Counter | None = None,
        tool_call_content: str | None = "",
        user_id: str | None = None,
        min_fold_tokens: int | None = None,
    ):
        config = MemoryConfig.from_options(
            context_window=context_window, reply_reserve=reply_reserve,
            trigger_ratio=trigger_ratio, target_ratio=target_ratio,
            keep_recent_turns=keep_recent_turns, min_batch=min_fold_tokens, model=model,
            system_prompt=system_prompt,
            state_format=state_format, lang=lang, state_budget=state_budget,
            max_turn_chars=max_turn_chars, state_model=state_model, on_fold=on_fold,
            redact=redact, background=background, lease_ttl=lease_ttl, strict=strict,
            token_counter=token_counter, tool_call_content=tool_call_content)
        self._start(session_id, store, extractor, config, user_id)

    @classmethod
    def from_config(cls, session_id: str, config: MemoryConfig, *,
                    store: Store | str | Path | None = None,
                    extractor: Extractor | None = None,
                    user_id: str | None = None) -> ConversationMemory:
        """A memory of ``session_id`` with the settings of ``config`` (one config can
        serve every session of a bot)."""
        mem = cls.__new__(cls)
        mem._start(session_id, store, extractor, config, user_id)
        return mem

    def _start(self, session_id: str, store: Store | str | Path | None,
               extractor: Extractor | None, config: MemoryConfig,
               user_id: str | None = None) -> None:
        if not isinstance(session_id, str) or not session_id:
            raise ConfigError("session_id", "expected a non-empty string")
        if not isinstance(config, MemoryConfig):
            raise ConfigError("config", "expected a MemoryConfig")
        self.session_id, self.config = session_id, config
        # the settings, as plain attributes (the config is frozen: they do not change)
        self.policy, self.system_prompt = config.policy, config.system_prompt
        self.state_format, self.lang = config.state_format, config.lang
        self.state_budget: int = config.state_budget  # type: ignore[assignment]
        self.max_turn_chars, self.on_fold = config.max_turn_chars, config.on_fold
        self.redact, self.background = config.redact, config.background
        self.lease_ttl, self.strict = config.lease_ttl, bool(config.strict)
        self.state_model = config.state_model
        self.delta_model = delta_model(config.state_model)
        self.counter: Counter = config.token_counter or counter_for(config.model)
        self.priming = reply_priming(self.counter)
        self._system_tokens = (self.counter.message(self._system_message())
                               if self.system_prompt else 0)
        if self._system_tokens + self.priming >= self.policy.budget // 2:
            raise ConfigError("system_prompt", f"{self._system_tokens} tokens leave too little "
                              f"of a {self.policy.budget}-token budget")
        self._own_store = store is None or isinstance(store, str | Path)
        if store is None:
            store = os.environ.get("CONVSTATE_DB", "convstate.db")
            log.info("convstate: session %r is stored in the SQLite file %s (the default; "
                     "pass store= or set CONVSTATE_DB)", session_id, os.path.abspath(store))
        self.store: Store = SQLiteStore(store) if isinstance(store, str | Path) else store
        self.user_id = user_id
        self._profile: Profile | None = None
        if user_id is not None:
            if not isinstance(user_id, str) or not user_id:
                raise ConfigError("user_id", "expected a non-empty string or None")
            if not hasattr(self.store, "link_user"):
                raise ConfigError("user_id", f"{type(self.store).__name__} keeps no profiles")
            self.store.link_user(session_id, user_id)
            self._profile = self._load_profile()
        self.extractor: Extractor = extractor or default_extractor()
        self._extractor = as_extractor(self.extractor)
        if self.policy.min_batch is None:  # the extractor's: an LLM's fixed prompt
            self.policy = replace(self.policy, min_batch=int(
                getattr(self.extractor, "min_batch_tokens", 0)))
        # The live state: the saved one and every stored turn after it, read as it comes
        # (live.py); ``_state`` is the saved one as a context shows it (``view``).
        self._reader = LiveReader(self._extractor, self.delta_model, self.strict)
        self._state: ConversationState = self.state_model()
        # The newest turns (folded ones as far as a context could show them, then every
        # unfolded one) with their messages and token counts.
        self._recent: list[tuple[Turn, dict[str, Any], int]] = []
        self._last = -1  # highest turn index seen
        # the session's generation this view is of (0: not begun): an erasure changes it
        self._generation = 0
        self._assembler = Assembler(self)
        # One memory may be shared by threads and async tasks (a web app's session):
        # _lock guards the cached view (state, raw turns, block); the compactor runs
        # one fold at a time.
        self._lock = threading.RLock()
        self._compactor = Compactor(self)
        self._reload()

    # -- adding turns -------------------------------------------------------------------

    def add(self, role: str, content: str | None = None, **fields: Any) -> Turn:
        """Store a turn (``name``, ``tool_calls``, ``tool_call_id`` as keyword fields)."""
        return self.add_message({"role": role, "content": content, **fields})

    def add_message(self, message: dict[str, Any]) -> Turn:
        """Store an OpenAI message dict as a turn. Invalid messages raise before writing."""
        return self._append([check_message(message, self.max_turn_chars)])[0]

    def add_messages(self, messages: list[dict[str, Any]],
                     idempotency_key: str | None = None) -> list[Turn]:
        """Store several messages; each is checked before any is written. The SQL stores
        write them in one transaction, at consecutive indexes: all or none, no other
        writer's turn between them (a tool call next to its results). A retry with the
        same ``idempotency_key`` stores nothing twice and returns the turns stored."""
        checked = check_messages(messages, self.max_turn_chars)
        return self._append(checked, idempotency_key) if checked else []

    def _append(self, fields: list[dict[str, Any]], request_key: str | None = None
                ) -> list[Turn]:
        for tries in range(1, _ERASED_TRIES + 1):
            try:  # refused when the session was erased since this view was read
                turns, generation = append_turns(self.store, self.session_id, fields,
                                                 self._generation, self.user_id, request_key)
                break
            except SessionErasedError:
                if tries == _ERASED_TRIES:
                    raise
                self._reload_locked()  # and store it in the session as it is now
        with self._lock:
            if turns[0].index == self._last + 1 and self._generation in (0, generation):
                self._generation = generation  # (this turn began the session)
                self._take(turns)
            else:  # another writer appended in between: read what we missed, in order
                self._sync()
        return turns

    # -- reading ------------------------------------------------------------------------

    @property
    def state(self) -> ConversationState:
        """The state as of every stored turn (the live state, live.py): each turn read
        once as it comes, whatever the window (by the rules, provisionally, ahead of an
        extractor that reads in batches: see ``refresh``)."""
        with self._lock:
            self._current()
            return self._reader.state

    def refresh(self) -> CompactionRecord | None:
        """Read every stored turn with the configured extractor now and save the state,
        the context unchanged: for an LLM extractor, which otherwise reads its turns in
        the batches a fold takes (until then the rules read them provisionally); for the
        rules, the live state is saved as it is. None when there was nothing new."""
        return self._compactor.refresh()

    async def arefresh(self) -> CompactionRecord | None:
        """``refresh`` for event loops (the extractor's async client)."""
        return await self._compactor.arefresh()

    def context(self, documents: Sequence[str | Mapping[str, Any]] | None = None,
                query: str | None = None, document_share: float = DOCUMENT_SHARE
                ) -> list[dict[str, Any]]:
        """The messages for the next model call: folds first if a fold is due.

        ``documents`` (retrieved for this call: strings or ``{id, text}``) are compressed
        for ``query`` (default: the last user turn) into their own system message of at
        most ``document_share`` of the budget, after the system prompt; they are never
        stored or folded into the state."""
        self._compactor.due(force=False)
        return self._assembled(documents, query, document_share)

    def _assembled(self, documents: Sequence[str | Mapping[str, Any]] | None,
                   query: str | None, share: float) -> list[dict[str, Any]]:
        with self._lock:
            if documents is None:
                return self._assembler.assemble()
            message, cost = self._documents_message(documents, query, share)
            return self._assembler.assemble(message, cost)

    def _documents_message(self, documents: Sequence[str | Mapping[str, Any]],
                           query: str | None, share: float
                           ) -> tuple[dict[str, Any] | None, int]:
        if not isinstance(share, int | float) or not 0 < share < 1:
            raise ConfigError("document_share", "expected a share of the budget, in (0, 1)")
        if query is None:
            users = [t for t, _, _ in self._recent if t.role == "user"]
            query = users[-1].text if users else ""
        budget = int(self.policy.budget * share) - MESSAGE_OVERHEAD
        from .documents import compress_documents  # its BM25 is only needed here

        text = compress_documents(query, documents, max(budget, 0), counter=self.counter).text
        if not text:
            return None, 0
        message = {"role": "system", "content": text}
        return message, self.counter.message(message)

    def render(self, format: str | None = None, lang: str | None = None) -> str:
        """The state block as the context carries it (budgeted, redacted, less what the
        context's raw turns hold); another ``format`` or ``lang`` renders the whole state
        within the block's budget. '' when there is nothing to say."""
        with self._lock:
            self._current()
            state = self._reader.state
            if format is None and lang is None:
                return self._assembler.layout()[0]
        return self._assembler.render_block(state, format, lang, whole=True)[0]

    def where(self, text: str) -> Found:
        """Where ``text`` (a value someone said, as an agent types it: a phone number in
        any format, an email or an id in any case) lives now, the first that holds it:
        ``"raw"`` a raw turn of the current context, ``"block"`` the context's state
        block, ``"state"`` the state but not the context (left out of the block by its
        budget), ``"pending"`` an unfolded turn the context left out, ``"store"`` only a
        folded turn the state kept nothing of, ``"nowhere"`` not said in this session.
        The answer is that ``str``, with ``.item`` (the id of the state item holding the
        value), ``.turn`` (the latest turn that said it) and ``.value`` (as said there):
        see lookup.py. The first question a support team asks: why did the bot forget X?"""
        with self._lock:
            self._current()
            block, raw = self._assembler.layout()
            state, read = self._reader.state, self._reader.read_through
        return locate(text, (str(m.get("content") or "") for m in raw), block, state,
                      self.store.turns(self.session_id), read)

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

    def usage(self, prices: dict[str, tuple[float, ...]] | None = None) -> Usage:
        """Extractor tokens over every fold of this session (failed tries included), as
        the provider counted them: instructions, schema or tool definition and turns;
        ``cached_tokens`` the part of the prompt its cache served.

        ``prices`` maps a model name to (input, output[, cached input]) prices per
        million tokens; the cost counts the folds whose model is in it.
        """
        total = Usage()
        for r in self.compactions():
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

    def compact(self, keep_recent_turns: int | None = None) -> CompactionRecord | None:
        """Fold now everything but the last ``keep_recent_turns`` user turns (by default
        the memory's setting; 0 folds every turn). None when there was nothing to fold."""
        return self._compactor.due(force=True, policy=self._keeping(keep_recent_turns))

    def tokens(self, messages: list[dict[str, Any]] | None = None) -> int:
        """Token count of ``messages`` (default: the current context) with this model."""
        if messages is None:
            with self._lock:
                messages = self._assembler.assemble()
        return count_messages(self.counter, messages)

    @property
    def profile(self) -> Profile | None:
        """The user's profile as this memory last read or wrote it (None without a
        ``user_id``): what the user told us in earlier sessions, and in this one."""
        return self._profile

    def _load_profile(self) -> Profile:
        assert self.user_id is not None
        data = self.store.load_profile(self.user_id)  # type: ignore[attr-defined]
        return Profile(user_id=self.user_id) if data is None else Profile.model_validate(data)

    def _promote(self, state: ConversationState, generation: int) -> None:
        """Merge the state (of the session's ``generation``) into the user's profile;
        another session of the user saving in between is read again and merged again (no
        update is lost); a state of an erased generation is never promoted."""
        for _ in range(_PROFILE_TRIES):
            current = self._load_profile()
            new = promote(current, state, self.session_id)
            if new == current:
                self._profile = current
                return
            new.version = current.version + 1
            try:
                self.store.save_profile(  # type: ignore[attr-defined]
                    self.user_id, new.model_dump(mode="json"), current.version,
                    session=(self.session_id, generation))
            except SessionErasedError:
                return
            except VersionConflictError:
                continue
            with self._lock:
                self._profile = new
                self._assembler.reset()
            return
        log.warning("convstate: the profile of user %r changed under %d tries; this "
                    "fold's items are promoted at the next fold", self.user_id, _PROFILE_TRIES)

    def erase(self) -> int:
        """Erase this session from the store — turns, states, log, lease, and what it
        gave the user's profile — for a privacy request; the memory starts again empty,
        and every other copy of the session does at its next call. The number of turns
        erased."""
        eraser = getattr(self.store, "erase", None)
        if eraser is None:
            raise ConfigError("store", f"{type(self.store).__name__} cannot erase a session")
        self.wait()
        with self._lock:
            erased = int(eraser(self.session_id))
            self._reload()
        return erased

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a background fold in flight; True when none is left running."""
        worker = self._compactor.worker
        if worker is not None:
            worker.join(timeout)
            return not worker.is_alive()
        return True

    # -- async: the same calls, run off the event loop ----------------------------------

    async def aadd(self, role: str, content: str | None = None, **fields: Any) -> Turn:
        """``add`` in a worker thread (store I/O stays off the event loop)."""
        return await in_thread(self.add, role, content, **fields)

    async def aadd_message(self, message: dict[str, Any]) -> Turn:
        """``add_message`` in a worker thread."""
        return await in_thread(self.add_message, message)

    async def aadd_messages(self, messages: list[dict[str, Any]],
                            idempotency_key: str | None = None) -> list[Turn]:
        """``add_messages`` in a worker thread."""
        return await in_thread(self.add_messages, messages, idempotency_key)

    async def acontext(self, documents: Sequence[str | Mapping[str, Any]] | None = None,
                       query: str | None = None, document_share: float = DOCUMENT_SHARE
                       ) -> list[dict[str, Any]]:
        """``context`` for event loops: store and tokenizer work in a worker thread, the
        extractor through its async client (LLMExtractor, HybridExtractor); with
        ``background=True`` a due fold runs as a task and nothing waits for it."""
        await self._compactor.adue(force=False)
        return await in_thread(self._assembled, documents, query, document_share)

    async def acompact(self, keep_recent_turns: int | None = None) -> CompactionRecord | None:
        """``compact`` for event loops (see ``acontext``)."""
        return await self._compactor.adue(force=True, policy=self._keeping(keep_recent_turns))

    async def aclose(self) -> None:
        """Wait for a background fold, close the extractor's async client, then ``close``."""
        await self.await_fold()
        await self._extractor.aclose()
        await in_thread(self.close)

    async def await_fold(self) -> None:
        """Wait for a background fold task started by ``acontext`` (``wait`` for threads)."""
        if self._compactor.task is not None:
            await self._compactor.task

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
                message = t.message(self.config.tool_call_content)
                self._recent.append((t, message, self.counter.message(message)))
                self._last = t.index

    def _raw(self) -> list[tuple[Turn, int]]:
        """The turns the context has not let go (always shown raw), and their tokens."""
        through = self._state.evicted_through
        return [(t, n) for t, _, n in self._recent if t.index > through]

    def _trim(self) -> None:
        """Forget let-go turns older than any context could show (the store has them)."""
        through, room, used = self._state.evicted_through, self.policy.budget, 0
        for p in range(len(self._recent) - 1, -1, -1):
            used += self._recent[p][2]
            if used > room and self._recent[p][0].index <= through:
                del self._recent[:p + 1]
                break
        while self._recent and self._recent[0][0].role == "tool" \
                and self._recent[0][0].index <= through:  # never results without their call
            del self._recent[0]

    def _set_saved(self, state: ConversationState, keys: FoldKeys | None = None,
                   index: LiveIndex | None = None) -> None:
        """The saved state is ``state`` now (loaded, or a fold's); the live state starts
        from it (``keys``, ``index``: see LiveReader.reset)."""
        self._reader.reset(state, keys, index)
        self._state = state
        self._assembler.reset()
        self._trim()

    def _current(self) -> None:
        """Catch up with the store, then read the new turns into the live state; a turn
        that closed a saved item takes it out of the context's block."""
        self._sync()
        reader = self._reader
        if self._last > reader.read_through:
            through, new = reader.read_through, []
            for t, _, _ in reversed(self._recent):
                if t.index <= through:
                    break
                new.append(t)
            reader.read(reversed(new), self._last)
            view = reader.view()
            if view is not self._state:
                self._state = view
                self._assembler.reset()

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

    def _reload(self, head: Head | None = None) -> None:
        # the generation first: an erasure after it is noticed at the next call
        head = head or changes(self.store, self.session_id, 2**62, self.user_id)[0]
        data = self.store.load_state(self.session_id)
        state = self.state_model() if data is None else self._validated(data)
        through, tail, back = state.evicted_through, [], 16
        while through >= 0:  # the folded turns a context may show again, newest last
            tail = self.store.turns(self.session_id, after=max(through - back, -1),
                                    through=through)
            if (sum(self.counter.message(t.message(self.config.tool_call_content))
                    for t in tail) > self.policy.budget
                    or through - back < 0):
                break
            back *= 4
        self._recent, self._last = [], (tail[0].index - 1 if tail else through)
        self._take(tail + self.store.turns(self.session_id, after=through))
        self._generation = head.generation
        self._set_saved(state)
        self._fresh_profile(head)

    def _sync(self) -> None:
        """Catch up with other writers: an erasure (a new generation), a newer state,
        turns appended elsewhere, a newer profile — all from one read."""
        head, turns = changes(self.store, self.session_id, self._last, self.user_id)
        if head.generation != self._generation or head.version != self._reader.saved.version:
            self._reload(head)
        else:
            self._take(turns)
            self._fresh_profile(head)

    def _fresh_profile(self, head: Head) -> None:
        """Read the profile again when another session (or an erasure) saved it."""
        if head.profile is not None and self._profile is not None \
                and head.profile != self._profile.version:
            self._profile = self._load_profile()
            self._assembler.reset()

    def _reload_locked(self) -> None:
        with self._lock:
            self._reload()
