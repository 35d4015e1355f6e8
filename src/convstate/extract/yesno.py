"""A yes or a no to the assistant's closed question is a decision of the user's.

"Would you like to buy insurance?" "Yes, please." settles something no value of the
conversation states. The state keeps it as a decision that says both ("Would you like to
buy insurance? → Yes") and types it: ``Decision.question`` is the question, verbatim,
``Decision.about`` what it asks about ("insurance"), and ``Decision.answer`` the user's
yes (True) or no (False), so code reads a boolean where no text says one. A later answer
about the same thing supersedes it ("Do you want insurance?" after "Would you like to add
insurance?").

The rule, zh and en, the same however turns are batched (but one: a question asked again
after it was answered is the answered task again when turns are read one at a time, and
a bare yes then answers nothing):

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
  not necessary", 不用了) answers the latest turn's question, if it asked one ("Yes to
  both", 都要: all of them). A reply that says the thing asked about again answers its
  question by the clause that says it: negated ("I don't need insurance", "a sedan
  without insurance") a no, wanted ("I'd like to buy insurance") a yes. A question
  back, a put-off, a hedge or a yes with a condition ("Yes, but only if it's free")
  answers nothing yet and leaves the question open; any other reply closes it,
  answered or not (rules.py). A change of mind ("Actually, I do want insurance")
  answers an answered question again the same way, and the new answer supersedes the
  old. A reply is read past the change of mind it opens with ("Actually no, standard
  shipping is fine" says no). With no question open, a bare yes or no after a change of
  mind answers nothing again: "Actually no, that's all", "Wait, no, the gift wrap
  should be blue" are about something else.

Across batches the open questions are the user's open tasks of the index whose text is
a closed question, with the turn they were stated in.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from functools import lru_cache

from ..delta import ItemUpdate, NewDecision, NewTask, StateDelta
from ..lang import Cues
from ..sections import MAX_SUBJECT, clipped
from ..state import IndexEntry, section_entries
from ..turns import Turn
from .acts import HAN_RUN
from .facts import sentences
from .kinds import kind_named
from .negation import question as asks

C = Cues()
ARROW = " → "  # between the question and the answer in a decision's text
REACH = 4  # turns after a closed question within which a reply still answers it
MAX_QUESTION = 300  # a closed question is one sentence of a few words, not a pasted text
_ASKS = re.compile(r"[?？吗么]")  # what every closed question holds: most turns have none
_PRONOUN = re.compile(r"(?:it|that|this|them|those|these)$", re.IGNORECASE)
# a yes with a condition right after it ("Yes, but only if it's free", 好的，如果…)
_CONDITIONAL = re.compile(r"^\W*\w+\W+(?:but\s+)?(?:only\s+)?(?:if|unless)\b"
                          r"|^\W*\w+\W*(?:如果|要是)", re.IGNORECASE)
_FIRST_CLAUSE = re.compile(r"[^,，.。!！?？;；\n]+")
# where the clause that says a thing again ends ("... on the 10th and I don't need insurance")
_CLAUSE_BREAK = re.compile(r"[,，.。!！?？;；\n]|\s(?:and|but)\s")
# "no (extra) insurance", "no to the warranty"
_NO_BEFORE = re.compile(r"\bno\s+(?:[a-z-]+\s+){0,2}$", re.IGNORECASE)


def head(sentence: str) -> str | None:
    """What a closed question asks about: in English the head of the noun phrase after its
    verbs ("insurance" of "add the optional insurance to the rental"), in Chinese its
    thing after the verb, or before its 吗 (保险 of 需要为您购买保险吗？; 接机 of 需要接机服务
    吗？); None for none."""
    found = _object(sentence) if len(sentence) <= MAX_QUESTION else None
    return found[1] if found else None


@lru_cache(maxsize=1024)
def _object(sentence: str) -> tuple[str, str] | None:
    """The object phrase of a closed question and its head, lower case."""
    if HAN_RUN.search(sentence):
        found = [C.wish_object.search(sentence)]
    else:
        found = [C.wish_object.match(sentence, m.end()) for m in C.wish_ask.finditer(sentence)]
    for o in found:
        words = (next((g for g in o.groups() if g), "") if o else "").split()
        if words and _PRONOUN.match(words[0]):
            continue  # "Would you like it sent to the address on file?": about what was said
        while words and C.wish_empty.match(words[-1]):  # "insurance after all": insurance
            words.pop()
        if words:
            phrase, word = " ".join(words).lower(), words[-1].lower()
            if HAN_RUN.search(word) and len(short := C.generic_head.sub("", word)) >= 2:
                word = short  # 接机 of 接机服务: said without 服务 too
            return phrase, word
    return None


def closed(sentence: str) -> bool:
    """Whether ``sentence`` is a closed question of what the user wants."""
    s = sentence.strip()
    return len(s) <= MAX_QUESTION and _closed(s)  # (a pasted text is not cached)


@lru_cache(maxsize=1024)
def _closed(s: str) -> bool:
    found = _object(s)
    # (an offer of a value: "Do you want their phone number?", not "Would you like to add
    # roaming to your mobile plan?")
    if not (C.question.search(s) and C.wish_ask.search(s)) or C.wish_more.search(s) \
            or kind_named(found[0] if found and not HAN_RUN.search(s) else s):
        return False
    return found is not None or bool(HAN_RUN.search(s)) and not C.wish_empty.match(s)


def closed_questions(turn: Turn) -> list[str]:
    """The closed questions of an assistant turn, verbatim."""
    if turn.role != "assistant" or not turn.content or not _ASKS.search(turn.content):
        return []
    return [s for s in sentences(turn.content) if closed(s)]


def own_part(question: str, values: Sequence[str]) -> str:
    """A closed question as the user's task: from its ask on when the sentence says one of
    ``values`` (what an offer would propose) before it ("It is now scheduled for Wednesday,
    do you want me to transfer you?" proposes no Wednesday to take or turn down)."""
    m = C.wish_ask.search(question)
    if m is None or not any(v in question[:m.start()] for v in values):
        return question
    return question[m.start():].lstrip(" ,，")


def last_closed(text: str) -> bool:
    """Whether a task's text ends with a closed question (it is the user's to answer)."""
    return closed(_last(text))


def polarity(reply: str) -> bool | None:
    """The yes (True) or no (False) a reply opens with; None for neither or both, or
    when it opens with a question ("可以调整得更押韵一些吗") or weighs it still ("I don't
    know yet", "Yes and no, it depends")."""
    first = next(sentences(reply), "")
    clause = m.group(0) if (m := _FIRST_CLAUSE.search(first)) else first
    # (a Chinese reply is a question by its mark or particle: 不要不要 holds 要不要)
    if C.question.search(clause) or not HAN_RUN.search(clause) and (
            asks(clause) or C.polar_question.search(clause)) or C.wish_hedge.search(first):
        return None
    yes = bool(C.agrees.search(reply) or C.affirms.search(reply))
    no = bool(C.declines.search(reply) or C.denies.search(reply))
    if yes and _holds_off(first):
        return None  # "Yes, but only if it's free", 好的，不过我要先问问我老婆
    return yes if yes != no else None


def waits(text: str) -> bool:
    """Whether a reply leaves a closed question open: it asks back, puts it off, hedges,
    or sets a condition on it right away ("Yes, but only if it's free")."""
    return bool(asks(text)) or _holds_off(text)


def _holds_off(text: str) -> bool:
    return bool(C.puts_off.search(text) or C.wish_hedge.search(text)
                or _CONDITIONAL.match(text))


def restated(reply: str, thing: str) -> tuple[bool, str] | None:
    """The answer a reply gives by saying ``thing`` again, with the clause that says it:
    a no when the clause negates it ("I don't need insurance"; in Chinese a negated verb
    beside it, 保险不用买, 不用开发票), a yes when it wants it ("I'd like to buy insurance";
    a verb beside it, 发票要开的, not 保险费用太高了); None when no clause says it so (a
    question, "Is insurance mandatory?"; a hedge, "I'll decide about breakfast later"; a
    remark, "Breakfast was cold last time", 上次没人来接机)."""
    han = bool(HAN_RUN.search(thing))
    pattern = re.escape(thing) if han else rf"\b{re.escape(thing)}\b"
    breaks = [(b.start(), b.end()) for b in _CLAUSE_BREAK.finditer(reply)]  # (once: a
    # long reply that says the thing often is read in one pass, each clause once)
    skipped: set[int] = set()
    read: set[int] = set()
    for m in re.finditer(pattern, reply, re.IGNORECASE):
        k = bisect.bisect_left(breaks, (m.start(), 0))
        start = breaks[k - 1][1] if k else 0
        if start in skipped:
            continue
        k = bisect.bisect_left(breaks, (m.end(), 0))
        end, close = breaks[k] if k < len(breaks) else (len(reply), len(reply))
        clause = reply[start:close].strip()  # (with its question mark)
        if start not in read:  # (each clause asked once whether it answers at all)
            read.add(start)
            if asks(clause) or C.polar_question.search(clause) or C.wish_hedge.search(clause):
                skipped.add(start)
                continue
        said = reply[start:end].strip()
        if han:
            before = reply[max(start, m.start() - 4):m.start()]
            if C.wish_not_after.match(reply, m.end()) or C.wish_not_before.search(before):
                return False, said
            if C.wish_verb_after.match(reply, m.end()) or C.wish_verb_before.search(before) \
                    or reply[start:end].rstrip("。！!～~ ").endswith("吧"):  # (帮我包装一下吧)
                return True, said
            continue
        scope = reply[start:m.start()]
        if C.negator.search(scope) or _NO_BEFORE.search(scope):
            return False, said
        if C.wish_wants.search(clause):
            return True, said
        skipped.add(start)
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
    if C.mind_change.search(reply) or C.corrects.search(reply):
        # a change of mind says an answered one's thing again (answered in an earlier
        # batch, or in this one)
        asked += [(e.turn, q, None) for e in section_entries(index, "decisions")
                  if e.status == "active" and e.turn is not None and ARROW in e.text
                  and closed(q := e.text.rsplit(ARROW, 1)[0])]
        asked += [(d.turns[-1], d.question, None) for d in delta.decisions if d.question]
    if not asked:
        return
    # a bare yes or no answers the latest turn's question, when it asked one (or all of
    # them, "Yes to both", 都要); the others are answered only by saying their thing
    latest = [a for a in asked if a[2] is not None
              and a[0] == max(b[0] for b in asked if b[2] is not None)]
    # a change of mind it opens with is read past ("Actually no, standard is fine")
    said_first = _changed_mind(reply) or reply
    opening = polarity(said_first) if len(latest) == 1 or C.wish_all.search(reply) \
        else None
    first = _FIRST_CLAUSE.search(said_first)
    for entry in asked:
        _, question, task = entry
        thing = head(question)
        if opening is not None and any(a is entry for a in latest):
            # how it opens first: "No, I want to keep the order" to "Do you want to cancel
            # the order?" says no, whatever its clause of the order says
            said: tuple[bool, str] | None = opening, first.group(0).strip() if first \
                else said_first[:40]
        else:
            said = restated(reply, thing) if thing else None
        if said is None:
            continue
        delta.decisions.append(NewDecision(
            text=clipped(f"{question}{ARROW}{said[1]}"), question=question,
            about=thing or question[:MAX_SUBJECT], answer=said[0], turns=[turn.index]))
        if task is None:
            continue
        if isinstance(task, IndexEntry):
            delta.updates.append(ItemUpdate(id=task.id, status="done", turn=turn.index))
        else:
            task.status = "done"
            task.turns.append(turn.index)


def _changed_mind(reply: str) -> str | None:
    """What a reply says after the change of mind it opens with ("Actually no, ...": "no,
    ..."); None if it opens with none."""
    m = C.mind_change.match(reply, len(reply) - len(reply.lstrip(_OPENING)))
    return reply[m.end():].lstrip(_OPENING) if m else None


_OPENING = " ,，.。!！-—…"


def _pending(status: str, since: int) -> bool:
    return status == "open" and 0 < since <= REACH


def _last(text: str) -> str:
    """The last sentence of a task's text (an offer's text may hold the one before)."""
    return ([""] + list(sentences(text)))[-1]
