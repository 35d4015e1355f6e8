"""The store contract: append-only turns, versioned state snapshots, a compaction log."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from ..errors import ConfigError
from ..turns import Turn


class CompactionRecord(BaseModel):
    """One line of the compaction log: a fold that landed, or one that failed."""

    session_id: str
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    first_turn: int | None = None
    last_turn: int | None = None
    extractor: str = ""
    version: int | None = Field(default=None, description="State version it produced.")
    tokens_before: int = Field(default=0, description=(
        "About, the context's tokens before the fold: system prompt, the block as a "
        "whole within its cap (counted, or the cap when the block is cut to it) and the "
        "unfolded turns."))
    tokens_after: int = Field(default=0, description="The same, after the fold.")
    added: int = 0
    deduplicated: int = 0
    rejected: int = 0
    superseded: int = 0
    updated: int = 0
    model: str | None = None
    prompt_tokens: int = 0
    cached_tokens: int = Field(default=0, description=(
        "Of the prompt tokens, those the provider served from its prompt cache."))
    completion_tokens: int = 0
    notes: str | None = Field(default=None, description="e.g. a fallback after LLM faults.")
    fallback: str | None = Field(default=None, description=(
        "Why the extractor failed when a fallback extractor folded the turns instead."))
    error: str | None = Field(default=None, description="Why the fold did not land.")


@runtime_checkable
class Store(Protocol):
    """Where a conversation lives. Turns are never changed or deleted.

    ``save_state`` writes the new state, its watermark and its log line in one
    transaction, and only if the stored version is still ``expected_version``;
    otherwise it raises VersionConflictError and writes nothing. A fold lease
    (``acquire_lease``) lets one worker at a time fold a session; it expires, so a
    crashed worker's lease is taken over. A store whose ``save_state`` takes
    ``release=owner`` gives the lease back in the save's own transaction; for one that
    does not, the fold calls ``release_lease`` after saving. The ``state`` a save is
    given shares its unchanged items' dicts with the one saved before
    (``ConversationState.dump``): a store reads it, and never changes it.

    A store that can erase gives each session a generation, a number an erasure ends
    and the session never has again: ``changes`` reads it with the state version and
    new turns, and ``append_checked`` and ``save_state`` / ``log`` with ``generation=``
    refuse (SessionErasedError) a write planned in an erased generation (the SQL
    stores; ``changes`` and ``append_turn`` below use them where a store has them).
    """

    def append(self, session_id: str, fields: dict[str, Any]) -> Turn: ...

    def turns(self, session_id: str, after: int = -1, through: int | None = None
              ) -> list[Turn]: ...

    def turn_count(self, session_id: str) -> int: ...

    def load_state(self, session_id: str, version: int | None = None
                   ) -> dict[str, Any] | None: ...

    def state_version(self, session_id: str) -> int: ...

    def versions(self, session_id: str) -> list[tuple[int, int, str]]:
        """(version, watermark, saved at) of every saved state, oldest first."""
        ...

    def save_state(self, session_id: str, state: dict[str, Any], expected_version: int,
                   record: CompactionRecord) -> None: ...

    def log(self, record: CompactionRecord) -> None: ...

    def compactions(self, session_id: str) -> list[CompactionRecord]: ...

    def acquire_lease(self, session_id: str, owner: str, ttl: float) -> bool: ...

    def release_lease(self, session_id: str, owner: str) -> None: ...

    def lease_holder(self, session_id: str) -> str | None: ...

    def sessions(self) -> list[str]: ...

    def migrate(self) -> int:
        """Bring the schema up to date; return its version."""
        ...

    def schema_version(self) -> int: ...

    def close(self) -> None: ...


class Head(NamedTuple):
    """What a memory checks before it serves a session: the session's generation (a
    number that changes when the session is erased, never coming back to an earlier one;
    0 when it has not begun), its state version, and its user's profile version (None:
    not asked)."""

    generation: int
    version: int
    profile: int | None


def changes(store: Store, session_id: str, after: int, user_id: str | None = None
            ) -> tuple[Head, list[Turn]]:
    """The session's head and its turns after index ``after``, read together (one read
    of a SQL store: no erasure falls between them). A store without generations gives
    generation 0: it cannot tell an erasure from a session that never folded."""
    read = getattr(store, "changes", None)
    if read is not None:
        found: tuple[Head, list[Turn]] = read(session_id, after, user_id)
        return found
    return (Head(0, store.state_version(session_id), None),
            store.turns(session_id, after=after))


def key_ttl(seconds: float) -> float:
    """An idempotency key's retention in seconds, checked (a positive, finite number)."""
    if not 0 < seconds < float("inf"):
        raise ConfigError("idempotency_ttl", f"expected a positive number of seconds, not "
                          f"{seconds!r}")
    return float(seconds)


def sessions_under(store: Store, prefix: str) -> list[str]:
    """The ids of ``store``'s sessions that begin with ``prefix`` (a tenant's): asked of
    the store where its ``sessions`` takes ``prefix=`` (the SQL stores read them as a
    range of an index), else filtered from every session."""
    if not prefix:
        return store.sessions()
    if "prefix" in inspect.signature(store.sessions).parameters:
        found: list[str] = store.sessions(prefix=prefix)  # type: ignore[call-arg]
        return found
    return [s for s in store.sessions() if s.startswith(prefix)]


def append_turn(store: Store, session_id: str, fields: dict[str, Any], generation: int,
                user_id: str | None = None) -> tuple[Turn, int]:
    """Append a turn if the session is still at ``generation`` (else SessionErasedError,
    nothing written): the turn and the generation it was stored in (a new one when it
    began the session). A store without generations just appends (generation 0)."""
    checked = getattr(store, "append_checked", None)
    if checked is not None:
        found: tuple[Turn, int] = checked(session_id, fields, generation, user_id)
        return found
    return store.append(session_id, fields), 0


def append_turns(store: Store, session_id: str, fields: Sequence[dict[str, Any]],
                 generation: int, user_id: str | None = None,
                 request_key: str | None = None) -> tuple[list[Turn], int]:
    """``append_turn`` of several turns: in one transaction where the store has
    ``append_many`` (all or none, at consecutive indexes, ``request_key`` an idempotency
    key); else one by one (a store without it keeps no idempotency keys: a ConfigError
    naming ``idempotency_key`` when one is given)."""
    many = getattr(store, "append_many", None)
    if many is not None:
        found: tuple[list[Turn], int] = many(session_id, fields, generation, user_id,
                                             request_key)
        return found
    if request_key is not None:
        raise ConfigError("idempotency_key", f"{type(store).__name__} keeps no idempotency "
                          "keys")
    turns: list[Turn] = []
    for f in fields:
        turn, generation = append_turn(store, session_id, f, generation, user_id)
        turns.append(turn)
    return turns, generation
