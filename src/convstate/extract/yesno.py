"""A yes or a no to the assistant's closed question is a decision of the user's.

"Would you like to buy insurance?" "Yes, please." settles something no value of the
conversation states. The state keeps it as a decision that says both ("Would you like to
buy insurance? → Yes") and types it: ``Decision.question`` is the question, verbatim,
and ``Decision.answer`` the user's yes (True) or no (False), so code reads a boolean
where no text says one. A later answer to the same question supersedes it.

The rule, zh and en, the same however turns are batched:

- A *closed question* is an assistant sentence that ends as a question and asks whether
  the user wants, needs or would like something ("Do you want travel insurance?",
  "Shall I add breakfast?", "... and do you need insurance?", 需要为您购买保险吗？,
  要不要开发票？: the ``wish_ask`` cue). It names a thing: in English the head of the
  noun phrase after its verbs (``wish_object``: "insurance" of "add the optional
  insurance to the rental"), not a word that names nothing ("Would that work for
  you?", "Would you like more details?": ``wish_empty``). It asks nothing more, offers
  no choice ("anything else?", "an SUV or a sedan?": ``wish_more``) and no value ("Do
  you want their phone number?": kinds.py). It opens a task of the user's, to answer it.
- The user's turns answer the open ones asked at most ``REACH`` turns before. A reply
  that opens with a yes ("Yes, I do", "Sure", 好的, 需要) or a no ("No thanks", "That's
  not necessary", 不用了) answers the latest. A reply that says the thing asked about
  again answers its question by the clause that says it: negated ("I don't need
  insurance", "a sedan without insurance") a no, otherwise a yes ("I'd like to buy
  insurance"). Any other reply (a question back, a put-off) answers nothing yet and
  leaves the question open. A change of mind ("Actually, I do want insurance") answers
  an answered question again the same way, and the new answer supersedes the old.

Across batches the open questions are the user's open tasks of the index whose text is
a closed question, with the turn they were stated in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ..delta import ItemUpdate, NewDecision, NewTask, StateDelta
from ..lang import Cues
from ..state import IndexEntry, section_entries
from ..turns import Turn
from .facts import sentences
from .kinds import kind_named
from .negation import question as asks

C = Cues()
ARROW = " → "  # between the question and the answer in a decision's text
REACH = 4  # turns after a closed question within which a reply still answers it
_ASKS = re.compile(r"[?？吗么]")  # what every closed question holds: most turns have none
_HAN = re.compile(r"[\u4e00-\u9fff]")
_FIRST_CLAUSE = re.compile(r"[^,，.。!！?？;；\n]+")
# where the clause that says a thing again ends ("... on the 10th and I don't need insurance")
_CLAUSE_BREAK = re.compile(r"[,，.。!！?？;；\n]|\s(?:and|but)\s")
_NO_BEFORE = re.compile(r"\bno\s+(?:[a-z-]+\s+)?$", re.IGNORECASE)  # "no (extra) insurance"


@lru_cache(maxsize=1024)
def head(sentence: str) -> str | None:
    """The head of what a closed question asks about ("insurance"); None for none (a
    Chinese question names its thing as a whole: ``closed``)."""
    for m in C.wish_ask.finditer(sentence):
        if (o := C.wish_object.match(sentence, m.end())) and o.lastindex:
            word = o.group(1).split()[-1]
            if not C.wish_empty.match(word):
                return word.lower()
    return None


@lru_cache(maxsize=1024)
def closed(sentence: str) -> bool:
    """Whether ``sentence`` is a closed question of what the user wants."""
    s = sentence.strip()
    if not (C.question.search(s) and C.wish_ask.search(s)) or C.wish_more.search(s) \
            or kind_named(s):  # (an offer of a value: "Do you want their phone number?")
        return False
    return head(s) is not None or bool(_HAN.search(s)) and not C.wish_empty.match(s)


def closed_questions(turn: Turn) -> list[str]:
    """The closed questions of an assistant turn, verbatim."""
    if turn.role != "assistant" or not turn.content or not _ASKS.search(turn.content):
        return []
    return [s for s in sentences(turn.content) if closed(s)]


def last_closed(text: str) -> bool:
    """Whether a task's text ends with a closed question (it is the user's to answer)."""
    return closed(_last(text))


def polarity(reply: str) -> bool | None:
    """The yes (True) or no (False) a reply opens with; None for neither or both, or
    when it opens with a question ("可以调整得更押韵一些吗")."""
    if (first := _FIRST_CLAUSE.search(reply)) and asks(first.group(0)):
        return None
    yes = bool(C.agrees.search(reply) or C.affirms.search(reply))
    no = bool(C.declines.search(reply) or C.denies.search(reply))
    return yes if yes != no else None


def restated(reply: str, thing: str) -> tuple[bool, str] | None:
    """The answer a reply gives by saying ``thing`` again: its clause negates it (False)
    or not (True), with the clause; None when no clause that is not a question says it."""
    for m in re.finditer(rf"\b{re.escape(thing)}\b", reply, re.IGNORECASE):
        start = max((b.end() for b in _CLAUSE_BREAK.finditer(reply, 0, m.start())), default=0)
        end = (b.start() if (b := _CLAUSE_BREAK.search(reply, m.end())) else len(reply))
        if asks(reply[start:end]):
            continue
        before = reply[start:m.start()]
        return not (C.negator.search(before) or _NO_BEFORE.search(before)), \
            reply[start:end].strip()
    return None


def answer_closed(turn: Turn, tasks: Sequence[NewTask], index: Sequence[IndexEntry],
           delta: StateDelta) -> None:
    """A user turn's answers to the open closed questions: a decision each, and their
    tasks closed (this batch's in place, the index's by an update)."""
    reply = (turn.content or "").strip()
    if turn.role != "user" or not reply:
        return
    asked: list[tuple[int, str, NewTask | IndexEntry | None]] = [
        (t.turns[0], _last(t.text), t) for t in tasks if t.owner == "user"
        and _pending(t.status, turn.index - t.turns[0]) and last_closed(t.text)]
    asked += [(e.turn, _last(e.text), e) for e in section_entries(index, "open_tasks")
              if e.owner == "user"
              and e.turn is not None and _pending(e.status, turn.index - e.turn)
              and last_closed(e.text)]
    if C.corrects.search(reply):  # a change of mind says an answered one's thing again
        asked += [(e.turn, q, None) for e in section_entries(index, "decisions")
                  if e.status == "active" and e.turn is not None and ARROW in e.text
                  and closed(q := e.text.rsplit(ARROW, 1)[0])]
    if not asked:
        return
    asked.sort(key=lambda a: a[0] if a[2] is not None else -1)  # (answered: never latest)
    first = _FIRST_CLAUSE.search(reply)
    opening = polarity(reply), first.group(0).strip() if first else reply[:40]
    for k, (_, question, task) in enumerate(asked):
        thing = head(question)
        said = restated(reply, thing) if thing else None
        # the latest open one is answered by how the reply opens ("No, my own car
        # insurance covers it"), the others only by saying their thing again
        yes, words = opening if k == len(asked) - 1 and task is not None \
            and opening[0] is not None else said or (None, "")
        if yes is None:
            continue
        delta.decisions.append(NewDecision(text=f"{question}{ARROW}{words}", question=question,
                                           answer=yes, turns=[turn.index]))
        if task is None:
            continue
        if isinstance(task, IndexEntry):
            delta.updates.append(ItemUpdate(id=task.id, status="done", turn=turn.index))
        else:
            task.status = "done"
            task.turns.append(turn.index)


def _pending(status: str, since: int) -> bool:
    return status == "open" and 0 < since <= REACH


def _last(text: str) -> str:
    """The last sentence of a task's text (an offer's text may hold the one before)."""
    return ([""] + list(sentences(text)))[-1]
