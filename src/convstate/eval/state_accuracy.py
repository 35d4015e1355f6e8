"""The state as code reads it: after each user turn of a replayed dialogue, does
``mem.state`` hold the gold dialogue state of that turn?

The gold, per user turn (``state_by_turn[]``; sets without it are not measured):

- SGD: ``slot_values`` of each frame, by (service, slot); a slot's list holds surface
  forms of one value ("SFO", "San Francisco"), any of which counts;
- CrossWOZ: ``user_state`` rows ``[goal id, domain, slot, value, mentioned]`` that the
  user has mentioned and that carry a value; a list value counts by any of its items; a
  pointer into another sub-goal ("出现在id=3的周边景点里") is no value and is skipped.

An item *holds* a value when what it says (its text, an anchor's value, an anchor's
subject, and a count's number: "two bedrooms" says 2) contains one of the value's
forms, case-insensitively, a number only as a whole number ("5分" is not held by
"4.5分以上", nor "2" people by a phone with a 2). A yes or a no (SGD's ``True``/
``False``, CrossWOZ's ``是``/``否`` of a facility: no text says it) is held only by the
latest live typed yes/no item about the thing the slot names: an answer to a closed
question (``Decision.about``/``answer``: "Would you like to buy insurance?" answered no
holds ``add_insurance: False``) or a feature the user requires or forbids
(``Preference.text``/``polarity``: "with live music" holds ``has_live_music: True``).
The thing is the name's last word, or the one before a last word that says what holds
of it (``pets_allowed``: pets); the item names it by one of its last two words (a
plural as its singular), a Chinese one by its whole topic without 服务/设施 (洗衣 of
洗衣服务). A yes or a no counts in turn recall and folded recall only: no anchor holds
one, nor does any text. A *live* item has its section's live status; an
*active* anchor, status ``active``. The measures, over every read of every dialogue:

- ``state_turn_recall``: the slots of each turn's gold state held by a live item;
- ``state_anchor_recall``: the same, held by an active anchor;
- ``state_stale``: of the values the gold state replaced for a slot (not another
  surface form of the slot's last value: its forms and the last one's do not contain
  one another; nor the last value of another slot, as a requirement asked again for the
  next sub-goal), those still held by an active anchor at the end while the last value
  is held by a live item;
- ``state_precision``: of the active anchors at each read, those whose value contains a
  gold value of the dialogue stated up to that turn (replaced ones included: a replaced
  value is counted by ``state_stale``, not here). The gold is the *user's* dialogue
  state, so a value the assistant offered and the user never took (the phone of a
  restaurant not chosen) counts against it; and containment is the recall's;
- ``state_folded_recall``: the last gold state's slots held by a live item after
  ``compact(keep_recent_turns=0)`` at the end: what extraction gives when every turn is
  folded, the ceiling of turn recall;
- ``state_said_recall`` (beside the measures): turn recall over the gold values some
  turn so far says (either speaker, any surface form). A gold state holds values no
  text states (SGD's ``true``/``false``/``dontcare``, "music" for "a concert"), which
  no state of what was said holds; this tells those apart from what extraction missed
  (a yes or a no is left out of it even when a typed answer holds it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..extract.acts import HAN_RUN
from ..lang import cue
from ..normalize import normalize
from ..sections import field_of, text_of
from ..state import ConversationState
from .tally import Tally

Slot = tuple[Any, ...]
Forms = tuple[str, ...]  # the surface forms of one value, lower case
GoldState = dict[Slot, Forms]

MEASURES = ("state_turn_recall", "state_anchor_recall", "state_stale", "state_precision",
            "state_folded_recall")


def _forms(value: Any) -> Forms:
    values = value if isinstance(value, list) else [value]
    return tuple(v.lower() for v in values if isinstance(v, str) and v.strip())


def gold_states(rows: Sequence[Mapping[str, Any]] | None) -> dict[int, GoldState]:
    """The gold state of each user turn whose row carries one (``slot_values`` or
    ``user_state``; an empty one included), by slot; the frames of one turn (SGD: one
    per service) are merged. A malformed row raises ValueError naming it."""
    out: dict[int, GoldState] = {}
    for k, row in enumerate(rows or []):
        turn = row.get("turn")
        if not isinstance(turn, int) or not {"slot_values", "user_state"} & row.keys():
            continue
        slots = out.setdefault(turn, {})
        values = row.get("slot_values") or {}
        if not isinstance(values, Mapping):
            raise ValueError(f"state_by_turn[{k}].slot_values: expected an object of slots")
        for name, value in values.items():
            if forms := _forms(value):
                slots[(row.get("service"), name)] = forms
        for j, entry in enumerate(row.get("user_state") or []):
            if not isinstance(entry, list) or len(entry) != 5:
                raise ValueError(f"state_by_turn[{k}].user_state[{j}]: expected [goal id, "
                                 "domain, slot, value, mentioned]")
            goal, domain, name, value, mentioned = entry
            forms = _forms(value)
            if mentioned and forms and not any("id=" in f for f in forms):
                slots[(goal, domain, name)] = forms
    return out


def _said(item: Any) -> str:
    """What an item says, lower case: its text or value, what it is about, and how many
    for a count (``Anchor.count``: "two bedrooms" says 2)."""
    subject, count = field_of(item, "subject"), field_of(item, "count")
    return f"{text_of(item)}\n{subject or ''}\n{'' if count is None else count}".lower()


def _live(state: ConversationState) -> list[str]:
    return [_said(item) for spec in state.sections() for item in getattr(state, spec.name)
            if spec.is_live(item)]


# a yes or a no no text says: SGD's True/False, CrossWOZ's 是/否 (a hotel's facility)
_BOOLEANS: dict[Forms, bool] = {("true",): True, ("false",): False, ("是",): True,
                                ("否",): False}
_NAME_PARTS = re.compile(r"[_\-\s]+")


def _answers(state: ConversationState) -> list[tuple[frozenset[str], bool]]:
    """The live typed yes/no items, oldest first: (the words that may name what each is
    about; yes or no). Those are the answers to closed questions
    (``Decision.about``/``answer``) and the features the user requires or forbids
    (``Preference.text``/``polarity``, a Chinese one by its ``topic``)."""
    typed = [(d.last_turn, d.about, bool(d.answer)) for d in state.decisions
             if d.status == "active" and d.about and d.answer is not None]
    typed += [(p.last_turn, p.topic if HAN_RUN.search(p.topic) else p.text,
               p.polarity == "require") for p in state.preferences
              if p.status == "active" and p.polarity in ("require", "forbid")]
    return [(_heads(about), yes) for _, about, yes in sorted(typed, key=lambda t: t[0])]


def _answered(answers: list[tuple[frozenset[str], bool]], slot: Slot, forms: Forms) -> bool:
    """Whether the latest typed yes/no item about the thing a slot names holds its gold
    value (``has_live_music``: "with live music"; ``add_insurance``: "Would you like to
    buy insurance?"; 酒店设施-吹风机: 有吹风机)."""
    thing = _thing(str(slot[-1]))
    latest = None
    for heads, yes in answers:
        if thing in heads:
            latest = yes
    return latest is _BOOLEANS[forms]


def _thing(name: str) -> str:
    """The thing a slot's name says: its last word, or the one before a last word that
    says what holds of it (``pets_allowed``: pets)."""
    words = [w for w in _NAME_PARTS.split(name) if w]
    last = words[-1] if words else name
    if len(words) > 1 and last.lower().endswith("ed"):
        last = words[-2]
    return next(iter(_heads(last)), "")


def _heads(phrase: str) -> frozenset[str]:
    """The words that may head a phrase, as both sides compare them: its last two words,
    normalized, a plural as its singular ("with live music": live, music; "kid-friendly":
    kid, friendly; not "bar" of "minibar"); a Chinese phrase whole, without a generic
    head (洗衣 of 洗衣服务; 电话 is no 国际长途电话, 餐厅 no 中式餐厅)."""
    if HAN_RUN.search(phrase):
        thing = cue("feature_generic").sub("", phrase)  # (the extractor's generic heads)
        return frozenset({normalize(thing) or normalize(phrase)})
    words = (normalize(w) for w in _NAME_PARTS.split(phrase)[-2:])
    return frozenset(w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words if w)


def _held(texts: Iterable[str], forms: Forms) -> bool:
    return any(_contains(t, f) for t in texts for f in forms)


def _contains(text: str, form: str) -> bool:
    """Whether ``text`` says ``form``; a number in it only whole: "5分" is not in
    "4.5分以上", nor "2" in "12" or "2.5"."""
    if not (form[0].isdigit() or form[-1].isdigit()):
        return form in text
    return _whole(form).search(text) is not None


@lru_cache(maxsize=4096)
def _whole(form: str) -> re.Pattern[str]:
    """``form`` where no digit (nor a decimal point) goes on from its numbers."""
    return re.compile((r"(?<![\d.])" if form[0].isdigit() else "") + re.escape(form)
                      + (r"(?!\.?\d)" if form[-1].isdigit() else ""))


def _same_value(a: Forms, b: Forms) -> bool:
    """Whether two gold readings are surface forms of one value ("SFO" and "San
    Francisco" come together; "March 3rd" and "3rd"; not "5分" and "4.5分以上")."""
    return any(_contains(y, x) or _contains(x, y) for x in a for y in b)


class StateAccuracy:
    """The state-accuracy reads of one dialogue as it is replayed: ``read`` after each
    turn, ``end`` after the last, ``folded`` after ``compact(keep_recent_turns=0)``;
    ``tally`` counts them under the names of ``MEASURES``."""

    def __init__(self, rows: Sequence[Mapping[str, Any]] | None):
        self.gold = gold_states(rows)
        self.tally = Tally()
        self._values: dict[Slot, list[Forms]] = {}  # each slot's values, in order
        self._stated: set[str] = set()  # every gold form so far
        self._last: GoldState = {}
        self._heard: list[str] = []  # every turn's text so far, lower case
        self._said_forms: set[Forms] = set()  # the gold values some turn has said

    def hear(self, text: str) -> None:
        """Take one turn's text as said (before ``read`` of that turn)."""
        self._heard.append(text.lower())

    def _said_so_far(self, forms: Forms) -> bool:
        if forms not in self._said_forms and _held(self._heard, forms):
            self._said_forms.add(forms)  # (said once, said for good)
        return forms in self._said_forms

    def read(self, turn: int, state: ConversationState) -> None:
        """Score ``state`` against the gold state of ``turn`` (nothing if it has none)."""
        gold = self.gold.get(turn)
        if gold is None:
            return
        live = _live(state)
        active = state.active_anchors()
        anchors = [_said(a) for a in active]
        answers = _answers(state)
        for slot, forms in gold.items():
            if forms in _BOOLEANS:  # (no anchor's value, nor any text, says a yes)
                self.tally.add("state_turn_recall", _answered(answers, slot, forms))
                continue
            held = _held(live, forms)
            self.tally.add("state_turn_recall", held)
            if self._said_so_far(forms):
                self.tally.add("state_said_recall", held)
            self.tally.add("state_anchor_recall", _held(anchors, forms))
            seen = self._values.setdefault(slot, [])
            if not seen or seen[-1] != forms:
                seen.append(forms)
            self._stated.update(forms)
        for a in active:
            value = a.value.lower()
            self.tally.add("state_precision", any(_contains(value, f) for f in self._stated))
        if gold:
            self._last = gold

    def end(self, state: ConversationState) -> None:
        """Count the replaced values ``state`` still holds active beside their
        replacement."""
        live = _live(state)
        anchors = [_said(a) for a in state.active_anchors()]
        current = [seen[-1] for seen in self._values.values()]
        for seen in self._values.values():
            last = seen[-1]
            # a value replaced for one slot may be current for another (4.5分以上 asked
            # again for the next sub-goal): held, it is no stale value
            replaced = {old for old in seen[:-1]
                        if not any(_same_value(old, now) for now in current)}
            for old in replaced:
                self.tally.add("state_stale", _held(anchors, old) and _held(live, last))

    def folded(self, state: ConversationState) -> None:
        """Score ``state``, with every turn folded, against the last gold state."""
        live, answers = _live(state), _answers(state)
        for slot, forms in self._last.items():
            self.tally.add("state_folded_recall", _answered(answers, slot, forms)
                           if forms in _BOOLEANS else _held(live, forms))


def state_scores(tally: Tally) -> dict[str, Any]:
    """The measures (None where nothing was read), turn recall over values said, and the
    slots read and the values replaced they count over."""
    return {name: tally.rate(name) for name in MEASURES} | {
        "state_said_recall": tally.rate("state_said_recall"),
        "state_slots": tally.totals["state_turn_recall"],
        "state_replaced": tally.totals["state_stale"]}
