"""The pure fold: state + delta + the turns it came from -> new state.

No I/O, no clock, no randomness. Folding the same delta twice gives the same state.
Ids are assigned here. Nothing is deleted: changes are status changes.

The new state shares the items the fold leaves alone with the state it was given (each
one it changes is copied first, see ``_Draft``): a fold costs what it changes, not what
the state holds, and the given state is never changed (contexts read it meanwhile).
Treat a state as a value: copy an item before changing it in place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Literal

from .delta import MAX_TEXT, AnchorValue, FieldValue, NewAnchor, StateDelta, admitted, delta_model
from .fields import FieldSpec, describe
from .lang import cue
from .lookup import national_numbers
from .normalize import normalize
from .sections import (
    CEILING_OF,
    CONTACT_KEYS,
    COUNT_KEYS,
    GOALS,
    NAME_KEYS,
    OPEN_TASKS,
    SETTLED_KEYS,
    SLOT_KEYS,
    WHERE_KEYS,
    Section,
    clipped,
    field_of,
    grouped,
    read_first,
    slot_of,
    text_of,
    users_own,
)
from .state import Anchor, ConversationState, FieldEvent, OpenTask, Sentiment
from .turns import Turn

# Keys that hold one current value: a new value supersedes the old one.
SINGLE_VALUED_KEYS = frozenset({"phone", "email", "address", "budget", "account", "language",
                                "name", "refund_method", "deadline"})
_SENTIMENT_STEP = 0.15  # a score change below this is "stable"

_DIGITS = re.compile(r"\d+")


@dataclass
class FoldStats:
    """What one fold did: counts for the compaction log, and why items were rejected."""

    added: int = 0
    deduplicated: int = 0
    rejected: int = 0
    superseded: int = 0
    updated: int = 0
    reasons: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # items the delta model cannot hold
    changed: list[str] = field(default_factory=list)  # ids of the items added or changed

    def reject(self, why: str) -> None:
        self.rejected += 1
        self.reasons.append(why)


def fold(state: ConversationState, delta: StateDelta,
         sources: Mapping[int, Turn]) -> ConversationState:
    """Return the state with ``delta`` folded in; ``sources`` are the turns being folded."""
    return fold_report(state, delta, sources)[0]


def fold_report(state: ConversationState, delta: StateDelta,
                sources: Mapping[int, Turn], keys: FoldKeys | None = None,
                provisional: bool = False) -> tuple[ConversationState, FoldStats]:
    """Like :func:`fold`, and also say what was added, deduplicated, rejected and
    changed.

    ``keys``: kept by the caller from fold to fold (the compactor keeps one), so a fold
    of the state the last one returned finds its proposals' duplicates without keying
    every item of the state again. ``provisional``: the delta is a quick reading ahead
    of the configured extractor; the items it adds or changes are listed in the new
    state's ``provisional``."""
    # whoever made the delta, what its model cannot hold is left out, item by item
    delta, dropped = admitted(delta, delta_model(type(state)))
    mine = keys is not None and keys.state is state
    if keys is not None and mine and keys.stale is not None \
            and _moves_watermark_only(state, delta):  # a turn read live that said nothing
        new = state.model_copy()  # sharing its lists: a state is a value (see above)
        if sources:
            new.folded_through = max(new.folded_through, max(sources))
        keys.state = new
        return new, FoldStats(rejected=len(dropped), dropped=dropped)
    draft = _Draft(state)
    known = keys.maps if mine else {}  # type: ignore[union-attr]
    dedup = _Keys(draft, known, keys.stale if mine else None)  # type: ignore[union-attr]
    stats = _fold_into(draft, delta, sources, dedup)
    stats.dropped = dropped
    stats.rejected += len(dropped)
    stats.changed = [item.id for _, item, _ in draft.owned.values()]
    if provisional and stats.changed:
        draft.state.provisional = list(dict.fromkeys(state.provisional + stats.changed))
    if keys is not None:  # sections this fold did not key keep the maps they had
        keys.state, keys.maps, keys.stale = draft.state, {**known, **dedup.maps}, dedup.stale
    return draft.state, stats


def _moves_watermark_only(state: ConversationState, delta: StateDelta) -> bool:
    """Whether folding ``delta`` into ``state`` (the state a fold with the same keys
    returned: its stale values and your own fields are as that fold left them) changes
    nothing but ``folded_through``: no item, update, field value or mood to take, and no
    language the state lacks."""
    return (delta.language is None or state.language is not None) and not any(
        getattr(delta, name) for name in type(delta).model_fields if name != "language")


class FoldKeys:
    """The dedup keys of the state a fold returned, by section, for the next fold of
    that state (see ``fold_report``). A fold never changes the maps it was given: a fold
    that is not saved leaves them as they were."""

    def __init__(self) -> None:
        self.state: ConversationState | None = None
        self.maps: dict[str, dict[Any, Any]] = {}
        self.stale: frozenset[str] | None = None  # replaced values no live anchor holds


def _fold_into(draft: _Draft, delta: StateDelta, sources: Mapping[int, Turn],
               keys: _Keys) -> FoldStats:
    new, stats = draft.state, FoldStats()
    if new.language is None and delta.language is not None:
        new.language = delta.language

    specs = type(new).custom_fields()
    touched_keys: set[str] = set()
    given = sorted(delta.anchors + _field_anchors(delta, specs), key=_order)
    # who says each value in these turns: a replaced value its owner says again here is
    # live again, whoever else says it (so the order of the turns does not matter)
    said: set[tuple[str, str, str]] = {
        (anchor_key(a.key) or a.kind, normalize(a.value), str(sources[t].role))
        for a in given for t in a.turns if t in sources}
    for a in given:
        if (key := _fold_anchor(new, a, sources, stats, keys, said)) is not None:
            touched_keys.add(key)
    single = touched_keys & SINGLE_VALUED_KEYS
    if single:
        # speaker authority: what the user said of themselves (their phone, their
        # address) only the user replaces; the assistant's values (a hotline) only the
        # assistant, a tool's (a record) only a tool: each stands next to the others
        # (and the phone of one restaurant never replaces another's; what others say
        # about no named thing may be about many: it replaces nothing)
        mine = [a for a in new.anchors if a.key in single]  # a third faster than a call each
        groups = grouped(mine, lambda a: (a.key, a.speaker, _subject(a))
                         if a.speaker == "user" or a.subject else None)
        for group in sorted(groups):
            _settle(draft, "anchors", groups[group], stats, turn_field=True)
    if settled := touched_keys & (SETTLED_KEYS | COUNT_KEYS):
        _settle_slots(draft, settled, stats)
    anchors = new.section("anchors")
    if anchors.cap is not None and touched_keys:
        _cap(draft, anchors, stats, touched_keys)

    for spec in type(new).sections():
        if spec.name != "anchors":
            _fold_section(draft, spec, getattr(delta, spec.name, None) or [], sources, stats,
                          keys)

    for u in delta.updates:
        _apply_update(draft, u.id, u.status, u.turn, sources, stats)
    _follow_replaced_names(draft, stats)
    keys.stale = _fade_stale(draft, stats, keys.stale)
    for field_spec in specs.values():
        _fold_field(new, field_spec, getattr(delta, field_spec.name, None), sources, stats)
    _fold_sentiment(new, delta, sources)
    if sources:
        new.folded_through = max(new.folded_through, max(sources))
    return stats


def _order(item: Any) -> tuple[int, str]:
    return (min(item.turns), text_of(item))


def _cited(turns: list[int], sources: Mapping[int, Turn]) -> list[int]:
    return sorted({i for i in turns if i in sources})


def _quotes(role: str, text: str, turns: list[int], sources: Mapping[int, Turn]) -> bool:
    """A cited turn of ``role`` ("any": of anyone) holds ``text``, or closely: most of
    its character pairs (a model may shorten a commitment, not invent one)."""
    said = [normalize(sources[i].text) for i in turns
            if i in sources and role in ("any", sources[i].role)]
    want = normalize(text)
    if any(want in s for s in said):
        return True
    pairs = {want[k:k + 2] for k in range(len(want) - 1)}
    return bool(pairs) and any(
        len(pairs & {s[k:k + 2] for k in range(len(s) - 1)}) >= 0.6 * len(pairs)
        for s in said)


def _fold_section(draft: _Draft, spec: Section, given: list[Any],
                  sources: Mapping[int, Turn], stats: FoldStats, keys: _Keys) -> None:
    """Fold the proposed items of one text section: admit, deduplicate, close, settle,
    cap."""
    if not given:  # nothing to admit, settle or cap
        return
    state = draft.state
    shared = (spec.new.model_fields.keys() & spec.item.model_fields.keys()) - \
        {"turns", "text", "status"}
    settle: set[str] = set()
    for n in sorted(given, key=_order):
        if spec.speakers and not any(sources[i].role in spec.speakers
                                     for i in n.turns if i in sources):
            stats.reject(f"a {spec.name} item must come from a turn of "
                         f"{'/'.join(sorted(spec.speakers))}: {n.text[:40]!r}")
            continue
        role = spec.quoted_by(n) if spec.quoted_by else None
        if role is not None and not _quotes(role, n.text, n.turns, sources):
            stats.reject(f"{spec.name} item not said by the {role}: {n.text[:40]!r}")
            continue
        item = _fold_text(state, spec, n.text, n.turns, sources, stats, keys,
                          **{k: getattr(n, k) for k in shared})
        status = getattr(n, "status", spec.live)
        if item is not None and status != spec.live and spec.is_live(item):
            item.status = status  # reported closed already: closed at its last turn
            if "closed_turn" in spec.item.model_fields:
                item.closed_turn = max(_cited(n.turns, sources))
        if item is not None and spec.settle_by \
                and (value := getattr(item, spec.settle_by)) is not None:
            settle.add(normalize(value))
    if settle:
        by = spec.settle_by or ""
        groups = grouped(getattr(state, spec.name), lambda i: norm if (
            value := getattr(i, by)) is not None and (norm := normalize(value)) in settle
            else None)
        for value in sorted(groups):
            _settle(draft, spec.name, groups[value], stats, turn_field=False)
    if spec.cap is not None and given:  # (only what a fold adds or says again can pass it)
        _cap(draft, spec, stats)


def _cap(draft: _Draft, spec: Section, stats: FoldStats, only: set[Any] | None = None
         ) -> None:
    """Beyond the cap, the least important and oldest live items leave the live set
    (with ``spec.cap_by``, of each value apart; ``only``: of these values alone, those
    this fold added to)."""
    limit, status = spec.cap  # type: ignore[misc]
    alive = spec.live  # a comparison, not a call, per item: a section holds thousands
    live = [i for i in getattr(draft.state, spec.name) if i.status == alive]
    if len(live) <= limit:  # (a slice to len - limit < 0 would take all but the last)
        return
    by = spec.cap_by

    def value(item: Any) -> Any:
        v = field_of(item, by or "")
        return v if only is None or v in only else None

    groups = [live] if by is None else list(grouped(live, value).values())
    for group in groups:
        if len(group) > limit:
            for item in sorted(group, key=lambda i: (spec.rank(i), i.last_turn))[
                    :len(group) - limit]:
                draft.own(spec.name, item).status = status
                stats.updated += 1


# What a value of a kind must look like, so that a model cannot pass "1" off as a phone
# number or a word as an order id (the value must still be verbatim in its turn).
_ID_SHAPE = re.compile(r"\d.*\d|\d{3,}|[A-Za-z]\d|\d[A-Za-z]")
_SHAPES = {
    "phone": re.compile(r"(?:\d\D{0,3}){7,}"),
    "email": re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$"),
    "order_id": _ID_SHAPE, "ticket_id": _ID_SHAPE, "tracking_number": _ID_SHAPE,
    "account": re.compile(r"\w{3,}"),
    "amount": re.compile(r"[\d零一二两三四五六七八九十百千万]|free|免费", re.IGNORECASE),
}


def anchor_key(key: str) -> str:
    """A key as the state keeps it: lower case, words joined by '_', nothing but letters,
    digits and '_' (a model's key cannot carry markup or a line into the block)."""
    words = re.findall(r"[^\W_]+", key.casefold())
    return "_".join(words)[:40]


class _Draft:
    """The state a fold writes: a shallow copy of the given one with lists of its own,
    whose items stay shared until the fold changes one (``own`` copies it first). The
    copy the fold made of every item (a dump and a validation of the whole state) cost
    more than all the rest of a fold of a long session, and fed the garbage collector."""

    def __init__(self, given: ConversationState):
        self.state = given.model_copy()
        for spec in given.sections():
            setattr(self.state, spec.name, list(getattr(given, spec.name)))
        self.state.field_log = list(given.field_log)
        # the items that are this draft's own, by id(): (section, item, status it had)
        self.owned: dict[int, tuple[str, Any, str | None]] = {}

    def own(self, section: str, item: Any) -> Any:
        """The draft's own copy of ``item`` (of ``section``), to change in place: made at
        the first change, found again after (by position: ``item`` may be a reference
        taken before)."""
        items = getattr(self.state, section)
        at = self._position(items, section, item.id)
        current = items[at]
        if id(current) not in self.owned:
            was = current.status
            current = items[at] = current.model_copy()
            self.owned[id(current)] = (section, current, was)
        return current

    def add(self, section: str, item: Any) -> None:
        """Append a new item, the draft's own."""
        getattr(self.state, section).append(item)
        self.owned[id(item)] = (section, item, None)

    def status_changed(self, section: str) -> bool:
        """Whether an item of ``section`` the state had took another status."""
        return any(s == section and was is not None and item.status != was
                   for s, item, was in self.owned.values())

    def _position(self, items: list[Any], section: str, item_id: str) -> int:
        # ids are the prefix and the position + 1 (items are never removed); a state
        # built otherwise is searched
        number = item_id[len(self.state.section(section).prefix):]
        at = int(number) - 1 if number.isdigit() else -1
        if 0 <= at < len(items) and items[at].id == item_id:
            return at
        return next(k for k, i in enumerate(items) if i.id == item_id)


class _Keys:
    """The dedup keys of a section's items, built once per fold: a fold of n items over
    a state of m costs n + m, not n x m. A hit is the draft's own copy."""

    def __init__(self, draft: _Draft, known: Mapping[str, dict[Any, Any]],
                 stale: frozenset[str] | None = None):
        self.draft = draft
        self.known = known  # the maps of the state given, from the fold that made it
        self.maps: dict[str, dict[Any, Any]] = {}
        self.stale = stale  # of the state given, likewise (see _fade_stale)

    def of(self, section: str) -> dict[Any, Any]:
        if section not in self.maps:
            # a map of the state given may point at items this state has since copied
            # (a status changed): ``own`` finds them by id, so a key still finds its item
            known = self.known.get(section)
            self.maps[section] = dict(known) if known is not None else {
                self.key(section, i): i for i in reversed(getattr(self.draft.state, section))}
        return self.maps[section]

    def own(self, section: str, key: Any) -> Any:
        """The item of ``section`` with dedup ``key``, the draft's own to change, or None."""
        known = self.of(section)
        if (item := known.get(key)) is not None:
            item = known[key] = self.draft.own(section, item)
        return item

    def add(self, section: str, key: Any, item: Any) -> None:
        self.of(section)[key] = item
        self.draft.add(section, item)

    @staticmethod
    def key(section: str, item: Any) -> Any:
        if section == "anchors":
            return (item.key, _subject(item), normalize(item.value))
        return (field_of(item, "owner"), normalize(item.text))


def _subject(anchor: Any) -> str:
    return normalize(anchor.subject) if anchor.subject else ""


def _fold_anchor(state: ConversationState, a: NewAnchor, sources: Mapping[int, Turn],
                 stats: FoldStats, keys: _Keys, said: AbstractSet[tuple[str, str, str]]
                 ) -> str | None:
    """Add or merge one anchor; reject it unless its value is verbatim in a cited turn.
    ``said``: (key, normalized value, speaker) of every value the fold's turns state."""
    turns = [i for i in _cited(a.turns, sources) if a.value in sources[i].text]
    if len(a.value) > MAX_TEXT:
        stats.reject(f"anchor {a.key} is {len(a.value)} characters, over {MAX_TEXT}")
        return None
    if not turns or not a.value.strip():
        stats.reject(f"anchor {a.key}={a.value[:40]!r} is not verbatim in turns {a.turns}")
        return None
    shape = _SHAPES.get(a.kind)
    if shape is not None and not shape.search(a.value):
        stats.reject(f"anchor {a.kind}={a.value[:40]!r} does not look like a {a.kind}")
        return None
    key = anchor_key(a.key) or a.kind
    subject = a.subject.strip() if a.subject else None
    if subject and not any(subject in t.text for t in sources.values()) and not any(
            o.value == subject for o in state.anchors):  # named in an earlier turn
        stats.reasons.append(f"subject {subject[:40]!r} of {key} is not verbatim: dropped")
        subject = None
    dedup = (key, normalize(subject) if subject else "", normalize(a.value))
    if a.kind == "address" and (whole := _whole_address(state, dedup, a.value)) is not None:
        dedup = whole  # "42 Maple Street" of "42 Maple Street, Springfield, IL": said again
        # (by the user correcting a misread street, or by the assistant reading it back)
    if key in CONTACT_KEYS and not subject and sources[turns[0]].role == "user" \
            and (theirs := _theirs(state, key, a.value, turns[0])) is not None:
        dedup = theirs  # "OK, I'll call 1-888-555-0100": the hotline said back, still theirs
    if (old := keys.own("anchors", dedup)) is not None:
        if not (old.status == "superseded" and key in SINGLE_VALUED_KEYS
                and sources[turns[0]].role != old.speaker
                and (key, normalize(a.value), old.speaker) not in said):
            _said_again(state.section("anchors"), old, turns)
        # (else another's reading back of a replaced value: "we'll call you at <the old
        # number>" is no one taking it up again; only its owner brings it back)
        stats.deduplicated += 1
        return key
    keys.add("anchors", dedup, Anchor(
        id=_next_id(state, state.section("anchors")), kind=a.kind, key=key, value=a.value,
        subject=subject, turns=turns,
        speaker=sources[turns[0]].role, first_turn=turns[0], last_turn=turns[-1],
    ))
    stats.added += 1
    return key


def _whole_address(state: ConversationState, dedup: tuple[str, str, str], value: str
                   ) -> tuple[str, str, str] | None:
    """The dedup key of the live address of the same key and subject that ``value``
    opens, with its town or more after a comma: the same address said shorter."""
    key, subject, _ = dedup
    said = value.strip().lower()
    for a in state.anchors:
        if a.key == key and a.status == "active" and _subject(a) == subject:
            whole = a.value.strip().lower()
            if whole.startswith(said) and whole[len(said):].lstrip().startswith(","):
                return key, subject, normalize(a.value)
    return None


def _theirs(state: ConversationState, key: str, value: str, turn: int
            ) -> tuple[str, str, str] | None:
    """The dedup key of a contact of ``key`` that someone other than the user gave, before
    ``turn``, as what it is of ("call our repair desk at ..."), the same as ``value`` (a
    phone in any layout, with or without its country code: 1-888-555-0100, 888-555-0100;
    lookup.py's national numbers): the user saying it back says what it is, their own
    contact it is not."""
    phone = key == "phone"
    said = national_numbers(value) if phone else {normalize(value)}
    for a in state.anchors:  # (live when the user said it: a fold again finds it replaced
        # after that turn, and the same reading must find the same contact)
        if a.key == key and a.subject and a.speaker != "user" and a.first_turn < turn \
                and (a.status == "active" or a.status == "superseded"
                     and (a.superseded_turn or -1) > turn) \
                and said & (national_numbers(a.value) if phone else {normalize(a.value)}):
            return key, normalize(a.subject), normalize(a.value)
    return None


def _fold_text(state: ConversationState, spec: Section, text: str, turns_in: list[int],
               sources: Mapping[int, Turn], stats: FoldStats, keys: _Keys,
               **extra: Any) -> Any:
    """Add or merge one text item, deduplicated by its normalized text (and its owner:
    the user's "send the photo" is not the assistant's)."""
    turns = _cited(turns_in, sources)
    text = text.strip()
    text = clipped(text)
    if not turns or not text:
        stats.reject(f"{spec.name} item cites no folded turn: {text[:40]!r}")
        return None
    key = (extra.get("owner"), normalize(text))
    if (old := keys.own(spec.name, key)) is not None or spec is GOALS and (
            old := _head_of(keys, spec.name, key[0], text)) is not None:
        _said_again(spec, old, turns)
        stats.deduplicated += 1
        return old
    cls: Any = spec.item  # a text section's item: it has a text
    item = cls(id=_next_id(state, spec), text=text, turns=turns,
               speaker=sources[turns[0]].role, first_turn=turns[0], last_turn=turns[-1],
               **extra)
    keys.add(spec.name, key, item)
    stats.added += 1
    return item


def _head_of(keys: _Keys, section: str, owner: Any, text: str) -> Any:
    """The goal ``text`` says again with or without the clauses that go on with it ("I
    want a refund for my order" and "I want a refund for my order, within this week":
    extract/rules.py runs a goal through them), the draft's own; None if none."""
    for (who, norm), item in keys.of(section).items():
        if who == owner and (_heads(item.text, text) or _heads(text, item.text)):
            return keys.own(section, (who, norm))
    return None


def _heads(head: str, text: str) -> bool:
    """Whether ``head`` is the first clause (or clauses) of ``text``."""
    return len(text) > len(head) and text.startswith(head) and text[len(head)] in ",，"


def _said_again(spec: Section, item: Any, turns: list[int]) -> None:
    """``item`` (the draft's own) is stated again in ``turns``: recorded, and live again
    if a per-value cap had retired it, or if it is the user's task closed before these
    turns (asked anew: the assistant asking "Where are you leaving from?" again wants
    another answer; not the assistant's promise, which a turn saying it was kept, "As I
    said, I'll send you the label. It's in your inbox.", may repeat)."""
    closed = getattr(item, "closed_turn", None)
    item.add_turns(turns)
    if spec.revives(item):
        item.status = spec.live
    elif spec is OPEN_TASKS and item.owner == "user" and closed is not None \
            and not spec.is_live(item) and min(turns) > closed:
        item.status, item.closed_turn = spec.live, None


def _settle(draft: _Draft, section: str, group: list[Any], stats: FoldStats,
            turn_field: bool) -> None:
    """Among items of one key/topic (``group``, of ``section``), the latest stated is
    active; the others superseded, but values said in its turn (a mobile and a home
    number given together) stand with it."""
    if len(group) < 2:
        return
    winner = max(group, key=lambda i: (i.last_turn, int(i.id[1:])))
    if winner.status != "active":
        winner = draft.own(section, winner)
        winner.status = "active"
        winner.superseded_by = None
        if turn_field:
            winner.superseded_turn = None
    for item in group:
        if item.id != winner.id and item.status == "active" \
                and not (section == "anchors" and item.last_turn == winner.last_turn):
            item = draft.own(section, item)
            item.status, item.superseded_by = "superseded", winner.id
            if turn_field:
                item.superseded_turn = winner.last_turn
            stats.superseded += 1


def _settle_slots(draft: _Draft, keys: set[str], stats: FoldStats) -> None:
    """Of the values of ``keys`` (SETTLED_KEYS) this fold stated, one said again after
    the value that replaced it is live again; those of SLOT_KEYS replace the older live
    ones they may (``_replaces``)."""
    fresh = sorted((item for s, item, _ in draft.owned.values()
                    if s == "anchors" and item.key in keys), key=lambda a: a.last_turn)
    if not fresh:
        return
    for new in fresh:  # (first: a value live again is one a later value may replace)
        if new.status == "superseded" and new.superseded_turn is not None \
                and new.last_turn > new.superseded_turn:  # said again after its successor
            new.status, new.superseded_by, new.superseded_turn = "active", None, None
    slots = keys & (SLOT_KEYS | COUNT_KEYS)
    mine = grouped((a for a in draft.state.anchors if a.key in slots and a.status == "active"),
                   lambda a: a.key) if slots else {}
    sums = _SumsUp(draft.state.anchors)
    for new in fresh:
        if new.status != "active":
            continue
        olds = mine.get(new.key, ())
        asked = max((o for o in olds if o.speaker == "user" and o.last_turn < new.last_turn),
                    key=lambda o: o.last_turn, default=None) if new.speaker == "user" else None
        replaced = [old for old in olds if old.status == "active"
                    and old.last_turn < new.last_turn
                    and (_replaces(new, old) or _read_back(new, old, asked))]
        if new.speaker == "user":  # a sum-up's reading back of the user's goes with it
            replaced += [e for old in replaced if old.speaker == "user"
                         for e in sums.echoes(old, olds, new.last_turn) if e not in replaced]
        for old in replaced:
            old = draft.own("anchors", old)
            if old.status == "active":  # (a reading back may echo two of the replaced)
                old.status, old.superseded_by = "superseded", new.id
                old.superseded_turn = new.last_turn
                stats.superseded += 1


def _replaces(new: Anchor, old: Anchor) -> bool:
    """Whether ``new`` is a later value of the same thing as ``old`` that its speaker may
    replace: the user's replaces the user's about the same subject (or either about
    none) and what the assistant proposed (a value about no named thing, or the same
    one); the assistant's (or a tool's) replaces its own about the same named thing
    (what it says about no named thing may be about many: opening hours of two places).
    A category only the user's replaces: one of its kind, or the assistant's of none whose
    words end in its kind."""
    named = bool(old.subject) and _subject(new) == _subject(old)
    if new.key == "category":  # its subject is its kind ("Japanese food": a Hatchback is
        # no food, nor the assistant's "an SUV"), or, the assistant's of none, the kind its
        # words end in (经济型酒店: 酒店); the assistant's kinds of two places stand together
        return new.speaker == "user" and (_subject(new) == _subject(old) or (
            old.speaker != "user" and not old.subject
            and normalize(old.value).endswith(_subject(new))))
    if new.speaker == "user":
        return not new.subject or not old.subject or named if old.speaker == "user" \
            else not old.subject or named
    return named and old.speaker != "user"


def _read_back(new: Anchor, old: Anchor, asked: Anchor | None) -> bool:
    """Whether ``old`` is the assistant's reading back of ``asked``, the user's request
    that ``new`` changes ("1:15 pm, please"; "with Loffer Shirley at 1:15 pm, is that
    right?"; "make it 1:30"): said in the reply to it, with the same numbers, it goes
    with it, whatever named thing it was about. (Not a later turn's: "Your taxi is
    booked at 7 pm as well" is no reading back of the dinner's 7 pm.)"""
    return asked is not None and not new.subject and old.speaker == "assistant" \
        and old.turns[0] == asked.last_turn + 1 \
        and bool(numbers := _numbers(asked.value)) and _numbers(old.value) == numbers


class _SumsUp:
    """The assistant's turns that sum up the user's request: each says back at least
    two values the user gave before it ("Booking an SUV from Fresno Station on March
    9th at 11 am until March 13th"). A value read back there is the user's, whatever
    named thing the sum-up ties it to, and goes with it when the user changes it, in the
    next turn or later. One value said back alone may be another thing's ("Your taxi
    is booked at 7 pm as well" is no reading back of the dinner's 7 pm)."""

    def __init__(self, anchors: list[Anchor]):
        self._anchors = anchors
        self._by_turn: dict[int, list[Anchor]] | None = None  # built once a fold asks
        self._users: dict[str, list[Anchor]] = {}
        self._sums: dict[int, bool] = {}

    def _sums_up(self, turn: int) -> bool:
        if self._by_turn is None:
            self._by_turn = grouped(self._anchors, lambda a: a.turns[0])
            self._users = grouped((a for a in self._anchors if a.speaker == "user"),
                                  lambda u: slot_of(u.key))
        if turn not in self._sums:
            self._sums[turn] = sum(
                a.speaker == "assistant" and any(
                    u.first_turn < turn and _alike(u, a) for u in self._users.get(
                        slot_of(a.key), ())) for a in self._by_turn.get(turn, ())) >= 2
        return self._sums[turn]

    def echoes(self, old: Anchor, olds: Iterable[Anchor], before: int) -> list[Anchor]:
        """The active values of ``olds`` read back from ``old`` in a sum-up after it and
        before turn ``before``."""
        return [e for e in olds if e.status == "active" and e.speaker == "assistant"
                and old.first_turn < e.turns[0] < before and _alike(old, e)
                and self._sums_up(e.turns[0])]


def _alike(a: Anchor, b: Anchor) -> bool:
    """Whether two values of a slot say the same: the same numbers ("9th of March",
    "march 9th"), or, with none, the same words."""
    if slot_of(a.key) != slot_of(b.key):
        return False
    numbers = _numbers(a.value)
    return numbers == _numbers(b.value) if numbers else normalize(a.value) == normalize(b.value)


def _numbers(value: str) -> list[str]:
    """The numbers a value says, whole minutes left out ("7 pm" and "7:00 pm": 7)."""
    return [n for k, n in enumerate(_DIGITS.findall(value)) if not (k and n.strip("0") == "")]


def _fade_stale(draft: _Draft, stats: FoldStats, known: frozenset[str] | None
                ) -> frozenset[str] | None:
    """Items of a section with a ``stale`` status that quote a value since replaced
    take that status: the block never shows a superseded value again through them. The
    replaced values no live anchor holds, returned; ``known``: those of the state given
    (a fold that took no anchor's status reads only the items it added or changed: the
    rest were read when those values were replaced)."""
    state = draft.state
    specs = [s for s in state.sections() if s.stale is not None]
    if not specs:
        return None
    names = {spec.name: spec for spec in specs}
    if known is None or draft.status_changed("anchors"):
        live, replaced = set(), set()
        for a in state.anchors:  # one pass: a long session holds thousands
            if a.status == "active":
                live.add(a.value)
            elif a.status == "superseded":
                replaced.add(a.value)
        stale = frozenset(replaced - live)
        # every item, for the values replaced now (the others' items were read when
        # they were replaced): not every value against every item at every change
        fresh = stale if known is None else stale - known
        read = [(spec, item, fresh) for spec in specs for item in getattr(state, spec.name)]
    else:  # new values are active ones: they may only take a value out
        stale = known - {item.value for s, item, was in draft.owned.values()
                         if s == "anchors" and was is None and item.status == "active"}
        read = []
    if known is not None:  # the items this fold added or changed, for every replaced value
        read += [(names[s], item, stale) for s, item, _ in list(draft.owned.values())
                 if s in names]
    for spec, item, values in read if stale else ():
        if values and spec.is_live(item) and any(v in text_of(item) for v in values):
            draft.own(spec.name, item).status = spec.stale
            stats.updated += 1
    return stale


def _apply_update(draft: _Draft, item_id: str, status: str, turn: int,
                  sources: Mapping[int, Turn], stats: FoldStats) -> None:
    state = draft.state
    item: Any = state.find(item_id)  # every section's item has a status
    spec = next((s for s in state.sections() if s.owns(item_id)), None)
    if item is None or spec is None or status not in spec.updates:
        stats.reject(f"update {item_id}->{status} names no item that can take it")
        return
    if turn not in sources:
        stats.reject(f"update {item_id}->{status} cites turn {turn}, which is not being folded")
        return
    if isinstance(item, OpenTask) and item.owner == "assistant" and status == "done" \
            and sources[turn].role != "assistant" and not _receipt(sources[turn]):
        stats.reject(f"only the assistant, or the user saying it came, can complete its "
                     f"task {item_id}")
        return
    by = None
    if isinstance(item, Anchor) and status == "superseded":
        # a live value of the key as new as it (of these turns, or one they took up; of a
        # budget: an amount; of a name: a name in any role, or the kind sought instead of
        # the one it was found for)
        keys = {item.key, CEILING_OF.get(item.key)} | (NAME_KEYS | {"category"}
                                                       if item.key in NAME_KEYS else set())
        newer = [o for o in state.anchors if o.key in keys and o.id != item.id
                 and o.status == "active" and o.last_turn >= item.last_turn]
        if _offer_turned_down(state, item, sources[turn]):
            # by what the answer gives instead, not by a value offered beside it
            newer = [o for o in newer if o.last_turn == turn]
        elif not newer and not _taken_back(item, sources[turn]):
            stats.reject(f"update {item_id}->superseded names no value of {item.key!r} "
                         "as new as it")
            return
        by = max(newer, key=lambda o: (o.last_turn, int(o.id[1:]))) if newer else None
    if item.status == status:
        return
    item = draft.own(spec.name, item)
    item.status = status
    if "closed_turn" in type(item).model_fields:
        item.closed_turn = turn
    if isinstance(item, Anchor):
        item.superseded_turn = turn
        item.superseded_by = by.id if by is not None else None
    stats.updated += 1


def _receipt(turn: Turn) -> bool:
    """Whether ``turn`` is the user's saying a thing came ("I received the invoice",
    收到短信了): the one word of the user's that completes an assistant's task, the
    other side of its sending. Anything else the user says of the assistant's act (a
    claim, a question) leaves it to the assistant to report."""
    return turn.role == "user" and bool(cue("receipt").search(turn.text))


def _taken_back(item: Anchor, turn: Turn) -> bool:
    """Whether the user takes back, with nothing instead, a value of their own that
    ``turn`` says ("Sorry, Monday is bad after all"), or a constraint of theirs ("算了，
    还是打电话吧" after "别打电话联系我": a rule is lifted, not replaced by a value):
    replaced by no value (``superseded_by`` None)."""
    return item.speaker == "user" and turn.role == "user" and (
        normalize(item.value) in normalize(turn.text)
        or item.kind in ("constraint", "negative_constraint"))


def _offer_turned_down(state: ConversationState, item: Anchor, turn: Turn) -> bool:
    """Whether ``turn`` is the user's answer to the turn just before, which offered the
    assistant's value ``item`` for them to take (an open task of theirs it opened: "Would
    you like me to try 11 am?" "No, that's ok"): turned down, it is replaced by no value."""
    offer = turn.index - 1
    # (named in the answer too: "4 pm is too late")
    return turn.role == "user" and item.speaker != "user" and offer in item.turns \
        and item.last_turn in (offer, turn.index) \
        and any(t.owner == "user" and t.first_turn == offer for t in state.open_tasks)


def _follow_replaced_names(draft: _Draft, stats: FoldStats) -> None:
    """What the assistant or a tool said about a named thing this fold replaced (the
    times offered at the station the user traded for another, the address shared with
    the contact the user changed) was about that thing only: it goes with it. (A
    category replaced, 经济型酒店, names no one thing.) The same words as a category
    replaced, read in no role ("names": "..., a Psychologist." said in passing), go too."""
    gone = {normalize(item.value): item for s, item, was in draft.owned.values()
            if s == "anchors" and was == "active" and item.status == "superseded"
            and item.kind == "name"}
    if gone:  # (not a name still live in another role: a first leg's end, the next's start)
        for a in draft.state.anchors:
            if a.key in WHERE_KEYS and a.status == "active":
                gone.pop(normalize(a.value), None)
    if not gone:
        return
    for a in draft.state.anchors:
        if a.status != "active":
            continue
        # the same words read in no role ("names": "a Psychologist" said in passing) are
        # the value replaced; a named thing's facts go with it (a category, 经济型酒店,
        # names no one thing)
        if a.key == "names" and a.kind == "name":
            # (the user's said after the kind is a pick: "The SUV, please.")
            name = gone.get(normalize(a.value))
            name = name if name is not None and name.key == "category" and (
                a.speaker != "user" or a.last_turn <= name.last_turn) else None
        elif a.subject and a.speaker in ("assistant", "tool"):
            name = gone.get(normalize(a.subject))
            name = None if name is None or name.key == "category" else name
        else:
            continue
        if name is not None:
            a = draft.own("anchors", a)
            a.status = "superseded"
            a.superseded_turn = name.superseded_turn
            a.superseded_by = name.superseded_by
            stats.superseded += 1


def _fold_sentiment(state: ConversationState, delta: StateDelta,
                    sources: Mapping[int, Turn]) -> None:
    s = delta.sentiment
    if s is None or s.turn not in sources:
        return
    prev = state.sentiment
    if prev is not None and s.turn <= prev.turn:
        return  # an older reading never replaces a newer one (keeps the fold idempotent)
    trend: Literal["improving", "stable", "worsening"] = "stable"
    if prev is not None and s.score - prev.score > _SENTIMENT_STEP:
        trend = "improving"
    elif prev is not None and prev.score - s.score > _SENTIMENT_STEP:
        trend = "worsening"
    state.sentiment = Sentiment(label=s.label, score=s.score, trend=trend, reason=s.reason,
                                turn=s.turn)


def _field_anchors(delta: StateDelta, specs: dict[str, FieldSpec]) -> list[NewAnchor]:
    """Values for anchor fields of your own, as anchors: verified and deduplicated like
    any other, then mirrored into the field."""
    out = []
    for spec in specs.values():
        if spec.shape not in ("anchor", "anchor_list") or spec.kind is None:
            continue
        given = getattr(delta, spec.name, None)
        values: list[AnchorValue] = given if isinstance(given, list) else \
            [given] if given else []
        kind: Any = spec.kind  # checked against the anchor kinds when the field was defined
        out += [NewAnchor(kind=kind, key=spec.anchor_key, value=v.value, turns=v.turns)
                for v in values]
    return out


def _fold_field(state: ConversationState, spec: FieldSpec, given: Any,
                sources: Mapping[int, Turn], stats: FoldStats) -> None:
    if spec.shape == "anchor":
        _anchor_field(state, spec, stats)
    elif spec.shape == "anchor_list":
        setattr(state, spec.name, [a.model_copy() for a in state.anchors
                                   if a.key == spec.anchor_key])
    elif spec.shape == "scalar":
        if given is not None:
            _value_field(state, spec, given, sources, stats)
    else:
        for value in given or []:
            _value_field(state, spec, value, sources, stats)


def _anchor_field(state: ConversationState, spec: FieldSpec, stats: FoldStats) -> None:
    """The field takes the active anchor of its key that ``state.anchor`` reads (the
    user's own latest: ``read_first``; set-once: keeps the first and records a different
    later one as a conflict — the first that stands: a value the state replaced, as the
    user's correction replaces it ("Sorry, wrong one, it's 4471-0932"), gives way to the
    first of those live)."""
    live = [a for a in state.anchors if a.key == spec.anchor_key and a.status == "active"]
    if not live:
        return
    if spec.rule == "set_once":  # the first the user gave, else anyone's first
        current = _standing(state, getattr(state, spec.name))
        first = max(live, key=lambda a: (*users_own(a), -a.first_turn, -int(a.id[1:])))
        if current is None or current.speaker != "user" and first.speaker == "user":
            current = first  # (what the assistant said first never hides the user's)
        setattr(state, spec.name, current.model_copy())
        for a in live:
            if normalize(a.value) != normalize(current.value):
                _conflict(state, spec.name, a.value, a.first_turn)
        return
    setattr(state, spec.name, max(live, key=read_first).model_copy())


def _standing(state: ConversationState, held: Anchor | None) -> Anchor | None:
    """``held`` (a field's copy) while the state holds it live; else None: the state
    replaced it, and the first that stands is read anew (not what the fold noted as its
    replacement: the newest of the key, "I also have order 5555-1111", may be another)."""
    now = next((a for a in state.anchors if a.id == held.id), None) if held else None
    return held if now is not None and now.status == "active" else None


def _value_field(state: ConversationState, spec: FieldSpec, given: FieldValue[Any],
                 sources: Mapping[int, Turn], stats: FoldStats) -> None:
    turns = _cited(given.turns, sources)
    if not turns:
        stats.reject(f"{spec.name}={given.value!r} cites no folded turn")
        return
    value, turn = given.value, turns[-1]
    if spec.shape == "model_list":
        key = normalize(str(getattr(value, spec.key or "")))
        items = list(getattr(state, spec.name))
        same = [i for i, v in enumerate(items) if normalize(str(getattr(v, spec.key or ""))) == key]
        if same and items[same[0]] == value:
            stats.deduplicated += 1
            return
        if same:
            items[same[0]] = value
        else:
            items.append(value)
        setattr(state, spec.name, items)
    elif spec.shape == "scalar_list":
        items = list(getattr(state, spec.name))
        if any(_norm(v) == _norm(value) for v in items):
            stats.deduplicated += 1
            return
        setattr(state, spec.name, items + [value])
    else:
        current = getattr(state, spec.name)
        if given.refused:  # "I don't want an exchange": let go of it, if it holds it
            if current is None or _norm(current) != _norm(value) or spec.rule == "set_once" \
                    or turn < _last_set(state, spec.name):
                return
            value = None
        elif current is not None and _norm(current) == _norm(value):
            stats.deduplicated += 1
            return
        if current is not None and spec.rule == "set_once":
            _conflict(state, spec.name, describe(value), turn)
            return
        if turn < _last_set(state, spec.name):
            return  # an older statement never overrides a newer one
        setattr(state, spec.name, value)
    state.field_log.append(FieldEvent(field=spec.name, value=describe(value), turn=turn))
    stats.added += 1


def _last_set(state: ConversationState, name: str) -> int:
    return max((e.turn for e in state.field_log if e.field == name and e.event == "set"),
               default=-1)


def _conflict(state: ConversationState, name: str, value: Any, turn: int) -> None:
    event = FieldEvent(field=name, value=value, turn=turn, event="conflict")
    if event not in state.field_log:
        state.field_log.append(event)


def _norm(value: Any) -> str:
    return normalize(str(describe(value)))


def _next_id(state: ConversationState, spec: Section) -> str:
    # Items are never removed, so the count gives a fresh, deterministic id.
    return f"{spec.prefix}{len(getattr(state, spec.name)) + 1}"
