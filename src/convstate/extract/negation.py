"""Negation and scope: which options a user's clause asks for, refuses, or only mentions.

A cue word (a ``Cue`` field's pattern, a built-in section's "I want") says what a clause
is about; the grammar around it says whether the speaker asks for it. Clauses are the
sentences cut at commas and semicolons. A mention is

- **chosen** when a verb of wanting, choosing or requiring (want, need, I'd like, I'll
  take, must; 要, 想要, 需要, 选, 改成, 必须) or a request marker (please; 请, 麻烦, 帮我)
  stands before it in the same clause, and the verb's subject is the speaker, the
  listener or the thing asked for (I, we, you, it; 我, 我们, 您, 这个), or is left out (an
  imperative, a Chinese clause without a subject, a verb coordinated with one of the
  speaker's: 我不要换货只要退款) — not a third party ("my friend wants", "他要"); or the
  mention stands first and such a verb follows it with only a subject and adverbs
  between (今天必须到); or the clause is the mention alone with articles, particles and
  "please" (an answer: "A refund, please.", "退款吧。"); or the mention is the subject of
  an accepting predicate ("an exchange is fine", "退款就行");
- **refused** when a negation scopes over it: a negator in the verb's group ("I don't
  want", "I'd rather not", "我不要", 不想要), a negator between the verb and the mention
  ("a refund, not an exchange", 要退款不要换货, "rather ... than"; a contrast — but, 而是 —
  ends that scope), a negator right before a mention that has no verb ("not an
  exchange", "no exchange", 不用换货, 别换货), or a negated accepting predicate ("today
  doesn't work", 换货不行) — but an excepting word after the speaker's negation negates
  it again ("I don't want anything except a refund", "nothing other than a refund, please":
  chosen; not in a report, "Nobody offered me anything except an exchange");
- **chosen** too when the mention is the verb of the speaker's own plan, only openers
  before it ("I'll pick it up myself", 我自己去门店自提, 我会自提) — not with a condition,
  an "or", a doubt or a report about it ("... if the refund fails", "I'll probably ...",
  我到店里退款被拒了);
- **only mentioned** otherwise: a report ("It arrived today.", "my friend got an exchange
  last time"), what a subordinate clause, a report or an inquiry holds (because, if,
  "I want to know ...", 因为, 如果, 了解一下), and a question. A question asks, it does not
  choose ("Can I get an exchange?", "可以换货吗？", 要不要换货) — unless it carries a
  request marker ("Could you please expedite it?", 能帮我退款吗？) that governs the
  mention, or that closes a question asking for the mention itself ("Could I get a
  refund please?").

Options that "or" joins (或者, 还是) in a clause are left open: neither is chosen; so are
the option right after a clause's opening "or" (或者) and the last of the clause before it
("I'll exchange it, or maybe get a refund"; not a fallback or a correction, "or else",
"or rather", 或者说), unless that one was refused; a later clause chooses anew.

A mention an excepting word opening its sentence sets apart ("Other than a refund",
除了退款) is read by what the speaker says of the rest, after it in its clause or in the
next, to the sentence's end: the rest turned down chooses it ("..., I don't want
anything", 其他都不要), the rest accepted refuses it ("..., anything else is fine",
其他都可以); else it is only set apart.

The words of each class come from the language packs (``negator``, ``excepting``,
``nothing``, ``or_opens``, ``excepts_open``, ``excepts_close``, ``rest_refused``,
``rest_accepted``, ``alternative``, ``want``, ``intends``,
``unsure``, ``told_after``, ``determiner``, ``require``, ``request``, ``subject``,
``adverb``, ``discourse``, ``filler``, ``contrast``, ``accept``, ``breaker``,
``unmarked_question``); a pack without them leaves its clauses to the rest.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from typing import Literal

from ..lang import Cues
from ..registry import LANGUAGES
from .facts import sentences

C = Cues()
Reading = Literal["chosen", "refused"] | None
_CLAUSE = re.compile(r"[^，,;；—–]+")
REACH = 60  # characters before a verb searched for its subject and adverbs
# A clause longer than this is a paragraph, not a choice (as for the rule extractor's
# other sections, rules.MAX_CLAUSE): each mention in it is read against all the words
# before it, so a long one cost its length squared.
MAX_CLAUSE = 160
# Quotation marks that open and close a quote (ASCII double quotes alternate; a single
# quote opens after a space and closes before one: "don't" neither opens nor closes).
_OPEN = re.compile(r"[“「『]|(?:^|(?<=[\s(:]))['‘](?=\S)")
_CLOSE = re.compile(r"[”」』]|(?<=\S)['’](?=[\s.,;:!?)]|$)")


def clauses(text: str) -> Iterator[tuple[str, bool]]:
    """The clauses of ``text`` (of at most MAX_CLAUSE characters), verbatim, each with
    whether it asks a question."""
    for sentence in sentences(text):
        yield from _clauses_of(sentence)


def _clauses_of(sentence: str) -> Iterator[tuple[str, bool]]:
    in_question = bool(C.question.search(sentence))
    for m in _CLAUSE.finditer(sentence):
        clause = m.group(0).strip()
        if clause and len(clause) <= MAX_CLAUSE:
            yield clause, question(clause, in_question)


def question(clause: str, in_question: bool = False) -> bool:
    """Whether ``clause`` asks: it ends as a question, asks without the mark (a question
    word, 要不要, 多久), or opens a question sentence as a question opens ("Can I ...")."""
    return bool(C.question.search(clause) or C.asks.search(clause)
                or C.unmarked_question.search(clause)
                or (in_question and C.question_start.search(clause)))


def choice(text: str, options: Sequence[tuple[str, re.Pattern[str]]]
           ) -> tuple[str | None, list[str]]:
    """The option one user turn chooses (the last chosen mention) and those it refuses
    (in the order refused); ``options`` are (value, pattern) pairs. Options a clause
    joins by "or" (或者, 还是) are left open: none of them is chosen ("Either a refund or
    an exchange is fine", 退款或者换货都可以); so are two that a clause opening with "or"
    joins to the clause before it ("I'll exchange it, or maybe get a refund"), unless the
    one before was refused."""
    chosen: str | None = None
    refused: list[str] = []
    for sentence in sentences(text):
        said = [(clause, asks, _hits(clause, options)) for clause, asks in _clauses_of(sentence)]
        across = _or_opened(said)
        for at, (clause, asks, hits) in enumerate(said):
            turned = -1  # where the option the clause refused last ends
            open_ = _or_joined(clause, hits)
            for start, end, value in hits:
                found = reading(clause, start, end, asks)
                if not at and not asks and (by_rest := _but_for(said, start, end)) \
                        is not None:
                    found = by_rest  # "Other than a refund, I don't want anything"
                if found == "chosen" and (value in open_ or across.get((at, value), set())
                                          - set(refused)):
                    continue
                if found is None and turned >= 0 and C.contrast.search(clause, turned, start):
                    found = "chosen"  # the other option, after a contrast: "not X but Y"
                if found is not None and value in refused:
                    refused.remove(value)
                if found == "chosen":
                    chosen = value
                elif found == "refused":
                    refused.append(value)
                    turned = end
                    chosen = None if chosen == value else chosen
    return chosen, refused


def _but_for(said: list[tuple[str, bool, list[tuple[int, int, str]]]], start: int,
             end: int) -> Reading:
    """The reading of a mention in a sentence's first clause (``said``: the sentence's
    clauses) that an excepting word opening it sets apart ("Other than a refund",
    除了退款): what the sentence says of the rest decides. The rest turned down — the
    speaker wants nothing else ("..., I don't want anything", 其他都不要) — chooses it;
    the rest accepted ("..., anything else is fine", 其他都可以) refuses it; else it is
    only set apart ("Besides the refund, I want compensation"). The rest is what follows
    the mention in its clause, or the next clause, and it ends the sentence: not "..., I
    don't want anything else to go wrong", 其他都不要拖了, nor a report or a tag after it
    ("..., said my husband", "..., right?")."""
    clause = said[0][0]
    opens = C.excepts_open.match(clause)
    if opens is None or quoted(clause, start) \
            or len(clause[opens.end():start].split()) > _OPENER_REACH:
        return None
    rest, last = clause[end:], 0
    if (close := C.excepts_close.match(rest)) is not None:
        rest = rest[close.end():]
    if not rest.strip(" \t.。!！") and len(said) > 1 and not said[1][1]:
        rest, last = said[1][0], 1
    if last != len(said) - 1 or quoted(rest, 0):
        return None
    if C.rest_refused.match(rest):
        return "chosen"
    return "refused" if C.rest_accepted.match(rest) else None


def _hits(text: str, options: Sequence[tuple[str, re.Pattern[str]]]
          ) -> list[tuple[int, int, str]]:
    """The options' mentions in ``text``, in order: (start, end, value)."""
    return sorted((m.start(), m.end(), value) for value, pattern in options
                  for m in pattern.finditer(text) if m.end() > m.start())


def _or_joined(clause: str, hits: list[tuple[int, int, str]]) -> set[str]:
    """The options "or" joins in ``clause`` (its mentions ``hits``): two of different
    options with an alternative between them."""
    return {v for (_, end, value), (start, _, other) in itertools.pairwise(hits)
            if value != other and C.alternative.search(clause, end, start)
            for v in (value, other)}


# words between a clause's opener and the option it names ("or maybe get a refund",
# "other than a full refund")
_OPENER_REACH = 3


def _or_opened(said: list[tuple[str, bool, list[tuple[int, int, str]]]]
               ) -> dict[tuple[int, str], set[str]]:
    """The options joined across clauses of one sentence, by (clause, option), each with
    those it is joined to: the last mention of a clause and the first of the next, when
    that one opens with "or" (``C.or_opens``: "..., or maybe a refund"; not "or else").
    Only those two clauses: a later one chooses anew ("..., or a refund, but now I just
    want a refund")."""
    out: dict[tuple[int, str], set[str]] = {}
    for at, ((_, _, hits_before), (after, _, hits_after)) in enumerate(
            itertools.pairwise(said)):
        if (opens := C.or_opens.match(after)) is None:
            continue
        last, first = hits_before[-1:], hits_after[:1]
        # (the option right after it, as an alternative is said: "or maybe get a refund";
        # not "or I'm filing a complaint about your exchange policy")
        if last and first and len(after[opens.end():first[0][0]].split()) <= _OPENER_REACH \
                and (one := last[0][2]) != (other := first[0][2]):
            out.setdefault((at, one), set()).add(other)
            out.setdefault((at + 1, other), set()).add(one)
    return out


def latest_choice(turns: Sequence[tuple[int, str]],
                  options: Sequence[tuple[str, re.Pattern[str]]]
                  ) -> tuple[str, int, bool] | None:
    """(value, turn, refused) for a field over user turns given as (index, text): the
    option the latest turn that chooses one chooses, or — when a later turn chooses none
    but refuses the one chosen before it, or refuses one and none was chosen — the option
    it lets go of (``refused``: the field drops it if it holds it); None without either."""
    found: tuple[str, int, bool] | None = None
    for index, text in turns:
        value, refused = choice(text, options)
        if value is not None:
            found = (value, index, False)
        elif refused and (found is None or found[2] or found[0] in refused):
            before = found[0] if found is not None else None
            found = (before if before in refused else refused[-1], index, True)
    return found


def reading(clause: str, start: int, end: int, asks: bool = False) -> Reading:
    """What ``clause`` does with its mention at ``start:end`` (see the module's rule)."""
    if asks and not C.request.search(clause) and not C.imperative.search(clause):
        return None  # a question asks; it does not choose
    if quoted(clause, start):
        return None  # someone else's words
    before, after = clause[:start], clause[end:]
    verb = _governor(before)
    if verb is not None:
        if verb[0] is None:
            return None  # the verb is a third party's
        between = before[verb[0].end():]
        if not verb[1] and C.prefers.match(verb[0].group(0)) \
                and C.compared.search(between):
            return "refused"  # "I'd prefer a refund over an exchange"
        return _through(between, verb[1])
    if (m := _rx("verb_after").match(after)) is not None:  # 今天必须到
        return "refused" if C.negator.search(m.group(0)) else "chosen"
    if _rx("neg_before").search(before[-REACH:]):
        last = _last(C.negator, before)
        # ("Nothing other than a refund, please": the speaker's, said alone; not a
        # report, "Nobody offered me anything except an exchange", "Nothing except the
        # refund has been processed")
        if last is not None and _excepted(before, last) \
                and _rx("fragment").fullmatch(C.nothing.sub(" ", before[:last.start()])) \
                and _rx("fragment").fullmatch(after):
            return "chosen"
        return "refused"
    if _rx("plan").fullmatch(before) and not (
            C.condition.search(after) or C.alternative.search(after)
            or C.unsure.search(clause) or C.told_after.search(after)):
        return "chosen"  # the speaker's own plan, the option its verb: "I'll pick it up"
        # (not "... if the refund fails", "... or maybe a refund", 我到店里退款被拒了)
    if (said := _predicate(after)) is not None:  # before an answer's words: 退款就算了
        return said
    if _rx("asked_for").fullmatch(before) and _rx("request_end").fullmatch(after):
        return "chosen"  # "Could I get a refund please?": the request's own object
    if _rx("fragment").fullmatch(f"{before} {after}"):
        return "chosen"
    if _rx("opening").fullmatch(before) and C.object.match(after):  # "Refund it."
        return "chosen"
    return None


def _predicate(after: str) -> Reading:
    """What a predicate right after a mention with no verb does with it: accepts it
    ("an exchange is fine", 退款就行) or turns it down ("doesn't work", "is bad", 换货不行,
    就算了)."""
    if C.reject.search(after):
        return "refused"
    if (m := C.accept.search(after)) is not None:
        return "refused" if C.negator.search(m.group(0)) else "chosen"
    return None


def refused_object(clause: str, start: int, end: int) -> bool:
    """Whether ``clause`` turns down its mention at ``start:end`` as a thing: a negator
    right before it, past determiners ("not the Premium plan", 不要那个冰激凌套餐; not an act
    of letting go: "cancel the Premium plan" names the plan cancelled), the object of a
    negated want ("I don't want the Premium plan") — not of another act the want governs
    ("I don't want to cancel the Premium plan", 我不想取消畅享套餐, 不要动我的套餐) — or a
    predicate after it that turns it down ("the Gold plan is too expensive")."""
    before = clause[:start]
    only = _rx("object_only")
    negator = _last(C.negator, before)
    if negator is not None and only.fullmatch(before[negator.end():]) \
            and not C.give_up.fullmatch(negator.group(0)) and not _excepted(before, negator):
        return True
    verb = _governor(before)
    if verb is not None and verb[0] is not None and verb[1] \
            and only.fullmatch(before[verb[0].end():]):
        return True
    return _predicate(clause[end:]) == "refused"


def own_act(prefix: str) -> bool:
    """Whether a verb after ``prefix`` (its clause up to it) is the speaker's own act,
    asked for now: only a subject that may ask, discourse words, a request, a want and
    adverbs stand before it ("Please move me to", "I'd like to switch to", 帮我换成) —
    not a condition, a third party or a plan ("If I upgrade to", "My son wants to switch
    to", 我同事升级成, "I was thinking of moving to")."""
    return _rx("own_opening").fullmatch(prefix) is not None


def turned_down(clause: str, start: int, end: int) -> bool:
    """Whether ``clause`` turns down its mention at ``start:end`` itself: a negator right
    before it, or before its preposition ("not Monday", "not at 5 pm", 不要周一), or a
    predicate after it that refuses it ("Monday doesn't work", "Monday is bad", 周一不行,
    周一没空) — not what a negated verb governs ("I don't need it until Friday" still
    says Friday)."""
    before = C.preposition_end.sub("", clause[max(0, start - REACH):start])  # "not at"
    if _rx("neg_before").search(before):
        return True
    return _predicate(clause[end:]) == "refused"


def negated(clause: str, at: int) -> bool:
    """Whether a negator stands in the group of the verb (or cue) that starts at ``at``:
    between its subject and it ("I don't really like", 我不太喜欢, 我不同意). A cue that
    starts with its subject ("I want") holds its own negation, or does not match."""
    if _rx("subject_start").match(clause, at):
        return False
    zone = _rx("zone").search(clause[max(0, at - REACH):at])
    return bool(zone and C.negator.search(zone.group(0)))


def refusal(clause: str) -> bool:
    """A negative constraint: a prohibition ("Don't call after 8pm", 别换货, 不用换货) not
    inside a quote, or the speaker's own negated want ("I never want", 我不希望, 我不同意);
    not a condition ("If I do not pick up, ...", "If you can't reach me", 不在家的话)."""
    if conditional(clause):
        return False
    for m in C.negative.finditer(clause):
        if not quoted(clause, m.start()):
            return True
    for m in C.want.finditer(clause):
        verb = _governs(clause[:m.start()], m, speaker=True)
        if verb is not None and verb[1] and not quoted(clause, m.start()) \
                and not C.not_yet.search(clause[max(0, m.start() - REACH):m.end()]):
            return True
    return False


def conditional(clause: str) -> bool:
    """Whether ``clause`` is a condition: it opens with one (past discourse words: "So if
    ...", 如果…) or ends with one (…的话)."""
    for m in C.condition.finditer(clause):
        if _rx("opening").fullmatch(clause[:m.start()]) or not clause[m.end():].strip(" ，,。."):
            return True
    return False


def quoted(text: str, at: int) -> bool:
    """Whether ``at`` lies inside a quotation that opens before it in ``text``."""
    head = text[:at]
    opened = len(_OPEN.findall(head)) - len(_CLOSE.findall(head))
    return opened > 0 or head.count('"') % 2 == 1


def _governor(before: str) -> tuple[re.Match[str] | None, bool] | None:
    """The governing verb nearest before a mention, with whether it is negated; (None,
    False) when that verb is a third party's; None when there is none."""
    verbs = sorted([*C.want.finditer(before), *C.require.finditer(before),
                    *C.request.finditer(before)], key=lambda m: m.start())
    if not verbs:
        return None
    verb = verbs[-1]
    found = _governs(before[:verb.start()], verb)
    return found if found is not None else (None, False)


def _governs(head: str, verb: re.Match[str], speaker: bool = False
             ) -> tuple[re.Match[str], bool] | None:
    """``verb`` with whether it is negated, if its subject (what ``head`` ends with,
    past its adverbs) may ask: the speaker (only, with ``speaker``), the listener or the
    thing asked for, none (an imperative), or that of a verb of the speaker's before it;
    else None. A request marker needs no subject."""
    zone = _rx("zone").search(head[-REACH:])
    span = zone.group(0) if zone else ""
    negative = bool(C.negator.search(span + verb.group(0)))
    if C.request.fullmatch(verb.group(0)) and not speaker:
        return verb, negative
    rest = head[:len(head) - len(span)] if span else head
    subject = _rx("speaker" if speaker else "subject_end").search(rest[-REACH:])
    if not rest.strip() or subject is not None:
        return verb, negative
    earlier = [m for m in C.want.finditer(rest)]  # a verb coordinated with an earlier one
    if earlier and (before := _governs(rest[:earlier[-1].start()], earlier[-1], speaker)):
        # its negation scopes on ("don't want to switch to"), up to a contrast (不要…只要)
        carried = before[1] and not C.contrast.search(head, earlier[-1].end())
        return verb, negative or carried
    return None


def _through(between: str, negative: bool) -> Reading:
    """The reading of a mention a verb reaches over ``between``: none across a clause
    boundary; a negator there refuses it; a contrast ends the verb's negation."""
    if C.breaker.search(between):
        return None
    parts = C.contrast.split(between)
    if len(parts) > 1:
        negative, between = False, parts[-1]
    last = _last(C.negator, between)
    if last is not None and _excepted(between, last, negative):
        return "chosen"  # "I don't want anything except a refund"
    if last is not None:
        return "refused"
    return "refused" if negative else "chosen"


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text``, or None."""
    return next(reversed(list(pattern.finditer(text))), None)


def _excepted(before: str, negator: re.Match[str], negative: bool = False) -> bool:
    """Whether ``negator``, the last one in ``before``, leaves its mention out of a
    negation: an excepting word ("except", "other than") after another negator or a
    negated verb (``negative``) or a negative pronoun: "I don't want anything except the
    Gold plan" and "nothing other than a refund" want it."""
    return C.excepting.fullmatch(negator.group(0)) is not None and (
        negative or C.negator.search(before, 0, negator.start()) is not None
        or C.neg_det.search(before, 0, negator.start()) is not None
        or C.nothing.search(before, 0, negator.start()) is not None)


_TEMPLATES = {
    # what stands between a subject and its verb: adverbs, auxiliaries, negators
    "zone": r"(?:{adverb}|{negator}|\s)*+$",
    # the end of what precedes that: a subject that may ask, or where a clause opens
    "subject_end": r"(?:{subject}|{discourse}|[,，:：])\s*$",
    "speaker": r"(?:{first_person}|{discourse}|[,，:：])\s*$",
    "verb_after": r"(?:{subject}|{adverb}|{negator}|\s)*?(?:{want}|{require})",
    "subject_start": r"(?:{subject})",
    "neg_before": r"(?:(?:{negator}|{neg_det})(?:{filler}|\s)*+"
                  r"|{cannot}\s*(?:{managing}))(?:{filler}|\s)*+$",  # "can't do Friday"
    "fragment": r"(?:{filler}|{discourse}|{request}|[\W_])*+",
    # a question that asks for the mention itself, and a request marker closing it
    # ("Could I get a refund please?", "Can you expedite it, please?")
    "asked_for": r"(?:{discourse}|{subject}|{filler}|{asks_for}|[\W_])*+",
    "request_end": r"(?:{object})?[\s,，]*(?:{request})[\W_]*",
    # what stands between a verb and its object, and nothing else
    "object_only": r"(?:{determiner}|\s)*+",
    # the speaker's own plan up to its verb, the mention ("I'll pick it up myself")
    "plan": r"(?:{discourse}|[\W_])*+(?:{intends})",
    # what may stand before a verb said as an imperative
    "opening": r"(?:{discourse}|{request}|{adverb}|[\W_])*+",
    # ... and before the speaker's own act asked for now
    "own_opening": r"(?:{subject}|{discourse}|{request}|{want}|{require}|{adverb}|{filler}"
                   r"|{disposal}"
                   r"|[\W_])*+",
}
_built: dict[tuple[str, int], re.Pattern[str]] = {}


def _rx(name: str) -> re.Pattern[str]:
    """A pattern composed of the packs' cues, rebuilt when a pack is added."""
    key = (name, LANGUAGES.version)
    if key not in _built:
        names = re.findall(r"\{(\w+)\}", _TEMPLATES[name])
        sources = {n: getattr(C, n).pattern for n in names}
        _built[key] = re.compile(_TEMPLATES[name].format(**sources), re.IGNORECASE)
    return _built[key]
