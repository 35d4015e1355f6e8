"""The delta an extractor returns: new items and references to existing ones.

A delta never carries ids of new items (the fold assigns them) and never carries the
state itself: only what the expiring turns add or change.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, create_model

from .state import AnchorKind, ConversationState

T = TypeVar("T")

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


class NewRequest(_New):
    """A question or ask of the user's, in a user turn."""

    text: str = Field(min_length=1, max_length=MAX_TEXT)
    status: Literal["open", "answered", "dropped"] = "open"


class NewAnchor(_New):
    """An exact value, copied verbatim from a turn it cites."""

    kind: AnchorKind
    key: str = Field(min_length=1, max_length=64,
                     description="e.g. order_id, phone, budget, constraint.")
    value: str = Field(min_length=1, max_length=MAX_TEXT,
                       description="Exact substring of a cited turn.")
    subject: str | None = Field(
        default=None, max_length=120,
        description="The named thing the value is about (the restaurant a phone belongs "
        "to), copied verbatim from a cited turn; null when it is about the user.")


class ItemUpdate(BaseModel):
    """A change to an existing item, by the id the extractor was shown."""

    id: str
    status: Literal["achieved", "abandoned", "done", "cancelled", "superseded", "answered",
                    "dropped"]
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
    requests: list[NewRequest] = Field(default_factory=list, max_length=MAX_ITEMS)
    goals: list[NewGoal] = Field(default_factory=list, max_length=MAX_ITEMS)
    decisions: list[NewDecision] = Field(default_factory=list, max_length=MAX_ITEMS)
    preferences: list[NewPreference] = Field(default_factory=list, max_length=MAX_ITEMS)
    updates: list[ItemUpdate] = Field(default_factory=list, max_length=MAX_ITEMS)
    sentiment: NewSentiment | None = None


class FieldValue(BaseModel, Generic[T]):
    """A value for one of your own fields, and the turns that state it."""

    value: T
    turns: list[int] = Field(min_length=1, max_length=MAX_TURNS_CITED)


class AnchorValue(BaseModel):
    """A verbatim value for an anchor field of your own."""

    value: str = Field(min_length=1, max_length=MAX_TEXT,
                       description="Exact substring of a cited turn.")
    turns: list[int] = Field(min_length=1, max_length=MAX_TURNS_CITED)


@cache
def delta_model(state_model: type[ConversationState]) -> type[StateDelta]:
    """The delta for a state model: StateDelta plus each custom field, optional
    (``FieldValue``/``AnchorValue``), lists as additions."""
    specs = state_model.custom_fields()
    if not specs:
        return StateDelta
    fields: dict[str, Any] = {}
    for name, spec in specs.items():
        doc = spec.description or spec.label_for("en")
        if spec.shape == "anchor":
            fields[name] = (AnchorValue | None, Field(default=None, description=doc))
        elif spec.shape == "scalar":
            fields[name] = (FieldValue[spec.value_type] | None,  # type: ignore[name-defined]
                            Field(default=None, description=doc))
        else:
            item = AnchorValue if spec.shape == "anchor_list" else FieldValue[spec.value_type]
            fields[name] = (list[item], Field(default_factory=list, max_length=MAX_ITEMS,
                                              description=doc))
    # The state model's own fields come first in the schema and are listed as required
    # (null allowed, default None in Python): a model that must write each key
    # considers each field, where a small one would otherwise skip them all.
    own = create_model(f"{state_model.__name__}Fields",
                       __config__=ConfigDict(json_schema_extra=_require(list(fields))),
                       **fields)
    model = type(f"{state_model.__name__}Delta", (StateDelta, own), {
        "__doc__": f"What expiring turns add to a {state_model.__name__}.",
        "__module__": __name__})
    model.__state_model__ = state_model  # type: ignore[attr-defined]
    return model


def _require(names: list[str]) -> Any:
    def extra(schema: dict[str, Any]) -> None:
        schema["required"] = sorted(set(schema.get("required", [])) | set(names))
    return extra
