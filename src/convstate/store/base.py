"""The store contract: append-only turns, versioned state snapshots, a compaction log."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

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
