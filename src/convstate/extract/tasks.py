"""Task lifecycle by grammar (zh + en): a promise opens a task, a later report of the
same act closes it.

A task is an **act**: the classes of its verbs (send ~ email ~ mail ~ text; 发 ~ 寄 ~ 发送) and
the content words of what it is done to ("return label"; 退货标签). The grammar reads:

- a **promise**: a subject who can owe an act — I, we; on the assistant's side a team
  ("our team", "someone from billing", "the courier", 专员, 快递员) — with a future
  ("will", "'ll", "shall", "going to", "promise to"; 会, 将, 保证, 马上, 稍后...) and a
  verb, or a promise verb over a clause ("I promise the courier will come", 我保证...).
  On the assistant's side a thing of the customer's, or sent to them, as the subject
  of a passive future promises it too ("Your refund will be processed", "A return label
  will be emailed to you").
  An offer ("I can"), a question, a negation, a habit ("I'll always"), a state ("I'll
  be happy to") or a lookup done now ("I'll check", 我马上为您查询) is not one.
- a **report** of an act done: English perfect, passive (with "get" too: "I got
  refunded") or simple past (irregular forms
  from the pack's table, the rest by -ed: sent, given, rang, emailed); Chinese 已/已经 +
  verb, or verb + 了/好了/完了/成功 (the verb nearest before a closing 了: 退货标签发给您了;
  a verb split by its aspect: 回过电话, 回了电话). Negated ("I haven't sent it", 还没发,
  没给您发) it is not one.
- a **failure**: the act reported as not done ("I was not able to", "couldn't",
  没能, 无法): it cancels the task; so does the user letting go of what the task is
  about ("never mind the refund", 退款就不用了: takeback.py, by ``names_the_act``).
- what the turn does itself ("let me check", "one moment", "I'm looking into it",
  请稍等, 查一下) opens nothing: no modal, or a lookup not put off to later.

A report closes the open tasks of the same act: a shared verb class and a shared object
word ("I've sent the return label" closes "I'll email you a prepaid return label"); with
no object on one side ("I've sent it") the newest task of that verb; a generic verb
("has been processed", 处理好了) by its object ("your refund" closes "we will refund
you"); the other party's "received" (收到照片了, "Got the code") closes a sending with the
same object: the user's word that it came is the one word of theirs that completes an
assistant's task (the fold checks the same). Who did it, when the report says (I, we /
you), must be who owed it. Where the report and a task both name a thing by its name
(an id, a product), the name must be the same ("the Unlimited Elite plan" is not done
for "the Unlimited Plus plan"). A report of
cancelling a thing ("I've cancelled the replacement", 换货单已经取消) withdraws the open
tasks of other acts on it: they are cancelled. A promise renewed
(the same act with a shared object: "I'll book you a cab to X" after "I'll book you a
regular cab") replaces the older one, which is cancelled.

An act already done when first mentioned ("已为您提交投诉", "I've already submitted your
complaint") opens nothing: a task is what is still owed, and the sentence stays in its
turn. One grammar per language (``tasks_en``, ``tasks_zh``) reads the word tables of
its pack (``LanguagePack.words``); a pack with no grammar has no task reading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..lang import Cues, pack
from ..registry import LANGUAGES
from .acts import HAN, Act
from .products import find_products
from .tasks_en import English
from .tasks_zh import Chinese

C = Cues()
# "... has been submitted and finance will prioritise it": a coordinator followed by a
# subject of a few words and a finite verb starts a clause of its own
_SUBCLAUSE = re.compile(
    r"\s+(?:and|but|so|then)\s+(?=(?:[\w'’-]+\s+){0,3}?(?:(?:will|shall|has|have|had|is|are"
    r"|was|were|do|does|did|can|could)(?:n['’]t)?|won['’]t|\w+['’](?:ll|ve|s|re))\b)",
    re.IGNORECASE)
_COORDINATOR = re.compile(r"^(?:and|but|so|then)\s+", re.IGNORECASE)
_DASH = re.compile(r"\s+[—–-]{1,2}\s+|—")


@dataclass
class Reading:
    """What one clause does to tasks: the promises it makes (verbatim text and act), the
    acts it reports done, and those it reports it could not do."""

    promises: list[tuple[str, Act]] = field(default_factory=list)
    reports: list[Act] = field(default_factory=list)
    failures: list[Act] = field(default_factory=list)  # "I was not able to", 没能
    # reports of cancelling a thing ("I've cancelled the replacement", 换货单已经取消):
    # the acts on it are off (``withdrawn``)
    withdrawals: list[Act] = field(default_factory=list)


def read(text: str, role: str) -> Reading:
    """The promises, reports and failures of one clause said by ``role`` (user or
    assistant), each coordinated clause with a subject of its own read apart."""
    out = Reading()
    grammar = _grammar_for(text)
    if grammar is None:
        return out
    parts = [text] if HAN.search(text) else _split(text)
    for part in parts:
        failed = grammar.failure(part)
        if failed is not None:
            out.failures.append(failed)
            continue
        done = grammar.report(part)
        if done is not None:
            out.reports.append(done)
            if isinstance(grammar, English):  # "... and texted you the code": one more
                out.reports += grammar.joined_reports(part, done)
            if grammar.withdrawing in done.verbs and done.objects:
                out.withdrawals.append(done)
            continue
        act = grammar.promise(part, role)
        if act is not None:
            out.promises += _joined(part, act, role, grammar)
    return out


# what a verb takes right after it: an object's determiner, a pronoun, a particle, a
# preposition ("refund the fee", "bring you", "speed up"; not "shipping costs", "return
# label": a noun's)
_TAKEN = frozenset("the a an my your our their his her its this that these those some any "
                   "it you them him us me back up out over off in to for by with all every "
                   "each both".split())


def _starts_act(text: str, grammar: _Grammar) -> bool:
    """Whether ``text`` starts with a verb phrase: a base form (not "shipping", "costs")
    followed by what a verb takes, or a verb the grammar knows ending it ("and refund")."""
    words = [w.strip(".,!?;:").lower() for w in text.split()[:2]]
    verb = words[0] if words else ""
    if not verb.isalpha() or len(verb) >= 7 and verb.endswith(("ing", "ed")) \
            or len(verb) >= 5 and verb.endswith("s") and not verb.endswith("ss"):
        return False
    if len(words) > 1:
        return words[1] in _TAKEN
    return isinstance(grammar, English) and grammar.key(verb) in grammar.known


# "and" before a verb phrase that shares the promise's subject and modal ("I'll email you
# the label and refund the fee"); 并/同时, or 然后/再 of a sequence, opening a clause after
# a promise (我会为您安排上门取件，并给您寄一张优惠券; 我会先退运费，再补发一张优惠券:
# rules.py reads those clauses with the one before)
_AND = re.compile(r"\s+and\s+(?:then\s+|also\s+)?", re.IGNORECASE)
JOINED_ZH = re.compile(r"^(?:并且?|同时(?:还会?)?|而且|另外(?:还会?)?|还会?"
                       r"|(?:然后|之后|随后|接着|再)(?:会|再)?)\s*")
# ... or after a clause whose speaker's future scopes over it, though that clause owes
# nothing itself (我会先帮您查一下，然后给您回电话: a lookup, then a callback)
FUTURE_ZH = re.compile(r"(?:我们?|咱们?)(?:这边)?[^，,。！？!?]{0,3}?(?:会|将)")


def _joined(part: str, act: Act, role: str, grammar: _Grammar) -> list[tuple[str, Act]]:
    """The promise of ``part`` (its ``act``), one per act it joins: each verb phrase after
    "and" that is an act of its own is a promise of its own, so a report of one closes
    that one only."""
    for m in _AND.finditer(part):
        rest = part[m.end():]
        if not _starts_act(rest, grammar):
            continue  # "the label and the invoice", "the fee and shipping costs": objects
        later = grammar.act_of(rest)
        first = grammar.promise(part[:m.start()], role)
        if later is not None and first is not None and later.verbs - first.verbs:
            return [(part[:m.start()], first), *_joined(rest, later, role, grammar)]
    return [(part, act)]


def act_of(text: str) -> Act | None:
    """The act a task's text names (a promise, a request to do it, a bare verb phrase)."""
    return _act_of(text, LANGUAGES.version, False)


def _english() -> English | None:
    """The English grammar of the registered packs, if any."""
    grammar = _grammars(LANGUAGES.version).get("en")
    return grammar if isinstance(grammar, English) else None


def act_verb(word: str) -> str | None:
    """The verb an English word is, or names as an act, of the lexicon's classes
    ("cancel", "cancellation": cancel; not "credit card" for a refund), or None."""
    return grammar.act_verb(word.lower()) if (grammar := _english()) else None


def _class_of(word: str) -> str | None:
    """The verb class an English word names as an act (``act_verb``'s class), or None."""
    return grammar.act_noun(word) if (grammar := _english()) else None


def _names_acts_only(done: Act) -> bool:
    """Whether a generic report says no more than the act ("Your refund has been
    processed", "The cancellation is done": no thing it was done to)."""
    return bool(done.objects) and all(o.isascii() and _class_of(o) for o in done.objects)


def closes(done: Act, speaker: str, tasks: Sequence[tuple[str, str | None]],
           renewal: bool = False, said: str = "") -> list[int]:
    """Positions in ``tasks`` (text, owner; oldest first) of the open tasks that the act
    ``done``, reported by ``speaker``, completes: every one of the same act with a shared
    object; else the newest of that verb where one side names no object. A ``renewal``
    (``done`` is a new promise of ``speaker``'s) matches only the speaker's promises of
    the same act with a shared object. Where a report (``said``) and a task both name a
    thing by its name (an id, a product: "order 5678", "the Unlimited Elite plan"), it
    is of that task only if one name is the same (a renewal naming another thing is
    still a renewal: "I'll switch you to the Elite plan instead")."""
    sent = None if renewal else _received(done)
    named = frozenset() if renewal else _names(said)
    strong: list[int] = []
    weak: list[int] = []
    for k, (text, owner) in enumerate(tasks):
        if named and (theirs := _names(text)) and not named & theirs \
                and not _ending(named, theirs) and not _ending(theirs, named):
            continue  # another thing of the same kind: "the Unlimited Plus plan" (a
            # number's last digits said as such are the number: "ending in 0143")
        if sent is not None:  # "received": the other party's sending, of its thing (the
            # head received: not "the invoice number" of the invoice)
            if owner == speaker or done.head is not None and (
                    (task := _act_of(text, LANGUAGES.version, False)) is None
                    or done.head not in task.objects):
                continue
        elif (renewal or done.agent == "speaker") and owner != speaker or \
                done.agent == "other" and owner == speaker:
            continue
        verbs = sent or done.verbs
        task = _act_of(text, LANGUAGES.version, renewal)
        if task is None:
            continue
        shared_verb = bool(task.verbs & verbs)
        if shared_verb and task.objects & done.objects:
            strong.append(k)
        elif done.generic and done.objects & (task.objects | task.verbs):
            # "your refund has been processed": we will refund you (the act alone named,
            # the newest such task: of two sendings, "The delivery is complete" is one)
            (weak if _names_acts_only(done) else strong).append(k)
        elif task.generic and task.objects & verbs and (
                not done.objects or done.objects & task.objects):
            strong.append(k)  # "I've refunded you": we will process your refund (not
            # "I've refunded the shipping fee")
        elif shared_verb and not (sent or renewal) and not (task.objects and done.objects):
            weak.append(k)
    return strong or weak[-1:]


def achieves(done: Act, report: str, wanted: str) -> bool:
    """Whether the report ``done`` (in ``report``, the assistant's clause) does the act
    ``wanted`` names (a goal's words after its want, goals.py), now and to the same
    thing. The act: one of a class of the grammar, and the goal's only one. The report:
    a perfect or a passive (a simple past tells of an event, maybe of before: "We
    replaced your router in March"), not of the user's doing, of a verb of the same class
    on every object the goal names ("I've changed the delivery address to ..."; not 寄出
    for 寄回), or a generic verb naming it and nothing else ("Your refund has been
    processed"; not "Your refund for the blender"), or with no object on either side the
    same verb (退款: 已经为您退款了); and no id the goal does not name."""
    grammar = _grammar_for(wanted)
    want = _act_of(wanted, LANGUAGES.version, False)
    if grammar is None or want is None or not want.verbs & set(grammar.classes.values()) \
            or done.told or done.agent == "other" or _second_act(wanted):
        return False  # (a search, a lookup: no act one party does for the other)
    named = want.objects | want.verbs
    if done.generic:  # (what it names besides, the goal names: "refund for order 88231";
        # a noun of the act is the act: "The cancellation is done")
        rest = {o for o in done.objects if not (o.isascii() and _class_of(o) in named)}
        same = bool(done.objects & named) and rest <= named | terms(wanted)
    else:
        same = bool(want.verbs & done.verbs) and want.objects <= done.objects and (
            bool(want.objects) or done.objects <= named | terms(wanted))  # (办理退款: 退款)
    # (an id where the act goes is no thing it is done to: 已为您改签到CA1518)
    return same and _ids(C.goes_to.sub(" ", report)) <= _ids(wanted)


def _ids(text: str) -> set[str]:
    """The ids ``text`` names (``_ID``, of three digits or more; not "3-5 days"), dashes
    left out; "…0143" for the last digits of one said as such (``C.ends_in``)."""
    ends = [m.end() for m in C.ends_in.finditer(text)]
    return {("…" if any(0 <= m.start() - e <= 2 for e in ends) else "")
            + m.group(0).replace("-", "").upper() for m in _ID.finditer(text)
            if sum(c.isdigit() for c in m.group(0)) >= 3}


def _names(text: str) -> frozenset[str]:
    """The things ``text`` names by name: its ids and product names, case folded."""
    return frozenset(_ids(text) | {text[a:b].casefold() for a, b in find_products(text)})


def _ending(last: frozenset[str], whole: frozenset[str]) -> bool:
    """Whether one of ``whole`` ends in the last digits one of ``last`` says ("…0143")."""
    return any(w.endswith(e[1:]) for e in last if e.startswith("…") for w in whole)


# an id ("order 88231", BX-7741, 206-555-0143), not an amount ("$129.99", 199元)
_ID = re.compile(r"(?<![A-Za-z0-9_$¥€£.,-])(?=[A-Za-z-]*\d)[A-Za-z0-9](?:[A-Za-z0-9]"
                 r"|-(?=[A-Za-z0-9]))+(?![A-Za-z0-9_]|[.,]\d|元|块)")


def _second_act(wanted: str) -> bool:
    """Whether ``wanted`` joins a second act to its first ("cancel my subscription and
    get a refund", 修改收货地址和手机号): achieved only whole, which no one report says."""
    return any(act_of(wanted[m.end():]) is not None for m in _JOINS.finditer(wanted))


_JOINS = re.compile(r"\s+(?:and|&)\s+(?:also\s+|then\s+)?|[和并及]|然后|同时|以及")


def terms(text: str) -> frozenset[str]:
    """The content terms of ``text`` (English: content words' lemmas; Chinese: character
    pairs), as an act's objects are compared: what two sentences share is what they are
    both about."""
    grammar = _grammar_for(text)
    if grammar is None:
        return frozenset()
    if isinstance(grammar, English):
        return grammar.content(grammar.tokens(text))
    return grammar.terms(text)


def names_the_act(thing: str, task: str) -> bool:
    """Whether ``thing``, a noun phrase with its head last (or a Chinese verb phrase),
    names the act of ``task`` (a task's text) or the thing it is done to, by its head,
    with no word the task does not say: "the refund" of "I'll refund the duplicate
    charge", "the receipt" of "I'll email you the receipt" (not "the refund status", nor
    "a printed receipt", "the old code" of "a new code"); 退款 of 我会为您办理退款, 发票 of
    我会把发票寄给您, 给我回电话 of 我会给您回电话 (not 发票 of 我会给您发短信: its 发 is no
    verb; nor 旧手机 of 新手机)."""
    act, grammar = _act_of(task, LANGUAGES.version, False), _grammar_for(thing)
    if act is None or grammar is None or not thing.strip():
        return False
    if isinstance(grammar, English):
        words = [t for t in grammar.tokens(thing) if grammar.content((t,))]
        return bool(words) and all(grammar.act_noun(w) in act.verbs
                                   or grammar.lemma(w) in act.objects for w in words)
    if any(HAN.match(c) and c not in task for c in thing):
        return False  # a word the task does not say: another thing (旧手机)
    for n in range(2, min(len(thing), 4) + 1):  # its head: an act or a thing, at its end
        tail = thing[-n:]
        said = grammar.act_of(tail)
        if tail in act.objects or said is not None and bool(said.verbs & act.verbs) \
                and (not said.objects or bool(said.objects & act.objects)):
            return True
    return False


def withdrawn(done: Act, tasks: Sequence[tuple[str, str | None]]) -> list[int]:
    """Positions in ``tasks`` (text, owner) of the open tasks that the cancelling ``done``
    withdraws: an act of another verb on a thing it cancels ("I've cancelled the
    replacement" of "we'll send a replacement"; the cancelling of it, the same verb, is
    done by the report instead), but not what the cancelling brings about (a refund)."""
    out = []
    for k, (text, _) in enumerate(tasks):
        task, grammar = _act_of(text, LANGUAGES.version, False), _grammar_for(text)
        if task is not None and grammar is not None and not task.verbs & done.verbs \
                and grammar.outlasting not in task.verbs and task.objects & done.objects:
            out.append(k)  # (a refund outlasts the cancelled order it is of)
    return out


# -- the grammars, by language -------------------------------------------------------


def _split(text: str) -> list[str]:
    """An English clause cut where a coordinated clause with its own subject starts, or
    after a dash ("Your refund has been processed — you'll see it in 3 days")."""
    if len(dashed := _DASH.split(text)) > 1:
        return [p for part in dashed for p in _split(part)]
    starts = [m.start() for m in _SUBCLAUSE.finditer(text)]
    if not starts:
        return [text]
    cuts = [0, *starts, len(text)]
    parts = [text[a:b].strip() for a, b in zip(cuts, cuts[1:], strict=False)]
    return [_COORDINATOR.sub("", p) for p in parts if p]


_Grammar = English | Chinese
_BUILDERS: dict[str, type[English] | type[Chinese]] = {"en": English, "zh": Chinese}


@lru_cache(maxsize=8)
def _grammars(version: int) -> dict[str, _Grammar]:
    del version  # the cache key: rebuilt when a pack is registered
    out: dict[str, _Grammar] = {}
    for code, build in _BUILDERS.items():
        if code in LANGUAGES.names():
            out[code] = build(pack(code).words)
    return out


def _grammar_for(text: str) -> _Grammar | None:
    grammars = _grammars(LANGUAGES.version)
    return grammars.get("zh" if HAN.search(text) else "en")


@lru_cache(maxsize=4096)
def _act_of(text: str, version: int, promised: bool) -> Act | None:
    """The act of a task's text; with ``promised``, only if the text is a promise (a
    request to the other party is not renewed by that party's own promise)."""
    del version
    grammar = _grammar_for(text)
    if grammar is None:
        return None
    return grammar.promise(text, "assistant") if promised else grammar.act_of(text)


def is_receipt(done: Act) -> bool:
    """Whether ``done`` is a receiving said by its receiver ("I received the invoice",
    收到短信了, "I got refunded"): the one report of the user's that completes an act the
    assistant owed (the fold's guard checks the turn says so too)."""
    return done.undergone or _received(done) is not None


def _received(done: Act) -> frozenset[str] | None:
    """The verbs a "received" report stands for (the other party's sending), if any."""
    out: set[str] = set()
    for grammar in _grammars(LANGUAGES.version).values():
        out.update(grammar.converse[v] for v in done.verbs if v in grammar.converse)
    return frozenset(out) if out else None
