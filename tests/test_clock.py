"""The clock time a value says, in digits or in words (extract/clock.py)."""

from __future__ import annotations

import pytest

from convstate.extract.clock import clock, same_clock


@pytest.mark.parametrize("value, said", [
    ("1:45 pm", (1, 45, "pm")),
    ("quarter to 2 in the afternoon", (1, 45, "pm")),
    ("a quarter past 12 in the afternoon", (0, 15, "pm")),
    ("half past 5", (5, 30, None)),
    ("five pm", (5, 0, "pm")),
    ("eleven in the morning", (11, 0, "am")),
    ("noon", (0, 0, "pm")),
    ("12 midnight", (0, 0, "am")),
    ("下午两点半", (2, 30, "pm")),
    ("7点", (7, 0, None)),
    ("7点半", (7, 30, None)),
    ("3点15分", (3, 15, None)),
    ("afternoon 2.30", (2, 30, "pm")),
    ("12 noon", (0, 0, "pm")),
    ("$250 per night", None),
    # a number is no time without a half of the day, a colon, 点 or o'clock
    ("4.5分以上", None),
    ("March 2nd", None),
    ("2", None),
])
def test_a_clock_time_in_digits_or_words(value: str, said: tuple[int, int, str | None] | None
                                         ) -> None:
    assert clock(value) == said


@pytest.mark.parametrize("a, b, same", [
    ("1:45 pm", "quarter to 2 in the afternoon", True),
    ("5 pm", "five pm", True),
    ("12:15 pm", "quarter past 12 in the afternoon", True),
    ("7点", "晚上7点", True),  # one says no half of the day
    ("7:30 am", "7:30 pm", False),
    ("早上8点", "晚上8点", False),
    ("2 pm", "1:45 pm", False),
    ("4.5分以上", "4.4分", False),
    ("3点", "3点15分", False),
    ("12 noon", "midnight", False),
    ("2.30 pm", "2 pm", False),
])
def test_a_time_read_back_in_other_words_is_the_same(a: str, b: str, same: bool) -> None:
    assert same_clock(a, b) is same and same_clock(b, a) is same
