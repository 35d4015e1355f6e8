"""An act, as the task grammars read it: the classes of its verbs, what it is done to,
and who does it; and the helpers that read the language packs' word tables."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Agent = Literal["speaker", "other"] | None
HAN = re.compile(r"[\u3400-\u9fff]")
HAN_RUN = re.compile(r"[\u3400-\u9fff]+")


@dataclass(frozen=True)
class Act:
    """An act: its verb classes, its object's content words, and who does it when the
    sentence says (``speaker``: I, we; ``other``: you)."""

    verbs: frozenset[str]
    objects: frozenset[str] = frozenset()
    agent: Agent = None
    generic: bool = False  # a verb that names no act of its own ("processed", 处理)
    # a report in the simple past ("We sent it on Monday"): an event told, maybe of
    # before; a perfect or a passive ("I've sent it", 已发) says it is done now
    told: bool = False
    # the act undergone as its receiver says it ("I got refunded"): a receiving of it
    undergone: bool = False
    # of a report, the head of what it was done to, the last of its words ("the invoice
    # number": number; 退货标签: 标签): what a receipt is of; None when it names none
    head: str | None = None


def groups(source: str) -> list[list[str]]:
    """A word table's groups (separated by ``;``), each a list of words."""
    return [g.split() for g in source.split(";") if g.split()]


def words(source: str) -> set[str]:
    """A word table's words."""
    return set(source.split())


def alternation(source: str) -> re.Pattern[str]:
    """A pattern of a word table's words, the longest first."""
    return re.compile("|".join(re.escape(w) for w in sorted(source.split(), key=len,
                                                             reverse=True)))
