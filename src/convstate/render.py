"""State -> one compact block, within a token budget; what matters least leaves first.

The block says what it is: a record of the conversation, quoted as data. Every value is
quoted (JSON string escaping, or XML escaping), so a turn's text cannot break out of the
block or pose as an instruction. Same state, same arguments, same bytes.

Every row has an importance (``rank``, from its section's spec): your own fields; the
exact values and hard constraints the user stated; the identifying values others stated
(a hotline, a record's order id); the mood; the assistant's open commitments; others'
other values; goals; the user's own tasks; decisions; preferences; facts by their
importance; open questions. Under a budget the lowest ranks leave first (the oldest
first among equals); the state keeps everything.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from operator import attrgetter, is_
from typing import Any, NamedTuple

from .fields import describe
from .lang import pack
from .registry import FORMATS
from .sections import ANCHORS, grouped
from .state import Anchor, ConversationState, Decision, OpenTask
from .tokens import Counter, TokenCounter

# anchor kinds whose value is someone's own words, not a verbatim id or number
WORDED = frozenset({"constraint", "negative_constraint"})
ANSWER = "answer"  # the tag of a decision that answers the assistant's closed question

# Where the blocks that are not sections stand among the sections' positions (the order
# rows appear in, not the order they leave: that is the rank).
_POSITION = {"fields": 20, "sentiment": 50}

def block_words(lang: str) -> Mapping[str, str]:
    """The block's words in language ``lang`` (its pack's labels); ConfigError for a
    language no pack provides."""
    return pack(lang).labels

# Importance of a row (higher stays longer); each section's spec ranks its items.
RANK_FIELD = 100.0  # your own fields
RANK_USER_ANCHOR = 85.0  # at or above: kept whatever the budget, unless keep_anchors=False
RANK_SENTIMENT = 78.0  # a bad mood: above every commitment, below the exact values
RANK_CALM = 45.0  # a neutral or good mood ("thanks!"): what the bot need not act on
# A key's newest KEPT_PER_KEY values the user stated rank as exact values; older ones (a
# session that has named dozens of orders) take their chance with the facts, so what a
# block must keep stays bounded however long the session (every value stays in the state).
KEPT_PER_KEY = 32
RANK_OLDER_VALUE = 55.0
# Rows ranked below this (most facts, preferences, open questions) take only the room the
# raw turns leave: an earlier short turn shown whole is worth more than a line quoted from
# it (where turns are long, every row comes first: layout.lines_first).
RANK_BEFORE_RAW = 60.0
# A key's values that later ones replaced: shown marked as such (the history a bot may
# need: "the customer changed their number"), ranked as they were (their age puts them
# after the values that replaced them); a key's newest few from each speaker.
KEPT_REPLACED = 4


class Row(NamedTuple):
    """One item of the block, format-free: a label, a value, who said it, and when. A
    named tuple, not a dataclass: a fold makes one per item of the state, and a tuple is
    made in a seventh of the time."""

    section: str
    label: str
    value: Any
    speaker: str | None = None
    turn: int | None = None  # the latest turn stating it (None: not tied to one turn)
    tag: str = ""  # anchor kind, task owner, 'conflict', sentiment trend...
    rank: float = 0.0
    subject: str | None = None  # what an exact value is about


def render(state: ConversationState, format: str = "text", lang: str | None = None,
           budget: int | None = None, counter: Counter | None = None,
           keep_anchors: bool = True, shown_from: int | None = None,
           shown_text: str = "", provenance: bool = False,
           rows: list[Row] | None = None, keep_from: float | None = None) -> str:
    """Render the live part of ``state`` as ``format`` with labels in ``lang``.

    With ``budget`` (tokens), the lowest-ranked rows leave first and the block says how
    many left. Your own fields and the exact values the user stated (a key's newest
    ``KEPT_PER_KEY``) are kept whatever the budget, unless ``keep_anchors`` is False;
    ``keep_from``: keep every row ranked at least this instead (the block may then pass
    the budget). ``shown_from`` is the first turn the same context carries raw: items
    stated there or later are left out (the raw turns hold them verbatim), and so is
    every value that ``shown_text`` (those turns' text) holds. ``provenance`` adds
    speaker and turn to text and markdown rows. ``rows``:
    ``block_rows(state, lang)`` when the caller has them already (they are per state).
    Resolved and superseded items are never shown.
    """
    return render_dropping(state, format, lang, budget, counter, keep_anchors, shown_from,
                           (shown_text,), provenance, rows, keep_from)[0]


def draw_rows(state: ConversationState, rows: list[Row], format: str = "text",
              lang: str = "en") -> str:
    """The block of exactly ``rows`` (in block order), none left out and nothing said of
    what is not there: what ``render`` gives for these rows without a budget, without
    ranking them first."""
    return FORMATS.get(format)(rows, _labels(type(state), lang), 0, False) if rows else ""


class RankedRows:
    """A state's block rows, prepared once for the many blocks drawn from them (one per
    context): the order they stay in (rank, then the newest first), their turns in order,
    and their values indexed by their last characters. With these a block costs what it
    can show, not what the state holds."""

    KEY = 6  # characters of a value's end that index it
    _HELD = 256  # texts whose held rows are remembered
    _SCAN = 2000  # a text this long or shorter is scanned for each value's end, if fewer
    _DRAFTS = 64  # drafts remembered: a block's search probes the same few turn after turn

    def __init__(self, rows: list[Row]):
        self.rows = rows
        self.order = [k for _, _, k in sorted(  # tuples compared as they are: no key calls
            [(r.rank, r.turn or 0, k) for k, r in enumerate(rows)], reverse=True)]
        self.turns = sorted(r.turn for r in rows if r.turn is not None)
        self._ends: dict[str, list[int]] = {}
        for k, r in enumerate(rows):
            if r.turn is not None and isinstance(r.value, str):
                self._ends.setdefault(r.value[-self.KEY:], []).append(k)
        self._lengths = {len(key) for key in self._ends}
        self._held: dict[str, frozenset[int]] = {}
        self._drafts: dict[tuple[Any, ...], str] = {}
        self._newest: dict[int, int] = {}  # row -> the newest noted turn holding its value
        self._least: tuple[Any, bool, list[int]] = (None, True, [])
        self.noted = -1  # the newest turn noted
        self.source: object = None  # what the noted turns came from (the caller's)

    def least(self, counter: Counter, quoted: bool) -> list[int]:
        """The least each row costs in a block, in ``order`` (``_within_reach``): as far
        as blocks of these rows reached, for the last counter and quoting asked."""
        if self._least[:2] != (counter, quoted):
            self._least = (counter, quoted, [])
        return self._least[2]

    def draft(self, key: tuple[Any, ...], positions: list[int],
              draw: Callable[[list[Row]], str]) -> str:
        """``draw`` of the rows at ``positions``, remembered under ``key`` (what else the
        draft depends on: its format, words and count of rows left out). Contexts of one
        state differ by a turn, and the rows their blocks show rarely do."""
        full = (*key, tuple(positions))
        text = self._drafts.get(full)
        if text is None:
            if len(self._drafts) >= self._DRAFTS:  # bounded, even with no fold to reset it
                self._drafts.clear()
            text = self._drafts[full] = draw([self.rows[k] for k in positions])
        return text

    def held_by(self, text: str) -> frozenset[int]:
        """The rows tied to a turn whose value ``text`` holds verbatim: only the values
        ending in one of the text's pieces are searched."""
        found = self._held.get(text)
        if found is None:
            if len(text) <= self._SCAN and len(self._ends) < len(text) * len(self._lengths):
                # fewer ends than the text's pieces: each end looked for (a scan in C)
                ends: Iterable[str] = [end for end in self._ends if end in text]
            else:
                ends = {text[i - n:i] for n in self._lengths
                        for i in range(n, len(text) + 1)} & self._ends.keys()
            found = frozenset(k for end in ends for k in self._ends[end]
                              if self.rows[k].value in text)
            if len(self._held) >= self._HELD:  # bounded: a text is a turn's, and turns pass
                self._held.clear()
            self._held[text] = found
        return found

    def note(self, turns: Iterable[tuple[int, str]]) -> None:
        """Read turns (index, text), oldest first, each newer than any noted before: a row
        remembers the newest that holds its value (``held_since``)."""
        for index, text in turns:
            for k in self.held_by(text):
                self._newest[k] = index
            self.noted = index

    def carry(self, before: RankedRows, texts: Sequence[tuple[int, str]]) -> None:
        """Note the turns ``before`` noted, by what it found: ``texts`` are the (index,
        text) of those turns still kept, oldest first. A value ``before`` knew is held by
        the same turns; only a value new to these rows is searched for. The rows drawn
        again after a reading changed a few items are mostly the rows before, and reading
        every kept turn again would cost each change what the turns hold."""
        known = {before.rows[k].value for rows in before._ends.values() for k in rows}
        newest = {before.rows[k].value: turn for k, turn in before._newest.items()}
        noted = [(index, text) for index, text in texts if index <= before.noted][::-1]
        for rows in self._ends.values():
            for k in rows:
                value = self.rows[k].value
                turn = newest.get(value) if value in known else next(
                    (index for index, text in noted if value in text), None)
                if turn is not None:
                    self._newest[k] = turn
        self.noted, self.source = before.noted, before.source

    def held_since(self, since: int) -> set[int]:
        """The rows whose values a noted turn from ``since`` on holds verbatim. A
        context's raw turns are a run of the newest ones, so a row is held while its
        newest holder is shown: each turn is read once per rows, not once per context."""
        return {k for k, index in self._newest.items() if index >= since}

    def left_of(self, shown_from: int | None, held: set[int]) -> int:
        """How many rows a block may show: not those stated at or after ``shown_from``,
        nor the ``held`` ones (their values are in the raw turns)."""
        late = len(self.turns) - bisect_left(self.turns, shown_from) \
            if shown_from is not None else 0
        return len(self.rows) - late - sum(
            1 for k in held if shown_from is None or (self.rows[k].turn or 0) < shown_from)


def render_dropping(state: ConversationState, format: str = "text", lang: str | None = None,
                    budget: int | None = None, counter: Counter | None = None,
                    keep_anchors: bool = True, shown_from: int | None = None,
                    shown_texts: Sequence[str] = (), provenance: bool = False,
                    rows: list[Row] | RankedRows | None = None,
                    keep_from: float | None = None,
                    held: set[int] | None = None) -> tuple[str, int]:
    """``render``, and how many rows it left out. ``shown_texts``: the raw turns' texts
    (a value any of them holds is left out); ``held``: the positions in ``rows`` of the
    values they hold, where the caller knows them (``RankedRows.held_since``)."""
    formatter = FORMATS.get(format)  # ConfigError for an unknown one
    lang = lang or state.language or "en"
    pack(lang)  # ConfigError for a language no pack provides
    ready = rows if isinstance(rows, RankedRows) else \
        RankedRows(block_rows(state, lang) if rows is None else rows)
    if held is None:
        held = set().union(*(ready.held_by(t) for t in shown_texts))

    def hidden(k: int) -> bool:
        turn = ready.rows[k].turn
        return turn is not None and ((shown_from is not None and turn >= shown_from)
                                     or k in held)

    counter = counter or TokenCounter()
    floor = keep_from if keep_from is not None else \
        RANK_USER_ANCHOR if keep_anchors else float("inf")
    kept, beyond = _within_reach(ready, hidden, ready.left_of(shown_from, held), budget,
                                 counter, floor, quoted=format != "xml")
    if not kept and not beyond:
        return "", 0
    shown = [ready.rows[k] for k in kept]
    labels = _labels(type(state), lang)

    def draw(positions: list[int], dropped: int) -> str:
        return ready.draft((format, lang, type(state), provenance, dropped), positions,
                           lambda rows: formatter(rows, labels, dropped, provenance))

    if budget is None:
        return draw(kept, beyond), beyond
    # The fewest dropped rows that fit: dropping more never lengthens the block, so a
    # search takes few renders from a good start: the rows' costs against what the whole
    # block counts, corrected on what each draft counts. Not from what an earlier block
    # dropped: dropping a row can lengthen a block by a token (a line's separator, the
    # count of rows left out), so where the search starts may decide where it ends, and
    # the same state and arguments must give the same block (a memory's, compress()'s).
    total = counter.count(draw(kept, beyond))
    if total <= budget:
        return draw(kept, beyond), beyond
    order = sorted((k for k, r in enumerate(shown) if r.rank < floor),
                   key=lambda k: (shown[k].rank, shown[k].turn or 0, k))
    if not order:
        return draw(kept, beyond), 0

    def tokens(m: int) -> int:  # of the block without the m lowest-ranked rows
        return counter.count(draw(_without(kept, order[:m]), m + beyond))

    costs: dict[int, int] = {}

    def cost(m: int) -> int:
        """About, the tokens of the m-th lowest row: its value's (counted on the way to
        ``kept``) and a separator's."""
        k = order[m]
        if k not in costs:
            costs[k] = counter.count(_q(shown[k].value)) + 2
        return costs[k]

    def estimate(m: int, tokens_at: int) -> int:
        """From a block without m rows, of ``tokens_at`` tokens: how many rows to drop
        for the budget, by the rows' costs."""
        if tokens_at > budget:
            over = tokens_at - budget
            while m < len(order) and over > 0:
                over -= cost(m)
                m += 1
        else:
            room = budget - tokens_at
            while m > 1 and room >= cost(m - 1):
                m -= 1
                room -= cost(m)
        return m

    guess = estimate(0, total)
    for _ in range(_ESTIMATES):
        moved = estimate(guess, tokens(guess))
        if moved == guess:
            break
        guess = moved
    k = _fewest(len(order), lambda m: tokens(m) <= budget, guess)
    left = _without(kept, order[:k])
    return (draw(left, k + beyond), k + beyond) if left else ("", k + beyond)


_ESTIMATES = 3  # steps by the rows' costs before the search checks their neighbours


def _within_reach(rows: RankedRows, hidden: Callable[[int], bool], showable: int,
                  budget: int | None, counter: Counter, floor: float, quoted: bool = True
                  ) -> tuple[list[int], int]:
    """The rows (positions, in block order) that some block within ``budget`` can show,
    of those not ``hidden``, and how many of the ``showable`` ones it cannot.

    Rows leave a block lowest rank first, so every block keeps a best-ranked run of
    them; once even the least a run can cost (its values alone, as the format writes
    them — ``quoted`` as JSON strings, else as they are — less what merging at their
    edges may save: labels are shared, and a name that heads a subject's line is not
    repeated) passes the budget, nothing ranked lower can be shown. The run is walked in
    the order prepared once per state, so a block's cost is bounded by its budget, not
    by the size of the state."""
    kept, least = [], 0
    costs = rows.least(counter, quoted)
    for i, k in enumerate(rows.order):
        if hidden(k):
            continue
        if budget is not None:
            while len(costs) <= i:  # (walked once per rows, as far as a block reaches)
                r = rows.rows[rows.order[len(costs)]]
                value = _q(r.value) if quoted or not isinstance(r.value, str) else r.value
                costs.append(0 if r.tag == "name" else max(counter.count(value) - 2, 0))
            least += costs[i]
            if least > budget and rows.rows[k].rank < floor:
                break
        kept.append(k)
    return sorted(kept), showable - len(kept)


def _fewest(n: int, fits: Callable[[int], bool], guess: int) -> int:
    """The smallest k in [1, n] with ``fits(k)`` (n when none does), for a ``fits`` that
    stays true once true: galloping out from ``guess``, then a binary search."""
    guess, step = min(max(guess, 1), n), 1
    if fits(guess):
        lo, hi = guess, guess  # hi fits; look below for one that does not
        while True:
            lo = hi - step
            if lo < 1 or not fits(lo):
                lo = max(lo, 0)
                break
            hi, step = lo, step * 2
    else:
        lo, hi = guess, guess  # lo does not fit; look above for one that does
        while True:
            hi = lo + step
            if hi >= n or fits(hi):
                hi = min(hi, n)
                break
            lo, step = hi, step * 2
    while hi - lo > 1:  # lo does not fit (0: nothing dropped), hi fits (or is n)
        mid = (lo + hi) // 2
        if fits(mid):
            hi = mid
        else:
            lo = mid
    return hi


_Made = dict[int, tuple[Any, tuple[Any, ...]]]
_Sections = dict[str, tuple[list[Any], list[tuple[Any, ...]]]]


class ItemRows:
    """The rows ``block_rows`` made of items, for the rows of the next state: a state
    read from another shares the items no reading changed (a fold copies an item before
    it changes it), so only the new and changed ones are made again. Kept for one
    language, model and watermark (a row's rank holds its age as of the watermark)."""

    def __init__(self) -> None:
        # under one key: id(item) -> (item, row), and a section's items and their rows (a
        # reading changes few sections); one tuple, swapped whole for another key, so a
        # fold drafting in its thread while a context is laid out never mixes the two
        self.kept: tuple[Any, _Made, _Sections] = (None, {}, {})

    def of(self, key: tuple[Any, ...]) -> tuple[_Made, _Sections]:
        """The rows made under ``key`` (none when it differs from the last one's)."""
        kept = self.kept
        if kept[0] != key:
            kept = self.kept = (key, {}, {})
        return kept[1], kept[2]


_BY_TURN = attrgetter("first_turn", "id")  # the order of a section's rows


def block_rows(state: ConversationState, lang: str, through: int | None = None,
               memo: ItemRows | None = None) -> list[Row]:
    """The rows a block of ``state`` shows, in block order, each with its rank; with
    ``through``, as of that turn: of the items first stated by then, each at the last
    turn by then that stated it (``said_by``), and the mood if read by then (a context's
    block: later turns are raw, and carry what they say and how). ``memo``: the rows of
    the items a state before this one shared with it, made once."""
    words = block_words(lang)
    specs = state.custom_fields()
    anchor_labels = {s.anchor_key: s.label_for(lang) for s in specs.values()
                     if s.shape in ("anchor", "anchor_list") and (s.label or s.description)}
    # ranks hold a row's age in [0, 1): as of what was let go for a context's block (not
    # of when its state was saved), as of what was read for a whole state's
    last = max(through if through is not None else state.folded_through, 0) + 1

    # each row's fields as a tuple first: a key's older values get their rank before the
    # row is made (every fold ranks every row again, the state's age being in the rank)
    rows: list[tuple[Any, ...]] = []
    position = dict(_POSITION)
    upto = through if through is not None else 1 << 62
    known, sections = memo.of((lang, type(state), upto, last)) if memo is not None else ({}, {})
    for spec in state.sections():
        position[spec.name] = spec.position
        live, rank_of = spec.live, spec.rank
        items, start = getattr(state, spec.name), len(rows)
        if (same := sections.get(spec.name)) is not None \
                and len(same[0]) == len(items) and all(map(is_, same[0], items)):
            rows += same[1]  # the very items: the same rows
            continue
        for it in sorted((it for it in items if it.status == live and it.first_turn <= upto),
                         key=_BY_TURN):
            got = known.get(id(it))
            if got is not None and got[0] is it:  # the same item: the same row
                rows.append(got[1])
                continue
            turn = it.last_turn if it.last_turn <= upto else said_by(it, upto)
            rank = rank_of(it) + turn / last  # in [0, 1): newer first
            if isinstance(it, Anchor):
                rows.append((spec.name, anchor_labels.get(it.key, it.key), it.value,
                             it.speaker, turn, it.kind, rank, it.subject))
            elif isinstance(it, OpenTask):
                rows.append((spec.name, words[it.owner], it.text, it.speaker,
                             turn, it.owner, rank, None))
            else:  # (a user's answer to the assistant's question is no claim: "answer")
                tag = ANSWER if isinstance(it, Decision) and it.question else ""
                rows.append((spec.name, "", it.text, it.speaker, turn, tag, rank, None))
            if memo is not None:
                known[id(it)] = (it, rows[-1])
        if memo is not None:
            sections[spec.name] = (list(items), rows[start:])
    if len(known) > 2 * len(rows) + 64:  # changed and ended items' rows: bounded
        now = {id(it): known[id(it)] for spec in state.sections()
               for it in getattr(state, spec.name) if id(it) in known}
        known.clear()
        known.update(now)
    rows += _replaced_rows(state, anchor_labels, words, upto, last)  # (ranked as anchors)
    for name, field in specs.items():
        value = getattr(state, name)
        if field.shape not in ("anchor", "anchor_list") and value not in (None, []):
            rows.append(("fields", field.label_for(lang), describe(value), None, None, "",
                         RANK_FIELD, None))
    for e in state.conflicts():
        rows.append(("fields", specs[e.field].label_for(lang) if e.field in specs
                     else e.field, e.value, None, None, words["conflict"], RANK_FIELD, None))
    if (s := state.sentiment) and s.turn <= upto:  # a reading of the mood: once let go
        rows.append(("sentiment", s.label, s.reason, None, None, f"{s.score:+.2f}, {s.trend}",
                     RANK_SENTIMENT if s.label == "negative" else RANK_CALM, None))
    # exact values (fields rank above): a key's newest KEPT_PER_KEY keep their rank
    exact = [k for k, r in enumerate(rows) if RANK_USER_ANCHOR <= r[6] < RANK_FIELD]
    taken: dict[tuple[str, str], int] = {}
    older: set[int] = set()
    for k in sorted(exact, key=lambda k: -(rows[k][4] or 0)):  # stable: list order in ties
        key = (rows[k][0], rows[k][1])
        taken[key] = n = taken.get(key, 0) + 1
        if n > KEPT_PER_KEY:
            older.add(k)
    for k in older:
        r = rows[k]
        rows[k] = (*r[:6], RANK_OLDER_VALUE + (r[4] or 0) / last, r[7])
    made = list(map(Row._make, rows))  # tuple.__new__ in C: 0.10 us a row, Row(*r) 0.16
    return sorted(made, key=lambda r: position[r.section])  # stable: turn order within


def _replaced_rows(state: ConversationState, labels: Mapping[str, str],
                   words: Mapping[str, str], upto: int, last: int) -> list[tuple[Any, ...]]:
    """The rows of the newest ``KEPT_REPLACED`` replaced values of a key that each speaker
    stated (first by ``upto``), labelled as replaced, ranked as anchors: the user's own
    changes are not crowded out by the assistant's read-backs of them."""
    old = sorted((a for a in state.anchors if a.status == "superseded" and a.first_turn <= upto),
                 key=lambda a: -a.last_turn)
    taken: dict[tuple[str, str | None], int] = {}
    rows = []
    for a in old:
        taken[a.key, a.speaker] = n = taken.get((a.key, a.speaker), 0) + 1
        if n <= KEPT_REPLACED:
            turn = a.last_turn if a.last_turn <= upto else said_by(a, upto)
            rows.append(("anchors", f"{labels.get(a.key, a.key)} ({words['replaced']})",
                         a.value, a.speaker, turn, a.kind,
                         ANCHORS.rank(a) + turn / last, a.subject))
    return rows[::-1]


def said_by(item: Any, through: int) -> int:
    """The last turn at or before ``through`` that stated ``item`` (of the turns it keeps:
    its first and its latest)."""
    turn: int = max((t for t in item.turns if t <= through), default=item.first_turn)
    return turn


def _labels(state_model: type[ConversationState], lang: str) -> dict[str, str]:
    """The block's words in ``lang``: its own, and each section's title (English when a
    section has none in ``lang``)."""
    own, english = block_words(lang), block_words("en")
    return {**own, **{s.name: s.labels.get(lang) or own.get(s.name) or s.labels.get("en")
                      or english.get(s.name) or s.name for s in state_model.sections()}}


def _without(positions: list[int], drops: list[int]) -> list[int]:
    """``positions`` but the ``drops``-th of them."""
    gone = set(drops)
    return [p for k, p in enumerate(positions) if k not in gone]


def _sections(rows: list[Row]) -> list[tuple[str, list[Row]]]:
    return list(grouped(rows, lambda r: r.section).items())


def _grouped(rows: list[Row], replaced: str) -> list[list[Row]]:
    """Anchors about one subject share a line, and so do those of one key and speaker
    about no subject, its replaced values (labelled with the ``replaced`` suffix)
    included; a line stands where its first value was. A name that heads a subject's
    line is not listed again."""
    subjects = {r.subject for r in rows if r.subject}
    rows = [r for r in rows if r.subject or not (r.tag == "name" and r.value in subjects)]
    return list(grouped(rows, lambda r: ("about", r.subject) if r.subject
                       else ("key", r.label.removesuffix(replaced), r.speaker)).values())


# Characters escaped in every format (as JSON escapes; XML: character references): what
# some readers take for a line break, so a value can never start a line of the block, and
# the invisible ones that make a reader see other text than the model reads: bidi
# embeddings, overrides and isolates, and the tag characters (U+E0000-E007F) that carry
# hidden ASCII.
_HIDDEN = re.compile("[\u2028\u2029\x85\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                     "\U000e0000-\U000e007f]")


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a JSON escape of an astral character is its surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _unbroken(text: str) -> str:
    return _HIDDEN.sub(_json_escape, text)


def _q(value: Any) -> str:
    if isinstance(value, str):  # most values: quoted once, not once per draft of a block
        return _quoted(value)
    return _unbroken(json.dumps(value, ensure_ascii=False, sort_keys=True))


@lru_cache(maxsize=8192)
def _quoted(text: str) -> str:
    return _unbroken(json.dumps(text, ensure_ascii=False))


def _source(r: Row, labels: dict[str, str]) -> str:
    who = f"{labels[r.speaker]}, " if r.speaker else ""
    return f" ({who}#{r.turn})" if r.turn is not None else ""


def _lines(section: str, rows: list[Row], labels: dict[str, str], provenance: bool,
           bold: bool = False) -> list[str]:
    def label(r: Row) -> str:
        return f"**{r.label}**" if bold and r.label else r.label

    def who(r: Row) -> str:
        return f" ({labels[r.speaker]})" if r.speaker else ""

    def quoted(r: Row) -> str:
        return _q(r.value) + (_source(r, labels) if provenance else "")

    def value(r: Row) -> str:  # every line of someone's text names who said it
        return quoted(r) + ("" if provenance else who(r))

    # "key (who): v1, v2" for rows of one key; a verbatim value is the user's unless named
    # (the tightest budget's rows), a constraint is the user's own words and says so
    replaced = f" ({labels['replaced']})"  # the suffix of a replaced value's label

    def values(group: list[Row]) -> str:
        out, keys = [], set()
        for same in grouped(group, lambda r: (r.label, r.speaker)).values():
            r = same[0]
            named = "" if r.speaker in ("user", None) and r.tag not in WORDED else who(r)
            key = r.label.removesuffix(replaced)
            # a key's replaced values after its current ones: "time: "8 pm"; replaced: …"
            shown = labels["replaced"] if key != r.label and key in keys else label(r)
            keys.add(key)
            out.append(f"{shown}{named}: " + ", ".join(map(quoted, same)))
        return "; ".join(out)

    def claimed(r: Row) -> str:  # a decision the assistant did not make is a claim
        return f"- {labels.get('claim', 'claim')}: {value(r)}"

    if section == "anchors":
        return [f"- {_q(g[0].subject)} → {values(g)}" if g[0].subject else f"- {values(g)}"
                for g in _grouped(rows, replaced)]
    if section == "sentiment":
        return [f"- {label(r)} ({r.tag}): {_q(r.value)}" for r in rows]
    if section == "open_tasks":
        return [f"- [{r.label}] {value(r)}" for r in rows]
    if section == "decisions":
        return [claimed(r) if r.speaker not in ("assistant", None) and r.tag != ANSWER
                else f"- {value(r)}" for r in rows]
    return [f"- {label(r)} ({r.tag}): {value(r)}" if r.tag == labels["conflict"]
            else f"- {label(r) + ': ' if r.label else ''}{value(r)}" for r in rows]


# A section's lines by its rows and words: the blocks drawn turn after turn, and the
# drafts a budget's search draws, share most sections. Shared by every session, bounded
# by the rows it holds (a few MB at most). Not the fields: their values are any JSON
# value, and 1, True and 1.0 are one key but three lines.
_SECTION_LINES: dict[tuple[Any, ...], list[str]] = {}
_SECTION_ROWS = 20_000
_held_rows = 0  # the rows the memo holds


def _section_lines(section: str, rows: list[Row], labels: dict[str, str],
                   words: tuple[tuple[str, str], ...], provenance: bool, bold: bool = False
                   ) -> list[str]:
    """``_lines``, drawn once for the same rows and ``words`` (``labels``' items)."""
    global _held_rows
    if section == "fields" or len(rows) > _SECTION_ROWS // 4:
        return _lines(section, rows, labels, provenance, bold)
    key = (section, tuple(rows), words, provenance, bold)
    try:
        lines = _SECTION_LINES.get(key)
    except TypeError:  # a value no key can hold (a custom section's list): drawn
        return _lines(section, rows, labels, provenance, bold)
    if lines is None:
        if _held_rows + len(rows) > _SECTION_ROWS:
            _SECTION_LINES.clear()
            _held_rows = 0
        lines = _SECTION_LINES[key] = _lines(section, rows, labels, provenance, bold)
        _held_rows += len(rows)
    return lines


def _text(rows: list[Row], labels: dict[str, str], dropped: int, provenance: bool) -> str:
    lines, words = [labels["title"]], tuple(labels.items())
    for section, items in _sections(rows):
        lines.append(f"{labels[section]}:")
        lines += _section_lines(section, items, labels, words, provenance)
    if dropped:
        lines.append(labels["omitted"].format(n=dropped))
    return "\n".join(lines)


def _markdown(rows: list[Row], labels: dict[str, str], dropped: int, provenance: bool) -> str:
    lines, words = [f"> {labels['title']}"], tuple(labels.items())
    for section, items in _sections(rows):
        lines += ["", f"### {labels[section]}"]
        lines += _section_lines(section, items, labels, words, provenance, bold=True)
    if dropped:
        lines += ["", f"_{labels['omitted'].format(n=dropped)}_"]
    return "\n".join(lines)


def _escape(text: str, quote: bool = False) -> str:
    # what xml.sax.saxutils does, without importing it (it pulls in urllib.request)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _HIDDEN.sub(lambda m: f"&#x{ord(m.group()):04x};", text)
    return text.replace('"', "&quot;") if quote else text


def _xml(rows: list[Row], labels: dict[str, str], dropped: int, provenance: bool) -> str:
    out = [f'<conversation_state note="{_escape(labels["title"], True)}">']
    for section, items in _sections(rows):
        out.append(f"<{section}>")
        for r in items:
            attrs = f' label="{_escape(r.label, True)}"' if r.label else ""
            attrs += f' tag="{_escape(r.tag, True)}"' if r.tag else ""
            attrs += f' speaker="{r.speaker}"' if r.speaker else ""
            attrs += f' turn="{r.turn}"' if r.turn is not None else ""
            attrs += f' subject="{_escape(r.subject, True)}"' if r.subject else ""
            value = r.value if isinstance(r.value, str) else _q(r.value)
            out.append(f"<item{attrs}>{_escape(value)}</item>")
        out.append(f"</{section}>")
    if dropped:
        out.append(f'<omitted count="{dropped}"/>')
    out.append("</conversation_state>")
    return "\n".join(out)


def _json(rows: list[Row], labels: dict[str, str], dropped: int, provenance: bool) -> str:
    doc: dict[str, Any] = {"note": labels["title"]}
    for section, items in _sections(rows):
        doc[section] = [{k: v for k, v in (("label", r.label), ("value", r.value),
                                            ("speaker", r.speaker), ("turn", r.turn),
                                            ("tag", r.tag), ("subject", r.subject))
                         if v not in (None, "")}
                        for r in items]
    if dropped:
        doc["omitted"] = dropped
    return _unbroken(json.dumps({"conversation_state": doc}, ensure_ascii=False,
                                sort_keys=True, separators=(",", ":")))


for _name, _formatter in (("text", _text), ("markdown", _markdown), ("xml", _xml),
                          ("json", _json)):
    FORMATS.register(_name, _formatter)
