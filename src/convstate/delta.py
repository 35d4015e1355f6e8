"""The delta an extractor returns: new items and references to existing ones.

A delta never carries ids of new items (the fold assigns them) and never carries the
state itself: only what the expiring turns add or change.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .state import AnchorKind

# Bounds keep a model's reply finite: a small model otherwise loops on a list until
# it runs out of tokens. A rule extractor stays far below them.
MAX_TURNS_CITED = 8
MAX_ITEMS = 40
MAX_TEXT = 500


class _New(BaseModel):
    turns: list[int] = Field(
        min_length=1, max_length=MAX_TURNS_CITED,
        description="Indexes of the turns that state this (from the input).",
    )


class NewGoal(_New):
    """A goal of the user."""

    text: str = Field(min_length=1, max_length=MAX_TEXT,
                      description="The goal, in the conversation's language.")
    status: Literal["active", "achieved", "abandoned"] = "active"


class NewPreference(_New):
    """A like/dislike/requirement; ``topic`` groups preferences that supersede each other."""

    text: str = Field(min_length=1, max_length=MAX_TEXT)
    polarity: Literal["like", "dislike", "require", "forbid"]
    topic: str = Field(min_length=1, max_length=64, description="Short name of what it is about.")


class NewDecision(_New):
    """Something agreed or settled."""

    text: str = Field(min_length=1, max_length=MAX_TEXT)


class NewTask(_New):
    """A commitment by the user or the assistant."""

    text: str = Field(min_length=1, max_length=MAX_TEXT)
    owner: Literal["user", "assistant"]
    status: Literal["open", "done", "cancelled"] = "open"


class NewAnchor(_New):
    """An exact value, copied verbatim from a turn it cites."""

    kind: AnchorKind
    key: str = Field(min_length=1, max_length=64,
                     description="e.g. order_id, phone, budget, constraint.")
    value: str = Field(min_length=1, max_length=MAX_TEXT,
                       description="Exact substring of a cited turn.")


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
    anchors: list[NewAnchor] = Field(default_factory=list, max_length=MAX_ITEMS)
    open_tasks: list[NewTask] = Field(default_factory=list, max_length=MAX_ITEMS)
    goals: list[NewGoal] = Field(default_factory=list, max_length=MAX_ITEMS)
    decisions: list[NewDecision] = Field(default_factory=list, max_length=MAX_ITEMS)
    preferences: list[NewPreference] = Field(default_factory=list, max_length=MAX_ITEMS)
    updates: list[ItemUpdate] = Field(default_factory=list, max_length=MAX_ITEMS)
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
