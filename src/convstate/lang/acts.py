"""What a clause does besides what it says: voices an attitude, directs, or states a rule.

Read from every language pack's cues at once (zh + en built in):

- **expressive** — a clause that voices the speaker's attitude and asks for nothing: a
  pleasantry (thanks, greetings, wishes, apologies, a closing: "thanks, have a nice day",
  "that's all", 谢谢, 没有别的问题了), a feeling whose predicate is the sentiment word
  ("I'm so frustrated", 我很生气, 气死我了), a hedge ("I don't want to be rude", "no
  offense"), or a complaint about the service — a
  judgement of it ("your service is terrible", 你们这服务太差了) or a grievance that
  recurs or drags on ("This is the second time I have to chase you", "I still haven't
  heard back", 又没人回复, 等了三天) — unless the same clause also directs. A clause
  about how the service treats the speaker is a complaint even when it directs ("Don't
  make me repeat myself", "Don't give me that excuse", 不要敷衍我, 别跟我说什么系统问题).
  It is the sentiment's to read, never a constraint, a goal or a decision.
- **directive** — an imperative ("please ...", "don't ...", 请, 别), a demand on the
  listener ("you must", 你们必须), or the speaker's own want ("I want", 我要).
- **event** — what happened, this once: a time past ("yesterday", "a week ago", "last
  time", 昨天, 上周, 刚才), a verb in the past after its subject ("I placed an order", "I
  never added those", "my parcel came broken"), 没 and a verb (没收到, 从来没加过 — where 不
  and a verb is a habit: 我不吃猪肉), a transaction done (我下了单, 付了钱).
- **standing** — holds beyond this conversation: said as a rule for every time ("never",
  "always", "from now on", "don't ever", 以后, 每次, 从不), or as an end for good
  ("anymore", "no longer", "ever again", 再也, 不再, 别再) unless it takes back a want of
  this occasion ("I don't need it anymore"), or a statement of how the speaker is or
  lives ("I'm vegetarian", "I don't eat pork", 我对花生过敏, 我是素食者) — not a directive,
  not asked of this occasion (a want or a must, a plan, a time that is now: "I need it
  today", "I don't want an exchange", 这次不要), and not an event. Read clause by clause:
  a text is standing when one of its clauses is ("I'm allergic to peanuts, I told you
  yesterday"). A rule directed at every time stands whatever event it recalls ("Never
  call me after 8pm like yesterday"). Expressive clauses are never standing.
"""

from __future__ import annotations

import re

from . import Cues

C = Cues()
REACH = 60  # characters before a sentiment word searched for who feels it
SHORT = 2  # a clause of one word, or of this many Chinese characters, says little alone
TAIL_WORDS = 5  # what a pleasantry may say after its formula (what it thanks for...)
_CLAUSE = re.compile(r"[^，,;；。！？!?\n]+")
_HAN = re.compile(r"[\u3400-\u9fff]")


def expressive(text: str) -> bool:
    """A pleasantry, a feeling or a complaint that does not also direct: every clause of
    ``text`` is one ("你好，请给我推荐一家酒店" is not), or is a mere word ("Well, ...")."""
    found = False
    for m in _CLAUSE.finditer(text):
        clause = C.frame.sub("", m.group(0).strip())  # "I have to say, ..." says nothing
        if (hedge := C.hedge.match(clause)) is not None:  # nor "No offense, ..."
            found, clause = True, clause[hedge.end():].strip()
        if not clause:
            continue
        if _one(clause):
            found = True
        elif len(clause.split()) > 1 or len(_HAN.findall(clause)) > SHORT:
            return False
    return found


def _one(clause: str) -> bool:
    # (a directive about how the service treats the speaker is a complaint still:
    # "Don't make me repeat myself", 不要敷衍我)
    return (pleasantry(clause) or bool(C.grievance.search(clause)) or feeling(clause)) \
        and not directive(clause) or bool(C.conduct.search(clause))


def pleasantry(clause: str) -> bool:
    """Thanks, a greeting, a wish, an apology or a closing, with no more after it than
    what it is for ("Thank you for your help"): "Thanks and get three tickets" asks."""
    m = C.pleasantry.search(clause)
    if m is None:
        return False
    rest = clause[m.end():]
    return len(rest.split()) <= TAIL_WORDS and len(_HAN.findall(rest)) <= TAIL_WORDS * 2


def directive(text: str) -> bool:
    """An imperative, a demand on the listener, or the speaker's own want."""
    return bool(C.directive.search(text))


def feeling(text: str) -> bool:
    """A sentiment word that is the clause's predicate: after who feels it or what is
    judged (and adverbs), before nothing but what it is about and particles."""
    negative, masked = masked_out(C.sentiment_neg, text, keep_length=True)
    for m in [*negative, *C.sentiment_pos.finditer(masked)]:
        head = C.feeling_head.search(text[max(0, m.start() - REACH):m.start()])
        if head is None:
            continue
        rest = text[m.end():]
        # a sentiment word that qualifies a noun ("this is the worst experience ever",
        # 这是最差的服务): what is judged is that noun
        if C.feeling_tail.search(rest) or C.feeling_determiner.search(head.group(0)) \
                and C.feeling_noun.search(rest):
            return True
    return False


def masked_out(pattern: re.Pattern[str], text: str, keep_length: bool = False
               ) -> tuple[list[re.Match[str]], str]:
    """The matches of ``pattern`` in ``text``, and ``text`` with each replaced by a space
    (by as many as it is long, with ``keep_length``): one scan, not findall's and sub's."""
    found = list(pattern.finditer(text))
    parts: list[str] = []
    at = 0
    for m in found:
        parts += (text[at:m.start()], " " * (m.end() - m.start()) if keep_length else " ")
        at = m.end()
    parts.append(text[at:])
    return found, "".join(parts)


def standing(text: str) -> bool:
    """Holds beyond this conversation (see the module's rule): one of its clauses that
    is not expressive does."""
    if expressive(text):
        return False
    return any(_standing(clause) and not expressive(clause)
               for clause in (m.group(0).strip() for m in _CLAUSE.finditer(text)))


def _standing(clause: str) -> bool:
    directs = directive(clause)
    if C.habitual.search(clause) and directs:
        return True  # a rule for every time, whatever it recalls
    if event(clause):
        return False
    if C.habitual.search(clause):
        return True
    mine = bool(C.first_person.search(clause))
    if C.cessation.search(clause) and (directs or mine) \
            and not C.this_occasion.search(clause):
        return True  # for good ("don't call me anymore"; not "I don't need it anymore")
    return not directs and mine and not C.occasion.search(clause)


def event(text: str) -> bool:
    """What happened, this once (see the module's rule): a past time, a verb in the
    past, 没 and a verb, a transaction done."""
    return bool(C.event.search(text))
