"""The typed conversation state: what the fold keeps of turns that left the window.

Every item carries provenance (the turns it came from, who said it) and an id that the
fold assigns. Items are never deleted: a resolved task is marked done, a changed phone
number marks the old anchor superseded.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from .fields import FieldSpec, analyze, describe
from .normalize import normalize

Speaker = Literal["system", "user", "assistant", "tool"]
AnchorKind = Literal[
    "order_id", "phone", "email", "amount", "date", "time", "address", "account",
    "constraint", "negative_constraint", "language", "name", "other",
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


class Request(Item):
    """Something the user asked for that may still be unanswered ("电话是多少？")."""

    text: str
    status: Literal["open", "answered", "dropped"] = "open"
    closed_turn: int | None = None


class Anchor(Item):
    """An exact value: an id, a number, a hard or negative constraint. Kept verbatim."""

    kind: AnchorKind
    key: str = Field(description="What the value is, e.g. 'order_id', 'budget', 'phone'.")
    value: str = Field(description="Verbatim substring of a turn this anchor cites.")
    subject: str | None = Field(
        default=None, description="What the value is about (a place, a business, a "
        "product), verbatim from the turns: the phone of which restaurant.")
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


class FieldEvent(BaseModel):
    """A value a custom field took ('set'), or one it refused ('conflict', set-once)."""

    field: str
    value: Any
    turn: int
    event: Literal["set", "conflict"] = "set"


class HistoryEntry(BaseModel):
    """One value of a key or field over time."""

    value: Any
    turn: int
    status: str


class StateDiff(BaseModel):
    """What changed between two states: item ids added or changed per section, custom
    fields changed (old, new), and whether the sentiment moved."""

    added: dict[str, list[str]] = Field(default_factory=dict)
    changed: dict[str, list[str]] = Field(default_factory=dict)
    fields: dict[str, tuple[Any, Any]] = Field(default_factory=dict)
    sentiment: bool = False

    def is_empty(self) -> bool:
        return not (self.added or self.changed or self.fields or self.sentiment)


SECTIONS: tuple[str, ...] = ("anchors", "open_tasks", "requests", "goals", "decisions",
                             "preferences")
ID_PREFIX = {"anchors": "A", "open_tasks": "T", "requests": "Q", "goals": "G", "decisions": "D",
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
    requests: list[Request] = Field(
        default_factory=list, description="The user's questions and asks, open or answered.")
    anchors: list[Anchor] = Field(default_factory=list)
    sentiment: Sentiment | None = None
    field_log: list[FieldEvent] = Field(
        default_factory=list, description="Values your own fields took, and conflicts.")

    __convstate_fields__: ClassVar[dict[str, FieldSpec] | None] = None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        # Check a subclass's own fields when it is defined: an unsupported type fails
        # here, naming the field, not in the middle of a conversation. (A class whose
        # annotations cannot be resolved yet is checked when it is first used.)
        super().__pydantic_init_subclass__(**kwargs)
        cls.__convstate_fields__ = None
        if cls.__pydantic_complete__:
            cls.custom_fields()

    @classmethod
    def custom_fields(cls) -> dict[str, FieldSpec]:
        """The fields a subclass added, with their merge rules."""
        if cls is ConversationState:
            return {}
        if cls.__dict__.get("__convstate_fields__") is None:
            if not cls.__pydantic_complete__:
                cls.model_rebuild()
            base = set(ConversationState.model_fields)
            cls.__convstate_fields__ = {
                name: analyze(name, info.annotation, info.metadata, info.description,
                              Anchor, ANCHOR_KINDS)
                for name, info in cls.model_fields.items() if name not in base
            }
        return cls.__convstate_fields__  # type: ignore[return-value]

    def active_anchors(self) -> list[Anchor]:
        """Anchors that no later value replaced."""
        return [a for a in self.anchors if a.status == "active"]

    def anchor(self, key: str) -> Anchor | None:
        """The active anchor with this key (or, failing that, this kind): the user's
        latest, else anyone's latest (a value the assistant or a tool gave never hides
        the user's); for an anchor field of your own, that field's value."""
        spec = self.custom_fields().get(key)
        if spec is not None and spec.shape == "anchor":
            return getattr(self, key)
        for want in ("key", "kind"):
            found = [a for a in self.active_anchors() if getattr(a, want) == key]
            if found:
                return max(found, key=lambda a: (a.speaker == "user", a.last_turn))
        return None

    def about(self, subject: str) -> list[Anchor]:
        """The active anchors about ``subject`` (compared by the dedup key), in order."""
        want = normalize(subject)
        return [a for a in self.active_anchors()
                if a.subject is not None and normalize(a.subject) == want]

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

    def history(self, name: str) -> list[HistoryEntry]:
        """Every value a key, kind or custom field took, oldest first, with its turn."""
        spec = self.custom_fields().get(name)
        if spec is not None and spec.shape not in ("anchor", "anchor_list"):
            return [HistoryEntry(value=e.value, turn=e.turn, status=e.event)
                    for e in self.field_log if e.field == name]
        key = spec.anchor_key if spec is not None else name
        found = [a for a in self.anchors if a.key == key] or \
            [a for a in self.anchors if a.kind == key]
        return [HistoryEntry(value=a.value, turn=a.first_turn, status=a.status)
                for a in sorted(found, key=lambda a: (a.first_turn, a.id))]

    def conflicts(self) -> list[FieldEvent]:
        """Values a set-once field refused: surfaced, never silently applied."""
        return [e for e in self.field_log if e.event == "conflict"]

    def diff(self, older: ConversationState) -> StateDiff:
        """What changed since ``older`` (e.g. what one fold did)."""
        out = StateDiff()
        for section in SECTIONS:
            before = {i.id: i for i in getattr(older, section)}
            for item in getattr(self, section):
                if item.id not in before:
                    out.added.setdefault(section, []).append(item.id)
                elif item != before[item.id]:
                    out.changed.setdefault(section, []).append(item.id)
        for name in self.custom_fields():
            old, new = describe(getattr(older, name, None)), describe(getattr(self, name))
            if old != new:
                out.fields[name] = (old, new)
        out.sentiment = self.sentiment != older.sentiment
        return out

    def values(self) -> list[str]:
        """The text of every item, live or not (anchor values, task texts...), and of
        your own fields: what the state holds, for lookups."""
        out = [getattr(item, "value", None) or getattr(item, "text", "")
               for section in SECTIONS for item in getattr(self, section)]
        out += [str(describe(getattr(self, name))) for name in self.custom_fields()]
        return out

    def is_empty(self) -> bool:
        return self.sentiment is None and not any(getattr(self, s) for s in SECTIONS) \
            and not any(getattr(self, f) for f in self.custom_fields())
