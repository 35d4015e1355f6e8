"""What the user takes back: a goal given up, a task let go, a negative constraint
lifted.

A clause of the user's that withdraws (never mind, don't want ... anymore, 算了, 不…了)
the act a live goal wants gives the goal up ("never mind the refund" of "I want a
refund"); one that allows (… is fine, 还是…吧, 也可以) the act a live negative constraint
of theirs forbade lifts it ("算了，还是打电话吧" of "别打电话联系我"); one that lets go of
the thing an open task is about cancels the task ("never mind the refund", 发票不用了:
``let_go``). The act is a word:
what follows the want, the withdrawal or the negator, past a preposition or a pronoun
(an English word whole, two Chinese characters unless the second is a particle). Not a
question. The clauses come from the extractor (rules.py), which reads them the same way
for every rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ..delta import ItemUpdate, StateDelta
from ..lang import Cues
from ..state import IndexEntry, section_entries
from ..turns import Turn
from .acts import HAN_RUN
from .negation import own_act, refusal
from .tasks import act_verb, names_the_act

C = Cues()
Clauses = Callable[[Turn], Iterable[tuple[str, bool]]]  # a turn's (clause, asks)


# what a goal wants or a rule forbids, unit by unit: Latin words (by their first four
# letters: "call", "calling") and Han characters, less function words
_WANTED = re.compile(r"[A-Za-z]{3,}|[\u4e00-\u9fff]")
_NOT_WANTED = frozenset("want need like woul coul plea the and for with you your any "
                        "about more anym".split()
                        + list("我你您的了要想吧呢啊是就还不也都把给帮请个一这那"))
# what stands between a negator and the act it refuses: a preposition or a pronoun
# (请不要在周末上门, 不要给我打电话, "don't call me")
_BETWEEN = re.compile(r"(?:\s*(?:在|给我|给|跟我|跟|和|对|向|把"
                      r"|(?:to|be|me|us|him|her|them|it|the|a|an|my|your)\b)\s*)*", re.IGNORECASE)
_PARTICLES = frozenset("了吧的啊呢吗呀")


def _past_between(text: str) -> str:
    """``text`` past what stands before an act (``_BETWEEN``; it always matches)."""
    return text[_BETWEEN.match(text).end():].lstrip()  # type: ignore[union-attr]


def _units(text: str) -> list[str]:
    """The units ``text`` names, in order (``_WANTED``)."""
    return [u for w in _WANTED.findall(text) if (u := w.lower()[:4]) not in _NOT_WANTED]


def _act_word(text: str) -> str | None:
    """The word ``text`` starts with, less what stands before an act (``_BETWEEN``): an
    English word whole, a Chinese one as two characters unless the second is a particle
    (退款, 退了: 退)."""
    text = _past_between(text)
    if m := re.match(r"[A-Za-z]+", text):
        return m.group(0).lower()
    if m := re.match(r"[\u4e00-\u9fff]{1,2}", text):
        word = m.group(0)
        return word[0] if len(word) == 1 or word[1] in _PARTICLES else word
    return None


def _same_act(a: str | None, b: str | None) -> bool:
    """Whether two act words (``_act_word``) name one act: equal, one verb (cancel,
    cancellation: ``act_verb``; not refund and refurbished, nor refund and credit), or one
    Chinese character the other starts with (退 of 退款)."""
    if a is None or b is None:
        return False
    if a.isascii():
        return a == b or act_verb(a) is not None and act_verb(a) == act_verb(b)
    return a == b or (len(a) == 1 or len(b) == 1) and a[0] == b[0]


def given_up(turn: Turn, clauses: Clauses, index: Sequence[IndexEntry], delta: StateDelta
             ) -> list[ItemUpdate]:
    """The user's live goals a clause of theirs gives up ("never mind the refund",
    "I don't want a refund anymore", 算了，不退了, 我不想退款了): a clause that withdraws
    (``C.give_up``, not negated: "don't forget my refund") the act the goal wants — the
    word after the withdrawal is the goal's after its want ("I don't want to pay for
    return shipping" gives up paying; 我不想退货 is not 退款). Not a question, nor more
    information (不用这家餐厅的信息了). A clause that keeps the thing a goal wants to end
    gives the goal up too ("Never mind, I'll keep the membership" of "I want to cancel my
    gym membership", 会员我还是留着吧): what it keeps is what the goal ends, its head last
    ("I'll keep the order number" keeps a number, "my checking account" another account;
    see ``_kept``). This batch's goals too, in place."""
    if not (C.give_up.search(turn.text) or C.keeps.search(turn.text)):
        return []  # (most turns)
    goals = [(e.text, e.id) for e in section_entries(index, "goals") if e.status == "active"]
    mine = [g for g in delta.goals if g.status == "active" and g.turns[0] < turn.index]
    out: list[ItemUpdate] = []
    for text, asks in clauses(turn):
        gone = set() if asks else _given_up_by(text, [*(g for g, _ in goals),
                                                      *(g.text for g in mine)], turn.text)
        out += [ItemUpdate(id=i, status="abandoned", turn=turn.index) for goal, i in goals
                if goal in gone and all(u.id != i for u in out)]
        for g in mine:
            if g.text in gone:
                g.status = "abandoned"
    return out


def let_go(turn: Turn, clauses: Clauses, index: Sequence[IndexEntry], delta: StateDelta
           ) -> list[ItemUpdate]:
    """The open tasks a clause of the user's lets go of, cancelled: a word of letting go
    (``C.lets_go``: "never mind", "I don't need", 不用…了, …就不用了; not an act a task may
    be, "cancel", 取消), not negated, and a thing that ends its clause (``_let_go_of``)
    whose head names the task's act or what it is done to ("never mind the refund" of
    "I'll refund the duplicate charge today"; not "never mind the refund status", "I
    don't need the refund to go to my old card", 我不想退款到旧卡上). Not a question, nor
    a turn with a condition ("If it takes long, forget the refund"). Either side's task:
    what the user lets go of is owed no more. This batch's tasks too, in place."""
    text = turn.text
    if not any(C.lets_go.search(p) or C.lets_go_after.search(p) for p in _PIECES.split(text)) \
            or C.condition.search(text):
        return []  # (most turns: decided on the text's pieces, before its clauses are read)
    parts = [(part, asks) for clause, asks in clauses(turn) for part in _PART.split(clause)]
    stated = [(e.text, e.id) for e in section_entries(index, "open_tasks")
              if e.status == "open"]
    mine = [t for t in delta.open_tasks if t.status == "open" and t.turns[0] < turn.index]
    out: list[ItemUpdate] = []
    for clause, asks in parts:
        thing = None if asks else _let_go_of(clause)
        if thing is None:
            continue
        out += [ItemUpdate(id=i, status="cancelled", turn=turn.index) for task, i in stated
                if names_the_act(thing, task) and all(u.id != i for u in out)]
        for t in mine:
            if names_the_act(thing, t.text):
                t.status = "cancelled"
                t.turns.append(turn.index)
    return out


_PART = re.compile(r"[，,;；]")  # (那还是送回家吧，不用改地址了: a clause of its own)
_PIECES = re.compile(r"[，,;；。.!?！？\n]")  # a clause's parts, or smaller


def _let_go_of(clause: str) -> str | None:
    """The thing a clause lets go of, if it ends the clause (but for ``C.let_go_close``:
    "anymore", "then", 了吧) and is a thing named, not a pronoun or a phrase that goes on
    (``_PHRASE_END``: "the refund to go to my old card")."""
    if (m := C.lets_go.search(clause)) and not _negated_before(clause, m.start()):
        close = C.let_go_close.search(clause, m.end())
        thing = clause[m.end():close.start() if close else len(clause)].strip()
    elif (m := C.lets_go_after.search(clause)) and C.let_go_close.match(clause, m.end()):
        runs = HAN_RUN.findall(clause[:m.start()])  # (那退款就不用了: the run before it)
        thing = runs[-1] if runs else ""
    else:
        return None
    if not thing or _PHRASE_END.search(thing) or not _units(thing) \
            or thing.isascii() and len(thing.split()) > 4:
        return None  # ("forget it": what it stands for is not told)
    return thing


def _given_up_by(clause: str, goals: list[str], turn: str) -> set[str]:
    """The ``goals`` (texts) a clause of ``turn`` gives up: by withdrawing the act one
    wants, or by keeping the thing one wants to end (``_kept``)."""
    gone = set()
    if (m := C.give_up.search(clause)) and not C.info_only.search(clause, m.start()) \
            and not _negated_before(clause, m.start()):
        head = _act_word(clause[m.end():])
        gone = {g for g in goals if _same_act(_wanted_act(g), head)}
    if (kept := _kept(clause)) is not None and not C.condition.search(turn):
        gone |= {g for g in goals if (ended := _ended(g)) is not None
                 and ended[-1] == kept[-1] and set(kept) <= set(ended)}
    return gone


# where a noun phrase's head has been said: before a preposition, a relative or a
# coordinated clause ("the headphones I bought", "the order but change the address")
_PHRASE_END = re.compile(r"\b(?:I|that|which|who|for|from|to|on|in|at|by|with|about|until"
                         r"|till|because|since|so|but|and|or|then|though|instead|after|now"
                         r"|please|thanks?)\b|[^\w\s'’-]", re.IGNORECASE)
_TO = re.compile(r"\s*(?:to\s+)?")  # (always matches)
_WORD_REST = re.compile(r"^\w*\s*")
_PREPOSITION = re.compile(r"\s*(?:to|from|by|at|in|off|on|into)\b", re.IGNORECASE)


def _phrase(text: str) -> list[str]:
    """The units of the noun phrase ``text`` starts with, its head last: English units
    before ``_PHRASE_END`` ("my gym membership": gym, memb), or the pairs of Chinese
    characters of its first run that are no function word's, up to the last that stands
    last or before one (健身卡会员: …, 会员; 这件衣服的: 件衣, 衣服)."""
    if run := next(iter(HAN_RUN.findall(text)), ""):
        pairs = [(k, p) for k in range(len(run) - 1)
                 if not (set(p := run[k:k + 2]) & _NOT_WANTED)]
        heads = [k for k, p in pairs if k + 2 == len(run) or run[k + 2] in _NOT_WANTED]
        return [p for k, p in pairs if k <= heads[-1]] if heads else []
    m = _PHRASE_END.search(text)
    return _units(text[:m.start()] if m else text)


def _kept(clause: str) -> list[str] | None:
    """The units of what a clause keeps, its head last ("I'll keep the membership": memb;
    会员我还是留着吧: 会员), or None: the keep is not the speaker's own, asked for now
    (``own_act``: not "My wife wants to keep", "You keep renewing it", "I was told I
    could keep"), or not surely — negated, in doubt ("I might keep"), for a while ("until
    the label arrives"), or with a thing ended still later (宽带我继续用到月底再停) — or it
    keeps a pronoun (what it stands for is not told)."""
    m = C.keeps.search(clause)
    if m is None:
        return None
    # a withdrawal before it that does not govern it says nothing of the keep ("Never mind
    # I'll keep it"; not "I don't want to keep it")
    said = C.give_up.sub(lambda g: g.group(0) if C.keeps.match(
        clause, _TO.match(clause, g.end()).end())  # type: ignore[union-attr]
        else " " * len(g.group(0)), clause)
    if C.negator.search(said) or C.neg_det.search(said) or refusal(said) \
            or C.unsure.search(said) or C.wish_hedge.search(said) \
            or C.for_a_while.search(said) or C.ends.search(clause, m.end()):
        return None
    after = _phrase(clause[m.end():])  # "keep the membership", 保留这个会员
    prefix = said[:m.start()]
    if not after and HAN_RUN.search(clause):  # 会员我还是留着吧: the topic before it, and
        # the subject after the topic, if any (会员还是保留吧: none, as an imperative's)
        after = _phrase(clause[:m.start()] + "我")
        prefix = prefix[prefix.rfind("我"):] if "我" in prefix else ""
    return after if after and own_act(prefix) else None


def _ended(goal: str) -> list[str] | None:
    """The units of what ``goal`` wants to end (``C.ends``: cancel, return, close; 取消,
    退, 注销), its head last, or None: it ends nothing, or its act goes somewhere ("return
    to Chicago", "drop off my package")."""
    m = C.goal.search(goal)
    wanted = _past_between(goal[m.end():] if m else goal)
    act = C.ends.match(wanted.lower())
    if act is None:
        return None
    rest = wanted[act.end():]
    if not HAN_RUN.match(wanted):  # (past the rest of the English act word: "cancelling")
        rest = _WORD_REST.sub("", rest)
    return None if _PREPOSITION.match(rest) else _phrase(rest) or None


def _wanted_act(goal: str) -> str | None:
    """The act a goal's text wants: the word after its want ("I want a refund": refund)."""
    m = C.goal.search(goal)
    return _act_word(goal[m.end():] if m else goal)


def _negated_before(text: str, at: int) -> bool:
    """A negator right before ``at`` ("don't cancel", 别取消)."""
    before = text[max(0, at - 12):at].rstrip()
    return any(m.end() == len(before) for m in C.negator.finditer(before))


def lifted(turn: Turn, clauses: Clauses, index: Sequence[IndexEntry]) -> list[ItemUpdate]:
    """The user's live negative constraints a clause of theirs takes back: it allows
    (``C.allows``: "... is fine", 还是…吧, 也可以), refusing nothing, the act the
    constraint forbade — the word after its negator ("Don't call me after 8pm": call;
    别打电话: 打电; 请不要在周末上门: 周末), with what it said before the negator (周末不要上门:
    周末) and, in English, the word after the act ("calling after 8 is fine"; not "Sending
    the refund via PayPal is fine" for "Do not send the package via FedEx"). Not a
    question."""
    if not C.allows.search(turn.text):
        return []  # (most turns)
    forbidden = [(e.id, e.text.partition("=")[2]) for e in section_entries(index, "anchors")
                 if e.status == "active" and e.speaker == "user"
                 and e.text.startswith("negative_constraint=")]
    out: list[ItemUpdate] = []
    for text, asks in clauses(turn):
        if asks or not C.allows.search(text) or refusal(text):
            continue
        out += [ItemUpdate(id=i, status="superseded", turn=turn.index) for i, rule in forbidden
                if _allows(text, rule) and all(u.id != i for u in out)]
    return out


def _allows(clause: str, rule: str) -> bool:
    """Whether ``clause`` allows the act the negative constraint ``rule`` forbade
    (``_lifted``)."""
    m = C.negator.search(rule) or C.neg_det.search(rule)  # ("No calls after 8pm")
    if m is None:
        return False
    said = set(_units(clause))
    if not set(_units(rule[:m.start()])) <= said:
        return False
    act = _past_between(rule[m.end():])
    if act[:1] and "\u4e00" <= act[0] <= "\u9fff":  # Chinese: the two characters after it
        return act[:2] in clause
    units = _units(act)
    if not units or units[0] not in said:
        return False
    # the word after the act: the same in the clause ("call me after": after)
    object_of = _units(_after_word(act, units[0]))[:1]
    return not object_of or object_of == _units(_after_word(clause, units[0]))[:1]


def _after_word(text: str, unit: str) -> str:
    """``text`` after the word that starts with ``unit`` ("calling" for "call")."""
    m = re.search(rf"\b{re.escape(unit)}\w*", text, re.IGNORECASE)
    return text[m.end():] if m else ""
