"""A memory's settings as attributes, each read from the one place it lives.

Every setting lives in one frozen ``MemoryConfig``, its session view's (view.py), or is
derived from it there once (the window policy, the token counter, the delta model). The
view and the memory read them through the descriptors here, so no part keeps a copy an
assignment could leave stale. On a memory, a ``Changeable`` setting takes an assignment
(the view's config is replaced by one with the new value, validated as the constructor
validates it: in effect at the next call); a ``Fixed`` one refuses it with
``ReadOnlySettingError``, saying how to get the change.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, Generic, Never, Protocol, Self, TypeVar, cast, overload

from .config import MemoryConfig
from .delta import StateDelta
from .errors import ReadOnlySettingError
from .extract.base import Extractor
from .state import ConversationState
from .store.base import CompactionRecord, Store
from .tokens import Counter
from .window import WindowPolicy

T = TypeVar("T")


class _Read(Generic[T]):
    """An attribute read from its owner at a dotted ``path`` (default ``config.<name>``)."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.read = attrgetter(self.path or f"config.{name}")

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> T | Self:
        return self if obj is None else cast(T, self.read(obj))


class Setting(_Read[T]):
    """A part's setting, read from its ``config`` (changed only by its ``configure``)."""

    def __set__(self, obj: object, value: T) -> None:
        raise AttributeError(f"{self.name!r} is read from the config: change it with "
                             "configure()")


class Configurable(Protocol):
    """What holds a memory's config (view.py's SessionView)."""

    def configure(self, **changes: Any) -> None: ...


class _Viewed(Protocol):
    @property
    def _view(self) -> Configurable: ...


class Changeable(_Read[T]):
    """A memory's setting that takes effect when assigned, at the next call; the value is
    validated as the constructor validates it (a ConfigError naming the setting)."""

    def __set__(self, obj: _Viewed, value: T) -> None:
        obj._view.configure(**{self.name: value})


# Why a fixed setting is fixed, and how to get another value: a new memory of the session.
_KEPT = " (the store keeps its history and state)"
AGAIN = "open the session again: ConversationMemory(session_id, store=..., {name}=...)" + _KEPT
FROM_CONFIG = ("open the session again: ConversationMemory.from_config(session_id, "
               "dataclasses.replace(mem.config, {name}=...))" + _KEPT)
OTHER = "construct a ConversationMemory with the other {name}"
SESSION = "it says which session this is and where it lives"
READING = "the session's turns are read and its state is typed with it"
WINDOW = "the budget, the block's default budget and the fold's batch are derived from it"
COUNTING = "every context and fold is counted with it"


class Fixed(_Read[T]):
    """A memory's setting fixed for its life: assigning it raises ReadOnlySettingError,
    saying why and how to get the change (type checkers flag the assignment too)."""

    def __init__(self, path: str | None = None, why: str = WINDOW, how: str = AGAIN,
                 given_as: str | None = None) -> None:
        super().__init__(path)
        self.why, self.how, self.given_as = why, how, given_as  # the argument that gives it

    def __set__(self, obj: object, value: Never) -> None:
        how = self.how.format(name=self.given_as or self.name)
        raise ReadOnlySettingError(self.name, f"{self.why}; to change it, {how}")


class MemorySettings:
    """``ConversationMemory``'s settings (a base of it): every keyword argument of its
    constructor is an attribute of the same name. Those a running bot may change take
    effect when assigned, validated as the constructor validates them; the others are
    fixed for the memory's life (``ReadOnlySettingError``). A setting belongs to this
    object, not to the stored session: another memory of the session has its own."""

    # -- changeable ---------------------------------------------------------------------

    system_prompt: Changeable[str | None] = Changeable()
    """The system prompt, first in every context and never touched (None: none). Assigned,
    the next context starts with it; one that leaves less than half the budget is a
    ConfigError."""
    state_format: Changeable[str] = Changeable()
    """The state block's format: ``text``, ``markdown``, ``xml``, ``json`` or a registered
    one."""
    lang: Changeable[str | None] = Changeable()
    """The block's language (``en``, ``zh`` or a registered pack; None: the
    conversation's)."""
    state_budget: Changeable[int] = Changeable()
    """The most tokens the state block takes (assign None for the default share of the
    budget)."""
    max_turn_chars: Changeable[int] = Changeable()
    """The largest turn ``add`` stores, in characters (a larger one: TurnTooLargeError)."""
    on_fold: Changeable[Callable[[CompactionRecord], None] | None] = Changeable()
    """Called with each fold's CompactionRecord (None: nothing is called)."""
    redact: Changeable[Callable[[str], str] | None] = Changeable()
    """Masks the block's text before the model sees it (the store keeps every value); with
    it, folded turns reach the model only masked, in the block."""
    background: Changeable[bool] = Changeable()
    """Whether a due fold runs in a thread (with ``acontext``, a task) nobody waits for."""
    lease_ttl: Changeable[float] = Changeable()
    """Seconds a fold's lease lasts unless renewed: a dead worker's session is folded by
    another after it."""
    strict: Changeable[bool] = Changeable()
    """Whether an extractor's bug (an exception other than ExtractionError) is raised
    rather than logged (None assigned: ``CONVSTATE_STRICT=1``)."""

    # -- fixed: the session ---------------------------------------------------------------

    session_id: Fixed[str] = Fixed("_view.session_id", SESSION, OTHER)
    """The session's id in its store."""
    store: Fixed[Store] = Fixed("_view.store", SESSION, OTHER)
    """Where the session's turns, states, log and leases live."""
    user_id: Fixed[str | None] = Fixed("_view.user_id", SESSION, OTHER)
    """The user whose profile the session feeds (None: no profile)."""
    extractor: Fixed[Extractor] = Fixed("_chosen", READING)
    """What reads the turns a fold lets go, as given (by default the rules)."""
    state_model: Fixed[type[ConversationState]] = Fixed(None, READING)
    """The state's model: ConversationState or your subclass."""
    delta_model: Fixed[type[StateDelta]] = Fixed("_view.delta_model", READING,
                                                 given_as="state_model")
    """The delta an extractor returns, derived from ``state_model``."""

    # -- fixed: the window and the counts -------------------------------------------------

    config: Fixed[MemoryConfig] = Fixed(
        "_view.config", how="open the session again: ConversationMemory.from_config("
        "session_id, new_config)" + _KEPT)
    """Every setting but the session, store and extractor as one value (with those
    assigned since construction): ``from_config`` opens another session with them."""
    policy: Fixed[WindowPolicy] = Fixed("_view.policy", how=FROM_CONFIG)
    """The window policy: window, reply reserve, trigger and target ratios, turns kept
    raw and the fold's fewest tokens (the extractor's when not given)."""
    context_window: Fixed[int] = Fixed("_view.policy.context_window")
    """The model's context window, in tokens."""
    reply_reserve: Fixed[int] = Fixed("_view.policy.reply_reserve")
    """Tokens of the window left for the reply: a context takes at most the rest."""
    trigger_ratio: Fixed[float] = Fixed("_view.policy.trigger_ratio")
    """A fold is due when the raw turns pass this share of the budget."""
    target_ratio: Fixed[float] = Fixed("_view.policy.target_ratio")
    """A fold lets turns go until they are under this share of the budget."""
    keep_recent_turns: Fixed[int] = Fixed("_view.policy.keep_recent_turns")
    """The last user turns a fold keeps raw (``compact(keep_recent_turns=)`` takes another
    for one call)."""
    min_fold_tokens: Fixed[int] = Fixed("_view.policy.min_batch")
    """The fewest tokens of turns a fold takes (when not given, the extractor's)."""
    model: Fixed[str] = Fixed(None, COUNTING)
    """The model whose tokens are counted (when no ``token_counter`` is given)."""
    token_counter: Fixed[Counter | None] = Fixed(None, COUNTING)
    """The counter given (None: the default for ``model``; ``counter`` is the one used)."""
    counter: Fixed[Counter] = Fixed("_view.counter", COUNTING, given_as="token_counter")
    """The token counter in use."""
    priming: Fixed[int] = Fixed("_view.priming", COUNTING, given_as="token_counter")
    """The tokens the model's reply priming costs, counted into every context."""
    tool_call_content: Fixed[str | None] = Fixed(
        None, "the turns a context shows are converted and counted with it")
    """The content a tool-call turn without one is given to the model with."""
