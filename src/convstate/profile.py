"""What a returning customer told us last time: a profile per user that outlives sessions.

After each fold of a session that has a ``user_id``, what the user said is promoted into
the user's profile (``promote``, a pure function): the user's own contact details, ids,
names, budget and least rating, preferences, hard or negative constraints and more
important stated facts (not those that only restate a promoted value), each verbatim with
its provenance (session, turn). Never what an assistant or a tool said, never an
expressive clause — a complaint about the service, a feeling, a pleasantry
(``lang/acts.py``): those are the session's sentiment, not facts about the user — never a
name the user gives as the service's ("your app", 你们的APP: its subject is the service),
and never a fact that only reports an event of the session ("I placed an order
yesterday", "I never added those", 我没点这个: ``event``): what happened once is no trait.

**Stable** is what holds beyond the session it was said in: an exact value of the user's
(contact details, ids, names, a budget); and, of what the user says in words (a
constraint, a negative constraint, a preference, a fact), one stated as standing — a rule
for every time ("never call me after 8pm", "always", "from now on", 以后, 每次), an end for
good ("don't call me anymore", 再也别打) or how the user is or lives ("I'm vegetarian",
"I don't eat pork", 我对花生过敏, 我不吃猪肉) — or one the user says again in a later
session; a rule weighs the same in every language (``lang/acts.py`` reads them all).
The rest is a one-off request of that session ("I need it today", "I don't want an
exchange", 这次不要加急): promoted at ``ONE_OFF`` importance at most, and it fades like any
other item.

A single-valued kind (one phone, one email, one address) is superseded when a later value
differs, with its history kept (and facts quoting the old value are archived); a repeated
value is confirmed (its time and importance go up). Items fade by importance and age
(``fade``): one whose weight falls below ``FADE_BELOW`` is archived — kept, not shown.
Contact details and stable hard constraints never fade by age alone; an expressive item
(one promoted before this rule) weighs nothing and is archived at the next fade.

Each item keeps its provenance: one ``Source`` per session that said it (where, when,
how often, and the value as that session said it). Erasing a session (``erase_session``)
takes its sources out of every item: an item no other session said goes, one another
session said too stays as that session said it, and a value that replaced an erased one
is live again (the store does this to every saved version of the profile).

The next session of the user shows the profile's live items in its block under "From
earlier conversations", after the session's own exact values, within ``PROFILE_SHARE``
of the block; a value of the session wins over the profile's of the same kind.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from .lang.acts import event, expressive, standing
from .normalize import normalize as norm
from .sections import CONTACT_KEYS, SLOT_KEYS
from .state import ConversationState

# What is promoted: the kinds of the user's exact values, and preferences.
CONTACT_KINDS = CONTACT_KEYS
SINGLE_KINDS = CONTACT_KINDS  # one live value each: a new one supersedes the old
PROMOTED_KINDS = CONTACT_KINDS | {"order_id", "ticket_id", "account", "tracking_number",
                                  "constraint", "negative_constraint", "name"}
# ... and, of other kinds, what the user wants: a budget, a least rating
PROMOTED_KEYS = frozenset({"budget", "rating"})
FACT_AT_LEAST = 0.6  # a user's stated fact this important is promoted too
HARD_KINDS = frozenset({"constraint", "negative_constraint"})
STATED_KINDS = HARD_KINDS | {"preference", "fact"}  # said in words, stable or one-off
ONE_OFF = 0.3  # the most a one-off request weighs: it fades within months
IMPORTANCE = {"phone": 0.9, "email": 0.9, "address": 0.9, "negative_constraint": 0.85,
              "constraint": 0.8, "order_id": 0.6, "ticket_id": 0.6, "account": 0.7,
              "tracking_number": 0.5, "name": 0.4, "budget": 0.6, "rating": 0.5,
              "preference": 0.5, "fact": 0.45}
HALF_LIFE_DAYS = 90.0
CONFIRM_EVERY = timedelta(hours=1)  # a value said again in one session: confirmed hourly
FADE_BELOW = 0.15
PROFILE_SHARE = 0.25  # of the block, at most, for the profile's rows

Status = Literal["active", "superseded", "archived"]


class Source(BaseModel):
    """One session's part in a profile item: what erasing that session takes away."""

    session_id: str
    turn: int = Field(description="The last turn of the session that said it.")
    value: str = Field(description="Verbatim, as this session said it (the last time).")
    first_seen: datetime
    last_confirmed: datetime
    confirmations: int = Field(default=1, description="Of the item's, those this session "
                               "made.")


class ProfileItem(BaseModel):
    """One thing a user told us, verbatim, with where and when."""

    id: str = Field(description="P1, P2, ... in order of first promotion.")
    kind: str = Field(description="phone, email, address, order_id, constraint, preference...")
    value: str = Field(description="Verbatim, as the user said it.")
    session_id: str = Field(description="The session it was said in (the latest one).")
    turn: int = Field(description="The turn of that session.")
    importance: float = Field(ge=0, le=1)
    first_seen: datetime
    last_confirmed: datetime
    confirmations: int = 1
    status: Status = "active"
    superseded_by: str | None = None
    sources: list[Source] = Field(default_factory=list, description=(
        "Every session that said it; the fields above are those of all of them."))

    @model_validator(mode="before")
    @classmethod
    def _one_source(cls, data: Any) -> Any:
        """An item saved before sources were kept has one: all of it is that session's
        (erasing the session erases the item, confirmations by others included)."""
        if isinstance(data, dict) and not data.get("sources") and "session_id" in data:
            data = {**data, "sources": [{
                k: data[k] for k in ("session_id", "turn", "value", "first_seen",
                                     "last_confirmed", "confirmations") if k in data}]}
        return data


class Profile(BaseModel):
    """A user's profile: every item ever promoted, live or not (nothing is deleted but by
    ``forget_user``), and the version the store saved."""

    user_id: str
    version: int = 0
    language: str | None = Field(default=None, description="The user's, as last seen.")
    items: list[ProfileItem] = Field(default_factory=list)

    def live(self) -> list[ProfileItem]:
        """The active items, most important first."""
        return sorted((i for i in self.items if i.status == "active"),
                      key=lambda i: (-i.importance, i.id))

    def anchor(self, kind: str) -> ProfileItem | None:
        """The active item of a kind (the most recently confirmed one)."""
        found = [i for i in self.items if i.kind == kind and i.status == "active"]
        return max(found, key=lambda i: i.last_confirmed) if found else None

    def history(self, kind: str) -> list[ProfileItem]:
        """Every item of a kind, oldest first (superseded and archived ones too)."""
        return [i for i in self.items if i.kind == kind]

    def diff(self, older: Profile) -> dict[str, list[str]]:
        """Ids added and ids whose status changed since ``older``."""
        before = {i.id: i.status for i in older.items}
        return {"added": [i.id for i in self.items if i.id not in before],
                "changed": [i.id for i in self.items
                            if i.id in before and before[i.id] != i.status]}


def candidates(state: ConversationState) -> Iterable[tuple[str, str, int]]:
    """(kind, value, turn) of what a session's state offers the profile: the user's own
    active values of the promoted kinds, and the user's preferences. Only what the user
    said: an assistant or a tool cannot set a user's contact details. Not what one
    session settles on (``SLOT_KEYS``: a search's place and category, a trip's ends, a
    date): one trip's city is no lasting fact about the user."""
    values = []
    # what a fact quoting one says of someone else: their contact ("收件人是我妈，她的电话是
    # 136…", "my boss, his email is ...") never reaches the user's profile, in a fact either
    others = [a.value for a in state.anchors if a.subject and a.kind in CONTACT_KEYS]
    for a in state.active_anchors():
        if a.speaker == "user" and not a.subject and a.key not in SLOT_KEYS \
                and (a.kind in PROMOTED_KINDS or a.key in PROMOTED_KEYS) \
                and not (a.kind in HARD_KINDS and expressive(a.value)):
            values.append(a.value)
            yield (a.kind if a.kind in PROMOTED_KINDS else a.key), a.value, a.last_turn
    for p in state.preferences:
        if p.speaker == "user" and p.status == "active" and not expressive(p.text):
            yield "preference", p.text, p.last_turn
    for f in state.facts:  # what the user told about themselves ("my dog is called Max")
        if f.speaker == "user" and f.status == "active" and f.importance >= FACT_AT_LEAST \
                and not any(v in f.text for v in values + others) \
                and not expressive(f.text) \
                and (standing(f.text) or not event(f.text)):
            # not a value said again, not a mood, not what happened this once ("I placed
            # an order yesterday", 我没点这个)
            yield "fact", f.text, f.last_turn


def promote(profile: Profile, state: ConversationState, session_id: str,
            now: datetime | None = None) -> Profile:
    """``profile`` with the session's candidates merged in (a new profile; the caller
    saves it at ``profile.version + 1``)."""
    now = now or datetime.now(UTC)
    out = profile.model_copy(deep=True)
    out.language = state.language or out.language
    for kind, value, turn in candidates(state):
        key = norm(value)
        same = next((i for i in out.items if i.kind == kind and norm(i.value) == key
                     and i.status != "superseded"), None)
        if same is not None:
            again = same.session_id != session_id or same.status == "archived"
            if again or now - same.last_confirmed > CONFIRM_EVERY:  # else: nothing new
                same.confirmations += again
                same.importance = min(1.0, max(same.importance, _importance(same))
                                      + 0.05 * again)
                same.last_confirmed, same.status = now, "active"
                same.session_id, same.turn = session_id, turn
                _said(same, session_id, turn, value, now, again)
            continue
        item = ProfileItem(id=f"P{_next_id(out)}", kind=kind, value=value,
                           session_id=session_id, turn=turn, importance=0.0,
                           first_seen=now, last_confirmed=now)
        item.importance = _importance(item)
        if kind in SINGLE_KINDS:
            for old in out.items:
                if old.kind == kind and old.status == "active":
                    old.status, old.superseded_by = "superseded", item.id
                    for said in out.items:  # "my phone is <the old one>" is stale too
                        if said.kind == "fact" and old.value in said.value:
                            said.status = "archived"
        out.items.append(item)
    return fade(out, now)


def _next_id(profile: Profile) -> int:
    """The number of a new item: after every id in use (erasure leaves gaps)."""
    return 1 + max((int(i.id[1:]) for i in profile.items if i.id[1:].isdigit()), default=0)


def _said(item: ProfileItem, session_id: str, turn: int, value: str, now: datetime,
          again: bool) -> None:
    """Note that ``session_id`` said ``item`` (again) at ``turn``."""
    for source in item.sources:
        if source.session_id == session_id:
            source.turn, source.value, source.last_confirmed = turn, value, now
            source.confirmations += again
            return
    item.sources.append(Source(session_id=session_id, turn=turn, value=value,
                               first_seen=now, last_confirmed=now))


def erase_session(profile: Profile, session_id: str) -> Profile:
    """``profile`` as if ``session_id`` had never been promoted (a new profile, the same
    version): its sources leave every item; an item with no source left goes; one said by
    other sessions too keeps what they said (value, turn, times, confirmations); an item
    whose successor went is superseded by that one's successor, or live again."""
    out = profile.model_copy(deep=True)
    successor = {i.id: i.superseded_by for i in out.items}
    kept: list[ProfileItem] = []
    for item in out.items:
        sources = [s for s in item.sources if s.session_id != session_id]
        if len(sources) < len(item.sources) and sources:
            last = max(sources, key=lambda s: s.last_confirmed)
            item.sources, item.value = sources, last.value
            item.session_id, item.turn = last.session_id, last.turn
            item.first_seen = min(s.first_seen for s in sources)
            item.last_confirmed = last.last_confirmed
            item.confirmations = max(1, sum(s.confirmations for s in sources))
            item.importance = min(1.0, _importance(item) + 0.05 * (item.confirmations - 1))
        if sources:
            kept.append(item)
    left = {i.id for i in kept}
    for item in kept:
        after = item.superseded_by
        while after is not None and after not in left:
            after = successor.get(after)
        if after != item.superseded_by:
            item.superseded_by = after
            if after is None:
                item.status = "active"
    out.items = kept
    return out


def stable(item: ProfileItem) -> bool:
    """Whether ``item`` holds beyond the session it was said in (the module's rule): an
    exact value, or words stated as standing or said again in a later session."""
    return item.kind not in STATED_KINDS or item.confirmations > 1 or standing(item.value)


def _importance(item: ProfileItem) -> float:
    """What an item of its kind weighs when promoted: ``ONE_OFF`` at most unless stable."""
    full = IMPORTANCE.get(item.kind, 0.5)
    return full if stable(item) else min(full, ONE_OFF)


def weight(item: ProfileItem, now: datetime) -> float:
    """Importance (``ONE_OFF`` at most unless stable; nothing for an expressive item),
    halved every ``HALF_LIFE_DAYS`` unconfirmed — not for contact details and stable hard
    constraints: age alone never forgets them."""
    if item.kind in STATED_KINDS and expressive(item.value):
        return 0.0
    steady = stable(item)
    importance = item.importance if steady else min(item.importance, ONE_OFF)
    if item.kind in CONTACT_KINDS or (item.kind in HARD_KINDS and steady):
        return importance
    days = max((now - item.last_confirmed).total_seconds() / 86400, 0.0)
    return importance * math.pow(0.5, days / HALF_LIFE_DAYS)


def fade(profile: Profile, now: datetime) -> Profile:
    """Archive the active items whose weight fell below ``FADE_BELOW`` (kept, not shown;
    a later confirmation revives them)."""
    for item in profile.items:
        if item.status == "active" and weight(item, now) < FADE_BELOW:
            item.status = "archived"
    return profile


def shown(profile: Profile, state: ConversationState, session_id: str | None = None
          ) -> list[ProfileItem]:
    """The profile's items the block of session ``session_id`` shows: live ones said in
    an earlier session (not those only this session said: they are its own, not earlier
    conversations'), less what the session already holds (the same value) or holds newer
    (another value of a single kind)."""
    own = {(a.kind, norm(a.value)) for a in state.active_anchors()}
    own_kinds = {a.kind for a in state.active_anchors() if a.speaker == "user"}
    return [i for i in profile.live() if (i.kind, norm(i.value)) not in own
            and not (i.kind in SINGLE_KINDS and i.kind in own_kinds)
            and any(s.session_id != session_id for s in i.sources)]
