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

- English: in a user's sentence that names a thing sought — an indefinite noun phrase
  before the feature ("a", "any", "some", "another", "other", "something", "someplace";
  the ``feature_sought`` cue) — a feature is the noun phrase after "with" or "without",
  after a verb of having ("that has", "which serves", "and allows", "serving"), before
  "-friendly", or before "(should) be allowed". A negation of the verb ("that doesn't
  allow"), "without" or "with no" makes it forbidden. Not a feature: a person or a thing
  known ("with my wife", "with the delivery"), a count ("with two bedrooms": a count is
  an anchor), what troubles the user ("a problem with login").
- Chinese: in a sentence that seeks (找, 推荐, 订, or a goal), a feature is what 有, 带, 提供 or
  要有 gives before 的 or the end of the clause (有吹风机的酒店, 提供桑拿和洗衣服务), with
  服务/设施 after it left off; 没有, 不要, 不带 before it make it forbidden. Features joined
  by 和, 与, 及 or 、 (or "and") are one each.
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
from .negation import negated

C = Cues()
_HAN = re.compile(r"[\u4e00-\u9fff]")
MAX_FEATURES = 6  # a sentence lists a few; more is a pasted text, not a request


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
    if _HAN.search(sentence):
        if C.seek_ask.search(sentence) or C.goal.search(sentence) \
                or C.feature_seeks.search(sentence):
            yield from _spans(sentence, C.feature_zh)
    else:
        yield from _spans(sentence, C.feature_en)


def _spans(sentence: str, pattern: re.Pattern[str]) -> Iterator[tuple[str, str, bool]]:
    for m in pattern.finditer(sentence):
        g = m.groupdict()
        opening = g.get("open") or g.get("open2") or ""
        listed = g.get("what") or g.get("what2") or g.get("what3") or ""
        if not listed or not _HAN.search(listed) and not _sought(sentence, m.start()):
            continue
        wanted = not (C.feature_not.search(opening) or negated(sentence, m.start()))
        at = m.start("what") if g.get("what") else m.start()  # where the list starts
        for k, part in enumerate(C.feature_and.split(listed.strip())):
            part = part.strip()
            at = sentence.find(part, at)
            # the first feature with its opening, verbatim ("with no smoking"); the next
            # ones alone ("a minibar" of "with no smoking and a minibar")
            said = sentence[m.start() if k == 0 else at:at + len(part)].strip() \
                if g.get("what") else m.group(0)
            at += len(part)
            # ("with no smoking": forbidden; "with a pool": the pool)
            part = C.feature_article.sub("", part)
            no = C.feature_no.match(part)
            part = part[no.end():] if no else part
            feature = C.feature_generic.sub("", part) or part
            if feature and not C.feature_no_thing.match(feature):
                yield said, feature, wanted and not no


def _sought(sentence: str, at: int) -> bool:
    """Whether an indefinite noun phrase (what is sought) stands before ``at``, and no
    trouble word right before it ("a problem with login")."""
    before = sentence[:at]
    return bool(C.feature_sought.search(before)) and not C.feature_trouble.search(before)
