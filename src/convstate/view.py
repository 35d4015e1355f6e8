"""One session's cached view: its settings, the saved and live state, the recent turns
and the user's profile, kept in step with the store (other writers, erasures).

``SessionView`` is the state holder the assembler lays contexts out from and the
compactor folds into; ``ConversationMemory`` is the face over them. One view may be
shared by threads and async tasks: ``lock`` guards it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .assembly import Assembler
from .config import MemoryConfig
from .delta import delta_model
from .errors import ConfigError, SessionErasedError, VersionConflictError
from .extract import default_extractor
from .extract.base import Extractor, as_extractor
from .fold import FoldKeys
from .live import LiveIndex, LiveReader
from .lookup import Found, locate
from .profile import Profile, promote
from .settings import Setting
from .state import ConversationState
from .store.base import CompactionRecord, Head, Store, append_turns, changes
from .store.sqlite import SQLiteStore
from .tokens import Counter, counter_for, reply_priming
from .turns import Turn
from .window import WindowPolicy

log = logging.getLogger("convstate")
_PROFILE_TRIES = 8
_ERASED_TRIES = 8  # appends refused by erasures in a row before the error is raised


def prompt_tokens(config: MemoryConfig, counter: Counter) -> int:
    """The system prompt's tokens as a message; a ConfigError when it leaves less than
    half the budget."""
    tokens = (counter.message({"role": "system", "content": config.system_prompt})
              if config.system_prompt else 0)
    if tokens + reply_priming(counter) >= config.policy.budget // 2:
        raise ConfigError("system_prompt", f"{tokens} tokens leave too little "
                          f"of a {config.policy.budget}-token budget")
    return tokens


def open_view(session_id: str, store: Store | str | Path | None,
              extractor: Extractor | None, config: MemoryConfig,
              user_id: str | None = None) -> tuple[SessionView, Extractor]:
    """The view of ``session_id`` (not read yet: ``reload``) and the extractor it folds
    with, as given or the default. Checks the settings before any file is opened."""
    if not isinstance(session_id, str) or not session_id:
        raise ConfigError("session_id", "expected a non-empty string")
    if not isinstance(config, MemoryConfig):
        raise ConfigError("config", "expected a MemoryConfig")
    counter = config.token_counter or counter_for(config.model)
    prompt_tokens(config, counter)  # a prompt that leaves no room: before any file
    own_store = store is None or isinstance(store, str | Path)
    if store is None:
        store = os.environ.get("CONVSTATE_DB", "convstate.db")
        log.info("convstate: session %r is stored in the SQLite file %s (the default; "
                 "pass store= or set CONVSTATE_DB)", session_id, os.path.abspath(store))
    opened: Store = SQLiteStore(store) if isinstance(store, str | Path) else store
    if user_id is not None:
        if not isinstance(user_id, str) or not user_id:
            raise ConfigError("user_id", "expected a non-empty string or None")
        if not hasattr(opened, "link_user"):
            raise ConfigError("user_id", f"{type(opened).__name__} keeps no profiles")
        opened.link_user(session_id, user_id)
    chosen = extractor or default_extractor()
    policy = config.policy
    if policy.min_batch is None:  # the extractor's: an LLM's fixed prompt
        policy = replace(policy, min_batch=int(getattr(chosen, "min_batch_tokens", 0)))
    view = SessionView(session_id, opened, config, counter, policy, as_extractor(chosen),
                       user_id)
    view.own_store = own_store
    if user_id is not None:
        view.profile = view.load_profile()
    return view, chosen


class SessionView:
    """The cached view of one session: settings, saved and live state, recent turns
    (with their messages and token counts) and the user's profile."""

    # the settings, read from ``config`` (replaced by ``configure``): no copies
    system_prompt = Setting[str | None]()
    state_format, lang = Setting[str](), Setting[str | None]()
    state_budget, strict = Setting[int](), Setting[bool]()
    on_fold = Setting[Callable[[CompactionRecord], None] | None]()
    redact = Setting[Callable[[str], str] | None]()
    background, lease_ttl = Setting[bool](), Setting[float]()
    state_model = Setting[type[ConversationState]]()

    def __init__(self, session_id: str, store: Store, config: MemoryConfig,
                 counter: Counter, policy: WindowPolicy, extractor: Extractor,
                 user_id: str | None = None) -> None:
        self.session_id, self.store, self.config, self.user_id = (
            session_id, store, config, user_id)
        self.counter, self.policy, self.extractor = counter, policy, extractor
        self.own_store = False  # whether the memory opened the store (and closes it)
        self.delta_model = delta_model(config.state_model)
        self.priming, self.system_tokens = reply_priming(counter), prompt_tokens(config, counter)
        self.profile: Profile | None = None
        # The live state: the saved one and every stored turn after it, read as it comes
        # (live.py); ``state`` is the saved one as a context shows it (``view``).
        self.reader = LiveReader(extractor, self.delta_model, self.strict)
        self.state: ConversationState = self.state_model()
        # The newest turns (folded ones as far as a context could show them, then every
        # unfolded one) with their messages and token counts.
        self.recent: list[tuple[Turn, dict[str, Any], int]] = []
        self.last = -1  # highest turn index seen
        # the session's generation this view is of (0: not begun): an erasure changes it
        self.generation = 0
        self.assembler = Assembler(self)
        # _lock guards the cached view (state, raw turns, block)
        self.lock = threading.RLock()

    def configure(self, **changes: Any) -> None:
        """Take new values of settings (a memory's changeable ones), validated as the
        constructor validates them (a ConfigError naming the setting): the next context
        or fold uses them."""
        with self.lock:  # read, check and write at once: two assignments never race
            config = replace(self.config, **changes)
            tokens = prompt_tokens(config, self.counter)
            self.config, self.system_tokens = config, tokens
            self.reader.strict = self.strict  # the live reader keeps its own flag
            self.assembler.forget()

    # -- what a memory reads ------------------------------------------------------------

    def live(self) -> ConversationState:
        """The live state, caught up with the store."""
        with self.lock:
            self.current()
            return self.reader.state

    def context(self, documents: Sequence[str | Mapping[str, Any]] | None,
                query: str | None, share: float) -> list[dict[str, Any]]:
        """The context of the view as it is (no fold), with ``documents`` if given."""
        with self.lock:
            if documents is None:
                return self.assembler.assemble()
            message, cost = self.assembler.documents_message(documents, query, share)
            return self.assembler.assemble(message, cost)

    def block(self, format: str | None, lang: str | None) -> str:
        """The context's state block; with another ``format`` or ``lang``, the whole
        live state rendered so within the block's budget."""
        with self.lock:
            self.current()
            state = self.reader.state
            if format is None and lang is None:
                return self.assembler.layout()[0]
        return self.assembler.render_block(state, format, lang, whole=True)[0]

    def where(self, text: str) -> Found:
        """Where ``text`` lives now (see ``ConversationMemory.where``)."""
        with self.lock:
            self.current()
            block, raw = self.assembler.layout()
            state, read = self.reader.state, self.reader.read_through
        return locate(text, (str(m.get("content") or "") for m in raw), block, state,
                      self.store.turns(self.session_id), read)

    def system_message(self) -> dict[str, Any]:
        """The system prompt as a message."""
        return {"role": "system", "content": self.system_prompt}

    # -- the turn log -------------------------------------------------------------------

    def append(self, fields: list[dict[str, Any]], request_key: str | None = None
               ) -> list[Turn]:
        """Store checked turns, and take them into the view (or catch up when another
        writer appended in between)."""
        for tries in range(1, _ERASED_TRIES + 1):
            try:  # refused when the session was erased since this view was read
                turns, generation = append_turns(self.store, self.session_id, fields,
                                                 self.generation, self.user_id, request_key)
                break
            except SessionErasedError:
                if tries == _ERASED_TRIES:
                    raise
                self.reload_locked()  # and store it in the session as it is now
        with self.lock:
            if turns[0].index == self.last + 1 and self.generation in (0, generation):
                self.generation = generation  # (this turn began the session)
                self.take(turns)
            else:  # another writer appended in between: read what we missed, in order
                self.sync()
        return turns

    def take(self, turns: list[Turn]) -> None:
        """Add turns newer than the last seen to the recent ones."""
        for t in turns:
            if t.index > self.last:
                message = t.message(self.config.tool_call_content)
                self.recent.append((t, message, self.counter.message(message)))
                self.last = t.index

    def raw(self) -> list[tuple[Turn, int]]:
        """The turns the context has not let go (always shown raw), and their tokens."""
        through = self.state.evicted_through
        return [(t, n) for t, _, n in self.recent if t.index > through]

    def trim(self) -> None:
        """Forget let-go turns older than any context could show (the store has them):
        those before the newest turn that does not fit whole with the turns after it
        (a context may show its end, cut). Done as every turn is read, so what a copy
        keeps is what it would load (``reload``): each copy lays out the same context,
        whenever it opened the session."""
        through, room, used = self.state.evicted_through, self.policy.budget, 0
        for p in range(len(self.recent) - 1, -1, -1):
            used += self.recent[p][2]
            if used > room:
                if p > 0 and self.recent[p - 1][0].index <= through:
                    del self.recent[:p]
                break
        while self.recent and self.recent[0][0].role == "tool" \
                and self.recent[0][0].index <= through:  # never results without their call
            del self.recent[0]

    # -- the state ----------------------------------------------------------------------

    def set_saved(self, state: ConversationState, keys: FoldKeys | None = None,
                  index: LiveIndex | None = None) -> None:
        """The saved state is ``state`` now (loaded, or a fold's); the live state starts
        from it (``keys``, ``index``: see LiveReader.reset)."""
        self.reader.reset(state, keys, index)
        self.state = state
        self.assembler.reset()
        self.trim()

    def current(self) -> None:
        """Catch up with the store, then read the new turns into the live state; a turn
        that closed a saved item takes it out of the context's block."""
        self.sync()
        reader = self.reader
        if self.last > reader.read_through:
            through, new = reader.read_through, []
            for t, _, _ in reversed(self.recent):
                if t.index <= through:
                    break
                new.append(t)
            reader.read(reversed(new), self.last)
            view = reader.view()
            if view is not self.state:
                self.state = view
                self.assembler.reset()
            self.trim()

    def validated(self, data: dict[str, Any]) -> ConversationState:
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

    def reload(self, head: Head | None = None) -> None:
        """Read the session again from the store: its saved state, the turns a context
        may show, its generation and the profile."""
        # the generation first: an erasure after it is noticed at the next call
        head = head or changes(self.store, self.session_id, 2**62, self.user_id)[0]
        data = self.store.load_state(self.session_id)
        state = self.state_model() if data is None else self.validated(data)
        through, tail, back = state.evicted_through, [], 16
        while through >= 0:  # the folded turns a context may show again, newest last
            tail = self.store.turns(self.session_id, after=max(through - back, -1),
                                    through=through)
            if (sum(self.counter.message(t.message(self.config.tool_call_content))
                    for t in tail) > self.policy.budget
                    or through - back < 0):
                break
            back *= 4
        self.recent, self.last = [], (tail[0].index - 1 if tail else through)
        self.take(tail + self.store.turns(self.session_id, after=through))
        self.generation = head.generation
        self.set_saved(state)
        self.fresh_profile(head)

    def sync(self) -> None:
        """Catch up with other writers: an erasure (a new generation), a newer state,
        turns appended elsewhere, a newer profile — all from one read."""
        head, turns = changes(self.store, self.session_id, self.last, self.user_id)
        if head.generation != self.generation or head.version != self.reader.saved.version:
            self.reload(head)
        else:
            self.take(turns)
            self.fresh_profile(head)

    def reload_locked(self) -> None:
        """``reload`` under the view's lock."""
        with self.lock:
            self.reload()

    # -- the user's profile -------------------------------------------------------------

    def fresh_profile(self, head: Head) -> None:
        """Read the profile again when another session (or an erasure) saved it."""
        if head.profile is not None and self.profile is not None \
                and head.profile != self.profile.version:
            self.profile = self.load_profile()
            self.assembler.reset()

    def load_profile(self) -> Profile:
        """The user's profile as stored (a new one when there is none)."""
        assert self.user_id is not None
        data = self.store.load_profile(self.user_id)  # type: ignore[attr-defined]
        return Profile(user_id=self.user_id) if data is None else Profile.model_validate(data)

    def promote(self, state: ConversationState, generation: int) -> None:
        """Merge the state (of the session's ``generation``) into the user's profile;
        another session of the user saving in between is read again and merged again (no
        update is lost); a state of an erased generation is never promoted."""
        for _ in range(_PROFILE_TRIES):
            current = self.load_profile()
            new = promote(current, state, self.session_id)
            if new == current:
                self.profile = current
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
            with self.lock:
                self.profile = new
                self.assembler.reset()
            return
        log.warning("convstate: the profile of user %r changed under %d tries; this "
                    "fold's items are promoted at the next fold", self.user_id, _PROFILE_TRIES)
