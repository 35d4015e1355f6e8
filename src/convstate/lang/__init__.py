"""Language packs: everything convstate knows about a language, in one module each.

A pack (``LanguagePack``) holds the block's words (title, section titles, speakers), the
rule extractor's cue lexicons (what a negative constraint, a goal, a commitment, a
question... sounds like), its number words, and what its letters look like (for
detection). The rule extractor matches the cues of every pack at once, so a conversation
that mixes languages is read whole. Adding a language is one module that builds a pack
and registers it: ``LANGUAGES.register(pack.code, pack)`` (a plugin can, see registry).
"""

from __future__ import annotations

import re
import weakref
from functools import lru_cache
from typing import Any

from pydantic import Field

from ..registry import LANGUAGES
from .langpack import LanguagePack


def pack(code: str) -> LanguagePack:
    """The pack of language ``code``; ConfigError naming the known ones."""
    found: LanguagePack = LANGUAGES.get(code)
    return found


_compiled: dict[tuple[str, int], re.Pattern[str]] = {}


def cue(name: str) -> re.Pattern[str]:
    """The cue ``name`` of every pack that has one, as one pattern (ignoring case);
    one that matches nothing when no pack has it. Rebuilt when a pack is added."""
    key = (name, LANGUAGES.version)
    if key not in _compiled:
        sources = [p.cues[name] for p in _packs() if name in p.cues]
        _compiled[key] = re.compile("|".join(f"(?:{s})" for s in sources) or r"(?!)",
                                    re.IGNORECASE)
    return _compiled[key]


class Cues:
    """Every pack's cues by attribute: ``Cues().negative`` is ``cue("negative")``. A cue
    looked up once is a plain attribute after (the rule extractor reads thousands a
    turn), until a pack is registered."""

    def __init__(self) -> None:
        _CUES.add(self)

    def __getattr__(self, name: str) -> re.Pattern[str]:
        if name.startswith("_"):
            raise AttributeError(name)
        found = self.__dict__[name] = cue(name)
        return found


_CUES: weakref.WeakSet[Cues] = weakref.WeakSet()


def _forget_cues() -> None:
    """A pack was registered: every cue is built again at its next lookup."""
    for cues in list(_CUES):
        cues.__dict__.clear()


LANGUAGES.watch(_forget_cues)


def detect_language(text: str) -> str | None:
    """The pack whose letters weigh most in ``text`` (ties: the pack registered first);
    None when no pack's letters occur."""
    best, best_score = None, 0.0
    for p, runs in _letter_runs(LANGUAGES.version):
        score = sum(map(len, runs.findall(text))) * p.weight
        if score > best_score:
            best, best_score = p.code, score
    return best


@lru_cache(maxsize=4)
def _letter_runs(version: int) -> list[tuple[LanguagePack, re.Pattern[str]]]:
    """Each pack with a pattern of runs of its letters: a letter is one character, and
    counting runs' lengths spares a match object per letter."""
    del version  # the cache key: rebuilt when a pack is registered
    return [(p, re.compile(f"(?:{p.letters})+")) for p in _packs()]


def language_field(description: str = "The conversation's language.") -> Any:
    """A language code field: any code with a pack in Python; in a JSON Schema, an enum
    of the packs there are (a model picks from a list far better than it fills a
    pattern)."""
    def enum(schema: dict[str, Any]) -> None:
        schema.clear()
        schema.update({"anyOf": [{"enum": list(LANGUAGES.names()), "type": "string"},
                                 {"type": "null"}],
                       "default": None, "description": description})
    return Field(default=None, pattern=r"^[a-z]{2,3}(?:-[A-Za-z0-9]+)?$",
                 json_schema_extra=enum)


def number_in(text: str) -> int | None:
    """The first whole number ``text`` says, in digits or in a pack's number words ("two
    bedrooms": 2, "We are 4.": 4, "三张票": 3, "十二个": 12); None if it says none, or
    none it can tell (a decimal, an ordinal, "1,200", 两三张, 一百二十)."""
    values, pattern = _number_words(LANGUAGES.version)
    m = pattern.search(text)
    if m is None:
        return None
    if m.group(1):
        return int(m.group(1))
    word = m.group(0).lower()
    if word in values:
        return values[word]
    tens, _, ones = word.partition("十")  # 十二, 二十, 二十五: a Chinese numeral of two places
    return (values[tens] if tens else 1) * 10 + (values[ones] if ones else 0)


def number_pattern() -> re.Pattern[str]:
    """The pattern ``number_in`` reads a number by (digits in group 1, or a pack's number
    word), to find every number of a text and where it ends."""
    return _number_words(LANGUAGES.version)[1]


@lru_cache(maxsize=4)
def _number_words(version: int) -> tuple[dict[str, int], re.Pattern[str]]:
    """Every pack's number words with their values, and a pattern of a number: digits
    (group 1), a word (a Latin one whole), or one character numeral alone, or two
    places around 十."""
    del version  # the cache key: rebuilt when a pack is registered
    values = {w.lower(): n for p in _packs() for w, n in p.number_values.items()}
    words = sorted((w for w in values if len(w) > 1), key=len, reverse=True)
    digits = "".join(re.escape(w) for w, n in values.items() if len(w) == 1 and n < 10)
    alternatives = [r"(?<![\d.,])(\d+)(?!\.?\d|,\d|st\b|nd\b|rd\b|th\b)"]
    alternatives += [r"\b(?:" + "|".join(map(re.escape, words)) + r")\b"] if words else []
    if digits:  # (not next to another numeral: 两三张, 一百二十 say no one number)
        around = rf"[{digits}十百千万亿]"
        alternatives += [rf"(?<!{around})(?:[{digits}]?十[{digits}]?|[{digits}])(?!{around})"]
    return values, re.compile("|".join(alternatives), re.IGNORECASE)


def _packs() -> list[LanguagePack]:
    return [LANGUAGES.get(code) for code in LANGUAGES.names()]


def _register_built_ins() -> None:
    from . import en, zh

    for p in (zh.PACK, en.PACK):  # zh first: a tie between the two is Chinese
        LANGUAGES.register(p.code, p)


_register_built_ins()
