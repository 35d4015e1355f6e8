"""Your own typed fields on the state: markers, their merge rules, and type checks.

A subclass of ConversationState adds fields; each gets a merge rule from its type, or
from a marker in ``Annotated[...]``:

- ``Anchor | None`` — an anchor field: verbatim, its kind from ``AnchorOf(kind)`` or
  from the field's name when that names a kind (``order_id``, ``phone``, ``email`` ...);
  latest value wins (``SetOnce()`` to keep the first that stands: one the user corrects
  gives way to the correction).
- ``list[Anchor]`` — every value of that kind, deduplicated (superseded ones included,
  with their status).
- a scalar (``str``, ``int``, ``float``, ``bool``, a ``Literal``, an ``Enum``, or
  ``None``-able) — latest value wins, earlier ones stay in ``state.history(field)``;
  ``SetOnce()``: a later different value is recorded as a conflict, not applied.
- ``list[scalar]`` — a deduplicated list; ``list[Model]`` with ``Keyed("sub_field")`` —
  deduplicated by that sub-field (a later item with the same key replaces the earlier).

``Label(en=..., zh=...)`` names a field in the rendered block (default: its description,
else its name); ``Cue({value: regex})`` lets the rule extractor set a Literal field from
what the user asks for (a negated or merely mentioned option is not chosen; see ``Cue``).
"""

from __future__ import annotations

import enum
import re
import types
from dataclasses import dataclass, field
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from .errors import FieldTypeError


@dataclass(frozen=True)
class Latest:
    """Latest value wins; earlier values stay in the field's history (the default)."""


@dataclass(frozen=True)
class SetOnce:
    """The first value stays; a later different value is recorded as a conflict. For an
    anchor field, the first that stands: a value the state replaced (the user's
    correction, "Sorry, wrong one, it's 4471-0932") gives way, and the first live one is
    read anew."""


@dataclass(frozen=True)
class Keyed:
    """A list of models deduplicated by the sub-field ``key``."""

    key: str


@dataclass(frozen=True)
class AnchorOf:
    """An anchor field of this kind (when the field's name does not say it)."""

    kind: str


@dataclass(frozen=True)
class Label:
    """How the field is named in the rendered block, per language code:
    ``Label(en="Refund", zh="退款", fr="Remboursement")``."""

    names: tuple[tuple[str, str], ...] = ()

    def __init__(self, **names: str):
        object.__setattr__(self, "names", tuple(sorted(names.items())))

    def get(self, lang: str) -> str | None:
        return dict(self.names).get(lang)


@dataclass(frozen=True)
class Cue:
    """Patterns that let the rule extractor set this Literal field: {value: regex}.

    A pattern fires on the user's requests and decisions, not on any mention. A mention
    is *chosen* when a verb of wanting, choosing or requiring (want, need, I'd like,
    I'll take, must; 要, 想要, 需要, 选, 改成, 必须) or a request marker (please; 请, 麻烦,
    帮我) governs it in the same clause (clauses end at commas and sentence ends) with
    the speaker, the listener or the thing asked for as its subject — or none: an
    imperative, a Chinese clause without a subject; or when the clause is the mention
    alone ("A refund, please.", "退款吧。") or the subject of an accepting predicate
    ("an exchange is fine", "退款就行"). A mention is *refused* when a negation scopes
    over it ("I don't want an exchange", "not an exchange", "no exchange", 不要换货,
    不用换货, 别换货, "换货不行"; a contrast — but, 而是 — ends that scope). Anything else
    is only mentioned and sets nothing: a report ("It arrived today.", "my friend got an
    exchange"), a third party's want (他想换货), an inquiry or a subordinate clause ("I
    want to know about exchanges", "because ..."), and a question — a question asks, it
    does not choose ("Can I get an exchange?", 可以换货吗？, 要不要换货) unless it carries a
    request marker ("Could you please ...", 能帮我退款吗？, "Could I get a refund please?").

    The field takes the option chosen last in the latest user turn that chooses one; a
    later turn that refuses the option the field holds and chooses none lets go of it
    (the field is None again, its history keeps both; a ``SetOnce`` field keeps its
    first value). The grammar is ``convstate.extract.negation``; its words come from the
    language packs.
    """

    patterns: dict[str, str] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.patterns.items())))

    def compiled(self) -> list[tuple[str, re.Pattern[str]]]:
        return [(v, re.compile(p, re.IGNORECASE)) for v, p in self.patterns.items()]


Shape = Literal["anchor", "anchor_list", "scalar", "scalar_list", "model_list"]


@dataclass(frozen=True)
class FieldSpec:
    """What the fold needs to know about one custom field."""

    name: str
    shape: Shape
    value_type: Any  # the scalar type, the Anchor class, or the list's item model
    rule: Literal["latest", "set_once", "dedup"]
    kind: str | None = None  # anchor kind, for anchor fields
    key: str | None = None  # sub-field of a Keyed list
    label: Label | None = None
    description: str | None = None
    cue: Cue | None = None

    @property
    def anchor_key(self) -> str:
        """The anchor key this field follows: its kind, or its own name for 'other'."""
        return self.kind if self.kind and self.kind != "other" else self.name

    def label_for(self, lang: str) -> str:
        named = self.label.get(lang) if self.label else None
        return named or self.description or self.name


_SCALARS = (str, int, float, bool)


def _is_scalar(tp: Any) -> bool:
    if tp in _SCALARS:
        return True
    if get_origin(tp) is Literal:
        return all(isinstance(a, str | int | bool) for a in get_args(tp))
    return isinstance(tp, type) and issubclass(tp, enum.Enum)


def _strip_optional(tp: Any) -> tuple[Any, bool]:
    if get_origin(tp) in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return tp, False


def analyze(name: str, annotation: Any, metadata: list[Any], description: str | None,
            anchor_cls: type, kinds: tuple[str, ...]) -> FieldSpec:
    """The FieldSpec of a custom field; ConfigError naming the field if its type is not
    one the fold can merge."""
    marks = {type(m): m for m in metadata}
    rule: Literal["latest", "set_once"] = "set_once" if SetOnce in marks else "latest"
    label, cue = marks.get(Label), marks.get(Cue)
    tp, _ = _strip_optional(annotation)
    common: dict[str, Any] = {"label": label, "description": description, "cue": cue}
    if tp is anchor_cls:
        kind = marks[AnchorOf].kind if AnchorOf in marks else (name if name in kinds else
                                                                "other")
        if kind not in kinds:
            raise FieldTypeError(name, f"AnchorOf({kind!r}) is not an anchor kind {kinds}")
        return FieldSpec(name, "anchor", anchor_cls, rule, kind=kind, **common)
    if _is_scalar(tp):
        if cue is not None and get_origin(tp) is not Literal:
            raise FieldTypeError(name, "Cue() needs a Literal field")
        return FieldSpec(name, "scalar", tp, rule, **common)
    if get_origin(tp) is list and len(get_args(tp)) == 1:
        item = get_args(tp)[0]
        if item is anchor_cls:
            kind = marks[AnchorOf].kind if AnchorOf in marks else (
                name.removesuffix("s") if name.removesuffix("s") in kinds else "other")
            return FieldSpec(name, "anchor_list", anchor_cls, "dedup", kind=kind, **common)
        if _is_scalar(item):
            return FieldSpec(name, "scalar_list", item, "dedup", **common)
        if isinstance(item, type) and issubclass(item, BaseModel):
            if Keyed not in marks:
                raise FieldTypeError(name, f"list[{item.__name__}] needs Keyed('sub_field') "
                                  "to be deduplicated")
            key = marks[Keyed].key
            if key not in item.model_fields:
                raise FieldTypeError(name, f"Keyed({key!r}): {item.__name__} has no such field")
            for sub, info in item.model_fields.items():
                if not _is_scalar(_strip_optional(info.annotation)[0]):
                    raise FieldTypeError(f"{name}.{sub}", f"unsupported type "
                                      f"{_type_name(info.annotation)}: use str, int, float, "
                                      "bool, a Literal or an Enum")
            return FieldSpec(name, "model_list", item, "dedup", key=key, **common)
    raise FieldTypeError(name, f"unsupported field type {_type_name(annotation)}: use Anchor, "
                      "a scalar (str, int, float, bool, Literal, Enum), or a list of those or "
                      "of models with Keyed(...)")


def _type_name(tp: Any) -> str:
    if isinstance(tp, type):
        return tp.__name__
    return str(tp).replace("typing.", "")


def describe(value: Any) -> Any:
    """A field value as plain JSON data (for history, conflicts, rendering)."""
    if isinstance(value, list):
        return [describe(v) for v in value]
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, enum.Enum):
        return value.value
    return value


__all__ = ["AnchorOf", "Cue", "FieldSpec", "Keyed", "Label", "Latest", "SetOnce", "analyze",
           "describe"]
