"""The clock time a value says, in digits or in words: "1:45 pm", "quarter to 2 in the
afternoon", "five pm", "half past 5", 下午两点半 are each an hour, its minutes and the half
of the day when said, so a time read back in other words is the same time."""

from __future__ import annotations

import re

from ..lang import number_in
from ..lang.en import NUMBER_WORDS

# minutes said before the hour: "quarter past 5", "half past 5", "quarter to 6"
_BEFORE = re.compile(r"\b(?:a\s+)?(quarter|half)\s+(past|to)\s+(\S+)", re.IGNORECASE)
# the hour before 点 with 半 or its minutes (3点半, 3点15分), or in digits with its minutes
# ("2:30", "2.30 pm"), a number of its own ("$250" is none)
_DIGITS = re.compile(r"([零一二两三四五六七八九十]{1,3}|\d{1,2})点"
                     r"(半|[零一二三四五六七八九十\d]{1,3}分?)?"
                     r"|(?<![\d$¥.,])(\d{1,2})(?:[:.](\d{2}))?(?![\d,])")
_WORD = re.compile(rf"\b(?:{NUMBER_WORDS}|noon|midnight)\b", re.IGNORECASE)
_PM = re.compile(r"\d\s*p\.?m\b|\bpm\b|\bp\.m\b|afternoon|evening|(?<!mid)night|\bnoon\b"
                 r"|下午|晚上|傍晚|夜里|中午", re.IGNORECASE)
# what says a number is a time when no half of the day is said ("7:30", 7点, "5 o'clock")
_TIMED = re.compile(r"\d:\d{2}|点|o['’]?clock|\bmidnight\b", re.IGNORECASE)
_AM = re.compile(r"\d\s*a\.?m\b|\bam\b|\ba\.m\b|morning|midnight|早上|早晨|上午|凌晨",
                 re.IGNORECASE)


def clock(value: str) -> tuple[int, int, str | None] | None:
    """(hour 0-11, minutes, "am" / "pm" / None when no half of the day is said) of
    ``value``; None if it says no clock time."""
    half = "pm" if _PM.search(value) else "am" if _AM.search(value) else None
    if m := _BEFORE.search(value):
        hour = _hour(m.group(3))
        if hour is None:
            return None
        minutes = 30 if m.group(1).lower() == "half" else 15
        if m.group(2).lower() == "to":
            hour, minutes = hour - 1, 60 - minutes
        return hour % 12, minutes, half
    if half is None and not _TIMED.search(value):
        return None  # a number, not a time (4.5分, "March 2nd", "2 people")
    if m := _DIGITS.search(value):
        if m.group(3) is not None:
            hour, minutes = int(m.group(3)), int(m.group(4) or 0)
            half = half or ("pm" if hour > 12 else None)
        else:
            hour = number_in(m.group(1)) or 0
            said = m.group(2) or ""
            minutes = 30 if said == "半" else (number_in(said) or 0) if said else 0
        return hour % 12, minutes, half
    if m := _WORD.search(value):
        word = m.group(0).lower()
        if word in ("noon", "midnight"):
            return 0, 0, "pm" if word == "noon" else "am"
        return (number_in(word) or 0) % 12, 0, half
    return None


def _hour(word: str) -> int | None:
    """The hour a word or digits say ("6", "six"); None if none."""
    n = number_in(word.rstrip(".,!?"))
    return n if n is not None and 1 <= n <= 12 else None


def same_clock(a: str, b: str) -> bool:
    """Whether two values say one clock time: the same hour and minutes, in no other half
    of the day ("1:45 pm" and "quarter to 2 in the afternoon"; "7点" and 晚上7点; not 7:30
    am and 7:30 pm)."""
    x, y = clock(a), clock(b)
    return x is not None and y is not None and x[:2] == y[:2] \
        and (x[2] is None or y[2] is None or x[2] == y[2])
