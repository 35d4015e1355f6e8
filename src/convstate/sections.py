"""The sections of the state, one place each: the item the state keeps, the item an
extractor proposes, and a ``Section`` spec saying how the rest of the library treats it.

Everything else derives from the spec: the state's lookups, the delta model, which
statuses an update may set, the fold's admission rules, the block's labels, order and
ranks, and the LLM's instructions. A section is declared on the state as
``Annotated[list[Item], spec]``; a subclass of ConversationState adds one the same way
(see ``Section``).

Every item carries provenance (the turns it came from, who said it) and an id that the
fold assigns. Items are never deleted: a resolved task is marked done, a changed phone
number marks the old anchor superseded, a fact nobody needs fades.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, TypeVar, get_args

from pydantic import BaseModel, Field, field_validator, model_validator

from .lang import number_in
from .normalize import normalize

_T = TypeVar("_T")

Speaker = Literal["system", "developer", "user", "assistant", "tool"]
# An id's kind is what its cue calls it: an order, a ticket (a complaint, a case, a
# return), a parcel's tracking number, an account. A product or plan name is a "name".
AnchorKind = Literal[
    "order_id", "ticket_id", "tracking_number", "phone", "email", "amount", "date", "time",
    "address", "account", "constraint", "negative_constraint", "language", "name", "other",
]
ANCHOR_KINDS: tuple[str, ...] = get_args(AnchorKind)

# Bounds keep a model's reply finite: a small model otherwise loops on a list until
# it runs out of tokens. A rule extractor stays far below them.
MAX_TURNS_CITED = 8
MAX_ITEMS = 40
MAX_TEXT = 500
MAX_SUBJECT = 120


# An item's provenance stays bounded however often it is said again: the first turns
# and the latest ones are kept, with the count of all of them.
TURNS_HEAD, TURNS_TAIL = 3, 5


class Item(BaseModel):
    """Common provenance of every state item."""

    id: str = Field(description="Assigned by the fold (e.g. 'A3'), never by a model.")
    turns: list[int] = Field(description=(
        "Indexes of the turns this item was stated in: the first 3 and the last 5."))
    speaker: Speaker = Field(description="Who said it first.")
    first_turn: int
    last_turn: int
    mentions: int = Field(default=0, description="How many turns stated it, in all.")

    @model_validator(mode="after")
    def _bounded(self) -> Item:
        # assigned only when it changes: every copy of a state validates every item
        if self.mentions < len(self.turns):
            self.mentions = len(self.turns)
        if len(self.turns) > TURNS_HEAD + TURNS_TAIL:
            self.turns = bounded_turns(self.turns)
        return self

    def add_turns(self, turns: list[int]) -> None:
        """Record that ``turns`` stated this item too (again: no change)."""
        new = set(turns) - set(self.turns)
        if self.mentions > len(self.turns):  # bounded: the turns left out were counted
            gap = self.turns[TURNS_HEAD - 1], self.turns[-TURNS_TAIL]
            new = {t for t in new if not gap[0] < t < gap[1]}
        if not new:
            return
        merged = sorted(set(self.turns) | new)
        self.mentions += len(new)
        self.turns = bounded_turns(merged)
        self.first_turn, self.last_turn = min(self.first_turn, merged[0]), merged[-1]


def bounded_turns(turns: list[int]) -> list[int]:
    """The first ``TURNS_HEAD`` and the last ``TURNS_TAIL`` of sorted ``turns``."""
    if len(turns) <= TURNS_HEAD + TURNS_TAIL:
        return turns
    return turns[:TURNS_HEAD] + turns[-TURNS_TAIL:]


class New(BaseModel):
    """Common part of what an extractor proposes: the turns that state it."""

    turns: list[int] = Field(
        min_length=1, max_length=MAX_TURNS_CITED,
        description="Indexes of the turns that state this (from the input).",
    )


@dataclass(frozen=True)
class Section:
    """How one section of the state is kept, folded, shown and asked for.

    ``item`` is what the state keeps (an ``Item`` with a ``status`` Literal whose
    default is the live status); ``new`` what an extractor proposes (a ``New`` with a
    ``text``: fields it shares with ``item`` are copied over). The fold assigns ids
    ``prefix`` + number, deduplicates by normalized text (and owner), and lets an
    update by id set any status but the live one. ``labels`` title the section in the
    block, per language code (a built-in section's title is in each language pack);
    ``position`` orders the block; ``rank`` scores a row's
    importance (higher stays longer under a budget, see render). ``instruction`` tells
    an LLM what to return; ``asks`` names the section's live items when they are shown
    to it for updates (None: not shown). ``speakers``: who may state one (None: anyone);
    ``quoted_by(new)``: whose words its text must be, in a cited turn ("any": anyone's;
    None: not checked); ``settle_by``: items with the same (normalized) value of this
    field supersede each other, the latest stated wins (items without one stand apart);
    ``cap=(n, status)``: at most n live items, the least important and oldest take
    ``status`` first (kept, not shown);
    ``cap_by``: the cap counts the items of each value of this field apart (an anchor's
    key), and an item said again is live again when ``status`` is the cap's alone;
    ``stale``: the status an item takes when its text quotes a value that was since
    replaced (the old phone number), so the block never shows it again that way.

    A state of your own adds a section with a field
    ``complaints: Annotated[list[Complaint], COMPLAINTS]``, where ``COMPLAINTS`` is a
    ``Section`` over your ``Complaint(Item)`` and ``NewComplaint(New)``; an extractor
    fills ``delta.complaints`` (tests/test_sections.py is a whole example).
    """

    name: str
    item: type[Item]
    new: type[New]
    prefix: str
    position: int
    rank: Callable[[Any], float]
    instruction: str
    labels: Mapping[str, str] = field(default_factory=dict)
    asks: str | None = None
    speakers: frozenset[str] | None = None
    quoted_by: Callable[[Any], str | None] | None = None
    settle_by: str | None = None
    cap: tuple[int, str] | None = None
    cap_by: str | None = None
    stale: str | None = None
    live: str = field(init=False)
    statuses: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        info = self.item.model_fields.get("status")
        if info is None or not get_args(info.annotation) or not isinstance(info.default, str):
            raise TypeError(f"{self.item.__name__} needs a status Literal with a default")
        object.__setattr__(self, "statuses", get_args(info.annotation))
        object.__setattr__(self, "live", info.default)
        for status in (self.stale, self.cap[1] if self.cap else None):
            if status is not None and status not in self.statuses:
                raise TypeError(f"{self.item.__name__} has no status {status!r}")
        if self.cap_by is not None and self.cap is None:
            raise TypeError(f"{self.item.__name__}: cap_by={self.cap_by!r} needs a cap")
        if self.cap_by is not None and self.cap_by not in self.item.model_fields:
            raise TypeError(f"{self.item.__name__} has no field {self.cap_by!r} to cap by")

    @property
    def updates(self) -> frozenset[str]:
        """The statuses an update by id may set: not the live one, nor those the fold
        alone gives (a cap's, a stale item's)."""
        fold_only = {self.stale, self.cap[1] if self.cap else None}
        return frozenset(s for s in self.statuses if s != self.live and s not in fold_only)

    def revives(self, item: Any) -> bool:
        """Whether ``item``, said again, is live again: it left the live set under a
        per-value cap only (a status no extractor and no stale value gives)."""
        return self.cap_by is not None and self.cap is not None \
            and item.status == self.cap[1] != self.stale

    def is_live(self, item: Any) -> bool:
        return bool(item.status == self.live)

    def owns(self, item_id: str) -> bool:
        """Whether an id was assigned in this section."""
        return item_id.startswith(self.prefix) and item_id[len(self.prefix):].isdigit()


def clipped(text: str) -> str:
    """``text`` within MAX_TEXT: a longer one keeps a visible cut (a bounded state)."""
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"


def field_of(item: Any, name: str) -> Any:
    """``getattr(item, name, None)``, fast for a name the item lacks: pydantic looks a
    missing name up the slow way (~10 us, in a fold's loops over the whole state)."""
    fields = getattr(item, "__dict__", None)
    if fields is not None and name in fields:
        return fields[name]
    return getattr(item, name, None) if _defines(item.__class__, name) else None


@lru_cache(maxsize=256)
def _defines(cls: Any, name: str) -> bool:
    """Whether ``cls`` or a base has ``name`` of its own (a property, a class value)."""
    return any(name in vars(k) for k in cls.__mro__)


def text_of(item: Any) -> str:
    """What an item says: an anchor's value, every other item's text."""
    return str(field_of(item, "value") or field_of(item, "text") or "")


def grouped(items: Iterable[_T], key: Callable[[_T], Any]) -> dict[Any, list[_T]]:
    """``items`` by ``key`` in one pass (a key of None: left out), each group where its
    first item was, items in order within: a fold settles a few keys of a section of
    thousands of items, a block groups its rows into lines."""
    out: dict[Any, list[_T]] = {}
    for item in items:
        if (k := key(item)) is not None:
            out.setdefault(k, []).append(item)
    return out


# -- the built-in sections: item, proposal, spec -----------------------------------------


class Anchor(Item):
    """An exact value: an id, a number, a hard or negative constraint. Kept verbatim."""

    kind: AnchorKind
    key: str = Field(description="What the value is, e.g. 'order_id', 'budget', 'phone'.")
    value: str = Field(description="Verbatim substring of a turn this anchor cites.")
    subject: str | None = Field(
        default=None, description="What the value is about (a place, a business, a "
        "product), verbatim from the turns: the phone of which restaurant.")
    status: Literal["active", "superseded", "retired"] = "active"
    superseded_by: str | None = None
    superseded_turn: int | None = Field(
        default=None, description="Turn of the value that replaced this one."
    )

    @property
    def count(self) -> int | None:
        """How many, for a count (a key of ``COUNT_KEYS``: "two bedrooms" is 2, "a table
        for 4" 4); None for any other value, or a count that says no number."""
        return number_in(self.value) if self.key in COUNT_KEYS else None


class NewAnchor(New):
    """An exact value, copied verbatim from a turn it cites; ``subject``: the named thing
    it is about (the restaurant a phone belongs to), verbatim, None when it is about the
    user. (The LLM reads this in its instructions, not here: the wire schema leaves out
    what they say.)"""

    kind: AnchorKind
    key: str = Field(min_length=1, max_length=64,
                     description="e.g. order_id, phone, budget, constraint.")
    value: str = Field(min_length=1, max_length=MAX_TEXT)
    subject: str | None = Field(default=None, max_length=MAX_SUBJECT)


# Exact values come first: those that identify the customer or the case and the user's
# hard and negative constraints, then the rest the user said, then what the assistant or
# a tool said (the values a user gave are kept whatever the budget: see render).
IDENTIFYING = frozenset({"order_id", "ticket_id", "tracking_number", "phone", "email",
                         "account", "address", "constraint", "negative_constraint"})


def users_own(a: Anchor) -> tuple[bool, bool]:
    """Whether ``a`` is the user's, and about no one else: what code reads of a key
    first (a hotline never hides the user's number, nor "my wife's number is ..." the
    user's own)."""
    return (a.speaker == "user", a.subject is None)


def read_first(a: Anchor) -> tuple[bool, bool, int, int]:
    """The order in which code reads the live values of one key (the greatest first):
    the user's own (``users_own``), then the latest."""
    return (*users_own(a), a.last_turn, int(a.id[1:]))


def _anchor_rank(a: Anchor) -> float:
    if a.key in COUNT_KEYS:  # how many: after every value that says which or what
        return 70.0
    if a.speaker == "user":
        return 90.0 if a.kind in IDENTIFYING else 85.0
    return 80.0 if a.kind in IDENTIFYING else 72.0


# Keys whose values a conversation settles on: one current value per thing at a time (an
# appointment's time, a trip's date). A later turn's value replaces the earlier ones of
# the same thing (fold.py); values said in one turn stand together ("from the 3rd to the
# 5th"), and the user who takes up the assistant's proposal replaces theirs with it. A
# place is a name in the place role ("in Walnut Creek": where a search is), a category
# one in the category role ("a Psychiatrist": what is sought), an origin and a destination
# a trip's two ends ("leaving from Las Vegas, going to Sacramento"); "until" is a date in
# the end role ("until March 13th": a later end replaces it, a later start does not).
# the ways to reach someone: a contact someone else may own ("my boss's number"), the
# assistant may give of its own ("Our hotline is ..."), a profile keeps one of
CONTACT_KEYS = frozenset({"phone", "email", "address"})
SLOT_KEYS = frozenset({"date", "until", "time", "place", "origin", "destination", "category"})
# how many of a thing (extract/rules.py: count_key): a later count of it replaces the
# earlier as a slot's value does, but only its speaker's (what the assistant says there
# is, "40 seats left", "sleeps 2 guests", is no proposal of how many the user wants)
COUNT_KEYS = frozenset({"people", "tickets", "rooms", "bedrooms", "beds", "baths", "nights"})
# the keys of names of things (not of kinds): a name in the place role is a name still,
# and a retry's name replaces either (extract/settle.py: retried)
NAME_KEYS = frozenset({"names", "place", "origin", "destination"})
# ... of which those that say where: a search's place, a trip's start and end
WHERE_KEYS = NAME_KEYS - {"names"}
# ... and the values a user asks for that a proposal they take up settles: the price, the
# rating, how long (a range asked for, the value found)
SETTLED_KEYS = SLOT_KEYS | {"amount", "duration", "rating", "product"}
# a key whose values bound another's from above: a budget ("under $100", 预算500元) is at
# most the amounts offered, and an amount offered may replace it
CEILING_OF = {"budget": "amount"}
# a key whose values are of another's kind where a turn names one without its role: an
# end date is a date to a refusal ("Friday is bad"), a correction or a proposal ("March
# 13th is not available. Would March 12th work?"), while a later end replaces only the end
SLOT_OF = {"until": "date"}


def slot_of(key: str) -> str:
    """The kind a key's values are of (an end date's: a date); any other key's, its own."""
    return SLOT_OF.get(key, key)


# A key's newest values, at most this many, are live; older ones (a session that has named
# hundreds of orders) are retired: kept in the state and its history, not shown, not in
# the rows a fold ranks nor the index an extractor reads; live again when said again. The
# block ranks a key's newest KEPT_PER_KEY (render) as exact values and the older with the
# facts, so a window of a few thousand tokens shows far fewer; at 64 the long chats of
# benchmarks/eval_matrix.py lost values at window 8192 (docs/experiments.md, stop 36).
MAX_LIVE_PER_KEY = 256

ANCHORS = Section(
    "anchors", Anchor, NewAnchor, prefix="A", position=10, rank=_anchor_rank,
    cap=(MAX_LIVE_PER_KEY, "retired"), cap_by="key",
    instruction="anchors (order ids, ticket or complaint numbers, tracking numbers, phones, "
    "emails, amounts, dates, times, addresses, names, product and plan names; the user's "
    "hard and negative constraints), each value copied verbatim from a turn it cites, "
    "with its subject (the named place, business or product it is about, verbatim) if any")


class OpenTask(Item):
    """A commitment: who owes it, and whether it is still open."""

    text: str
    owner: Literal["user", "assistant"]
    status: Literal["open", "done", "cancelled"] = "open"
    closed_turn: int | None = None


class NewTask(New):
    """A commitment by the user or the assistant."""

    text: str = Field(min_length=1, max_length=MAX_TEXT)
    owner: Literal["user", "assistant"]
    status: Literal["open", "done", "cancelled"] = "open"


OPEN_TASKS = Section(
    "open_tasks", OpenTask, NewTask, prefix="T", position=30, asks="task",
    # the assistant's commitments must be its own words: a model cannot invent a promise
    quoted_by=lambda t: "assistant" if t.owner == "assistant" else None,
    rank=lambda t: 76.0 if t.owner == "assistant" else 68.0,
    instruction="open_tasks with owner (an assistant task only from the assistant's words)")


class Request(Item):
    """Something the user asked for that may still be unanswered ("电话是多少？")."""

    text: str
    status: Literal["open", "answered", "dropped"] = "open"
    closed_turn: int | None = None


class NewRequest(New):
    """A question or ask of the user's, in a user turn."""

    text: str = Field(min_length=1, max_length=MAX_TEXT)
    status: Literal["open", "answered", "dropped"] = "open"


REQUESTS = Section(
    "requests", Request, NewRequest, prefix="Q", position=90, asks="question",
    speakers=frozenset({"user"}), rank=lambda r: 45.0,
    instruction="requests (the user's questions and asks)")


class Goal(Item):
    """Something the user wants to achieve."""

    text: str
    status: Literal["active", "achieved", "abandoned"] = "active"


class NewGoal(New):
    """A goal of the user, in the conversation's language."""

    text: str = Field(min_length=1, max_length=MAX_TEXT)
    status: Literal["active", "achieved", "abandoned"] = "active"


GOALS = Section(
    "goals", Goal, NewGoal, prefix="G", position=40, asks="goal", rank=lambda g: 70.0,
    instruction="goals")


_QUESTION = ("The assistant's closed question this decision answers, verbatim (\"Would "
             "you like to buy insurance?\"); None for any other decision.")
_ABOUT = ("What that question asks about (\"insurance\"): a later answer about the same "
          "thing supersedes this one.")
_ANSWER = "The user's answer to that question: yes (true) or no (false)."


class Decision(Item):
    """Something agreed or settled in the conversation; a yes or a no to the assistant's
    closed question carries the question, what it is about and the answer (a later answer
    about the same thing supersedes it)."""

    text: str
    question: str | None = Field(default=None, min_length=1, description=_QUESTION)
    about: str | None = Field(default=None, min_length=1, description=_ABOUT)
    answer: bool | None = Field(default=None, description=_ANSWER)
    status: Literal["active", "superseded"] = "active"
    superseded_by: str | None = None


class NewDecision(New):
    """Something agreed or settled."""

    text: str = Field(min_length=1, max_length=MAX_TEXT)
    question: str | None = Field(default=None, min_length=1, max_length=MAX_TEXT,
                                 description=_QUESTION)
    about: str | None = Field(default=None, min_length=1, max_length=MAX_SUBJECT,
                              description=_ABOUT)
    answer: bool | None = Field(default=None, description=_ANSWER)


DECISIONS = Section(
    "decisions", Decision, NewDecision, prefix="D", position=60, rank=lambda d: 62.0,
    settle_by="about",
    instruction="decisions (what was chosen or agreed, naming what was chosen)")


class Preference(Item):
    """A stated like or dislike; a later one on the same topic supersedes the earlier."""

    text: str
    polarity: Literal["like", "dislike", "require", "forbid"]
    topic: str = Field(description="Normalized key of what the preference is about.")
    status: Literal["active", "superseded"] = "active"
    superseded_by: str | None = None

    @field_validator("topic")
    @classmethod
    def _normalized(cls, topic: str) -> str:
        return normalize(topic)


class NewPreference(New):
    """A like/dislike/requirement; ``topic`` groups preferences that supersede each other."""

    text: str = Field(min_length=1, max_length=MAX_TEXT)
    polarity: Literal["like", "dislike", "require", "forbid"]
    topic: str = Field(min_length=1, max_length=64, description="Short name of what it is about.")


PREFERENCES = Section(
    "preferences", Preference, NewPreference, prefix="P", position=70, rank=lambda p: 56.0,
    settle_by="topic",
    instruction="preferences (with a short topic)")


class Fact(Item):
    """A statement worth keeping from open conversation — a first-person fact, or one
    that holds a name, a number or a date — verbatim, with how much it matters."""

    text: str
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    status: Literal["active", "faded"] = "active"


class NewFact(New):
    """A statement to keep, copied verbatim from the turn it cites, with how much it
    matters later (``importance``, 0 to 1)."""

    text: str = Field(min_length=1, max_length=MAX_TEXT)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)


MAX_LIVE_FACTS = 200  # beyond this, the least important and oldest facts fade (kept, not shown)

FACTS = Section(
    "facts", Fact, NewFact, prefix="F", position=80, quoted_by=lambda f: "any",
    cap=(MAX_LIVE_FACTS, "faded"), stale="faded",
    # below every exact value and commitment; importance moves a fact between
    # preferences and goals, and the user's own facts weigh a little more
    rank=lambda f: 40.0 + 25.0 * f.importance + (3.0 if f.speaker == "user" else 0.0),
    instruction="facts (statements worth remembering that fit no other section: what "
    "people say about themselves, with names, numbers or dates; verbatim, with an "
    "importance from 0 to 1)")

BUILT_IN: tuple[Section, ...] = (ANCHORS, OPEN_TASKS, REQUESTS, GOALS, DECISIONS,
                                 PREFERENCES, FACTS)
