"""The delta an extractor returns: new items and references to existing ones.

A delta never carries ids of new items (the fold assigns them) and never carries the
state itself: only what the expiring turns add or change.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .state import AnchorKind


class _New(BaseModel):
    turns: list[int] = Field(
        min_length=1, description="Indexes of the turns that state this (from the input)."
    )


class NewGoal(_New):
    """A goal of the user."""

    text: str = Field(min_length=1, description="The goal, in the conversation's language.")
    status: Literal["active", "achieved", "abandoned"] = "active"


class NewPreference(_New):
    """A like/dislike/requirement; ``topic`` groups preferences that supersede each other."""

    text: str = Field(min_length=1)
    polarity: Literal["like", "dislike", "require", "forbid"]
    topic: str = Field(min_length=1, description="Short name of what it is about.")


class NewDecision(_New):
    """Something agreed or settled."""

    text: str = Field(min_length=1)


class NewTask(_New):
    """A commitment by the user or the assistant."""

    text: str = Field(min_length=1)
    owner: Literal["user", "assistant"]
    status: Literal["open", "done", "cancelled"] = "open"


class NewAnchor(_New):
    """An exact value, copied verbatim from a turn it cites."""

    kind: AnchorKind
    key: str = Field(min_length=1, description="e.g. order_id, phone, budget, constraint.")
    value: str = Field(min_length=1, description="Exact substring of a cited turn.")


class ItemUpdate(BaseModel):
    """A change to an existing item, by the id the extractor was shown."""

    id: str
    status: Literal["achieved", "abandoned", "done", "cancelled", "superseded"]
    turn: int = Field(description="The turn that shows the change.")


class NewSentiment(BaseModel):
    """The user's mood in these turns."""

    label: Literal["positive", "neutral", "negative"]
    score: float = Field(ge=-1.0, le=1.0)
    reason: str = ""
    turn: int


class StateDelta(BaseModel):
    """What a batch of expiring turns adds to the state."""

    language: Literal["zh", "en"] | None = None
    anchors: list[NewAnchor] = Field(default_factory=list)
    open_tasks: list[NewTask] = Field(default_factory=list)
    goals: list[NewGoal] = Field(default_factory=list)
    decisions: list[NewDecision] = Field(default_factory=list)
    preferences: list[NewPreference] = Field(default_factory=list)
    updates: list[ItemUpdate] = Field(default_factory=list)
    sentiment: NewSentiment | None = None

    def merge(self, other: StateDelta) -> StateDelta:
        """Both deltas' items in one (the fold deduplicates); ``other`` wins on sentiment."""
        return StateDelta(
            language=self.language or other.language,
            anchors=self.anchors + other.anchors,
            open_tasks=self.open_tasks + other.open_tasks,
            goals=self.goals + other.goals,
            decisions=self.decisions + other.decisions,
            preferences=self.preferences + other.preferences,
            updates=self.updates + other.updates,
            sentiment=other.sentiment or self.sentiment,
        )
