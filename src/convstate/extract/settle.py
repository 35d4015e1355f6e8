"""What a proposal settles: when the assistant says that what was asked for cannot be had
as asked ("Unfortunately 11:30 is taken. Would 11 am work?", 没有合适的景点，南宫地热博览园
门票70元), the values it proposes instead replace the user's newest request of the same
key where they do not satisfy it — a time, a date, a price outside the range asked for
(an older request of the key, maybe of another thing, stands unless the failing turn
names it; a value proposed that the user once asked for, for another thing, is still
proposed). A value the proposal satisfies (a rating above the least asked for) stays
the user's, and what was asked for, said back ("no restaurant rated 4.5 or more"), is no
offer. A contrast alone ("but", 不过: 已为您退款200元，不过运费10元不退) says no
failure: a value said back beside it stands.

What failed goes with it: the assistant's reading back of the request ("Please confirm
11:30 am"), and the failed value said back beside the proposal ("I could not book 11:30
am. Would 11 am work?"), are replaced too.

A retry of a failed request ("Can you try it again? SFO is fine too, at 2:45 PM")
replaces the attempt's values of each key it gives, whatever they were about.

An offer outside the bounds just asked for that the user agrees to ("人均消费137元"
after "50元以下", then "嗯，就它家了"), or asks about by its name (its address, its
phone), is taken the same way.

A requirement is read as a bound when it says one: a range ("100-150元", "$20 to $40"),
"at least"/"X以上", "at most"/"under"/"X以下"; a value satisfies it when its number is
within. Any other requirement is satisfied only by the same value.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable, Sequence

from ..delta import ItemUpdate, NewAnchor
from ..lang import Cues
from ..normalize import normalize
from ..sections import (
    CEILING_OF,
    CONTACT_KEYS,
    COUNT_KEYS,
    NAME_KEYS,
    SETTLED_KEYS,
    SLOT_KEYS,
    SLOT_OF,
    WHERE_KEYS,
    slot_of,
)
from ..state import INDEX_TEXT, IndexEntry, section_entries
from ..turns import Turn
from .clock import same_clock
from .facts import sentences
from .negation import (
    MAX_CLAUSE,
    REACH,
    own_act,
    question,
    reading,
    refused_object,
    turned_down,
)
from .products import product_head

C = Cues()
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_BREAK = re.compile(r"[，,;；。!！?？\n]|\.(?=\s|$)")  # where a value's clause ends
_SENTENCE = re.compile(r"[。!！?？\n]|\.(?=\s|$)")  # where a sentence ends
_CORRECTION_REACH = 80  # characters from a value corrected to the value that replaces it
_RANGE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:-|~|—|–|至|到|to)\s*\$?(\d+(?:\.\d+)?)")
_WHOLE_HOUR = re.compile(r"(\d{1,2}):00\b")  # "3:00 pm" is "3 pm"


def proposed_instead(turn: Turn, anchors: Sequence[NewAnchor], index: Sequence[IndexEntry]
                     ) -> tuple[list[NewAnchor], list[ItemUpdate]]:
    """The updates that an assistant turn saying it cannot meet a request, and proposing
    values instead, makes to the user's earlier values (see the module's rule), and the
    turn's anchors left to take. What failed goes with the request: the assistant's
    reading back of it in reply ("Please confirm 11:30 am"), and the same value said back in
    the failing turn ("I could not book 11:30 am. Would 11 am work?") is not taken."""
    if turn.role == "user" or not turn.content:
        return list(anchors), []
    failed = C.unavailable.search(turn.content) is not None
    if not failed and not C.contrast_offer.search(turn.content):
        return list(anchors), []
    offered: dict[str, list[str]] = {}
    for a in anchors:
        if a.key in SETTLED_KEYS:
            offered.setdefault(slot_of(a.key), []).append(a.value)
    entries = [(e, key, value) for e in section_entries(index, "anchors")
               for key, value in [_asked(e)] if key in offered]
    asking = {slot_of(key) for _, keys in offers(turn, anchors) for key in keys}  # theirs
    mine = [x for x in entries if x[0].speaker == "user"]
    asked: dict[str, int] = {}  # each key's newest request
    for e, key, _ in mine:
        asked[key] = max(asked.get(key, -1), e.turn if e.turn is not None else -1)
    # what was asked, said back: by the user, or read back by the assistant in its reply,
    # or in the turn the user answered last, the same time ("Please confirm: departing
    # at 12:45 pm" "Yes" "I was unable to book it")
    asked_at = [(key, value) for e, key, value in mine if e.turn == asked[key]]
    back = [x for x in entries if x[0].speaker != "user" and x[1] in asked
            and (x[0].turn == asked[x[1]] + 1 or x[0].turn == turn.index - 2
                 and _same_clock(x[1], x[2], asked_at))] if failed else []
    said = {normalize(value) for _, value in asked_at}  # not an older request's
    said |= {normalize(value) for _, _, value in back}
    # ... or in the words of a requirement: a bound is asked, not offered (没有500元以下的)
    said |= {normalize(v) for vs in offered.values() for v in vs if _bound(v) is not None}
    clocked = [(key, value) for _, key, value in mine + back]
    here = {normalize(v) for vs in offered.values() for v in vs}

    def said_back(key: str, value: str) -> bool:  # in the same words, or the same clock
        return normalize(value) in said or _same_clock(key, value, clocked)

    # of two requests of a key asked together (a start and an end date), the one the
    # failing turn names is the one that failed ("March 13th is not available")
    named = {key for key, value in asked_at if normalize(value) in here}
    out, gone = [], set()
    roles: dict[str, set[str]] = {}  # the keys of the values replaced, by their kind
    for e, key, value in mine:
        if e.turn != asked[key] and (key, value) not in asked_at \
                and normalize(value) not in here:  # (没有500-600元的酒店: that one failed)
            continue  # an older request (another place's price), not named again, stands
        if not failed and normalize(value) in here:
            continue  # said back beside a contrast only: it stands
        if key in named and normalize(value) not in here:
            continue  # asked with the one that failed, not named: it stands
        instead = [v for v in offered[key] if not said_back(key, v)]
        if instead and not any(satisfies(value, v, _side(e)) for v in instead):
            if key not in asking:  # else the user's answer settles it (answer_offer)
                out.append(ItemUpdate(id=e.id, status="superseded", turn=turn.index))
            gone.add(key)
            roles.setdefault(key, set()).add(e.text.partition("=")[0])
    out += [ItemUpdate(id=e.id, status="superseded", turn=turn.index)
            for e, key, value in back if key in gone
            and (key not in named or normalize(value) in here)]
    kept = []
    for a in anchors:
        kind = slot_of(a.key)
        if kind in gone and said_back(kind, a.value):
            continue  # the failed value said back
        # a value proposed instead takes the role of the one it replaces (an end date's)
        replaced = roles.get(kind, set())
        if len(replaced) == 1 and (role := next(iter(replaced))) in SLOT_OF and role != a.key:
            a = a.model_copy(update={"key": role})
        kept.append(a)
    return kept, out


def taken_up(turn: Turn, anchors: Sequence[NewAnchor], index: Sequence[IndexEntry]
             ) -> list[ItemUpdate]:
    """The updates a user's turn makes by going on after the assistant answered a request
    with values outside the bounds it asked for (人均消费137元 after "50元以下", a rating
    of 4.3 after "4.5分以上"; a rating asked for is a least one: 4分 after "5分"; a date or
    time is no bound, its reading back no offer): an offer the reply takes (``_takes``)
    is taken, and the bound of that request it does not meet is replaced."""
    text = turn.content
    if turn.role != "user" or not text:
        return []
    # the two turns before: a read of what they stated, not of the whole index
    recent = [e for e in section_entries(index, "anchors")
              if e.turn is not None and e.turn >= turn.index - 2]
    # ... or asks for its details by the name the turn before said (请告诉我口福居的地址;
    # not 口福居是不是很贵？ nor 口福居为什么评分这么低？)
    details = C.asked_address.search(text) or C.asked_phone.search(text) \
        or C.asked_time.search(text)
    named = bool(details) and question(text) and not (
        C.wanting.search(text) or C.corrects.search(text) or C.negator.search(text)) and any(
        e.turn == turn.index - 1 and key in NAME_KEYS and value in text
        for e in recent for key, _, value in [e.text.partition("=")])
    if not named and not _takes(text):
        return []
    stated = {a.key for a in anchors}
    offered: dict[str, list[str]] = {}
    for e in recent:
        key, _, value = e.text.partition("=")
        if e.speaker == "assistant" and e.turn == turn.index - 1 \
                and key in SETTLED_KEYS and key not in stated:
            offered.setdefault(key, []).append(value)
    out = []
    for e in recent if offered else ():
        key, value = _asked(e)
        # (the bound as the reply said it back, 在200-300元的价位酒店里没有…, is no offer)
        others = [v for v in offered.get(key, ()) if v != value]
        if e.speaker == "user" and others and _bound(value, _side(e)) is not None \
                and not any(satisfies(value, v, _side(e)) for v in others):
            out.append(ItemUpdate(id=e.id, status="superseded", turn=turn.index))
    return out


# what an offer put to the user as a question may propose: a count too ("Would 1 night
# work?"), settled by their answer (not by a failure: what it says there is, "only 40
# seats left", proposes no count)
OFFERED_KEYS = SETTLED_KEYS | COUNT_KEYS  # the keys of the values an offer proposes


def _takes(text: str) -> bool:
    """Whether a user's reply takes what was just offered: agrees (嗯，就它家了; "Yes,
    that works") or asks about it (那它的营业时间是什么时候？), not correcting it nor
    finding it wanting (这个不行, "anything cheaper?")."""
    return not C.corrects.search(text) and bool(
        C.agrees.search(text) or C.refers_back.search(text) and question(text)
        and not C.wanting.search(text) and not C.negator.search(text))


def offers(turn: Turn, anchors: Sequence[NewAnchor]) -> list[tuple[str, set[str]]]:
    """The offers an assistant turn puts to the user to take or turn down, each with the
    keys it proposes values of: a question sentence that offers a value ("Would you like
    me to try 11 am?", "Would 4 pm work?", 推荐您去朝阳公园，但评分是4.4分，您能接受么？)
    and holds one of SETTLED_KEYS, or that asks whether the user wants what follows and
    that is a value ("Would you like the $95 one?"; not "You're booked at 3 pm, would you
    like a receipt?"); not a request to confirm what was said back."""
    if turn.role != "assistant" or not turn.content \
            or not any(a.key in OFFERED_KEYS for a in anchors) \
            or not (C.offer.search(turn.content) or C.offer_ask.search(turn.content)):
        return []
    out, before = [], ""
    for sentence in sentences(turn.content):
        said, before = before, sentence
        if not question(sentence) or C.ask_confirm.search(sentence):
            continue
        if C.offer.search(sentence):
            after = 0
        elif m := C.offer_ask.search(sentence):
            after = m.end()
        else:
            continue
        keys = {a.key for a in anchors if a.key in OFFERED_KEYS and a.value in sentence[after:]}
        if not keys and C.offer_back.search(sentence[after:]):
            # what it refers back to, said just before ("The next opening is 4 pm. Would
            # that work?"): the offer is both sentences
            keys = {a.key for a in anchors if a.key in OFFERED_KEYS and a.value in said}
            sentence = f"{said} {sentence}"
        if keys:
            out.append((sentence, keys))
    return out


Options = Sequence[tuple[str, re.Pattern[str]]]  # a Cue field's (value, pattern) pairs


def cue_offers(turn: Turn, options: Options) -> list[str]:
    """The question of an assistant turn that offers one option of a ``Cue`` field to
    take ("Would you like a refund?", 需要帮您办理退款吗？): the user's to answer. Only
    when it is the turn's one question and the turn names no other option ("Would you
    like a refund? We can also do an exchange." offers neither)."""
    if turn.role != "assistant" or not turn.content or not options \
            or not (C.offer.search(turn.content) or C.offer_ask.search(turn.content)):
        return []
    asked = [s for s in sentences(turn.content) if question(s)]
    if len(asked) != 1 or not (C.offer.search(asked[0]) or C.offer_ask.search(asked[0])):
        return []
    one = offered_option(asked[0], options) and len(_named(turn.content, options)) == 1
    return asked if one else []


def offered_option(offer: str, options: Options) -> str | None:
    """The words of the one option ``offer`` offers ("refund" of "Would you like a
    refund?"): what its question wants, ending its phrase; None when it names none or
    several ("a refund or an exchange?"), or one it does not offer ("cancel the refund",
    "why you aren't eligible for a refund", "our refund policy link")."""
    cues = [m.start() for cue in (C.offer, C.offer_ask) for m in cue.finditer(offer)]
    offer = offer[max(cues, default=0):]  # the question (after what it refers back to)
    named = _named(offer, options)
    if len(named) != 1:
        return None
    words, start, end = named[0]
    # (a verb offered may take its object: "Do you want me to expedite it?")
    ends = not offer[start].isascii() or C.phrase_end.match(offer, end) \
        or (it := C.object.match(offer, end)) is not None and C.phrase_end.match(offer, it.end())
    return words if ends and reading(offer, start, end) == "chosen" else None


def _named(text: str, options: Options) -> list[tuple[str, int, int]]:
    """The options ``text`` names (their words, where), one each, its last mention (a
    question after what it refers back to: "The refund would be $50. Would you like
    that refund?")."""
    found: dict[str, tuple[str, int, int]] = {}
    for value, pattern in options:
        for m in pattern.finditer(text):
            if m.end() > m.start():
                found[value] = (m.group(0), m.start(), m.end())
    return list(found.values())


def agrees_only(text: str) -> bool:
    """Whether a reply agrees and does nothing else with what was offered: not a "no", a
    correction, a put-off ("OK, I'll think about it"), a contrast ("Sure, but ..."), a
    condition, a negation or a question."""
    return bool(C.agrees.search(text)) and not (
        C.declines.search(text) or C.corrects.search(text) or C.puts_off.search(text)
        or C.wanting.search(text) or C.interim.search(text) or C.contrast_offer.search(text)
        or C.condition.search(text) or C.negator.search(text) or question(text))


def answer_offer(turn: Turn, anchors: Sequence[NewAnchor], index: Sequence[IndexEntry]
                 ) -> list[ItemUpdate]:
    """The updates a user's reply to the offer of the turn before makes (an open task of
    theirs that ``offers`` opened). What it proposed: the values the offer's question
    holds of a key the user asked for (a product: of the same head: ``_kind``), other
    than theirs ("3 pm is taken. Would 4 pm work?": 4 pm). How the reply opens settles
    them: turned down ("No, that's ok", 不用了, "4 pm is too late", "I can't do 4 pm"),
    they go, with nothing instead, and the user's request stands; changed ("No, make it 2 pm": the
    reply's own values settle it), another asked for or put off ("what other times do
    you have?", "let me check first", 我再想想): nothing yet; otherwise the conversation
    goes on with it ("Yes, 4 pm is fine", 那好吧，就去这儿吧): they replace the user's
    newest request of the key where they do not satisfy it. Of several offered, the one
    the reply says is taken and the others of its kind go ("6 pm or 8 pm?" "8 pm
    works")."""
    text = turn.content
    if turn.role != "user" or not text:
        return []
    asked = [e.text for e in section_entries(index, "open_tasks") if e.status == "open"
             and e.owner == "user" and e.turn == turn.index - 1
             and (C.offer.search(e.text) or C.offer_ask.search(e.text))]
    if not asked:
        return []
    entries = section_entries(index, "anchors")
    requests = [(e, _kind(key, value), value) for e in entries if e.speaker == "user"
                for key, value in [_asked(e)]]
    theirs = {_same(value) for _, _, value in requests}
    slots = {slot for _, slot, _ in requests}
    cut = any(len(t) >= INDEX_TEXT for t in asked)  # a question cut short: its values unread
    # each slot's newest request before the offer: a value the offer says that an older
    # request of the user's asked for another thing (免费) is proposed all the same
    newest = _newest(requests, lambda e: e.turn is not None and e.turn < turn.index - 1)
    now = {(slot, _same(value)) for e, slot, value in requests if e.turn == newest.get(slot)}
    proposed = [(e, slot, value) for e in entries
                for key, _, value in [e.text.partition("=")] for slot in [_kind(key, value)]
                if e.turn == turn.index - 1 and key in OFFERED_KEYS and slot in slots
                and (_same(value) not in theirs if e.speaker != "user" else
                     slot in newest and (slot, _same(value)) not in now)
                and (cut or any(value in t for t in asked))]
    # a key the reply states anew is the reply's (saying the offer's value takes it)
    repeated = {_same(value) for _, _, value in proposed}
    anew = {_kind(a.key, a.value) for a in anchors if _same(a.value) not in repeated}
    proposed = [p for p in proposed if p[1] not in anew]
    if not proposed:
        return []
    said = _said_plainly(turn.text, anchors)
    # one of several taken by saying it ("6 pm or 8 pm?" "8 pm works"): the others go
    picked = {slot for _, slot, value in proposed if _same(value) in said}
    first = _BREAK.split(text, 1)[0]  # how the reply opens ("景点地址在哪，…其他景点…" takes it)
    theirs_again = {e.id for e, _, _ in proposed if e.speaker == "user"}  # (kept: theirs)
    if not picked and (C.declines.search(first) or C.negator.search(first) and any(
            value in first for _, _, value in proposed)):  # "I can't do 4 pm"
        return [ItemUpdate(id=e.id, status="superseded", turn=turn.index)
                for e, _, _ in proposed if e.id not in theirs_again]
    out = [ItemUpdate(id=e.id, status="superseded", turn=turn.index)
           for e, slot, value in proposed if slot in picked and _same(value) not in said
           and e.id not in theirs_again]
    if not picked and (C.corrects.search(text) or C.wanting.search(first)) \
            or C.interim.search(first) or C.puts_off.search(text):
        return []
    offered: dict[str, list[str]] = {}
    for _, slot, value in proposed:
        offered.setdefault(slot, []).append(value)
    # the request it answers: the user's newest of the key
    latest = _newest(requests, lambda e: e.id not in theirs_again)
    return out + [ItemUpdate(id=e.id, status="superseded", turn=turn.index)
                  for e, slot, value in requests if slot in offered
                  and e.turn == latest.get(slot)
                  and not any(satisfies(value, v, _side(e)) for v in offered[slot])]


def _said_plainly(text: str, anchors: Sequence[NewAnchor]) -> set[str]:
    """The values (``_same``) a user's reply says without asking about them, turning them
    down or finding them wanting ("No, make it 8 pm"; not "Is 9 pm the last seating?",
    "8 pm? That's too late", "I can't do 8 pm", "8 pm is too late"; "8 pm is ok too"
    says it)."""
    bounds, said = _Bounds(text), set()
    for a, start, end in _placed(text, anchors):
        first_at, last_at = bounds.clause(start, end)
        clause, at = text[first_at:last_at], end - first_at
        if not bounds.asks(start, end) \
                and not turned_down(clause, start - first_at, at) \
                and not C.negator.search(clause, 0, start - first_at) \
                and not (C.wanting.search(clause, at) and not C.adds.search(clause, at)):
            said.add(_same(a.value))
    return said


def took_stated(turn: Turn, anchors: Sequence[NewAnchor], index: Sequence[IndexEntry]
                ) -> list[ItemUpdate]:
    """The updates a user's reply makes by taking a value the assistant stated in the turn
    before without putting it as a question ("We have a table at 6 pm." "Change it to 6
    pm please.", 周六晚上6点有包间 "行，就周六晚上6点"): the user's older values of that
    key go, and the assistant's others of it said there ("tables at 6 pm and 8 pm" "I'll
    take 8 pm": 6 pm). Said the same way as a reply to an offer (``answer_offer``)."""
    if turn.role != "user" or not turn.content or C.noted.search(turn.text):
        return []  # "OK, 9 pm, got it": noted, not taken
    entries = section_entries(index, "anchors")
    stated = [(e, slot, value) for e in entries if e.speaker == "assistant"
              and e.turn == turn.index - 1 for key, value in [_asked(e)]
              for slot in [_kind(key, value)] if key in SLOT_KEYS]
    if not stated:
        return []
    said = _said_plainly(turn.text, anchors) - {  # not a bound: "well before 6 pm"
        _same(a.value) for a, start, end in _placed(turn.text, anchors)
        if C.bound_before.search(turn.text, max(0, start - 20), start)
        or C.bound_after.match(turn.text, end)}
    took = {slot for _, slot, value in stated if _same(value) in said}
    if not took:
        return []
    return [ItemUpdate(id=e.id, status="superseded", turn=turn.index) for e in entries
            for key, value in [_asked(e)] for slot in [_kind(key, value)]
            if slot in took and _same(value) not in said and e.turn is not None
            and (e.speaker == "user" and e.turn < turn.index - 1
                 or e.speaker == "assistant" and e.turn == turn.index - 1)]


def _newest(requests: list[tuple[IndexEntry, str, str]], keep: Callable[[IndexEntry], bool]
            ) -> dict[str, int]:
    """The turn of each slot's newest request of ``requests`` that ``keep`` keeps."""
    newest: dict[str, int] = {}
    for e, slot, _ in requests:
        if keep(e):
            newest[slot] = max(newest.get(slot, -1), e.turn if e.turn is not None else -1)
    return newest


def _same(value: str) -> str:
    """A value as an offer is told from a request by: its words, a time's whole hour
    without its minutes ("3:00 pm" and "3 pm")."""
    return normalize(_WHOLE_HOUR.sub(r"\1", value))


def corrected(turn: Turn, anchors: Sequence[NewAnchor], index: Sequence[IndexEntry]
              ) -> list[ItemUpdate]:
    """The updates a user's correction makes ("No, share it with Carol", 不是周五，改成
    周六): the values of the keys it states anew that the turn before said (a read-back,
    a proposal) are replaced, and the user's own earlier ones equal to them. A value it
    refuses ("No, I don't want to switch to ...", 我不想换成…) states nothing anew. A
    correction governs its own sentence and what follows, not a sentence before it
    ("It's Dana Smith. Actually, make it 3 people." corrects the party, not a name)."""
    cue = C.corrects.search(turn.text) if turn.role == "user" and turn.content else None
    if cue is None:
        return []
    index = section_entries(index, "anchors")
    new: dict[str, set[str]] = {}
    bounds = _Bounds(turn.text)
    scope = max((m.end() for m in _SENTENCE.finditer(turn.text, 0, cue.start())), default=0)
    for a, start, end in _placed(turn.text, anchors):
        if start < scope:
            continue
        first, last = bounds.clause(start, end)
        if last - first > MAX_CLAUSE or reading(turn.text[first:last], start - first,
                                                end - first) != "refused":
            new.setdefault(_role(a.key, a.value), set()).add(normalize(a.value))
    if "category" in new and any(a.key == "category" and a.subject for a in anchors):
        # a kind sought anew ("Actually, let's do Thai food"): what the turn before
        # found for the old one (its names: "Bella Notte") goes too
        new.setdefault("names", set()).update(new["category"])
    before = {_role(*e.text.partition("=")[::2]) for e in index if e.turn == turn.index - 1}
    for role, kind in SLOT_OF.items():  # a date said with no role corrects the end said
        if kind in new and kind not in before and role not in new:  # back alone
            new[role] = new[kind]
    entries = [(e, _role(key, value), value) for e in index
               for key, _, value in [e.text.partition("=")] if _role(key, value) in new]
    # (not the user's value for someone else said back: "No, my own number is ..." after
    # the wife's number read back leaves hers; nor the user's own said back when the
    # number is only for someone else: "Actually, call my wife instead? Her number is ...")
    own = {_role(a.key, a.value) for a in anchors if a.subject is None}
    theirs = {_role(a.key, a.value) for a in anchors
              if a.subject and C.relation.search(a.subject)} - own
    others = {(key, normalize(value)) for e, key, value in entries
              if e.speaker == "user" and (e.subject and key in own
                                          or not e.subject and key in theirs)}
    wrong = {(key, normalize(value)) for e, key, value in entries
             if e.turn == turn.index - 1 and normalize(value) not in new[key]
             and (key, normalize(value)) not in others
             # nor the assistant's own contact ("Our hotline is ...", 客服热线)
             and not (e.speaker != "user" and e.subject and C.own_contact.fullmatch(e.subject))}
    return [ItemUpdate(id=e.id, status="superseded", turn=turn.index) for e, key, value
            in entries if (key, normalize(value)) in wrong]


def self_corrected(turn: Turn, anchors: Sequence[NewAnchor]) -> list[NewAnchor]:
    """A user's values less those they correct in the same turn: a value the speaker
    corrects right after it ("415-555-0100, sorry, I mean 415-555-0111", 13811112222，
    不对，是13811112233; "kim@old.com is wrong, it's ...") when another of its kind
    follows within a clause's reach. ("The wrong item, and order #2 too" corrects nothing.)"""
    if turn.role != "user" or not turn.content \
            or len({slot_of(a.key) for a in anchors}) == len(anchors):
        return list(anchors)  # (no kind said twice: most turns)
    text, placed = turn.text, _placed(turn.text, anchors)
    # the next value of each kind, read backwards (an end date answered is a date: "April
    # 6th. Actually, make that April 7th." gives the end April 7th)
    later: dict[str, tuple[int, NewAnchor]] = {}
    dropped: set[int] = set()
    keyed: dict[int, str] = {}
    for a, start, end in reversed(placed):
        after = later.get(slot_of(a.key))
        if a.key == "category" and (noun := C.kind_noun.match(text, end)):
            end = noun.end()  # "Indian food, no wait, Thai food": past the kind's noun
        if after is not None and after[0] - end <= _CORRECTION_REACH \
                and C.self_correction.match(text, end) is not None:
            dropped.add(id(a))
            keyed[id(after[1])] = keyed.get(id(a), a.key)  # the role it corrects
        later[slot_of(a.key)] = start, a
    return [a.model_copy(update={"key": keyed[id(a)]}) if id(a) in keyed else a
            for a in anchors if id(a) not in dropped]


_DECLINED_KEYS = SLOT_KEYS | {"product"}  # (a product turned down as a thing: refused_object)


def declined(turn: Turn, anchors: Sequence[NewAnchor], index: Sequence[IndexEntry]
             ) -> tuple[list[NewAnchor], list[ItemUpdate]]:
    """A slot value (a date, a time, a place, a category) or a product the user turns
    down in its own clause ("Monday is bad", 周一不行, "not at 5 pm", 不要那个冰激凌套餐; not
    in a question or a condition: 周一不行吗？, "If Monday is bad, ...") is no value of
    theirs: it is not taken, and the values equal to it that the state holds are replaced
    (by the one the turn gives instead: "Monday is bad. Wednesday at 1pm works.", or by
    none)."""
    if turn.role != "user" or not turn.content \
            or all(a.key not in _DECLINED_KEYS for a in anchors):
        return list(anchors), []
    text, bounds = turn.text, _Bounds(turn.text)
    # (a product a negated want governs too: "I don't want the Premium plan"; a slot
    # value not: "I don't need it until Friday" still says Friday)
    down = [a for a, start, end in _placed(text, anchors) if a.key in _DECLINED_KEYS
            and (c := bounds.clause(start, end))[1] - c[0] <= MAX_CLAUSE
            and (turned_down if a.key in SLOT_KEYS else refused_object)(
                text[c[0]:c[1]], start - c[0], end - c[0])
            # not asked ("周一不行吗？") nor supposed ("If Monday is bad, ...")
            and not bounds.clause_asks(start, end) and not C.condition.search(text[c[0]:start])]
    return _let_go(down, anchors, index, turn)


def moved_from(turn: Turn, anchors: Sequence[NewAnchor], index: Sequence[IndexEntry]
               ) -> tuple[list[NewAnchor], list[ItemUpdate]]:
    """A slot value, a contact or a product the user moves a booking from ("move it from
    Monday to Tuesday", "reschedule it from Tuesday to Thursday", 从周一改到周三, "upgrade
    from the Silver plan to the Gold plan", 把畅享58元套餐升级成…, "change my number from
    ... to ...") or takes another instead of ("Use 628-555-0199 instead of 415-555-0132"),
    a contact said to be out of use ("Don't use ana@old.com anymore", 这个号码已经停用了)
    and a product the turn switches from ("I'm on the Basic plan, upgrade me to ...") are
    let go as a turned-down one is (``declined``): the value moved to is the one that
    stands."""
    if turn.role != "user" or not turn.content \
            or all(a.key not in _MOVED_KEYS for a in anchors):
        return list(anchors), []
    text, bounds = turn.text, _Bounds(turn.text)
    down = [a for a, start, end in _placed(text, anchors) if a.key in _MOVED_KEYS
            and (C.moved_from.search(text, max(0, start - _MOVE_REACH), start)
                 and C.moved_to.match(text, end)
                 or C.instead_of.search(text, max(0, start - _INSTEAD_REACH), start)
                 # a contact said to be out of use ("Don't use X anymore")
                 or a.key in CONTACT_KEYS and _out_of_use(text, start, end, bounds, anchors))]
    # a product of the kind the turn switches to, said before it ("我现在是畅享套餐，帮我
    # 升级成尊享套餐"): the one it leaves
    heads, new, at = _switched_to(turn, anchors)
    down += [a for a, start, _ in _placed(text, anchors) if a.key == "product" and start < at
             and product_head(a.value) in heads and normalize(a.value) not in new
             and a not in down]
    return _let_go(down, anchors, index, turn)


def cancelled(turn: Turn, anchors: Sequence[NewAnchor], index: Sequence[IndexEntry]
              ) -> tuple[list[NewAnchor], list[ItemUpdate]]:
    """The day and the time of a booking called off are let go as a value moved from is:
    said in a clause where the user asks to call it off ("Please cancel my appointment on
    Friday at 3 pm", 帮我取消明天下午三点的预约: the clause opens with the asking,
    ``C.cancel_asked``, with no condition in its sentence up to it), up to what goes on to
    another act ("..., and book Monday instead"), every one of them a value the state
    holds (明天上午十点的按摩 is not the haircut at 明天下午三点); or where the assistant
    reports it called off ("Your appointment on Friday at 3 pm has been cancelled",
    已为您取消…): its saying of them is no live value (the user's own values only the user
    replaces). Not told in passing, refused, supposed or asked about ("I cancelled it on
    Monday", "I'm not going to cancel", "If ..., cancel", "Should I cancel ...")."""
    if not turn.content or not C.cancels.search(turn.text) \
            and not C.cancel_done.search(turn.text):
        return list(anchors), []
    user = turn.role == "user"
    text, bounds = turn.text, _Bounds(turn.text)
    down = []
    for a, start, end in _placed(text, anchors):
        if a.key not in _WHEN:
            continue
        first, last = bounds.clause(start, end)
        cue = (C.cancels if user else C.cancel_done).search(text, first, last)
        if cue is None or bounds.clause_asks(start, end):
            continue
        if user and (not C.cancel_asked.fullmatch(text, first, cue.start())
                     or C.condition.search(text, bounds.sentence(*cue.span())[0], last)):
            continue
        ends = C.cancel_ends.search(text, cue.end(), last)
        if ends is None or start < ends.start():
            down.append(a)
    if user and not {_held(a) for a in down} <= set(map(_state_value, section_entries(
            index, "anchors"))):
        return list(anchors), []
    return _let_go(down, anchors, index, turn)


_WHEN = frozenset({"date", "until", "time"})


def _out_of_use(text: str, start: int, end: int, bounds: _Bounds,
                anchors: Sequence[NewAnchor]) -> bool:
    """Whether the contact at ``text[start:end]`` is said to be out of use: a cue of it in
    its clause, with no connective or other contact value between them ("Email me at X
    since I no longer use my work email" says it of another), and no question."""
    first, last = bounds.clause(start, end)
    m = C.out_of_use.search(text, first, last)
    if m is None or bounds.clause_asks(start, end):
        return False
    lo, hi = (end, m.start()) if m.start() >= end else (m.end(), start)
    return not C.another_contact.search(text, lo, hi) and not any(  # nor another contact
        a.key in CONTACT_KEYS and lo <= s0 < hi for a, s0, _ in _placed(text, anchors))


_MOVE_REACH = 60  # characters before a value where the verb that moves it from is looked for
_INSTEAD_REACH = 16  # ... and "instead of", right before it
# ("upgrade from the Silver plan to the Gold plan", "change my number from ... to ...")
_MOVED_KEYS = SLOT_KEYS | CONTACT_KEYS | {"product", "account"}


def _let_go(down: list[NewAnchor], anchors: Sequence[NewAnchor],
            index: Sequence[IndexEntry], turn: Turn
            ) -> tuple[list[NewAnchor], list[ItemUpdate]]:
    """``anchors`` less those ``down`` (those very values: the same value said again in
    the turn, for what replaces it, stays), and the updates replacing the values equal to
    them that the state holds, but for one the turn says again ("Cancel Friday at 3 pm
    and book Monday at 3 pm")."""
    if not down:
        return list(anchors), []
    kept = [a for a in anchors if all(a is not d for d in down)]
    gone = {_held(a) for a in down} - {_held(a) for a in kept}
    updates = [ItemUpdate(id=e.id, status="superseded", turn=turn.index)
               for e in section_entries(index, "anchors") if _state_value(e) in gone]
    return kept, updates


def _held(a: NewAnchor) -> tuple[str, str]:
    """What a value of this turn is, as the state's are compared (``_state_value``)."""
    return slot_of(a.key), normalize(a.value)


def _state_value(e: IndexEntry) -> tuple[str, str]:
    """An anchor entry's slot and its value, normalized."""
    key, value = _asked(e)
    return key, normalize(value)


def switched(turn: Turn, anchors: Sequence[NewAnchor], index: Sequence[IndexEntry]
             ) -> list[ItemUpdate]:
    """The updates a user's change of product makes ("move me to the Unlimited Elite plan
    instead", 帮我升级成1000M宽带): the products of its kind (the same head: plan, 宽带)
    the state holds are replaced; a membership stays beside a new plan. Only the
    speaker's own change asked for now (``negation.own_act``): asking about one ("How
    much is it to upgrade to ...?"), refusing it, a condition or a third party's changes
    nothing."""
    heads, new, _ = _switched_to(turn, anchors)
    if not heads:
        return []
    return [ItemUpdate(id=e.id, status="superseded", turn=turn.index)
            for e in section_entries(index, "anchors")
            if (kv := e.text.partition("="))[0] == "product" and product_head(kv[2]) in heads
            and normalize(kv[2]) not in new]


def _switched_to(turn: Turn, anchors: Sequence[NewAnchor]
                 ) -> tuple[set[str], set[str], int]:
    """The heads and the names (normalized) of the products a user's turn switches to
    (``switched``), and where the first of them starts."""
    heads: set[str] = set()
    new: set[str] = set()
    at = len(turn.text)
    if turn.role != "user" or not turn.content or all(a.key != "product" for a in anchors):
        return heads, new, at
    text, bounds = turn.text, _Bounds(turn.text)
    for a, start, end in _placed(text, anchors):
        first, _ = bounds.clause(start, end)
        # (the sentence's start: "Actually, the Gold plan" has its cue a clause before)
        verb = C.switch.search(text, max(bounds.sentence(start, end)[0], start - 40), start) \
            if a.key == "product" else None
        if verb is not None and own_act(text[max(first, verb.start() - REACH):verb.start()]) \
                and not bounds.asks(start, end):
            heads.add(product_head(a.value))
            new.add(normalize(a.value))
            at = min(at, start)
    return heads, new, at


def retried(turn: Turn, anchors: Sequence[NewAnchor], index: Sequence[IndexEntry]
            ) -> list[ItemUpdate]:
    """The updates a user's retry of a request makes ("Can you try it again? SFO Airport
    is fine too, for pick up at 2:45 PM"): a value it gives replaces the values of its
    key the attempt stated, from the user's newest request of the key on (and the
    assistant's reading back of them), whatever they were about: the attempt is over. So
    does a name ("Could you try again, this time at Smith Rafael Film Center?"), to the
    assistant's saying of the attempt's names in any role too (``_same_name``: "in San
    Jose"), not to the names it offered."""
    if turn.role != "user" or not turn.content or not C.retry.search(turn.content):
        return []
    new: dict[str, set[str]] = {}
    for a in anchors:
        if a.key in SLOT_KEYS or a.key in NAME_KEYS:
            new.setdefault(a.key, set()).add(normalize(a.value))
    entries = [(e, *e.text.partition("=")[::2]) for e in section_entries(index, "anchors")
               if e.status == "active" and e.text.partition("=")[0] in new.keys() | NAME_KEYS]
    mine = {key for e, key, _ in entries if e.speaker == "user"}
    if "names" in new and not new.keys() & WHERE_KEYS:
        # a name in no role ("Oakland is fine too", "SFO Airport is fine too for pick
        # up"): the one where-role of the user's newest request that named one (a place,
        # a trip's end), or with none, the attempt's place
        newest = max((e.turn or 0 for e, key, _ in entries if e.speaker == "user"
                      and key in NAME_KEYS), default=None)
        roles = {key for e, key, _ in entries if e.speaker == "user" and key in WHERE_KEYS
                 and (e.turn or 0) == newest}
        if len(roles) == 1:
            new[roles.pop()] = new["names"]
        elif "names" not in mine:
            new["place"] = new["names"]
    since = {key: max((e.turn or 0 for e, k, _ in entries if k == key and e.speaker == "user"),
                      default=turn.index) for key in new}  # (none asked: nothing to replace)
    gone = [(e, key, value) for e, key, value in entries if e.speaker == "user" and key in new
            and (e.turn or 0) >= since[key] and normalize(value) not in new[key]]
    # of several names the attempt gave, which one a name replaces is not told ("shipped by
    # UPS from Amazon", "Can you check again? It was FedEx"): none
    count = Counter(key for _, key, _ in gone)
    gone = [g for g in gone if g[1] not in NAME_KEYS or count[g[1]] <= len(new[g[1]])]
    asked = {(key, _numbers(key, value)) for _, key, value in gone}
    names = [(e.turn or 0, value) for e, key, value in gone if key in NAME_KEYS]
    given = set().union(*(new[k] for k in new.keys() & NAME_KEYS))

    def read_back(e: IndexEntry, key: str, value: str) -> bool:
        """The assistant's reading back of the attempt (13:45 said back as 1:45 PM; a
        name in any role, in more or fewer words), not what it offered elsewhere ("Zuni
        Cafe has tables at 6 pm and 9 pm", "How about San Francisco Marriott Marquis?")."""
        if key in NAME_KEYS:
            return normalize(value) not in given and any(
                (e.turn or 0) >= at and _same_name(value, n) for at, n in names)
        return key in new and (e.turn or 0) >= since[key] \
            and normalize(value) not in new[key] and (key, _numbers(key, value)) in asked

    back = [x for x in entries if x[0].speaker != "user" and read_back(*x)]
    return [ItemUpdate(id=e.id, status="superseded", turn=turn.index) for e, _, _ in gone + back]


def _same_name(a: str, b: str) -> bool:
    """Whether two names are one said in more or fewer words: the same words, or the same
    first and last words around the shorter's (Toronto Pearson International Airport,
    Toronto Pearson Airport; not San Francisco Marriott Marquis for San Francisco, nor in
    Chinese 北京国际饭店 for 国际饭店: a city before a name may make it another)."""
    if normalize(a) == normalize(b):
        return True
    short, long = sorted((a.lower(), b.lower()), key=len)
    few, many = short.split(), long.split()
    return len(few) > 1 and few[0] == many[0] and few[-1] == many[-1] and set(few) <= set(many)


def switched_away(turn: Turn, anchors: Sequence[NewAnchor], index: Sequence[IndexEntry]
                  ) -> list[ItemUpdate]:
    """The updates an assistant turn makes that proposes switching away from the thing the
    conversation is on to another it names in the same sentence (要不你换个景点吧，去欢乐
    水魔方水上乐园吧): the names it proposed in its latest turn before that named any are
    replaced. Not a switch offered on a condition (如需换一家…), nor the user's (换个酒店 may
    be another of a stay already booked; 换个新的 a product's exchange)."""
    text = turn.text
    away = C.switch_away.search(text) if turn.role == "assistant" and turn.content else None
    if away is None:
        return []
    start, end = _Bounds(text).sentence(*away.span())
    if C.condition.search(text, start, away.start()) or not any(
            a.key in NAME_KEYS and 0 <= text.find(a.value, away.end()) < end for a in anchors):
        return []
    named = [e for e in section_entries(index, "anchors") if e.status == "active"
             and e.speaker == "assistant" and e.text.partition("=")[0] in NAME_KEYS]
    latest = max((e.turn or 0 for e in named), default=None)
    return [ItemUpdate(id=e.id, status="superseded", turn=turn.index) for e in named
            if e.turn == latest]


def _numbers(key: str, value: str) -> tuple[int, ...]:
    """The numbers a value says, a time's hour on a 12-hour clock (13:45 and 1:45 PM say
    the same)."""
    numbers = tuple(int(n) for n in _NUMBER.findall(value) if "." not in n)
    return (numbers[0] % 12, *numbers[1:]) if key == "time" and numbers else numbers


def _placed(text: str, anchors: Sequence[NewAnchor]) -> list[tuple[NewAnchor, int, int]]:
    """Each anchor of ``text`` (in the order found) with where it stands: the first of its
    value at or after the one before it (下周三, then 周三: not the one inside 下周三)."""
    out, at = [], 0
    for a in anchors:
        start = text.find(a.value, at)
        if start < 0:
            start = text.find(a.value)
        if start >= 0:
            out.append((a, start, start + len(a.value)))
            at = start + len(a.value)
    return out


class _Bounds:
    """Where the clauses and sentences of a text start and end, found once (a turn's
    values each ask for theirs: a scan from the start for each would be quadratic)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.clauses = [(m.start(), m.end()) for m in _BREAK.finditer(text)]
        self.sentences = [(m.start(), m.end()) for m in _SENTENCE.finditer(text)]
        self.asked: dict[tuple[int, int], bool] = {}

    def clause(self, start: int, end: int) -> tuple[int, int]:
        """Where the clause holding ``text[start:end]`` starts and ends."""
        return self._around(self.clauses, start, end, closed=False)

    def sentence(self, start: int, end: int) -> tuple[int, int]:
        """Where the sentence holding ``text[start:end]`` starts and ends."""
        return self._around(self.sentences, start, end, closed=False)

    def asks(self, start: int, end: int) -> bool:
        """Whether the sentence holding ``text[start:end]`` asks (read once a sentence)."""
        span = self._around(self.sentences, start, end, closed=True)
        if span not in self.asked:
            self.asked[span] = question(self.text[span[0]:span[1]])
        return self.asked[span]

    def clause_asks(self, start: int, end: int) -> bool:
        """Whether the clause holding ``text[start:end]`` asks: the last one of a question
        (周一不行吗？), or one that opens as a question does ("Is Monday bad, or ...?");
        not one before the question ("周六不行，周四呢？", "Saturday doesn't work, what
        about Thursday?")."""
        if not self.asks(start, end):
            return False
        first, last = self.clause(start, end)
        sentence_end = self.sentence(start, end)[1]
        rest = self.text[last:sentence_end]
        return not rest.strip(_TRAILING_MARKS) or C.tag_question.match(rest) is not None \
            or question(self.text[first:last], in_question=True)

    def _around(self, breaks: list[tuple[int, int]], start: int, end: int, closed: bool
                ) -> tuple[int, int]:
        before = bisect.bisect_right(breaks, (start, -1))  # the breaks that start before it
        first = breaks[before - 1][1] if before else 0
        after = bisect.bisect_left(breaks, (end, -1))  # the first at or after its end
        if after == len(breaks):
            return first, len(self.text)
        return first, breaks[after][1] if closed else breaks[after][0]


_TRAILING_MARKS = " \t\n,，;；.。!！?？~～…"  # what may end a clause and close its sentence


def _role(key: str, value: str) -> str:
    """What a correction replaces a value by: its key (an end date's, "until": the start
    said back stays), and for a product its head (a plan corrects a plan, not the
    membership beside it; an add-on is no plan)."""
    return f"{key}:{product_head(value)}" if key == "product" else key


def _kind(key: str, value: str) -> str:
    """What an offer settles a value by: its role's kind (an end date is a date: "Would
    March 12th work?" settles the end that failed)."""
    return slot_of(key) if key in SLOT_OF else _role(key, value)


def satisfies(required: str, value: str, side: str | None = None) -> bool:
    """Whether ``value`` meets ``required`` (a bound, or the same value; ``side``: the
    bound a requirement of its key is whatever its words, ``_side``)."""
    number = _NUMBER.search(value)
    bound = _bound(required, side)
    if bound is None or number is None:
        return normalize(required) == normalize(value)
    low, high = bound
    return low <= float(number.group(0)) <= high


def _bound(required: str, side: str | None = None) -> tuple[float, float] | None:
    """The interval a requirement asks for, when it says one or its key does (``side``:
    "ceiling", at most; "floor", at least)."""
    if m := _RANGE.search(required):
        return float(m.group(1)), float(m.group(2))
    number = _NUMBER.search(required)
    if number is None:
        return None
    n = float(number.group(0))
    if C.at_least.search(required):
        return n, float("inf")
    if C.at_most.search(required) or side == "ceiling":
        return float("-inf"), n
    if side == "floor":
        return n, float("inf")
    return None


def _same_clock(key: str, value: str, others: Sequence[tuple[str, str]]) -> bool:
    """Whether one of ``others`` (key, value) is ``value``'s clock time for ``key``, in
    any words, in no other half of the day (clock.py: "1:45 pm" of "quarter to 2 in the
    afternoon", "7点" of 晚上7点; not 早上8点 of 晚上8点, nor 7:30 am of 7:30 pm)."""
    return any(k == key and same_clock(value, v) for k, v in others)


def _asked(e: IndexEntry) -> tuple[str, str]:
    """An anchor entry's key, as what it asks of (a budget: amounts), and its value."""
    key, _, value = e.text.partition("=")
    return slot_of(CEILING_OF.get(key, key)), value


# a rating asked for is the least one wants (评分5分: 4分 does not meet it, 4.7分 meets 4.5分)
_FLOOR_KEYS = frozenset({"rating"})


def _side(e: IndexEntry) -> str | None:
    """The bound a requirement of ``e``'s key is, whatever its words: a budget's, a
    ceiling; a rating's, a floor."""
    key = e.text.partition("=")[0]
    return "ceiling" if key in CEILING_OF else "floor" if key in _FLOOR_KEYS else None
