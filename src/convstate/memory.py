"""ConversationMemory: add turns, get a context that fits, fold what expires into the state."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from .assembly import DOCUMENT_SHARE
from .asyncface import AsyncCalls
from .compactor import Compactor
from .config import LEASE_TTL, MemoryConfig
from .errors import ConfigError
from .extract.base import Extractor
from .footprint import footprint
from .lookup import Found
from .profile import Profile
from .settings import MemorySettings
from .state import ConversationState
from .store.base import CompactionRecord, Store
from .tokens import DEFAULT_COUNT, Counter, count_messages
from .turns import DEFAULT_MAX_TURN_CHARS, Turn, check_message, check_messages
from .usage import Usage, usage_of
from .view import open_view
from .window import KEEP_RECENT_TURNS, TARGET_RATIO, TRIGGER_RATIO, WindowPolicy

__all__ = ["DOCUMENT_SHARE", "ConversationMemory", "Usage"]


class ConversationMemory(MemorySettings, AsyncCalls):
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

    Every keyword argument is an attribute of the same name: assigned, one a running bot
    may change (``system_prompt``, ``on_fold``, ``state_format`` ...) takes effect at the
    next call; the others raise ``ReadOnlySettingError`` (see ``MemorySettings``).
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
        # the session's cached view (view.py), shared by the assembler and the compactor;
        # it holds the settings (settings.py: read from it, assigned through it)
        self._view, self._chosen = open_view(session_id, store, extractor, config, user_id)
        view = self._view
        self._extractor, self._assembler = view.extractor, view.assembler
        self._compactor = Compactor(view)
        view.reload()

    # -- adding turns -------------------------------------------------------------------

    def add(self, role: str, content: str | None = None, **fields: Any) -> Turn:
        """Store a turn (``name``, ``tool_calls``, ``tool_call_id`` as keyword fields)."""
        return self.add_message({"role": role, "content": content, **fields})

    def add_message(self, message: dict[str, Any]) -> Turn:
        """Store an OpenAI message dict as a turn. Invalid messages raise before writing."""
        return self._view.append([check_message(message, self.max_turn_chars)])[0]

    def add_messages(self, messages: list[dict[str, Any]],
                     idempotency_key: str | None = None) -> list[Turn]:
        """Store several messages; each is checked before any is written. The SQL stores
        write them in one transaction, at consecutive indexes: all or none, no other
        writer's turn between them (a tool call next to its results). A retry with the
        same ``idempotency_key`` stores nothing twice and returns the turns stored."""
        checked = check_messages(messages, self.max_turn_chars)
        return self._view.append(checked, idempotency_key) if checked else []

    # -- reading ------------------------------------------------------------------------

    @property
    def state(self) -> ConversationState:
        """The state as of every stored turn (the live state, live.py): each turn read
        once as it comes, whatever the window (by the rules, provisionally, ahead of an
        extractor that reads in batches: see ``refresh``)."""
        return self._view.live()

    def refresh(self) -> CompactionRecord | None:
        """Read every stored turn with the configured extractor now and save the state,
        the context unchanged: for an LLM extractor, which otherwise reads its turns in
        the batches a fold takes (until then the rules read them provisionally); for the
        rules, the live state is saved as it is. None when there was nothing new."""
        return self._compactor.refresh()

    def context(self, documents: Sequence[str | Mapping[str, Any]] | None = None,
                query: str | None = None, document_share: float = DOCUMENT_SHARE
                ) -> list[dict[str, Any]]:
        """The messages for the next model call: folds first if a fold is due.

        ``documents`` (retrieved for this call: strings or ``{id, text}``) are compressed
        for ``query`` (default: the last user turn) into their own system message of at
        most ``document_share`` of the budget, after the system prompt; they are never
        stored or folded into the state."""
        self._compactor.due(force=False)
        return self._view.context(documents, query, document_share)

    def render(self, format: str | None = None, lang: str | None = None) -> str:
        """The state block as the context carries it (budgeted, redacted, less what the
        context's raw turns hold); another ``format`` or ``lang`` renders the whole state
        within the block's budget. '' when there is nothing to say. Folds first if a fold
        is due, as ``context()`` does: the block is the one the next call carries."""
        self._compactor.due(force=False)
        return self._view.block(format, lang)

    def where(self, text: str) -> Found:
        """Where ``text`` (a value someone said, as an agent types it: a phone number in
        any format, an email or an id in any case) lives now, the first that holds it:
        ``"raw"`` a raw turn of the current context, ``"block"`` the context's state
        block, ``"state"`` the state but not the context (left out of the block by its
        budget), ``"pending"`` an unfolded turn the context left out, ``"store"`` only a
        folded turn the state kept nothing of, ``"nowhere"`` not said in this session.
        The answer is that ``str``, with ``.item`` (the id of the state item holding the
        value), ``.turn`` (the latest turn that said it) and ``.value`` (as said there):
        see lookup.py. The first question a support team asks: why did the bot forget X?
        Folds first if a fold is due, as ``context()`` does: the answer is about the
        context the next call sends."""
        self._compactor.due(force=False)
        return self._view.where(text)

    def state_at(self, version: int) -> ConversationState:
        """The state as saved at ``version`` (0: the empty state before any fold)."""
        if version == 0:
            return self.state_model()
        data = self.store.load_state(self.session_id, version)
        if data is None:
            raise ConfigError("version", f"session {self.session_id!r} has no version "
                              f"{version}")
        return self._view.validated(data)

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
        return usage_of(self.compactions(), prices)

    def compact(self, keep_recent_turns: int | None = None) -> CompactionRecord | None:
        """Fold now everything but the last ``keep_recent_turns`` user turns (by default
        the memory's setting; 0 folds every turn). None when there was nothing to fold."""
        return self._compactor.due(force=True, policy=self._keeping(keep_recent_turns))

    def tokens(self, messages: list[dict[str, Any]] | None = None) -> int:
        """Token count of ``messages`` (default: the current context) with this model."""
        if messages is None:
            messages = self._view.context(None, None, DOCUMENT_SHARE)
        return count_messages(self.counter, messages)

    @property
    def profile(self) -> Profile | None:
        """The user's profile as this memory last read or wrote it (None without a
        ``user_id``): what the user told us in earlier sessions, and in this one."""
        return self._view.profile

    def erase(self) -> int:
        """Erase this session from the store — turns, states, log, lease, and what it
        gave the user's profile — for a privacy request; the memory starts again empty,
        and every other copy of the session does at its next call. The number of turns
        erased."""
        eraser = getattr(self.store, "erase", None)
        if eraser is None:
            raise ConfigError("store", f"{type(self.store).__name__} cannot erase a session")
        self.wait()
        with self._view.lock:
            erased = int(eraser(self.session_id))
            self._view.reload()
        return erased

    def held_bytes(self) -> int:
        """About the bytes of RAM this memory holds (its state's items, the profile, the
        recent turns; ``footprint.py``): what a cache of memories budgets."""
        return footprint((self._view.reader.state, self._view.profile), list(self._view.recent))

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a background fold in flight; True when none is left running."""
        return self._compactor.wait(timeout)

    def close(self) -> None:
        """Wait for a background fold, then close the store if this memory opened it."""
        self.wait()
        if self._view.own_store:
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
