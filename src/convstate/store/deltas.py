"""State versions stored as deltas, with a full snapshot once the deltas since the last
one weigh ``SNAPSHOT_AFTER`` times the state, so a store grows with what changes, not with
the state's size times the number of folds; and each version's JSON zlib-compressed
(``pack``): a quarter of the bytes.

Snapshots by weight, not by count: a state that keeps growing (a new order every
exchange) would make a snapshot every N versions cost the state's size N times over,
quadratic in the session; by weight they cost at most 1 / ``SNAPSHOT_AFTER`` of the
deltas, and rebuilding a version reads at most that many states' worth of deltas.

A delta holds the top-level fields that changed; a changed list of items (every item
has an ``id``) is stored as the ids that left it (``gone``) when the kept items keep
their order and the new ones come last, else as its whole order of ids (``ids``); the
new items whole, and the changed ones as their id and changed fields.
Applying the deltas after a snapshot, in order, gives each version back exactly.
A stored full state has no ``DELTA_OF`` key, so versions written before deltas existed
are read as they are.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

SNAPSHOT_AFTER = 4
DELTA_OF = "_delta_of"  # the version a delta applies to
WHOLE = "_whole"  # an item stored whole in a delta, not as a patch


def is_delta(stored: dict[str, Any]) -> bool:
    return DELTA_OF in stored


def diff(old: dict[str, Any], new: dict[str, Any], old_version: int) -> dict[str, Any]:
    """The delta that turns ``old`` (version ``old_version``) into ``new``."""
    out: dict[str, Any] = {DELTA_OF: old_version, "set": {}, "lists": {},
                           "drop": [k for k in old if k not in new]}
    for key, value in new.items():
        before: Any = old.get(key)
        if before == value and key in old:
            continue
        if _items(value) and _items(before):
            changed = _in_place(before, value)
            if changed is not None:  # the usual fold: a few dicts changed, new ones after
                out["lists"][key] = {"gone": [], "items": changed}
                continue
            known = {x["id"]: x for x in before or []}
            # an item a fold left alone is often the very dict saved before
            # (ConversationState.dump): found unchanged without comparing its fields
            out["lists"][key] = {**_order(before or [], value),
                                 "items": [_patch(was, x) for x in value
                                           if (was := known.get(x["id"])) is not x
                                           and was != x]}
        else:
            out["set"][key] = value
    return out


def apply(old: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """``old`` with ``delta`` applied (a new dict; ``old`` is not changed)."""
    return replay([old, delta])


def replay(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The state of the last of ``rows`` (oldest first, starting at a snapshot; none of
    them is changed). Item lists are kept by id across the deltas and listed once at the
    end, so each delta costs what it changes, not the state's size."""
    state = dict(rows[0])
    lists: dict[str, dict[str, dict[str, Any]]] = {}
    for delta in rows[1:]:
        for key in [*delta["drop"], *delta["set"]]:
            state.pop(key, None)
            lists.pop(key, None)
        state.update(delta["set"])
        for key, change in delta["lists"].items():
            if key not in lists:
                lists[key] = {x["id"]: x for x in state.get(key) or []}
            lists[key] = _changed(lists[key], change)
    for key, by_id in lists.items():
        state[key] = list(by_id.values())
    return state


def stored_text(before: dict[str, Any] | None, state: dict[str, Any], previous: int,
                chain: int, measured: int | None = None) -> tuple[str, int, int]:
    """The JSON version ``state["version"]`` is stored as, the weight of the deltas
    since the last snapshot after it (``chain`` before it), and the length of a whole
    state last measured. Whole with no previous state, once ``chain`` reaches
    ``SNAPSHOT_AFTER`` wholes, or when the delta from ``before`` (version ``previous``)
    is not under half the whole.

    ``measured``: a whole's length measured at an earlier version. A state only grows
    (items are never removed), so a delta under half of it, whose chain stays under
    ``SNAPSHOT_AFTER`` times it, is written without measuring the whole again: a long
    session's state runs to hundreds of KB, and its JSON cost more than the rest of a
    save."""
    if before is None or previous == 0:
        whole = json.dumps(state, ensure_ascii=False)
        return whole, 0, len(whole)
    delta = json.dumps(diff(before, state, previous), ensure_ascii=False)

    def allowed(size: int) -> bool:  # true for a size, true for any larger one
        return len(delta) * 2 < size and chain < SNAPSHOT_AFTER * size

    if measured and allowed(measured):
        return delta, chain + len(delta), measured
    whole = json.dumps(state, ensure_ascii=False)
    if allowed(len(whole)):
        return delta, chain + len(delta), len(whole)
    return whole, 0, len(whole)


def _order(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> dict[str, list[str]]:
    """How a list's order is stored: the ids that left it, when the rest stay in order
    and the new ones come last (the usual fold: a size that does not grow with the list),
    else every id in order."""
    ids = [x["id"] for x in new]
    kept = set(ids)
    known = [x["id"] for x in old]
    stay = [i for i in known if i in kept]
    if ids[:len(stay)] == stay:
        return {"gone": [i for i in known if i not in kept]}
    return {"ids": ids}


def _changed(by_id: dict[str, dict[str, Any]], change: dict[str, Any]
             ) -> dict[str, dict[str, Any]]:
    """A list's items by id, in order, after ``change`` (``by_id`` may be reused)."""
    for gone in change.get("gone", ()):
        del by_id[gone]
    for patch in change["items"]:  # a known id keeps its place; a new one goes last
        if patch.get(WHOLE):  # a field was removed: the item as it is now
            by_id[patch["id"]] = {k: v for k, v in patch.items() if k != WHOLE}
        else:
            by_id[patch["id"]] = {**by_id.get(patch["id"], {}), **patch}
    if "ids" in change:
        return {i: by_id[i] for i in change["ids"]}
    return by_id


def _patch(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """A new item whole; a changed one as its id and the fields that changed."""
    if old is None:
        return new
    if old.keys() - new.keys():
        return {**new, WHOLE: True}
    return {"id": new["id"], **{k: v for k, v in new.items() if old.get(k) != v}}


def _in_place(old: list[Any], new: list[Any]) -> list[dict[str, Any]] | None:
    """The list delta's items when ``new`` is ``old`` with some items changed in place
    (the same id at the same position) and then items with other ids: the patches in
    order, then the new items whole; else None. An unchanged item is most often the
    very dict saved before (ConversationState.dump), so a long list costs what changed
    in it, not a comparison of every item."""
    if len(new) < len(old):
        return None
    patches = []
    for was, now in zip(old, new, strict=False):  # to old's end: the rest is new
        if was is now:
            continue
        if was["id"] != now["id"]:
            return None
        if was != now:
            patches.append(_patch(was, now))
    tail = new[len(old):]
    if tail:
        ids = {x["id"] for x in old}
        if any(x["id"] in ids for x in tail):
            return None
    return patches + tail


def _items(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(
        isinstance(x, dict) and "id" in x for x in value)


def pack(text: str) -> bytes:
    """A stored version's JSON, compressed."""
    return zlib.compress(text.encode("utf-8"), 6)


def unpack(text: str | None, packed: bytes | memoryview | None) -> str:
    """The JSON of a stored version: ``packed`` when there is one, else ``text`` (a
    version written before versions were packed)."""
    return zlib.decompress(packed).decode("utf-8") if packed is not None else text or ""
