"""Facts: the statements of open conversation worth keeping, verbatim (zh + en).

A fact is a whole declarative sentence that fits no other section (or, when another
section took some of its clauses, each run of the rest: 我对花生过敏，别放花生 — the
allergy is a fact, the negative constraint is not), is not only expressive (a
pleasantry, a feeling, a complaint: lang/acts.py), and either states something about the
speaker — the user's first-person statements ("I adopted a dog named Max last week",
"我在北京做采购") — or holds an exact value (a name, a number, a date) in words around
it. A sentence too short to say much is one only when it says how the speaker is or
lives (我不吃猪肉, 我是素食者: the ``trait`` cue). Questions, requests, commitments and
the like are other sections' business. Each fact gets an importance: the user's own
facts and sentences around an exact value weigh most, a sentence that only mentions a
name least; the block shows the important and recent ones first and the state lets the
rest fade.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ..lang import Cues
from ..lang.acts import expressive
from ..lang.zh import PACK as ZH
from ..normalize import normalize
from ..sections import MAX_TEXT, NewAnchor, NewFact
from ..turns import Turn

_I = re.IGNORECASE
SENTENCE = re.compile(r"[^。！？!?；;\n]+(?:[。！？!?；;]+)?")
# (after a lower-case word, a number or a quote; after a capital only at the end of a
# token with a digit, "seat 14C.", "gate B12A.": an initial, "J. Smith", has none)
EN_SENTENCE = re.compile(r"(?:(?<=[a-z0-9\"')])|(?<=\d[A-Z]))\.\s+(?=[A-Z\u3400-\u9fff])")
C = Cues()  # every language pack's cues
MIN_CHARS = 8  # shorter than this says nothing ("I see.", "好的")
MAX_CHARS = 300  # a fact is a sentence, not a paragraph
MIN_AROUND = 6  # characters a value-bearing sentence must add to its values
MAX_FACTS_PER_TURN = 8
# An assistant turn this long explains: its cue words ("confirmed", "I will") describe,
# they do not commit, and its sentences are not the conversation's facts. Its exact
# values are still taken as anchors. Counted in Latin letters: a Chinese character says
# about what three do (and costs about as many tokens).
EXPOSITORY_CHARS = 600
HAN_WIDTH = 3
_NOT_PROSE = re.compile(r"\|.*\||`|^\s*#|^\s*[-=*_]{3,}")  # a table row, code, a heading
# The head of a list item: "1. Full node clients: ...", "- **Encryption**: ...",
# "2、准备材料：..." (a number may start an item mid-line, a bullet only a line).
_LIST_HEAD = re.compile(r"(?:(?:^|(?<=\s))\d{1,2}[.)、]|^[ \t]*[-*•])[ \t]*\**"
                        r"([^:：*\n]{2,60}?)\**[ \t]*[:：]", re.M)
_ITEM_NUMBER = re.compile(r"(?<!\s)\s*\d{1,2}[.)、]?$")  # tried once per run of spaces
OUTLINE_IMPORTANCE = 0.25  # below what people state about themselves and exact values
_ZH_LETTER = re.compile(ZH.letters)
_CLAUSE = re.compile(r"[^，,；;]+[，,；;]?")  # a clause of a sentence, with its comma


def expository(turn: Turn) -> bool:
    """An assistant turn long enough to explain rather than converse (EXPOSITORY_CHARS)."""
    text = turn.content or ""
    return turn.role == "assistant" and (
        len(text) + (HAN_WIDTH - 1) * len(_ZH_LETTER.findall(text)) > EXPOSITORY_CHARS)


def sentences(text: str) -> Iterator[str]:
    """The sentences of ``text``, verbatim, stripped."""
    for part in EN_SENTENCE.split(text):
        for m in SENTENCE.finditer(part):
            s = m.group(0).strip()
            if s:
                yield s


def outline(turn: Turn) -> list[NewFact]:
    """A long answer's outline, verbatim: its first sentence (what it is about) and the
    heads of its list items (its parts), which later turns point back to ("the third
    step", "what about Merkle trees?")."""
    text = turn.content or ""
    lead = _ITEM_NUMBER.sub("", next(sentences(text), "")).rstrip("。.!！:：;； ")
    heads = list(dict.fromkeys(m.group(1).strip() for m in _LIST_HEAD.finditer(text)))
    # four words or eight characters of Chinese: "It depends." leads nowhere
    says = len(lead.split()) >= 4 or len(_ZH_LETTER.findall(lead)) >= 8
    parts = ([lead] if says and len(lead) <= MAX_CHARS else []) + (
        [_joined(heads)] if len(heads) >= 2 else [])
    return [NewFact(text=p, importance=OUTLINE_IMPORTANCE, turns=[turn.index])
            for p in parts]


def _joined(heads: list[str]) -> str:
    """The heads joined with ' · ', as many whole ones as a fact holds (MAX_TEXT); a cut
    list ends with '…'."""
    out = " · ".join(heads)
    if len(out) <= MAX_TEXT:
        return out
    return out[:MAX_TEXT - 1].rsplit(" · ", 1)[0] + "…"


def _untaken(sentence: str, taken: Sequence[str], values: Sequence[str]) -> list[str]:
    """``sentence``, or, when it holds what another section took or a clause that only
    voices a feeling (holding none of ``values``), each run of its other clauses,
    verbatim (我对花生过敏，别放花生: the negative constraint is taken, the allergy is a
    fact; "I'm allergic to peanuts, I'm so angry": the feeling is the sentiment's). A
    sentence too long to be a fact is not looked into."""
    if len(sentence) > MAX_CHARS:
        return [sentence]
    spans = [(m.start(), m.start() + len(t)) for t in set(taken) if t and t in sentence
             for m in re.finditer(re.escape(t), sentence)]
    clauses = list(_CLAUSE.finditer(sentence))
    if len(clauses) < 2 and not spans:
        return [sentence]
    runs: list[str] = []
    start = end = None
    for m in clauses:
        clause = m.group(0)
        if any(a < m.end() and m.start() < b for a, b in spans) or len(clauses) > 1 \
                and not any(v in clause for v in values) and expressive(clause):
            if start is not None:
                runs.append(sentence[start:end])
            start = end = None
        else:
            start = m.start() if start is None else start
            end = m.end()
    if start is not None:
        runs.append(sentence[start:end])
    if runs == [sentence] or not spans:  # (only a feeling cut out: the rest as it was)
        return [r.strip(" ,，;；") for r in runs]
    # what is left of a sentence another section read is a fact of its own only when it
    # says how the speaker is (the allergy beside 别放花生, "I'm allergic to peanuts, I'm so
    # angry"): any other rest would crowd the block (scm_long at 8192 lost 0.009 of its
    # retention to such rests)
    return [r.strip(" ,，;；") for r in runs if C.trait.search(r) or (
        C.first_person.match(r.strip()) and len(_CLAUSE.findall(r)) == 1)]


def find_facts(turn: Turn, anchors: Sequence[NewAnchor], taken: Sequence[str]
               ) -> list[NewFact]:
    """The facts of one turn. ``anchors`` are the turn's exact values; ``taken`` the
    texts other sections already hold (a sentence holding one is not a fact). A long
    assistant answer gives its outline instead."""
    if turn.role not in ("user", "assistant") or not turn.content:
        return []
    if expository(turn):
        return outline(turn)
    out: list[NewFact] = []
    held = [a.value for a in anchors]
    for s in (part for whole in sentences(turn.content)
              for part in _untaken(whole, taken, held)):
        core = s.rstrip("。.!！;；,， ")
        trait = C.trait.search(core) is not None  # (how the user is: said short, 我吃素)
        if not (MIN_CHARS <= len(core) or trait) or len(core) > MAX_CHARS \
                or C.question.search(s) or C.question_start.search(s) \
                or _NOT_PROSE.search(s):
            continue
        values = [a for a in anchors if a.value in s and a.kind not in
                  ("constraint", "negative_constraint")]
        # (the "I" of a frame, "I have to say, ...", says nothing of the user)
        personal = turn.role == "user" and bool(C.first_person.search(C.frame.sub("", s)))
        if not values and (not personal or expressive(s)):
            continue  # says nothing of the user's; or a pleasantry, a feeling, a complaint
        exact = any(a.kind != "name" for a in values)
        around = len(normalize(s)) - sum(len(normalize(a.value)) for a in values)
        if around < MIN_AROUND and not trait:
            continue
        importance = 0.2 + 0.3 * personal + (0.3 if exact else 0.15 if values else 0.0) \
            + 0.1 * (turn.role == "user")
        out.append(NewFact(text=core, importance=round(min(importance, 1.0), 2),
                           turns=[turn.index]))
    # the most important first when a turn has too many
    return sorted(out, key=lambda f: -f.importance)[:MAX_FACTS_PER_TURN]
