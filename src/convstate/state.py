"""The typed conversation state: what the fold keeps of turns that left the window.

Its sections (anchors, open tasks, requests, goals, decisions, preferences, facts) are
declared in ``sections.py``; here are the state that holds them and its lookups.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .errors import FieldTypeError
from .fields import FieldSpec, analyze, describe
from .lang import language_field
from .normalize import normalize
from .sections import (
    ANCHOR_KINDS,
    ANCHORS,
    DECISIONS,
    FACTS,
    GOALS,
    OPEN_TASKS,
    PREFERENCES,
    REQUESTS,
    Anchor,
    AnchorKind,
    Decision,
    Fact,
    Goal,
    Item,
    OpenTask,
    Preference,
    Request,
    Section,
    Speaker,
    field_of,
    read_first,
    text_of,
)

__all__ = ["ANCHOR_KINDS", "Anchor", "AnchorKind", "ConversationState", "Decision", "Fact",
           "FieldEvent", "Goal", "HistoryEntry", "Index", "IndexEntry", "Item", "OpenTask",
           "Preference", "Request", "Sentiment", "Speaker", "StateDiff"]

class Sentiment(BaseModel):
    """The user's mood, as of the last folded turn that showed one."""

    label: Literal["positive", "neutral", "negative"]
    score: float = Field(ge=-1.0, le=1.0)
    trend: Literal["improving", "stable", "worsening"] = "stable"
    reason: str = ""
    turn: int


class IndexEntry(BaseModel):
    """A compact reference to an existing item, shown to an extractor instead of the state.
    Frozen: the entry of an item no fold changed is handed out again."""

    model_config = ConfigDict(frozen=True)

    id: str
    section: str
    text: str
    status: str
    owner: str | None = Field(default=None, description="Who owes it (open tasks only).")
    turn: int | None = Field(default=None, description="The last turn that stated it.")
    speaker: str | None = Field(default=None, description="Who stated it first.")
    subject: str | None = Field(default=None, description="What or whom an anchor is about "
                                "(a named place, someone else: 'my wife').")


class Index(list[IndexEntry]):
    """Index entries, in index order, that also hand out one section's entries: an
    extractor reading each turn as it comes looks up a long session's open tasks at every
    turn, and a section's entries should cost what they hold, not what the index holds.
    Treat it as read-only, like any index."""

    def __init__(self, entries: Iterable[IndexEntry],
                 sections: Mapping[str, list[IndexEntry]]):
        super().__init__(entries)
        self._sections = sections  # each section's entries, in index order

    def section(self, name: str) -> list[IndexEntry]:
        """The entries of section ``name``, in index order."""
        return self._sections.get(name, [])


def section_entries(index: Sequence[IndexEntry], name: str) -> list[IndexEntry]:
    """The entries of section ``name`` of ``index`` (any sequence of entries), in order."""
    if isinstance(index, Index):
        return index.section(name)
    return [e for e in index if e.section == name]


# an index entry's text is cut to this many characters (an extractor's prompt stays small)
INDEX_TEXT = 80


def index_entry(section: str, item: Any) -> IndexEntry:
    """The index entry of a live ``item`` of ``section``."""
    text = f"{item.key}={item.value}" if isinstance(item, Anchor) else field_of(item, "text")
    return IndexEntry(id=item.id, section=section, text=text[:INDEX_TEXT], status=item.status,
                      owner=field_of(item, "owner"), turn=item.last_turn,
                      speaker=item.speaker, subject=field_of(item, "subject"))


class FieldEvent(BaseModel):
    """A value a custom field took ('set'), or one it refused ('conflict', set-once)."""

    field: str
    value: Any
    turn: int
    event: Literal["set", "conflict"] = "set"


class HistoryEntry(BaseModel):
    """One value of a key or field over time, and who said it (an anchor's speaker; None
    for a value of a field of your own, which records no speaker)."""

    value: Any
    turn: int
    status: str
    speaker: Speaker | None = None


class StateDiff(BaseModel):
    """What changed between two states: item ids added or changed per section, custom
    fields changed (old, new), and whether the sentiment moved."""

    added: dict[str, list[str]] = Field(default_factory=dict)
    changed: dict[str, list[str]] = Field(default_factory=dict)
    fields: dict[str, tuple[Any, Any]] = Field(default_factory=dict)
    sentiment: bool = False

    def is_empty(self) -> bool:
        return not (self.added or self.changed or self.fields or self.sentiment)


class ConversationState(BaseModel):
    """Goals, preferences, decisions, open tasks, anchors and sentiment of a conversation.

    Two watermarks: ``folded_through``, every turn with an index at or below it has been
    read by the extractor and folded in, exactly once; ``evicted_through`` (never past
    it), the turns at or below it may leave the context (the block stands in for them),
    those after it are always shown raw. ``version`` counts saved states.
    ``provisional``: the ids of the items that a quick reading (the rules) added or
    changed ahead of the configured extractor (an LLM, which reads turns in batches);
    they are replaced when it reads their turns.
    """

    version: int = 0
    folded_through: int = -1
    evicted_through: int = -1
    language: str | None = language_field()
    # sections, in the order lookups and an extractor's index list them
    anchors: Annotated[list[Anchor], ANCHORS] = Field(default_factory=list)
    open_tasks: Annotated[list[OpenTask], OPEN_TASKS] = Field(default_factory=list)
    requests: Annotated[list[Request], REQUESTS] = Field(
        default_factory=list, description="The user's questions and asks, open or answered.")
    goals: Annotated[list[Goal], GOALS] = Field(default_factory=list)
    decisions: Annotated[list[Decision], DECISIONS] = Field(default_factory=list)
    preferences: Annotated[list[Preference], PREFERENCES] = Field(default_factory=list)
    facts: Annotated[list[Fact], FACTS] = Field(
        default_factory=list, description="Statements worth keeping that fit no other "
        "section; the least important fade when there are many.")
    sentiment: Sentiment | None = None
    field_log: list[FieldEvent] = Field(
        default_factory=list, description="Values your own fields took, and conflicts.")
    provisional: list[str] = Field(default_factory=list, description=(
        "Ids of items read ahead of the configured extractor, by the rules."))

    __convstate_fields__: ClassVar[dict[str, FieldSpec] | None] = None
    __convstate_sections__: ClassVar[tuple[Section, ...] | None] = None
    __convstate_by_name__: ClassVar[dict[str, Section]] = {}

    @model_validator(mode="before")
    @classmethod
    def _one_watermark_before(cls, data: Any) -> Any:
        # a state saved before the watermarks were two had let go what it had folded
        if isinstance(data, dict) and "evicted_through" not in data \
                and "folded_through" in data:
            data = {**data, "evicted_through": data["folded_through"]}
        return data

    def is_provisional(self, item: Item) -> bool:
        """Whether ``item`` was read ahead of the configured extractor (see above)."""
        return item.id in self.provisional

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        # Check a subclass's own fields when it is defined: an unsupported type fails
        # here, naming the field, not in the middle of a conversation. (A class whose
        # annotations cannot be resolved yet is checked when it is first used.)
        super().__pydantic_init_subclass__(**kwargs)
        cls.__convstate_fields__ = cls.__convstate_sections__ = None
        if cls.__pydantic_complete__:
            cls.custom_fields()

    @classmethod
    def sections(cls) -> tuple[Section, ...]:
        """The sections of this state: the fields declared ``Annotated[list[...], spec]``."""
        if cls.__dict__.get("__convstate_sections__") is None:
            if not cls.__pydantic_complete__:
                cls.model_rebuild()
            found = []
            for name, info in cls.model_fields.items():
                spec = next((m for m in info.metadata if isinstance(m, Section)), None)
                if spec is not None:
                    if spec.name != name:
                        raise FieldTypeError(name, f"carries the spec of {spec.name!r}")
                    found.append(spec)
            prefixes = [s.prefix for s in found]
            if len(set(prefixes)) != len(prefixes):
                raise FieldTypeError(cls.__name__, f"two sections share an id prefix {prefixes}")
            cls.__convstate_by_name__ = {s.name: s for s in found}  # (first: another
            # thread that finds the sections built finds these too)
            cls.__convstate_sections__ = tuple(found)
        return cls.__convstate_sections__  # type: ignore[return-value]

    @classmethod
    def section(cls, name: str) -> Section:
        """The spec of the section ``name`` (KeyError if it has none: looked up a few
        times a turn, by name)."""
        cls.sections()
        return cls.__convstate_by_name__[name]

    @classmethod
    def custom_fields(cls) -> dict[str, FieldSpec]:
        """The fields a subclass added, with their merge rules (sections aside)."""
        if cls is ConversationState:
            return {}
        if cls.__dict__.get("__convstate_fields__") is None:
            if not cls.__pydantic_complete__:
                cls.model_rebuild()
            base = set(ConversationState.model_fields) | {s.name for s in cls.sections()}
            cls.__convstate_fields__ = {
                name: analyze(name, info.annotation, info.metadata, info.description,
                              Anchor, ANCHOR_KINDS)
                for name, info in cls.model_fields.items() if name not in base
            }
        return cls.__convstate_fields__  # type: ignore[return-value]

    def active_anchors(self) -> list[Anchor]:
        """Anchors that no later value replaced."""
        return [a for a in self.anchors if a.status == "active"]

    def anchor(self, key: str, speaker: Speaker | None = None) -> Anchor | None:
        """The active anchor with this key (or, failing that, this kind): the user's
        latest, else anyone's latest (a value the assistant or a tool gave never hides
        the user's), one about no one else first (the user's own number, not "my wife's
        number is ..."; see ``about``); with ``speaker``, only what that speaker said
        (``speaker="user"``: None rather than a hotline). For an anchor field of your
        own, that field's value."""
        spec = self.custom_fields().get(key)
        if spec is not None and spec.shape == "anchor":
            field: Anchor | None = getattr(self, key)
            return field if speaker is None or (field and field.speaker == speaker) else None
        for want in ("key", "kind"):
            found = [a for a in self.active_anchors() if getattr(a, want) == key
                     and (speaker is None or a.speaker == speaker)]
            if found:
                return max(found, key=read_first)
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
        for spec in self.sections():
            if spec.owns(item_id):
                return next((i for i in getattr(self, spec.name) if i.id == item_id), None)
        return None

    def index(self, known: dict[int, tuple[Item, IndexEntry]] | None = None
              ) -> list[IndexEntry]:
        """Ids and short texts of live items: what an extractor may refer to.

        ``known``: the entries of an earlier call, by item, updated to this state's: a
        fold shares the items it leaves alone with the state before (fold.py), so a
        long session's index is built from the few items each fold changed."""
        fresh: dict[int, tuple[Item, IndexEntry]] = {}
        for spec in self.sections():
            alive = spec.live  # a comparison, not a call, per item: thousands of them
            for item in getattr(self, spec.name):
                if item.status == alive:
                    hit = known.get(id(item)) if known else None
                    if hit is None or hit[0] is not item:
                        hit = (item, index_entry(spec.name, item))
                    fresh[id(item)] = hit
        if known is not None:
            known.clear()
            known.update(fresh)
        return [entry for _, entry in fresh.values()]

    def dump(self, known: dict[int, tuple[Item, dict[str, Any]]] | None = None
             ) -> dict[str, Any]:
        """``model_dump(mode="json")``, the form a store saves.

        ``known``: the item dicts of an earlier call, by item, updated to this state's
        (like ``index``): the items a fold left alone are the same objects, so their
        dicts are handed out again, not dumped, and a store's diff finds them unchanged
        by identity. The dicts are shared: treat them as read-only."""
        names = [s.name for s in self.sections()]
        rest = self.model_dump(mode="json", exclude=set(names))
        fresh: dict[int, tuple[Item, dict[str, Any]]] = {}
        for name in names:
            rest[name] = dumped = []
            for item in getattr(self, name):
                hit = known.get(id(item)) if known else None
                if hit is None or hit[0] is not item:
                    hit = (item, item.model_dump(mode="json"))
                fresh[id(item)] = hit
                dumped.append(hit[1])
        if known is not None:
            known.clear()
            known.update(fresh)
        return {k: rest[k] for k in type(self).model_fields if k in rest}  # in field order

    def history(self, name: str, speaker: Speaker | None = None) -> list[HistoryEntry]:
        """Every value a key, kind or custom field took, oldest first, with its turn and
        who said it: ``history("phone", speaker="user")`` is the user's own numbers, not
        a hotline the assistant gave (``speaker`` filters anchors; a field of your own
        records no speaker)."""
        spec = self.custom_fields().get(name)
        if spec is not None and spec.shape not in ("anchor", "anchor_list"):
            return [HistoryEntry(value=e.value, turn=e.turn, status=e.event)
                    for e in self.field_log if e.field == name and speaker is None]
        key = spec.anchor_key if spec is not None else name
        found = [a for a in self.anchors if a.key == key] or \
            [a for a in self.anchors if a.kind == key]
        return [HistoryEntry(value=a.value, turn=a.first_turn, status=a.status,
                             speaker=a.speaker)
                for a in sorted(found, key=lambda a: (a.first_turn, a.id))
                if speaker is None or a.speaker == speaker]

    def conflicts(self) -> list[FieldEvent]:
        """Values a set-once field refused: surfaced, never silently applied."""
        return [e for e in self.field_log if e.event == "conflict"]

    def diff(self, older: ConversationState) -> StateDiff:
        """What changed since ``older`` (e.g. what one fold did)."""
        out = StateDiff()
        for section in (s.name for s in self.sections()):
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
        out = [text_of(item) for spec in self.sections() for item in getattr(self, spec.name)]
        out += [str(describe(getattr(self, name))) for name in self.custom_fields()]
        return out

    def is_empty(self) -> bool:
        return self.sentiment is None and not any(getattr(self, s.name) for s in self.sections()) \
            and not any(getattr(self, f) for f in self.custom_fields())
