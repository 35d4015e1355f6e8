"""The typed conversation state: what the fold keeps of turns that left the window.

Every item carries provenance (the turns it came from, who said it) and an id that the
fold assigns. Items are never deleted: a resolved task is marked done, a changed phone
number marks the old anchor superseded.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Speaker = Literal["system", "user", "assistant", "tool"]
AnchorKind = Literal[
    "order_id", "phone", "email", "amount", "date", "time", "address", "account",
    "constraint", "negative_constraint", "language", "other",
]
ANCHOR_KINDS: tuple[str, ...] = AnchorKind.__args__  # type: ignore[attr-defined]


class Item(BaseModel):
    """Common provenance of every state item."""

    id: str = Field(description="Assigned by the fold (e.g. 'A3'), never by a model.")
    turns: list[int] = Field(description="Indexes of the turns this item was stated in.")
    speaker: Speaker = Field(description="Who said it first.")
    first_turn: int
    last_turn: int


class Goal(Item):
    """Something the user wants to achieve."""

    text: str
    status: Literal["active", "achieved", "abandoned"] = "active"


class Preference(Item):
    """A stated like or dislike; a later one on the same topic supersedes the earlier."""

    text: str
    polarity: Literal["like", "dislike", "require", "forbid"]
    topic: str = Field(description="Normalized key of what the preference is about.")
    status: Literal["active", "superseded"] = "active"
    superseded_by: str | None = None


class Decision(Item):
    """Something agreed or settled in the conversation."""

    text: str
    status: Literal["active", "superseded"] = "active"


class OpenTask(Item):
    """A commitment: who owes it, and whether it is still open."""

    text: str
    owner: Literal["user", "assistant"]
    status: Literal["open", "done", "cancelled"] = "open"
    closed_turn: int | None = None


class Anchor(Item):
    """An exact value: an id, a number, a hard or negative constraint. Kept verbatim."""

    kind: AnchorKind
    key: str = Field(description="What the value is, e.g. 'order_id', 'budget', 'phone'.")
    value: str = Field(description="Verbatim substring of a turn this anchor cites.")
    status: Literal["active", "superseded"] = "active"
    superseded_by: str | None = None
    superseded_turn: int | None = Field(
        default=None, description="Turn of the value that replaced this one."
    )


class Sentiment(BaseModel):
    """The user's mood, as of the last folded turn that showed one."""

    label: Literal["positive", "neutral", "negative"]
    score: float = Field(ge=-1.0, le=1.0)
    trend: Literal["improving", "stable", "worsening"] = "stable"
    reason: str = ""
    turn: int


class IndexEntry(BaseModel):
    """A compact reference to an existing item, shown to an extractor instead of the state."""

    id: str
    section: str
    text: str
    status: str
    owner: str | None = Field(default=None, description="Who owes it (open tasks only).")


SECTIONS: tuple[str, ...] = ("anchors", "open_tasks", "goals", "decisions", "preferences")
ID_PREFIX = {"anchors": "A", "open_tasks": "T", "goals": "G", "decisions": "D",
             "preferences": "P"}


class ConversationState(BaseModel):
    """Goals, preferences, decisions, open tasks, anchors and sentiment of a conversation.

    ``folded_through`` is the watermark: every turn with an index at or below it has been
    folded, exactly once. ``version`` counts saved states.
    """

    version: int = 0
    folded_through: int = -1
    language: Literal["zh", "en"] | None = None
    goals: list[Goal] = Field(default_factory=list)
    preferences: list[Preference] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    open_tasks: list[OpenTask] = Field(default_factory=list)
    anchors: list[Anchor] = Field(default_factory=list)
    sentiment: Sentiment | None = None

    def active_anchors(self) -> list[Anchor]:
        """Anchors that no later value replaced."""
        return [a for a in self.anchors if a.status == "active"]

    def anchor(self, key: str) -> Anchor | None:
        """The active anchor with this key (or, failing that, this kind), latest first."""
        for want in ("key", "kind"):
            found = [a for a in self.active_anchors() if getattr(a, want) == key]
            if found:
                return max(found, key=lambda a: a.last_turn)
        return None

    def tasks(self, status: str | None = None, owner: str | None = None) -> list[OpenTask]:
        """Open tasks filtered by status and owner."""
        return [t for t in self.open_tasks
                if (status is None or t.status == status) and (owner is None or t.owner == owner)]

    def find(self, item_id: str) -> Item | None:
        """The item with this id, from any section."""
        for section in SECTIONS:
            for item in getattr(self, section):
                if item.id == item_id:
                    return item
        return None

    def index(self) -> list[IndexEntry]:
        """Ids and short texts of live items: what an extractor may refer to."""
        out: list[IndexEntry] = []
        for section in SECTIONS:
            for item in getattr(self, section):
                if item.status in ("active", "open"):
                    text = f"{item.key}={item.value}" if isinstance(item, Anchor) else item.text
                    out.append(IndexEntry(id=item.id, section=section, text=text[:80],
                                          status=item.status,
                                          owner=getattr(item, "owner", None)))
        return out

    def is_empty(self) -> bool:
        return self.sentiment is None and not any(getattr(self, s) for s in SECTIONS)
