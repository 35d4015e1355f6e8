"""The language pack: what a language module gives convstate (see the package)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class LanguagePack:
    """One language. ``cues`` map a cue's name to a regex source (matched ignoring
    case); ``labels`` the block's words; ``letters`` a character class of the language's
    letters and ``weight`` what one of them counts for in detection; ``numbers`` its
    number words (a regex source) and ``number_values`` what each is worth ("two": 2, "两":
    2: a count said in words is read as a number); ``words`` the word tables a grammar of the rule
    extractor reads (``extract/tasks.py``: verb forms, verb classes...), each a string of
    words, groups separated by ``;``."""

    code: str
    letters: str
    labels: Mapping[str, str]
    cues: Mapping[str, str] = field(default_factory=dict)
    numbers: str = ""
    number_values: Mapping[str, int] = field(default_factory=dict)
    weight: float = 1.0
    words: Mapping[str, str] = field(default_factory=dict)
