"""An answer takes the kind of the question it answers, and belongs to the user.

The assistant asks "What is your order number?" (or "您的订单号是多少？", "may I have
your username, email address and order ID"); the user's reply "Sure, it's
BX-7741-2290." holds a value with no cue of its own. The question is its cue: the value
becomes an ``order_id`` anchor of the user's turn, not a stray string the assistant's
later echo is credited for.

The rule, the same however the turns are batched:

- An assistant sentence that asks the user for values of some kinds (kinds.py) opens
  an *ask*: an open task of the user's whose text names what was asked (the clause
  task the rules made of it, else one made here, verbatim).
- A user turn answers the open asks, the latest asked first: each value it gives by a
  cue (its own words: "my phone is ...") answers the kind its cue names; a value with
  no cue, in the shape of an asked kind still unanswered, takes that kind (one value
  per kind); but a value whose clause is the value alone, or after a subject that
  points back ("It's", 是), in the shape of the kind of the value the sentence before
  it names last (a phone number, not a phone), is of that kind ("Can you look it up by
  phone number? It's 206-555-0143": a phone, and the account asked for is still owed).
  Shapes: an id (letters, digits, dashes, a digit among them), an account (a digit or
  "_" in it), a phone (7 to 15 digits), an address (zh: a clause with a place word,
  路/号/区...; en: a street number and capitalized words).
- An ask whose kinds were all given, by the user after it, is done.
- A question for a value in a role ("Until when do you need the car?": a date, the end;
  "In what city would you like me to search?": a name, the place; "Where are you
  leaving from?" / "Where do you wish to go?": a name, the trip's origin / destination)
  gives that role to the value the reply right after says in no role of its own ("Morgan
  Hill please.", "I'm in SFO right now."), unless the reply says one in that role itself.

Across batches the asks are the open user tasks of the index that name kinds of value
(whoever wrote them: an LLM's "Provide the order number" too), each with the turn it was
(last) stated in, and what was given since is the index's anchors after that turn: an
extractor needs nothing else from the turns before.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..delta import ItemUpdate, NewAnchor, NewTask, StateDelta
from ..lang import Cues
from ..sections import AnchorKind
from ..state import IndexEntry, section_entries
from ..turns import Turn
from .facts import sentences
from .kinds import ASKED, LIST_SEP, asked_kinds, names_a_kind
from .negation import question as asked

C = Cues()
_ID = r"(?=[A-Za-z-]*\d)[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){5,39}"
# The shape of a value with no cue, per kind: whole tokens (no Latin letter, digit, "@"
# or joiner around them: Chinese joins no word to an id, 是DD20240601123吧).
_OPEN, _CLOSE = r"(?<![A-Za-z0-9_@.+-])", r"(?![A-Za-z0-9_@-])"
# what may open a reply that gives a name ("Sure, it's under ", 我叫)
_NAME_OPENS_EN = (r"\W*(?:(?:sure|yes|yeah|ok(?:ay)?)\W+)?(?:(?:it['’]?s|it\s+is"
                  r"|my\s+name\s+is|the\s+name\s+is)\s+)?(?:under\s+)?")
_NAME_OPENS_ZH = r"\s*(?:我?(?:叫|是))?"
# ... not a word of a reply that names nothing ("Yes please.", "Hold on, please.")
_NO_NAME_EN = (r"(?:Yes|Yeah|Yep|Yup|Sure|Ok|Okay|No|Nope|Nah|Wait|Hold|Hang|Thanks|Thank"
               r"|Please|Same|Anywhere|Anything|Nowhere|Nothing|Whatever|Hi|Hello|Hey|Sorry"
               r"|Fine|Great|Cool|Right|Correct|Maybe|Perhaps)")
# ... or said in groups of digits ("It's 6645 1234 9988"; rules.py takes one after its
# cue the same way, 订单号 0123 4567 8901)
GROUPED_ID = r"\d{2,6}(?:[ \t]\d{2,6}){1,4}"
SHAPES: dict[str, re.Pattern[str]] = {
    "order_id": re.compile(rf"{_OPEN}(?:{GROUPED_ID}|{_ID}){_CLOSE}"),
    "ticket_id": re.compile(rf"{_OPEN}(?:{GROUPED_ID}|{_ID}){_CLOSE}"),
    "tracking_number": re.compile(rf"{_OPEN}(?:{GROUPED_ID}|{_ID}){_CLOSE}"),
    "account": re.compile(rf"{_OPEN}(?:{GROUPED_ID}|(?=[A-Za-z0-9_.-]*[\d_])[A-Za-z0-9]"
                          rf"[A-Za-z0-9_.-]{{2,39}}(?<![.-])){_CLOSE}"),
    "phone": re.compile(r"(?<![\w+])(?:\+\d{1,3}[\s.-]?(?:\(0\)\s?)?)?(?:\(\d{2,4}\)\s?)?\d{2,4}"
                        r"(?:[\s.-]?\d{2,5}){1,4}(?![\w-])"),
    # a person's name, the whole reply but for its opener and a "please": capitalized
    # words ("Alvarez", "Sure, it's under Ann Lee.", "Oakland, please" to a city asked
    # for: answers take the role asked); two to four Han characters, maybe after 叫, 是,
    # 姓 (免贵姓王: the surname), none of them a word no name holds (稍等一下, 不知道, 我查一下)
    "name": re.compile(
        rf"^{_NAME_OPENS_EN}(?!{_NO_NAME_EN}\b)([A-Z][a-z]+(?:[ -][A-Z][a-z]+){{0,2}})"
        r"(?:\W+please)?\W*$"
        r"|^\s*(?:免贵)?我?姓([\u4e00-\u9fff])\s*[。.!！]?\s*$"
        rf"|^{_NAME_OPENS_ZH}((?:(?![一不没了吗吧呢啊哦嗯稍等查知道好谢是的])"
        r"[\u4e00-\u9fff]){2,4})\s*(?:[。.!！]?\s*$|[，,])"),
    # an amount with no cue: a number, maybe with cents
    "amount": re.compile(r"(?<![A-Za-z0-9.$¥￥-])\d{1,7}(?:\.\d{1,2})?(?![A-Za-z0-9%]|\.\d)"),
    "address": re.compile(
        # en: a street number and capitalized words, to the end of the sentence
        r"\b\d{1,6}[A-Za-z]?\s+[A-Z][\w .,'#-]{3,60}?(?=[.;!?\n]|$)"
        # zh: a clause naming a place (a road, a number, a district...), after a filler
        # (a gap of 8 at most: each place in a long one is a start, and each would
        # scan the rest of it; a start nearer the address finds the same address)
        r"|(?:^|(?<=[，。,;；!！?？\s]))(?:好的|好|嗯|是的|对)?[，,\s]{0,8}(?:我的)?(?:地址)?"
        r"(?:是|在|为|寄到|送到)?"
        r"((?=[^，。,;；!！?？\n\s]{0,58}[省市区县镇乡村路街道巷弄号楼室栋座])"
        r"[\u4e00-\u9fff][^，。,;；!！?？\n\s]{4,59})"),
}
_NAME_OPENER = re.compile(f"{_NAME_OPENS_EN}|{_NAME_OPENS_ZH}", re.IGNORECASE)
_ZH_PLACE = re.compile(r"[省市区县镇乡村路街道巷弄号楼室栋座]")
_DIGITS = re.compile(r"\d")
_CUE = re.compile("|".join(f"(?P<{kind}>{cue})" for kind, cue in ASKED), re.IGNORECASE)
# What a user's own words call a value, a looser net than a question's cues: "my phone
# is 312 555 0186" answers no question about an order number.
_MENTION = re.compile(
    r"(?P<ticket_id>ticket|case|complaint|claim|投诉|工单)"
    r"|(?P<tracking_number>tracking|parcel|package|shipment|快递|物流|运单|包裹)"
    r"|(?P<order_id>order|订单)|(?P<account>account|user\s?name|user\s?id|login|账号|帐号|账户|用户名)"
    r"|(?P<email>e-?mail|邮箱|邮件)|(?P<phone>phone|mobile|cell|call|text|手机|电话)"
    r"|(?P<address>address|live|地址|住)", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[,;.!?](?:\s|$)|[，；。！？\n]")
_SENTENCE_BREAK = re.compile(r"[.!?](?:\s|$)|[。！？\n]")
_EDGES = re.compile(r"^\W+|\W+$")


@dataclass
class _Ask:
    kinds: list[AnchorKind]
    turn: int
    task: NewTask | None = None  # this batch's task
    task_id: str | None = None  # the index's
    given: set[str] = field(default_factory=set)
    role: str | None = None  # the key its answer takes ("until": when a rental ends)

    def open(self, updates: Sequence[ItemUpdate]) -> bool:
        if self.task is not None:
            return self.task.status == "open"
        return not any(u.id == self.task_id for u in updates)

    def wanted(self) -> list[AnchorKind]:
        return [k for k in self.kinds if k not in self.given]


class Asks:
    """The open asks for values while a batch is read: those of the index (asked in
    earlier batches), then those this batch opens."""

    def __init__(self, index: Sequence[IndexEntry]):
        self.asks: list[_Ask] = []
        latest: dict[str, int] | None = None  # each anchor key's latest turn, if asked
        for e in section_entries(index, "open_tasks"):
            if e.owner != "user" or e.status != "open" or e.turn is None:
                continue
            kinds, role = asked_kinds(e.text, owed=True), None
            if not kinds:
                kinds, role = _role_asked(e.text)
            if kinds:
                if latest is None:
                    latest = _latest_turns(index)
                ask = _Ask(kinds, e.turn, task_id=e.id, role=role)
                ask.given = {k for k, t in latest.items() if t > ask.turn}
                if role is not None and latest.get(role, -1) > ask.turn:
                    ask.given.update(kinds)
                self.asks.append(ask)
        self.asks.sort(key=lambda a: a.turn)

    def answer(self, turn: Turn, anchors: list[NewAnchor], delta: StateDelta
               ) -> list[NewAnchor]:
        """``anchors`` of a user turn, with the values it gives the open asks: a value
        with no cue of its own takes the kind asked for. Asks all of whose kinds are
        now given are closed in ``delta``."""
        live = [a for a in reversed(self.asks) if a.open(delta.updates) and a.wanted()]
        if turn.role != "user" or not turn.content or not live:
            return anchors
        out = list(anchors)
        for ask in live:  # a value said in the role asked of ("... in Berkeley") answers it
            if ask.role is not None and any(a.key == ask.role for a in out):
                ask.given.update(ask.kinds)
        for k, a in enumerate(out):
            opens = turn.text[:turn.text.find(a.value)]
            if a.key == "names" and _NAME_OPENER.fullmatch(opens) \
                    and any("name" in ask.wanted() and ask.role is None for ask in live):
                # the name a name was asked for ("What name is the booking under?"):
                # the person's, the one the state keeps (not one of the names talked of)
                out[k] = a = a.model_copy(update={"key": "name"})
            for ask in live:
                if ask.role is not None and a.kind in ask.wanted():
                    if a.key in _NO_ROLE.get(a.kind, ()) and not (
                            a.kind == "date" and _starts(turn.text, a.value)):
                        # said in no role of its own: the one asked for
                        out[k] = a = a.model_copy(update={"key": ask.role})
                    elif a.key != ask.role:
                        continue  # "I'll pick it up on the 4th": not the end asked for
                if a.kind == "name" and a.key != (ask.role or "name"):
                    continue  # a place or a thing named: no person's name given
                ask.given.add(a.kind)
        # each kind wanted, the role it is asked in: the latest ask's, and of two asked
        # together its own (a name and a city: "Ann Lee" is the name)
        roles: dict[AnchorKind, tuple[int, str | None]] = {}
        for ask in live:
            for want in ask.wanted():
                if want not in roles or roles[want][0] == ask.turn and ask.role is None:
                    roles[want] = (ask.turn, ask.role)
        for kind, start, end in _bare_values(turn.text, list(roles), out):
            value = turn.text[start:end].strip()
            if any(a.value == value and a.key not in _NO_ROLE["name"] for a in out
                   if a.kind == "name"):
                continue  # given another ask already (the name, not the city)
            out = [a for a in out if a.value != value]  # a phone read by its shape alone
            out.append(NewAnchor(kind=kind, key=roles[kind][1] or kind if kind in roles
                                 else kind, value=value, turns=[turn.index]))
            for ask in live:
                ask.given.add(kind)
        for ask in live:  # an end asked for is answered by the reply right after, or not
            if not ask.wanted() or ask.role is not None:
                _close(ask, delta, turn.index)
        return sorted(out, key=lambda a: turn.text.find(a.value))

    def ask(self, turn: Turn, anchors: Sequence[NewAnchor], delta: StateDelta) -> None:
        """Open the asks of an assistant turn (after its clauses were read: a clause the
        rules made a task of is the ask's task)."""
        if turn.role != "assistant" or not turn.content:
            return
        if not names_a_kind(turn.content) and not C.asks_end.search(turn.content) and not (
                _asks_a_role(turn.content)):
            return
        for sentence in sentences(turn.content):
            given = {a.kind for a in anchors if a.value in sentence}
            kinds, role = [k for k in asked_kinds(sentence) if k not in given], None
            if not kinds and asked(sentence):
                kinds, role = _role_asked(sentence)
                kinds = [k for k in kinds if k not in given]
            if not kinds:
                continue  # "Your order BX-1 has shipped": a value given, not asked for
            task = next((t for t in delta.open_tasks if t.owner == "user"
                         and t.turns == [turn.index]
                         and (set(kinds) <= set(asked_kinds(t.text, owed=True))
                              if role is None else _role_asked(t.text)[1] == role)), None)
            if task is None:
                task = NewTask(text=_ask_text(sentence), owner="user", turns=[turn.index])
                delta.open_tasks.append(task)
            self.asks.append(_Ask(kinds, turn.index, task=task, role=role))


# the keys of a value said in no role of its own, by its kind: a date's, a name's (one
# said where something is, "I'm in SFO right now", is where a trip asked of starts)
_NO_ROLE = {"date": ("date",), "name": ("names", "place")}
# the role of a name a question asks for: where a search is, where a trip starts or ends
_ROLE_CUES = (("place", "asks_place"), ("origin", "asks_origin"),
              ("destination", "asks_destination"))  # (cue names: a pack added later counts)


# a word every role question above holds (lower case), looked for before its cues: most
# assistant turns ask for no place and no trip's end
_ROLE_WORDS = ("where", "city", "town", "station", "airport", "origin", "departure",
               "destination", "城市", "区域", "地区")


def _asks_a_role(text: str) -> bool:
    """Whether ``text`` may ask for a name in a role (a fast test, then the cues)."""
    low = text.lower()
    return any(w in low for w in _ROLE_WORDS) \
        and any(getattr(C, cue).search(text) for _, cue in _ROLE_CUES)


def _role_asked(sentence: str) -> tuple[list[AnchorKind], str | None]:
    """The kind a question asks a value of in a role, and the role (the key its answer
    takes): when a stay or a rental ends ("Until when do you need the car?": a date, its
    end), the city a search is in ("In what city would you like me to search?": a name,
    its place), where a trip starts or ends ("Where are you leaving from?": a name, its
    origin); ([], None) when it asks for none, or for both ends of a trip."""
    if C.asks_end.search(sentence):
        return ["date"], "until"
    roles = [role for role, cue in _ROLE_CUES if getattr(C, cue).search(sentence)]
    return (["name"], roles[0]) if len(roles) == 1 else ([], None)  # (both ends: neither)


def _starts(text: str, value: str) -> bool:
    """Whether the date ``value`` of ``text`` is said with the act that starts a stay or
    a rental ("pick it up on", 取车 after it)."""
    start = text.find(value)
    end = start + len(value)
    return C.date_start.search(text, max(0, start - _START_REACH), start) is not None \
        or C.date_start_after.match(text, end) is not None


_START_REACH = 40  # how far before a date its start's words are looked for


# the kinds of id an assistant reads back that a bare id in the user's correction right
# after replaces ("I have order SR-778821. Is that correct?" "No, it's SR-778812.")
READ_BACK: tuple[AnchorKind, ...] = ("order_id", "ticket_id", "tracking_number", "account")


def corrected_ids(turn: Turn, anchors: list[NewAnchor], index: Sequence[IndexEntry]
                  ) -> list[NewAnchor]:
    """``anchors`` of a user's correction ("No, it's ...", 不对，是…), with the bare ids (or
    the address) it gives of the kinds the assistant read back in the turn before: they
    are the user's.
    A reply that agrees ("Yes. 2024031588") corrects nothing."""
    if turn.role != "user" or not turn.content or not C.corrects.search(turn.text):
        return anchors
    kinds = [k for k in (*READ_BACK, "address") if any(
        e.turn == turn.index - 1 and (e.speaker != "user" or k == "address")
        and e.text.startswith(f"{k}=")  # (an address read back as it was said is the user's)
        for e in section_entries(index, "anchors"))]
    said = {a.kind for a in anchors}
    out = list(anchors)
    for kind, start, end in _bare_values(turn.text, [k for k in kinds if k not in said], out):
        value = turn.text[start:end].strip()
        out = [a for a in out if not (a.kind == "name" and a.value in value)]  # (杭州市西湖)
        out.append(NewAnchor(kind=kind, key=kind, value=value, turns=[turn.index]))
    return out


_ID_FORM = re.compile(r"[A-Za-z]+|\d+|-")
# in a correction, an id of the shape of the one it corrects; digits alone too where an
# id is said with no noun of another kind, ending its clause ("wrong one, it's 88210",
# "No: 88210", 不对，是88210; not "No, I paid 12000", "my postcode is 10115", 邮编是310000)
_DIGIT_RUN = re.compile(
    rf"{_OPEN}(?:(?=[A-Za-z0-9-]*[A-Za-z-]){_ID}|(?:(?<=(?i:it's ))|(?<=(?i:it’s ))"
    r"|(?<=(?i:it is ))|(?<=^是)|(?<=[\s，,。:：]是)|(?<=#)|(?<=: )|(?<=：))\d{4,}"
    r"(?=\s*(?:[.,;!?。，；！？]|$)))" + _CLOSE)


@functools.lru_cache(maxsize=4096)  # a session's ids, looked at every turn that names one
def _id_form(value: str) -> tuple[str, ...]:
    """An id's form: its letters as they are, each run of digits by its length ("SR-",
    8 digits, "-", 3 digits): ids of one system share it, another system's differ."""
    return tuple(p if not p.isdigit() else str(len(p)) for p in _ID_FORM.findall(value.upper()))


def ids_alike(turn: Turn, anchors: list[NewAnchor], index: Sequence[IndexEntry]
              ) -> tuple[list[NewAnchor], list[ItemUpdate]]:
    """``anchors`` with the bare ids of a user's turn that have the form of a live id of
    the user's with letters or dashes (``_id_form``; digits alone are any number's, but
    in a correction the one it corrects): of its kind ("I also have another order,
    SR-20240315-898"; "Sorry, wrong one. It's SR-20240315-898."; "My order number is
    88120." ... "Sorry, wrong one, it's 88210."); in a correction that adds no other
    one, the one it corrects is replaced."""
    if turn.role != "user" or not turn.content or not _DIGITS.search(turn.text):
        return anchors, []  # (most turns)
    text = turn.text
    correction = C.corrects.search(text) is not None
    digits = correction and not C.another.search(text)  # (and adds no other one)
    shaped = list((_DIGIT_RUN if digits else SHAPES["order_id"]).finditer(text))
    if not shaped and not (correction and any(a.kind in READ_BACK for a in anchors)):
        return anchors, []
    forms: dict[tuple[str, ...], tuple[AnchorKind, IndexEntry]] = {}
    for e in section_entries(index, "anchors"):
        key, _, value = e.text.partition("=")
        if key not in READ_BACK or e.speaker != "user" or e.status != "active":
            continue
        form = _id_form(value)
        if digits or any(p == "-" or p.isalpha() for p in form):
            forms[form] = (key, e)
    if not forms:
        return anchors, []
    held = _Spans(m.span() for v in {a.value for a in anchors}
                  for m in re.finditer(re.escape(v), turn.text))
    out = list(anchors)
    for m in shaped:
        alike = forms.get(_id_form(m.group(0)))
        if alike is not None and not held.overlap(*m.span()):
            out.append(NewAnchor(kind=alike[0], key=alike[0], value=m.group(0),
                                 turns=[turn.index]))
    if not correction:
        return out, []
    # a correction: the live id of the form of one it gives (with its cue or without),
    # unless the sentence giving it adds one more ("the wrong item in my other order
    # too, SR-…"; not "Sorry, wrong one — it's SR-88210. I also want a refund.")
    adding = [s for s in sentences(text) if C.another.search(s)]
    wrong = {forms[f][1].id for a in out if a.kind in READ_BACK
             and (f := _id_form(a.value)) in forms and forms[f][0] == a.kind
             and forms[f][1].text.partition("=")[2] != a.value
             and not any(a.value in s for s in adding)}
    return out, [ItemUpdate(id=i, status="superseded", turn=turn.index) for i in sorted(wrong)]


def _latest_turns(index: Sequence[IndexEntry]) -> dict[str, int]:
    """The latest turn that stated a value of each anchor key of ``index``."""
    latest: dict[str, int] = {}
    for e in section_entries(index, "anchors"):
        if e.turn is not None:
            key = e.text.partition("=")[0]
            latest[key] = max(latest.get(key, e.turn), e.turn)
    return latest


def _ask_text(sentence: str) -> str:
    """What an ask's task says: its sentence, less the closing marks, at most 160
    characters ending after its last cue."""
    text = sentence.rstrip("?？。.!！ ")
    if len(text) > 160:
        last = max((m.end() for m in _CUE.finditer(text, 0, 160)), default=160)
        text = text[:last]
    return text


def _bare_values(text: str, wanted: list[AnchorKind], found: Sequence[NewAnchor]
                 ) -> list[tuple[AnchorKind, int, int]]:
    """(kind, start, end) of the values in ``text`` with no cue of their own that take
    a ``wanted`` kind, in the order the kinds are wanted, one per kind (an id's kind, with
    the ids of its form listed after it): not inside a
    value the patterns found (but a phone read by its shape alone may be an id asked
    for), nor after a cue of another kind in their clause."""
    held = _Spans(m.span() for v in {a.value for a in found if a.kind not in ("phone", "name")}
                  for m in re.finditer(re.escape(v), text))
    phones = {a.value for a in found if a.kind == "phone"}
    out: list[tuple[AnchorKind, int, int]] = []
    for kind in wanted:
        shape = SHAPES.get(kind)
        if shape is None:
            continue
        for m in shape.finditer(text):
            g = m.lastindex or 0  # the zh address is its group
            start, end = m.span(g)
            value = text[start:end]
            if held.overlap(start, end) or any(s < end and start < e for _, s, e in out):
                continue
            if kind == "phone" and not 7 <= len(_DIGITS.findall(value)) <= 15:
                continue
            if value in phones and kind == "phone":
                continue  # already a phone, cue or not
            if kind == "address" and g and len(_ZH_PLACE.findall(value)) < 2 \
                    and not _DIGITS.search(value):
                continue  # 我在路上: one place word and no number is no address
            if _cued_otherwise(text, start, kind):
                continue
            referred = _referred(text, start, end, phones)
            if referred is not None and referred != kind:
                out.append((referred, start, end))  # the kind just named, not the one asked
                break
            out.append((kind, start, end))
            # ... and the values of its form listed right after it ("What are the order
            # numbers?" "KT-20931 and KT-20932")
            while kind in _LISTABLE and (more := _MORE.match(text, end)) \
                    and (listed := shape.match(text, more.end())) \
                    and _id_form(listed.group(0)) == _id_form(value):
                start, end = listed.span()
                out.append((kind, start, end))
            break
    return out


_LISTABLE = ("order_id", "ticket_id", "tracking_number")
_MORE = re.compile(LIST_SEP, re.IGNORECASE)


class _Spans:
    """Spans of a text, to ask whether one overlaps a given stretch in log time (a turn
    may hold thousands of values, and be read against thousands of shapes)."""

    def __init__(self, spans: Iterable[tuple[int, int]]):
        ordered = sorted(spans)
        self.starts = [s for s, _ in ordered]
        self.reach = list(itertools.accumulate((e for _, e in ordered), max))

    def overlap(self, start: int, end: int) -> bool:
        """Whether a span starts before ``end`` and ends after ``start``."""
        k = bisect.bisect_left(self.starts, end)  # the spans that start before ``end``
        return k > 0 and self.reach[k - 1] > start


def _cued_otherwise(text: str, at: int, kind: str) -> bool:
    """The word nearest before ``at`` in its clause names another kind ("my phone is
    ...")."""
    said = list(_MENTION.finditer(text, _clause_start(text, at), at))
    return bool(said) and said[-1].lastgroup != kind


def _referred(text: str, start: int, end: int, phones: set[str]) -> AnchorKind | None:
    """The kind of the value at ``start:end`` by the sentence before it, when the value's
    clause is the value alone or after a subject that points back ("It's", 是): the kind
    that sentence names last, if it names a value (``C.value_named``: a phone number,
    not a phone, "over the phone"; or a phone, when the value is one of the ``phones``
    found by their own form) and the value is in that kind's shape. It says what was
    just named ("Can you look it up by phone number? It's 206-555-0143": a phone, not the
    account asked for); a value not in that shape is of the kind asked ("I used my
    email. It's DD123456")."""
    clause_at = _clause_start(text, start)
    said = _EDGES.sub("", text[clause_at:start])  # the value alone, or after "It's"
    if not clause_at or said and not C.points_back.fullmatch(said):
        return None
    head = text[:clause_at].rstrip()  # to the end of the sentence (or clause) before
    sentence = head[_clause_start(head, len(head) - 1, _SENTENCE_BREAK):]
    named = asked_kinds(sentence, owed=True)
    if not C.value_named.search(sentence) and not (named[-1:] == ["phone"]
                                                   and text[start:end] in phones):
        return None  # ("I placed the order over the phone. It's 45872213": a channel)
    shape = SHAPES.get(named[-1]) if named else None
    # (the value alone: no word joins it to the shape's lookarounds here)
    return named[-1] if shape is not None and shape.fullmatch(text[start:end]) else None


def _clause_start(text: str, at: int, breaks: re.Pattern[str] | None = None) -> int:
    """Where the clause (or, with ``breaks``, the sentence) holding ``at`` starts."""
    return max((m.end() for m in (breaks or _CLAUSE_BREAK).finditer(text, 0, at)), default=0)


def _close(ask: _Ask, delta: StateDelta, turn: int) -> None:
    if ask.task is not None:
        if ask.task.status == "open":
            ask.task.status = "done"
            ask.task.turns.append(turn)
    elif ask.task_id is not None and all(u.id != ask.task_id for u in delta.updates):
        delta.updates.append(ItemUpdate(id=ask.task_id, status="done", turn=turn))
