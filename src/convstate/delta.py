"""The delta an extractor returns: new items and references to existing ones.

A delta never carries ids of new items (the fold assigns them) and never carries the
state itself: only what the expiring turns add or change.
"""

from __future__ import annotations

from functools import cache
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Generic,
    Literal,
    TypeVar,
    cast,
    get_args,
    get_origin,
)

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.json_schema import SkipJsonSchema

from .lang import language_field
from .sections import (
    BUILT_IN,
    MAX_ITEMS,
    MAX_TEXT,
    MAX_TURNS_CITED,
    New,
    NewAnchor,
    NewDecision,
    NewFact,
    NewGoal,
    NewPreference,
    NewRequest,
    NewTask,
)
from .state import ConversationState

__all__ = ["MAX_ITEMS", "MAX_TEXT", "MAX_TURNS_CITED", "AnchorValue", "FieldValue",
           "ItemUpdate", "New", "NewAnchor", "NewDecision", "NewFact", "NewGoal",
           "NewPreference", "NewRequest", "NewSentiment", "NewTask", "StateDelta",
           "admitted", "delta_model", "logged"]

T = TypeVar("T")

# Every status an update by id may set, in any built-in section (the fold checks that
# the item's own section allows it).
if TYPE_CHECKING:
    UpdateStatus = str
else:
    UpdateStatus = Literal[tuple(sorted({s for spec in BUILT_IN for s in spec.updates}))]


class ItemUpdate(BaseModel):
    """A change to an existing item, by the id the extractor was shown."""

    id: str
    status: UpdateStatus
    turn: int = Field(description="The turn that shows the change.")


class NewSentiment(BaseModel):
    """The user's mood in these turns."""

    label: Literal["positive", "neutral", "negative"]
    score: float = Field(ge=-1.0, le=1.0)
    reason: str = ""
    turn: int


class StateDelta(BaseModel):
    """What a batch of expiring turns adds to the state."""

    language: str | None = language_field()
    anchors: list[NewAnchor] = Field(default_factory=list, max_length=MAX_ITEMS)
    open_tasks: list[NewTask] = Field(default_factory=list, max_length=MAX_ITEMS)
    requests: list[NewRequest] = Field(default_factory=list, max_length=MAX_ITEMS)
    goals: list[NewGoal] = Field(default_factory=list, max_length=MAX_ITEMS)
    decisions: list[NewDecision] = Field(default_factory=list, max_length=MAX_ITEMS)
    preferences: list[NewPreference] = Field(default_factory=list, max_length=MAX_ITEMS)
    facts: list[NewFact] = Field(default_factory=list, max_length=MAX_ITEMS)
    updates: list[ItemUpdate] = Field(default_factory=list, max_length=MAX_ITEMS)
    sentiment: NewSentiment | None = None


class FieldValue(BaseModel, Generic[T]):
    """A value for one of your own fields, and the turns that state it (or, ``refused``,
    that refuse it: "I don't want an exchange" lets go of an exchange chosen before)."""

    value: T
    turns: list[int] = Field(min_length=1, max_length=MAX_TURNS_CITED)
    # not in the schema a model fills: the rule extractor's reading of negation
    refused: SkipJsonSchema[bool] = False


class AnchorValue(BaseModel):
    """A verbatim value for an anchor field of your own."""

    value: str = Field(min_length=1, max_length=MAX_TEXT,
                       description="Exact substring of a cited turn.")
    turns: list[int] = Field(min_length=1, max_length=MAX_TURNS_CITED)


@cache
def delta_model(state_model: type[ConversationState]) -> type[StateDelta]:
    """The delta for a state model: StateDelta plus each section of its own (a list of
    its ``new`` items) and each custom field, optional (``FieldValue``/``AnchorValue``),
    lists as additions."""
    specs = state_model.custom_fields()
    sections = [s for s in state_model.sections() if s.name not in StateDelta.model_fields]
    if not specs and not sections:
        return StateDelta
    fields: dict[str, Any] = {
        s.name: (list[s.new], Field(default_factory=list, max_length=MAX_ITEMS,  # type: ignore[name-defined]
                                    description=s.instruction))
        for s in sections}
    namespace: dict[str, Any] = {"__doc__": f"What expiring turns add to a {state_model.__name__}.",
                                 "__module__": __name__}
    statuses = {u for s in state_model.sections() for u in s.updates}
    if statuses - set(get_args(UpdateStatus)):  # a section of its own with new statuses
        status: Any = Literal[tuple(sorted(statuses))]
        update = create_model(f"{state_model.__name__}Update", __base__=ItemUpdate,
                              status=(status, ...))
        namespace["__annotations__"] = {"updates": list[update]}  # type: ignore[valid-type]
        namespace["updates"] = Field(default_factory=list, max_length=MAX_ITEMS)
    for name, spec in specs.items():
        doc = spec.description or spec.label_for("en")
        if spec.shape == "anchor":
            fields[name] = (AnchorValue | None, Field(default=None, description=doc))
        elif spec.shape == "scalar":
            fields[name] = (_generic(FieldValue)[spec.value_type] | None,
                            Field(default=None, description=doc))
        else:
            item = AnchorValue if spec.shape == "anchor_list" else \
                _generic(FieldValue)[spec.value_type]
            fields[name] = (list[item], Field(default_factory=list,  # type: ignore[valid-type]
                                              max_length=MAX_ITEMS, description=doc))
    # The state model's own fields come first in the schema and are listed as required
    # (null allowed, default None in Python): a model that must write each key
    # considers each field, where a small one would otherwise skip them all.
    own = create_model(f"{state_model.__name__}Fields",
                       __config__=ConfigDict(json_schema_extra=_require(list(specs))),
                       **fields)
    model = type(f"{state_model.__name__}Delta", (StateDelta, own), namespace)
    model.__state_model__ = state_model  # type: ignore[attr-defined]
    return model


def _generic(model: type[BaseModel]) -> Any:
    """A generic model, to parametrize with a type known only at run time."""
    return cast(Any, model)


def _require(names: list[str]) -> Any:
    def extra(schema: dict[str, Any]) -> None:
        schema["required"] = sorted(set(schema.get("required", [])) | set(names))
    return extra


# -- what a fold admits -----------------------------------------------------------------


def admitted(delta: Any, model: type[StateDelta]) -> tuple[StateDelta, list[str]]:
    """``delta`` as a ``model`` holding only what validates, and one line per item left
    out (which, and why).

    Each item of each list, and each single value, is checked against ``model`` on its
    own: one bad value (a 600-digit id, an unknown kind, an item that is not an object)
    costs that value, never the rest. The fold admits every delta this way, whoever
    made it: a delta built with ``model_construct`` (the rule extractor's), an item
    changed after it was made, a plain dict from an extractor of your own. A list's
    length is not checked: MAX_ITEMS bounds what a model may send in one reply, and a
    long batch may hold more.
    """
    if isinstance(delta, BaseModel):
        given: dict[str, Any] = {n: getattr(delta, n, None) for n in model.model_fields}
    elif isinstance(delta, dict):
        given = delta
    else:
        return model.model_construct(), [
            f"the delta is a {type(delta).__name__}, not a {model.__name__}: nothing folded"]
    values: dict[str, Any] = {}
    dropped: list[str] = []
    for name, (is_list, check) in _checks(model).items():
        value = given.get(name)
        if value is None:
            continue
        if not is_list:
            try:
                values[name] = check.validate_python(_fields(value))
            except ValidationError as exc:
                dropped.append(_why(name, value, exc))
            continue
        if not isinstance(value, list | tuple):
            dropped.append(f"{name}: a {type(value).__name__}, not a list")
            continue
        kept = []
        for k, item in enumerate(value):
            try:
                kept.append(check.validate_python(_fields(item)))
            except ValidationError as exc:
                dropped.append(_why(f"{name}[{k}]", item, exc))
        values[name] = kept
    return model.model_construct(**values), dropped


MAX_LOGGED = 8  # lines about dropped items a compaction log keeps; the rest are counted


def logged(lines: list[str]) -> list[str]:
    """At most MAX_LOGGED of ``lines``, and how many more there were."""
    if len(lines) <= MAX_LOGGED:
        return lines
    return lines[:MAX_LOGGED] + [f"and {len(lines) - MAX_LOGGED} more"]


@cache
def _checks(model: type[StateDelta]) -> dict[str, tuple[bool, TypeAdapter[Any]]]:
    """Per field of ``model``: whether it is a list, and the check of one item of it (of
    the value itself, with the field's constraints, when not a list)."""
    out: dict[str, tuple[bool, TypeAdapter[Any]]] = {}
    for name, info in model.model_fields.items():
        if get_origin(info.annotation) is list:
            out[name] = (True, TypeAdapter(get_args(info.annotation)[0]))
        else:
            out[name] = (False, TypeAdapter(cast(Any, Annotated)[info.annotation, info]))
    return out


def _fields(value: Any) -> Any:
    """A model's field values, to validate again (pydantic takes an instance as it is,
    however it was built or changed since); anything else as it is."""
    return dict(value.__dict__) if isinstance(value, BaseModel) else value


def _why(where: str, item: Any, exc: ValidationError) -> str:
    first = exc.errors(include_url=False, include_input=False)[0]
    loc = ".".join(str(p) for p in first["loc"])
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}{_preview(item)} dropped: {loc + ': ' if loc else ''}{first['msg']}{more}"


def _preview(item: Any) -> str:
    """The start of what an item says, to tell which one it was."""
    fields = item.__dict__ if isinstance(item, BaseModel) else item
    said = next((fields[k] for k in ("value", "text", "id") if isinstance(fields, dict)
                 and isinstance(fields.get(k), str)), None)
    if said is None:
        return ""
    short = said if len(said) <= 40 else said[:40] + "…"
    return f" {short!r}"
