"""Finding a value as an agent types it: where it is now, which item and turn hold it.

``ConversationMemory.where(text)`` answers with a ``Found``: a ``str`` that is the place
("raw", "block", "state", "pending", "store", "nowhere", as before) and carries the id
of the state item that holds the value (``item``), the latest turn that said it
(``turn``) and the value as it was written there (``value``).

What matches (``Matcher``): a phone number or an id whatever its separators and case,
as a whole value ("3125550186" finds "312-555-0186" and "+1 (312) 555-0186", "+1 312 555
0186" finds "312-555-0186", "bx77412290" finds "BX-7741-2290"; "77412290" and
"DD2024031588", a part of DD20240315889, do not); any other text as typed, anywhere, in
any case ("ZHANG.WEI@X.COM" finds zhang.wei@x.com, and any part of a turn is found, as
where() always found it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Literal

from .fields import describe
from .sections import text_of
from .state import ConversationState
from .turns import Turn

Where = Literal["raw", "block", "state", "pending", "store", "nowhere"]

# A phone number or an id as typed: letters, digits and the marks that separate them.
_VALUE = re.compile(r"[+(]?[A-Za-z0-9][A-Za-z0-9 +().\-/#_]*")
_SEP = r"[\s().\-/#_（）]{0,3}"  # between two characters of a value: "312) 555-0186"
# a whole value, not a part of a longer one ("77412290" is not BX-7741-2290)
_EDGE = r"(?<![0-9A-Za-z])(?<![0-9A-Za-z][-./])", r"(?![0-9A-Za-z])(?![-./][0-9A-Za-z])"
MIN_VALUE_CHARS = 4  # letters and digits: shorter is a word or a number, not an id
MIN_PHONE_DIGITS = 7


class Found(str):
    """Where a value is: the ``str`` is the place (``Where``); ``item`` the id of the
    state item holding it (a live one first, None when none does), ``turn`` the latest
    stored turn that said it (None: never said), ``value`` the value as written there
    (an agent typed "3125550186", the turn said "312-555-0186")."""

    place: Where
    item: str | None
    turn: int | None
    value: str | None

    def __new__(cls, place: Where, item: str | None = None, turn: int | None = None,
                value: str | None = None) -> Found:
        self = super().__new__(cls, place)
        self.place, self.item, self.turn, self.value = place, item, turn, value
        return self

    def __repr__(self) -> str:
        return f"Found({self.place!r}, item={self.item!r}, turn={self.turn!r}, " \
               f"value={self.value!r})"


class Matcher:
    """``text`` as an agent types it, compiled once, looked for in what was said."""

    def __init__(self, text: str):
        self.text = text
        typed = text.strip()
        alnum = re.sub(r"[^0-9A-Za-z]", "", typed)
        self.patterns = [re.compile(p, re.IGNORECASE) for p in _value_patterns(typed, alnum)] \
            if _VALUE.fullmatch(typed) and len(alnum) >= MIN_VALUE_CHARS \
            and any(c.isdigit() for c in alnum) else []
        # else the text itself, anywhere, in any case (as where() always found it); not
        # after a phone number or an id: a part of one ("DD2024031588" of DD20240315889)
        # is a mistyped value, not the value
        if text and not self.patterns:
            self.patterns = [re.compile(re.escape(text), re.IGNORECASE)]

    def find(self, said: str) -> str | None:
        """The value as ``said`` writes it (a whole phone number or id first, else the
        text typed), or None when ``said`` does not hold it."""
        for pattern in self.patterns:
            if m := pattern.search(said):
                start = m.start()
                if start and said[start - 1] in "(（" and any(c in m.group(0) for c in ")）"):
                    start -= 1  # "(312) 555-0186": its area code's opening bracket too
                return said[start:m.end()]
        return None


def _value_patterns(typed: str, alnum: str) -> list[str]:
    """Patterns of a typed id or phone number: its letters and digits in order, any
    separators between them. A phone number (digits only) may be written with a country
    code or without one, whichever way it was typed."""
    if not (alnum.isdigit() and len(alnum) >= MIN_PHONE_DIGITS):
        return [_EDGE[0] + _SEP.join(map(re.escape, alnum)) + _EDGE[1]]
    cores = [alnum]
    if typed.startswith(("+", "00")):  # typed with a country code: said without one
        digits = alnum[2:] if typed.startswith("00") else alnum
        cores += [digits[k:] for k in (1, 2, 3) if len(digits) - k >= MIN_PHONE_DIGITS]
    # typed without one: said with one (+1, +86, 0086), or a North American ten-digit
    # number with its trunk 1 (1-312-...)
    return [_EDGE[0] + rf"\+?(?:(?:\+|00)\d{{1,3}}{_SEP}" + (f"|1{_SEP}" if len(c) == 10 else "")
            + ")?" + _SEP.join(c) + _EDGE[1] for c in cores]


def locate(text: str, raw: Iterable[str], block: str, state: ConversationState,
           turns: Sequence[Turn], extracted_through: int) -> Found:
    """Where ``text`` is now, the first place that holds it: the context's ``raw`` turns,
    its ``block``, the ``state`` only, an unextracted turn (after ``extracted_through``)
    the context left out ("pending"), only a stored turn the state kept nothing of
    ("store"), or "nowhere"; with the item and the turn that hold it."""
    m = Matcher(text)
    item, held = _item(m, state)
    said = [(t.index, hit) for t in turns if (hit := m.find(t.text)) is not None]
    turn, value = said[-1] if said else (None, held)
    if any(m.find(content) is not None for content in raw):
        place: Where = "raw"
    elif m.find(block) is not None or json.dumps(text, ensure_ascii=False)[1:-1] in block:
        place = "block"
    elif held is not None:
        place = "state"
    elif turn is None:
        place = "nowhere"
    else:
        place = "pending" if turn > extracted_through else "store"
    return Found(place, item, turn, value)


def _item(m: Matcher, state: ConversationState) -> tuple[str | None, str | None]:
    """(the id of the item that holds the value, the value as the state holds it): a
    live item first, then in section order (anchors first), the latest; a field of your
    own holds it with no id."""
    best: tuple[tuple[bool, int, int], str, str] | None = None
    for rank, spec in enumerate(state.sections()):
        for item in getattr(state, spec.name):
            hit = m.find(text_of(item))
            if hit is not None:
                key = (spec.is_live(item), -rank, item.last_turn)
                if best is None or key > best[0]:
                    best = (key, item.id, hit)
    if best is not None:
        return best[1], best[2]
    for name in state.custom_fields():
        hit = m.find(str(describe(getattr(state, name))))
        if hit is not None:
            return None, hit
    return None, None
