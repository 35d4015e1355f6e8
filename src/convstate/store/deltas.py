"""State versions stored as deltas, with a full snapshot every ``SNAPSHOT_EVERY``, so a
store grows with what changes, not with the state's size times the number of folds; and
each version's JSON zlib-compressed (``pack``): a quarter of the bytes.

A delta holds the top-level fields that changed; a changed list of items (every item
has an ``id``) is stored as its order of ids, the new items whole, and the changed ones as
their id and changed fields.
Applying the deltas after a snapshot, in order, gives each version back exactly.
A stored full state has no ``DELTA_OF`` key, so versions written before deltas existed
are read as they are.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

SNAPSHOT_EVERY = 16
DELTA_OF = "_delta_of"  # the version a delta applies to
WHOLE = "_whole"  # an item stored whole in a delta, not as a patch


def is_delta(stored: dict[str, Any]) -> bool:
    return DELTA_OF in stored


def diff(old: dict[str, Any], new: dict[str, Any], old_version: int) -> dict[str, Any]:
    """The delta that turns ``old`` (version ``old_version``) into ``new``."""
    out: dict[str, Any] = {DELTA_OF: old_version, "set": {}, "lists": {},
                           "drop": [k for k in old if k not in new]}
    for key, value in new.items():
        before = old.get(key)
        if before == value and key in old:
            continue
        if _items(value) and _items(before):
            known = {x["id"]: x for x in before or []}
            out["lists"][key] = {"ids": [x["id"] for x in value],
                                 "items": [_patch(known.get(x["id"]), x) for x in value
                                           if known.get(x["id"]) != x]}
        else:
            out["set"][key] = value
    return out


def apply(old: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """``old`` with ``delta`` applied (a new dict; ``old`` is not changed)."""
    new = {k: v for k, v in old.items() if k not in delta["drop"]}
    new.update(delta["set"])
    for key, change in delta["lists"].items():
        by_id = {x["id"]: x for x in old.get(key) or []}
        for patch in change["items"]:
            if patch.get(WHOLE):  # a field was removed: the item as it is now
                by_id[patch["id"]] = {k: v for k, v in patch.items() if k != WHOLE}
            else:
                by_id[patch["id"]] = {**by_id.get(patch["id"], {}), **patch}
        new[key] = [by_id[i] for i in change["ids"]]
    return new


def stored_text(before: dict[str, Any] | None, state: dict[str, Any], previous: int) -> str:
    """The JSON version ``state["version"]`` is stored as: whole every ``SNAPSHOT_EVERY``
    versions or with no previous state, else the delta from ``before`` (version
    ``previous``) when it is under half the whole."""
    whole = json.dumps(state, ensure_ascii=False)
    if before is None or previous == 0 or state["version"] % SNAPSHOT_EVERY == 0:
        return whole
    delta = json.dumps(diff(before, state, previous), ensure_ascii=False)
    return delta if len(delta) * 2 < len(whole) else whole


def replay(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The state of the last of ``rows`` (oldest first, starting at a snapshot)."""
    state = rows[0]
    for row in rows[1:]:
        state = apply(state, row)
    return state


def _patch(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """A new item whole; a changed one as its id and the fields that changed."""
    if old is None:
        return new
    if old.keys() - new.keys():
        return {**new, WHOLE: True}
    return {"id": new["id"], **{k: v for k, v in new.items() if old.get(k) != v}}


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
