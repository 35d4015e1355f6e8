"""What the user requires of the thing they seek is a typed preference of theirs.

"A place to eat with live music", "an apartment that allows pets", "hotels with wifi",
"kid-friendly attractions", "a room without a minibar", 有吹风机的酒店, 提供无烟房和国际长途电话的
酒店: a feature the user wants the thing sought to have, or not to have. No value of the
conversation states it (the dialogue state says ``has_live_music: True``), so the state
types it: a ``Preference`` whose ``polarity`` is ``require`` (or ``forbid``), whose
``topic`` is the feature ("live music") and whose ``text`` is the phrase that says it,
verbatim ("with live music"). Code reads ``state.preferences`` for what the user needs;
a later requirement of the same feature supersedes the earlier ("No, I need it to have
subtitles" after "without subtitles").

The rule, by the grammar of a noun phrase and what modifies it, not by a list of
features:

- English: of what a verb of seeking governs ("find me a hotel", "I need to find an",
  "are there any"; ``feature_sought``), or a noun phrase said alone ("An apartment that
  allows pets"), a feature is the noun phrase after "with" or "without", after a verb of
  having ("that has", "which serves", "and allows", "serving"), before "-friendly", or
  before "(should) be allowed". "Without", "with no" or a negated verb ("that doesn't
  allow") forbids it; a negated wish ("I don't want a car with a sunroof") forbids it,
  a negated need ("I don't need a hotel with a pool") says nothing. Not a feature: a
  person or a thing known ("with my wife", "with the delivery"), a count ("with two
  bedrooms": a count is an anchor), what troubles the user ("a problem with login").
- Chinese: in a sentence that seeks (找, 推荐, 订, 办, or a goal) or says 要有/要提供 itself,
  a feature is what 有, 带有, 提供 or 要有 gives before 的 or the clause's end (有吹风机的
  酒店, 提供桑拿和洗衣服务), or what 带 or 没有 gives before 的 (带阳台的房间), with 服务/设施
  after it left off; 没有, 不带, 不要有 forbid it. Not of a thing complained of or given
  back (投诉, 退掉), nor where the search is called off (不用找).

Features joined by "and" (a comma list that ends with "and"), 和, 与, 及, 、 or 又有 are
one each.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..delta import NewPreference
from ..lang import Cues
from ..lang.acts import expressive
from ..normalize import normalize
from ..turns import Turn
from .facts import sentences

C = Cues()
_HAN = re.compile(r"[\u4e00-\u9fff]")
MAX_FEATURES = 6  # a sentence lists a few; more is a pasted text, not a request
_REACH = 24  # how far before what is sought a negation of its verb stands ("I don't want")
_CLAUSE_START = re.compile(r"[,，;；]")


def requirements(turn: Turn) -> list[NewPreference]:
    """The features ``turn`` (the user's) requires or forbids of what it seeks."""
    if turn.role != "user" or not turn.content:
        return []
    out: dict[str, NewPreference] = {}
    for sentence in sentences(turn.content):
        if expressive(sentence):
            continue
        for phrase, feature, wanted in _features(sentence):
            topic = normalize(feature)
            if len(topic) >= 2 and len(out) < MAX_FEATURES:
                out[topic] = NewPreference(text=phrase, polarity="require" if wanted
                                           else "forbid", topic=topic, turns=[turn.index])
    return list(out.values())


def _features(sentence: str) -> Iterator[tuple[str, str, bool]]:
    """(the phrase, the feature, wanted) of each feature ``sentence`` requires."""
    han = bool(_HAN.search(sentence))
    if han and C.feature_unsought.search(sentence):
        return
    seeks = han and bool(C.seek_ask.search(sentence) or C.goal.search(sentence)
                         or C.feature_seeks.search(sentence))
    for m, opening, listed in _matches(sentence, C.feature_zh if han else C.feature_en):
        if han:  # (a sentence that seeks, or one that says 要有 itself)
            sought = m if seeks or C.feature_demands.search(opening) else None
        else:
            sought = _sought(sentence, m.start())
        if sought is None:
            continue
        # "I don't want a car with a sunroof", 我不想要有泳池的: forbidden; "I don't need a
        # hotel with a pool", 我不需要有泳池的酒店: nothing
        clause = _CLAUSE_START.split(sentence[max(0, sought.start() - _REACH):sought.start()])
        denied = C.negator.search(clause[-1])
        if denied and not C.feature_wish.search(clause[-1] + sought.group(0)):
            continue
        wanted = not (denied or C.feature_not.search(opening))
        yield from _parts(sentence, m, listed if han else _listed(listed), wanted)


def _matches(sentence: str, pattern: re.Pattern[str]
             ) -> Iterator[tuple[re.Match[str], str, str]]:
    for m in pattern.finditer(sentence):
        g = m.groupdict()
        listed = g.get("what") or g.get("what2") or g.get("what3")
        if listed:
            yield m, g.get("open") or g.get("open2") or "", listed


def _listed(listed: str) -> str:
    """A list joined by commas ends with "and" or "or" ("wifi, parking and a gym"); a
    comma before anything else ends the phrase ("smoking, any hotel will do")."""
    if "," in listed and not re.search(r"\b(?:and|or)\b", listed.rsplit(",", 1)[-1]):
        return listed.split(",", 1)[0]
    return listed


def _parts(sentence: str, m: re.Match[str], listed: str, wanted: bool
           ) -> Iterator[tuple[str, str, bool]]:
    """Each feature of the list ``m`` says, with the phrase that says it."""
    whole = bool(m.groupdict().get("what"))  # (the feature after its opening)
    at = m.start("what") if whole else m.start()  # where the list starts
    for k, part in enumerate(C.feature_and.split(listed.strip())):
        part = part.strip()
        if not part:
            continue
        at = sentence.find(part, at)
        # the first feature with its opening, verbatim ("with no smoking"); the next
        # ones alone ("a minibar" of "with no smoking and a minibar")
        said = (sentence[m.start() if k == 0 else at:at + len(part)].strip() if whole
                else m.group(0))
        at += len(part)
        # ("with no smoking": forbidden; "with a pool": the pool)
        part = C.feature_article.sub("", part)
        no = C.feature_no.match(part)
        part = part[no.end():] if no else part
        feature = C.feature_generic.sub("", part) or part
        if feature and not C.feature_no_thing.match(feature):
            yield said, feature, wanted and not no


def _sought(sentence: str, at: int) -> re.Match[str] | None:
    """The last indefinite noun phrase that a verb of seeking governs before ``at`` (what
    is sought), unless a trouble word stands right before the feature ("a problem
    with login", "pay for the room with a card")."""
    before = sentence[:at]
    if C.feature_trouble.search(before):
        return None
    found = None
    for m in C.feature_sought.finditer(before):
        found = m
    return found
