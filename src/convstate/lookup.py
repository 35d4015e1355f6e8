"""Finding a value as an agent types it: where it is now, which item and turn hold it.

``ConversationMemory.where(text)`` answers with a ``Found``: a ``str`` that is the place
("raw", "block", "state", "pending", "store", "nowhere", as before) and carries the id
of the state item that holds the value (``item``), the latest turn that said it
(``turn``) and the value as it was written there (``value``).

What matches (``Matcher``): a phone number or an id whatever its separators and case,
as a whole value ("3125550186" finds "312-555-0186" and "+1 (312) 555-0186", "+1 312 555
0186" finds "312-555-0186", "bx77412290" finds "BX-7741-2290"; "77412290" and
"DD2024031588", a part of DD20240315889, do not); a phone number with or without its
country code and trunk prefix, by E.164 ("+44 20 7946 0958" finds "020 7946 0958",
"8613922223333" finds "13922223333"; "5550186" is not the end of "+1 312 555 0186", nor
"+44 312 555 0186" "+1 312 555 0186"); any other text as typed, anywhere, in any case
("ZHANG.WEI@X.COM" finds zhang.wei@x.com, and any part of a turn is found, as where()
always found it).
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
_VALUE = re.compile(r"(?:\(?\+|\()?[A-Za-z0-9][A-Za-z0-9 +().\-/#_]*")
_SEP = r"[\s().\-/#_（）]{0,3}"  # between two characters of a value: "312) 555-0186"
# a whole value, not a part of a longer one ("77412290" is not BX-7741-2290)
_EDGE = r"(?<![0-9A-Za-z])(?<![0-9A-Za-z][-./])", r"(?![0-9A-Za-z])(?![-./][0-9A-Za-z])"
# ... and a whole phone number, not the last groups of a longer one ("555 0186" of "+1 312
# 555 0186" or "(312) 555-0186", "312)555-0186" of "+44(312)555-0186"), nor one after a
# "+" (+3125550186 is a Dutch number)
_PHONE_EDGE = _EDGE[0] + r"(?<!\+)(?<!\d[\s()（）])(?<!\d[()（）]\s)"
MIN_VALUE_CHARS = 4  # letters and digits: shorter is a word or a number, not an id
MIN_PHONE_DIGITS = 7
# E.164: a phone number in its international form is a country code of 1 to 3 digits and
# the national (significant) number, after "+" or the international prefix 00; in its
# national form it is the national number, often after a trunk prefix 0 ("020 7946 0958"
# is +44 20 7946 0958, "021-64381234" +86 21 6438 1234) or, in North America, 1. Country
# codes are a prefix code (no code begins another): 1 and 7 alone, two digits where
# their zone gives them out (44, 49, 86...), three digits elsewhere (353, 852...), so the
# digits after "+" say where the code ends.
_TWO_DIGIT_CODES = r"20|27|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[1246]|9[0-58]"
_COUNTRY_CODE = rf"(?:[17]|{_TWO_DIGIT_CODES}|(?!{_TWO_DIGIT_CODES})[2-689]\d\d)"
# A country code typed or said without "+" or 00 ("12125550199", "8613922223333") is read
# only before a whole national number, 9 digits or more (most countries' are 9 to 11): a
# number of 7 or 8 digits may be a local one, what is before it its area code (312 of
# 312 555-0186), not a country.
MIN_NATIONAL_AFTER_BARE_CODE = 9
MAX_PHONE_DIGITS = 15  # a country code and a national number together, by E.164


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
    code or without one, whichever way it was typed (``_phone_patterns``)."""
    if not (alnum.isdigit() and len(alnum) >= MIN_PHONE_DIGITS):
        return [_EDGE[0] + _SEP.join(map(re.escape, alnum)) + _EDGE[1]]
    return _phone_patterns(typed)


def _country_code(digits: str) -> str | None:
    """The country code ``digits`` begin with, read as an international number."""
    m = re.match(_COUNTRY_CODE, digits)
    return m.group(0) if m else None


def _phone_readings(typed: str) -> list[tuple[str | None, str]]:
    """The (country code, national number) a typed phone number may be, the country
    code None where the number says none: "+44 20 7946 0958" and "0044 (0)20 7946 0958"
    are ("44", "2079460958"); "020 7946 0958" is (None, "2079460958") after its trunk 0
    (and (None, "02079460958"), its digits as they are); "12125550199" is (None,
    "12125550199") and ("1", "2125550199"), a country code typed without "+"."""
    digits = re.sub(r"\D", "", re.sub(r"\(0\)", "", typed))  # "(0)": the trunk 0, left out
    readings: list[tuple[str | None, str]] = []
    if re.match(r"\(?\+|00", typed.strip()):
        number = digits[2:] if typed.strip().startswith("00") else digits
        code = _country_code(number)
        if code is not None:
            national = number[len(code):]
            readings = [(code, national)]
            if national.startswith("0"):  # a trunk 0 kept after the code: +44 020 ...
                readings.append((code, national[1:]))
    if not readings:
        readings = [(None, digits)]
        if digits.startswith("0"):
            readings.append((None, digits[1:]))
        elif (code := _country_code(digits)) is not None and len(digits) <= MAX_PHONE_DIGITS \
                and len(digits) - len(code) >= MIN_NATIONAL_AFTER_BARE_CODE:
            readings.append((code, digits[len(code):]))
    return [(code, national) for code, national in readings
            if len(national) >= MIN_PHONE_DIGITS]


def national_numbers(typed: str) -> set[str]:
    """The national numbers a typed phone number may be (``_phone_readings``): two
    layouts of one number, with a country code or without, share one."""
    return {national for _, national in _phone_readings(typed)}


def _phone_patterns(typed: str) -> list[str]:
    """Patterns of a typed phone number: the same number said in any of its forms, its
    national numbers (``_phone_readings``) alike once a country code and a trunk prefix
    are put aside: after "+" or 00 and a country code (the typed one, any one if none was
    typed, with or without a trunk 0 after it: "+44 (0)20 ..."), after a trunk prefix
    (0; 1 before ten digits, North America's), or alone; a country code said without
    "+" (any one if none was typed) last, and only before a whole national number. Never
    the last digit groups of a longer number: "5550186" is not "+1 312 555 0186" nor
    "(312) 555-0186" (a local number is not a longer one that ends with it), "+1 312 555
    0186" not "+44 312 555 0186"."""
    trunk = f"0{_SEP}"
    first, last = [], []
    for code, national in _phone_readings(typed):
        core = _SEP.join(national) + _EDGE[1]
        if code is not None:
            said = [rf"(?:\+|00){code}{_SEP}(?:{trunk})?", f"{code}{_SEP}", trunk]
        else:
            said = [rf"(?:\+|00){_COUNTRY_CODE}{_SEP}(?:{trunk})?", trunk]
            if len(national) == 10:
                said.append(f"1{_SEP}")
            if len(national) >= MIN_NATIONAL_AFTER_BARE_CODE:
                last.append(_PHONE_EDGE + _COUNTRY_CODE + _SEP + core)
        first.append(_PHONE_EDGE + "(?:" + "|".join(said) + ")?" + core)
    return first + last


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
