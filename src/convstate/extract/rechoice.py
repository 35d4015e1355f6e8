"""A choice made again: the user's change of a choice supersedes the choice it changes.

"I'll take the 12-month installment plan." … "Actually, make it 6 months instead."; 我选
12期免息 … 还是改成6期吧; "Let's go with the blue one." … "On second thought, I'll take
the red one." The newer choice is the decision; the older one is superseded (it stays in
the state, with its turn, as history).

The rule, zh and en: a user clause that is no question and chooses again — a verb that
says a change by itself ("make it", "change it to", "switch to", 改成, 换成: the
``choice_changed`` cue), or a choosing verb ("take", "go with", 选, 要: ``choice_verb``)
in a turn that says a change of mind ("actually", "instead", 还是, 算了:
``mind_change``) — names its new choice after the verb. The choice it changes is the
newest live decision before it that is *parallel*: it names the same thing with another
modifier. Parallel is read from the choice's head:

- a number with its unit as its head (6 months, 6期; not "2 months of free trial"): the
  old decision says another number of the same unit (an English unit by its singular:
  "12-month");
- otherwise the last word of the choice (English; "the red one": one) or its last Han
  character (红色 → 色, 顺丰快递 → 递): the old decision holds that head but not the new
  choice itself.

Only the speaker's own choice, now (``negation.own_act``: not "my wife will take", "I
refuse to switch to", "No need to switch to", 不想换成; not after a condition: "if it's
cheaper, make it"; not one still between two: 要红色的还是蓝色的), and
not one more beside the first ("I'll also take the red shirt", 我还要一杯美式:
``choice_added``). A change that names nothing parallel ("Actually, I'll take a
receipt") supersedes nothing. A decision that held two choices is superseded whole by a
change of one of them. A yes or a no to a closed question is changed by the answer rule
(yesno.py), not here. A clause that changes a choice is a decision itself, if no
decision cue made it one. Decisions are read one turn at a time (as the live state
reads them); two choices of one thing in a single batch handed to ``extract`` both stay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..delta import ItemUpdate, NewDecision, StateDelta
from ..lang import Cues, number_in, number_pattern
from ..state import IndexEntry, section_entries
from ..turns import Turn
from .negation import conditional, negated, own_act, question, refusal
from .yesno import ARROW

C = Cues()

_HAN = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(r"[A-Za-z]+")
_AROUND = " ,，.。!！;；~～"
_ACT = re.compile(r"to\s", re.IGNORECASE)  # "want to cancel": a verb follows, no choice


def chosen_again(turn: Turn, clauses: Sequence[tuple[str, bool]],
                 index: Sequence[IndexEntry], delta: StateDelta) -> list[ItemUpdate]:
    """The updates a user's turn makes by choosing again (see above), and its decisions
    added to ``delta``."""
    if turn.role != "user" or not turn.content:
        return []
    updates: list[ItemUpdate] = []
    mind_changed = bool(C.mind_change.search(turn.text))
    before = ""  # the clause before: a condition set apart ("if it's cheaper, make it")
    for clause, asks in clauses:
        if asks or question(clause) or conditional(before):
            before = clause
            continue
        before = clause
        choice = _new_choice(clause, mind_changed)
        if choice is None:
            continue
        old = _changed(choice, index, turn.index, {u.id for u in updates})
        if old is None:
            continue
        updates.append(ItemUpdate(id=old.id, status="superseded", turn=turn.index))
        if not any(clause in d.text or d.text in clause for d in delta.decisions
                   if turn.index in d.turns):
            delta.decisions.append(NewDecision(text=clause, turns=[turn.index]))
    return updates


def _new_choice(clause: str, mind_changed: bool) -> str | None:
    """What ``clause`` chooses again: the words after its last choosing verb, without
    the words around a choice ("instead", "please", 吧); None if it chooses nothing
    again. ``mind_changed``: its turn says a change of mind ("On second thought, I'll
    take the red one": a clause before it)."""
    changed = list(C.choice_changed.finditer(clause))
    verbs = changed or (list(C.choice_verb.finditer(clause)) if mind_changed else [])
    if not verbs:
        return None
    verb = verbs[-1]
    if not own_act(clause[:verb.start()]) or negated(clause, verb.start()) \
            or refusal(clause) or C.choice_added.search(clause):
        # not the speaker's own choice now ("my wife will take", "if it's cheaper, make
        # it", "I refuse to switch to", 不想换成), or one more beside it ("I'll also take")
        return None
    choice = clause[verb.end():].strip(_AROUND)
    if _ACT.match(choice) or C.choice_either.search(choice):
        return None  # an act ("I want to cancel my plan"), or still a choice between two
        # (要红色的还是蓝色的, "the red one or the blue one")
    choice = C.choice_filler.sub(" ", choice).strip(_AROUND)
    return choice or None


def _changed(choice: str, index: Sequence[IndexEntry], turn: int, taken: set[str]
             ) -> IndexEntry | None:
    """The newest live decision before ``turn`` that ``choice`` is parallel to."""
    decisions = [e for e in section_entries(index, "decisions")
                 if e.status == "active" and e.turn is not None and e.turn < turn
                 and ARROW not in e.text and e.id not in taken]
    for e in sorted(decisions, key=lambda e: e.turn or 0, reverse=True):
        if _parallel(choice, e.text):
            return e
    return None


def _parallel(choice: str, old: str) -> bool:
    """Whether ``old`` names the thing ``choice`` names, with another modifier."""
    head = _head(choice)
    if head is None:
        return False
    counted = [(n, unit) for n, unit in _counted(choice) if unit == head]
    if counted:  # the choice counts its head: "6 months", 6期 (not "2 months of trial")
        return any(unit == head and (n, unit) not in counted for n, unit in _counted(old))
    if choice.casefold() in old.casefold():
        return False
    if _HAN.fullmatch(head):
        return head in old
    return head in {_singular(w) for w in _WORD.findall(old.casefold())}


def _counted(text: str) -> list[tuple[int | None, str]]:
    """The numbers ``text`` says with their units: (6, "month") of "6 months" or
    "6-month", (6, "期") of 6期."""
    found = []
    for m in number_pattern().finditer(text):
        unit = re.match(r"\s*-?\s*([A-Za-z]+|[\u4e00-\u9fff])", text[m.end():])
        if unit is not None:
            found.append((number_in(m.group(0)), _singular(unit.group(1).casefold())))
    return found


def _head(choice: str) -> str | None:
    """The head of a choice: its last English word (singular) or Han character."""
    last = re.search(r"([A-Za-z]+|[\u4e00-\u9fff])\W*$", choice)
    if last is None:
        return None
    word = last.group(1)
    return word if _HAN.fullmatch(word) else _singular(word.casefold())


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") \
        else word
