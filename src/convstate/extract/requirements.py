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
  "looking for kid-friendly hotels", "are there any"; ``feature_sought``), or a noun
  phrase said alone ("An apartment that allows pets"), a feature is the noun phrase
  after "with" or "without", after a verb of having ("that has", "which serves", "and
  allows", "serving"), before "-friendly", or before "(should) be allowed". "Without",
  "with no", a negated verb ("that doesn't allow") or a negation right before the
  phrase ("but not one with a casino") forbids it; a negated wish ("I don't want a car
  with a sunroof") forbids it, a negated need ("I don't need a hotel with a pool") says
  nothing. Not a feature: a person or a thing known ("with my wife", "with the
  delivery"), a count ("with two bedrooms": a count is an anchor), what troubles the
  user ("a problem with login").
- Chinese: in a sentence that seeks (找, 推荐, 订, 办, or a goal) or says 要有/要提供 itself,
  a feature is what 有, 提供 or 要有 gives before 的 or the clause's end (有吹风机的酒店,
  提供桑拿和洗衣服务; not 我有会员卡), or what 带, 带有 or 没有 gives before 的 (带阳台的房间),
  with 服务/设施 after it left off; 没有, 不带, 不要有 or a negated wish (我不想要有) forbid
  it, a negated need (我不需要有) says nothing. Not of a thing complained of, given back
  or had (投诉, 退掉, 我买的), nor where the search is called off (不用找).

A mixed turn is read in both. Features joined by "and" (a comma list that ends with
"and"), 和, 与, 及, 、 or 又有 are one each. A forbidden feature's ``text`` starts at what
forbids it ("don't want a car with a sunroof"), so it never reads as a wish.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from ..delta import NewPreference
from ..lang import Cues
from ..lang.acts import expressive
from ..normalize import normalize
from ..turns import Turn
from .acts import HAN_RUN
from .facts import sentences

C = Cues()
MAX_FEATURES = 8  # a turn names a few; more is a pasted text, not a request
MAX_SENTENCE = 400  # a request is a sentence of a few dozen words, not a pasted page
MAX_TOPIC = 40  # a feature is a few words ("in-unit laundry"); longer is no feature
_VERB_GROUP = re.compile(r"(?:\S+\s+){0,2}$")  # the words right before a verb ("I don't")
_ZH_VERB_GROUP = 3  # the characters right before a Chinese opening (不想要有)
_OF = re.compile(r"\s+of\s+", re.IGNORECASE)
# the groups of a feature cue that list features: after their opening ("with a pool",
# 带阳台), then before it ("smoking is allowed", "kid-friendly")
_LISTS = ("what", "what_b", "ahead", "ahead2")
_TURN = re.compile(r"[,;]|\bbut\b", re.IGNORECASE)  # where an English clause turns


def requirements(turn: Turn) -> list[NewPreference]:
    """The features ``turn`` (the user's) requires or forbids of what it seeks; a later
    word on a feature in the turn wins."""
    if turn.role != "user" or not turn.content:
        return []
    out: dict[str, NewPreference] = {}
    for sentence in sentences(turn.content):
        if len(sentence) > MAX_SENTENCE or expressive(sentence):
            continue
        for phrase, feature, wanted in _features(sentence):
            topic = normalize(feature)
            if 2 <= len(topic) <= MAX_TOPIC and (topic in out or len(out) < MAX_FEATURES):
                out[topic] = NewPreference(text=phrase, polarity="require" if wanted
                                           else "forbid", topic=topic, turns=[turn.index])
    return list(out.values())


def _features(sentence: str) -> Iterator[tuple[str, str, bool]]:
    """(the phrase, the feature, wanted) of each feature ``sentence`` requires."""
    if HAN_RUN.search(sentence):
        yield from _chinese(sentence)
    yield from _english(sentence)  # (a mixed turn: "Find me a hotel in 北京 with a pool")


def _chinese(sentence: str) -> Iterator[tuple[str, str, bool]]:
    """In a sentence that seeks, or one that says 要有 itself: 有吹风机的酒店, 提供桑拿."""
    if C.feature_unsought.search(sentence):
        return
    seeks = bool(C.seek_ask.search(sentence) or C.goal.search(sentence)
                 or C.feature_seeks.search(sentence))
    for m, opening, listed in _matches(sentence, C.feature_zh):
        if not (seeks or C.feature_demands.search(opening)):
            continue
        # 我不想要有泳池的: forbidden; 我不需要有泳池的酒店: nothing
        group = sentence[max(0, m.start() - _ZH_VERB_GROUP):m.start()]
        denied = C.negator.search(group)
        if denied and not C.feature_wish.search(group + opening):
            continue
        start = m.start() - len(group) + denied.start() if denied else m.start()
        yield from _parts(sentence, m, listed, not (denied or C.feature_not.search(opening)),
                          start)


def _english(sentence: str) -> Iterator[tuple[str, str, bool]]:
    """Of what a verb of seeking governs: "find me a hotel with wifi"."""
    found = list(_matches(sentence, C.feature_en))
    sought = list(C.feature_sought.finditer(sentence)) if found else []
    ends = [x.end() for x in sought]
    for m, opening, listed in found:
        k = bisect.bisect_right(ends, m.start())
        if not k or C.feature_trouble.search(sentence[max(0, m.start() - 60):m.start()]):
            continue
        verb = sought[k - 1]
        # "I don't want a car with a sunroof": forbidden; "I don't need a hotel with a
        # pool", "I'm not looking for ...": nothing (a negation in the verb's group)
        group = _VERB_GROUP.search(sentence, 0, verb.start())
        denied = C.negator.search(group.group(0)) if group else None
        if denied and not C.feature_wish.search(verb.group(0)):
            continue
        # ("a hotel with a pool but not one with a casino", "a hotel that isn't
        # pet-friendly": the feature's own phrase denied)
        negation = group.start() + denied.start() if group and denied else \
            _turned(sentence, verb.end(), m.start())
        wanted = negation is None and not C.feature_not.search(opening)
        yield from _parts(sentence, m, _listed(listed), wanted,
                          m.start() if negation is None else negation)


def _turned(sentence: str, start: int, at: int) -> int | None:
    """Where a negation stands right before ``at`` or after a break of its clause since
    ``start`` ("..., but not one with"); None for none."""
    group = _VERB_GROUP.search(sentence, 0, at)  # ("isn't pet-friendly")
    since = max(start, group.start() if group else at)
    for turn in _TURN.finditer(sentence, since, at):
        since = turn.end()
    denied = C.negator.search(sentence, since, at)
    return denied.start() if denied else None


def _matches(sentence: str, pattern: re.Pattern[str]
             ) -> Iterator[tuple[re.Match[str], str, str]]:
    """Each feature phrase of ``sentence``: the match, its opening, what it lists."""
    for m in pattern.finditer(sentence):
        g = m.groupdict()
        listed = next((g[k] for k in _LISTS if g.get(k)), None)
        if listed:
            yield m, g.get("open") or g.get("open2") or "", listed


def _listed(listed: str) -> str:
    """A list joined by commas ends with "and" or "or" ("wifi, parking and a gym"); a
    comma before anything else ends the phrase ("smoking, any hotel will do")."""
    if "," in listed and not re.search(r"\b(?:and|or)\b", listed.rsplit(",", 1)[-1]):
        return listed.split(",", 1)[0]
    return listed


def _parts(sentence: str, m: re.Match[str], listed: str, wanted: bool, said_from: int
           ) -> Iterator[tuple[str, str, bool]]:
    """Each feature of the list ``m`` says, with the phrase that says it: a forbidden
    one from the negation that forbids it ("without a minibar or a TV": "without a
    minibar or a TV" for the TV too; "don't want a phone with a notch"), a wanted one
    from its opening ("with a pool"), the next ones of a list alone ("a gym")."""
    after = next((k for k in _LISTS[:2] if m.groupdict().get(k)), None)
    at = m.start(after) if after else m.start()  # where the list starts
    parts = [p.strip() for p in C.feature_and.split(listed.strip())]
    if any(len(p) < 2 for p in parts):  # (和牛, 与众不同: 和 and 与 inside a word)
        parts = [listed.strip()]
    for k, part in enumerate(parts):
        at = sentence.find(part, at)
        end = at + len(part) if after else m.end()
        # ("with no smoking": forbidden; "with a pool": the pool)
        feature = C.feature_article.sub("", part)
        no = C.feature_no.match(feature)
        feature = _OF.split(feature[no.end():] if no else feature, 1)[0]  # ("a view of")
        feature = C.feature_generic.sub("", feature) or feature
        yes = wanted and not no
        said = sentence[said_from if k == 0 or not yes else at:end].strip()
        at += len(part)
        if feature and not C.feature_no_thing.match(feature):
            yield said, feature, yes
