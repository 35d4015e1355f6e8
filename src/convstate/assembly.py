"""Context assembly: the system prompt, the state block and the raw turns, in one budget.

``Assembler`` lays out a memory's current view (see layout.py for the policy): how many
folded turns to show again, the block within what they leave, and the cut start of one
more turn. It caches what it renders per state version: rows, their estimated costs,
and blocks per shown range.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from .errors import ConfigError
from .layout import RowCosts, first_shown, lines_first, next_start, recent_start
from .profile import PROFILE_SHARE, Profile, shown
from .registry import LANGUAGES
from .render import (
    RANK_BEFORE_RAW,
    ItemRows,
    RankedRows,
    Row,
    block_rows,
    block_words,
    draw_rows,
    render_dropping,
)
from .state import ConversationState
from .tokens import Counter, TokenCounter, lines_of, message_tokens
from .turns import Turn
from .window import Entry, WindowPolicy, cut_entry, fit_raw

MESSAGE_OVERHEAD = 8  # a system message's tokens beyond its text, with a margin
DOCUMENT_SHARE = 0.4  # of the budget, at most, for documents given to context()
_LAYOUT_TRIES = 4
_BLOCK_CACHE = 64  # rendered blocks kept per state version
RANK_PROFILE = 70.0  # what the user told us before: above facts, below commitments
_MIN_PART = 32  # the fewest tokens worth showing of a turn cut to fill a context


class _CountMemo:
    """A counter that remembers the texts it counted. Every context drafts its block
    from mostly the same rows, so the same values and drafts come back turn after turn;
    each is tokenized once. With a counter whose counts add up line by line (tiktoken's
    OpenAI encodings: ``TokenCounter.counts_by_line``) a new draft costs only its new
    lines: a block is drafted again and again while its budget is searched, and most of
    its lines were in the draft before. A long line (the many values of one key) is
    remembered too: it comes back in every block drawn until that key takes a value."""

    SHORT = 256  # characters: a value, or a line of a block

    def __init__(self, counter: Counter):
        self.counter = counter
        self.by_line = bool(getattr(counter, "counts_by_line", False))
        self.values: dict[str, int] = {}  # short texts: the rows' values, the lines
        self.drafts: dict[str, int] = {}  # whole blocks and long lines: few, and large

    def count(self, text: str) -> int:
        short = len(text) < self.SHORT
        seen = self.values if short else self.drafts
        n = seen.get(text)
        if n is None:
            if len(seen) >= (8192 if short else 64):  # bounded, even with no fold to reset
                seen.clear()
            lines = [text] if short or not self.by_line else lines_of(text)
            n = seen[text] = self.counter.count(text) if len(lines) == 1 else sum(
                map(self.count, lines))
        return n

    def message(self, msg: Mapping[str, Any]) -> int:
        """A message's tokens; a TokenCounter's with the texts counted here."""
        if isinstance(self.counter, TokenCounter):
            return message_tokens(self, msg)
        return self.counter.message(msg)


class View(Protocol):
    """What the assembler reads of a session's cached view (view.py's SessionView)."""

    session_id: str
    counter: Counter
    policy: WindowPolicy
    priming: int
    system_prompt: str | None
    system_tokens: int
    state_format: str
    lang: str | None
    state_budget: int
    redact: Callable[[str], str] | None
    state: ConversationState  # the saved state as a context shows it
    recent: list[tuple[Turn, dict[str, Any], int]]
    profile: Profile | None

    def system_message(self) -> dict[str, Any]: ...


class Assembler:
    """Builds the contexts of one session from its cached view."""

    def __init__(self, view: View):
        self.view = view
        # token counts of values and block drafts: a value counts the same in every
        # state, so they outlive a fold (bounded)
        self._counts = _CountMemo(view.counter)
        # the block rows of the last state drafted, whatever the state changes since:
        # that state itself, and its version, the language and the profile's version
        self._rows: tuple[ConversationState, tuple[int, str, int | None],
                          RankedRows] | None = None
        # the estimated costs of the rows above (a fold estimates its new state's block
        # for the log, and the layouts after use them)
        self._costs: tuple[RankedRows, dict[bool, RowCosts], float | None, int, int] \
            | None = None
        self._made = ItemRows()  # the rows of the items of the states drafted
        self.reset()

    def reset(self) -> None:
        """Forget what was rendered (the state changed)."""
        self._blocks: dict[tuple[Any, ...], tuple[str, int]] = {}  # of the memory's state

    def forget(self) -> None:
        """Forget what was drafted and rendered (a setting changed: the block's format,
        language, budget or redaction)."""
        self._rows = self._costs = None
        self._made = ItemRows()
        self.reset()

    def block_at(self, state: ConversationState, budget: int, shown: list[Entry],
                 keep_from: float | None = None) -> tuple[str, int]:
        """The block of ``state`` within ``budget`` tokens, less what the ``shown`` raw
        turns hold verbatim, and its cost as a system message ('' for nothing to say).
        ``keep_from``: rows ranked at least this are never dropped (the block may then
        pass ``budget``)."""
        v = self.view
        key = (state.version, budget, shown[0][0] if shown else None,
               shown[-1][0] if shown else None, keep_from)
        if state is v.state and key in self._blocks:
            return self._blocks[key]
        out = self.render_block(state, budget=budget, shown=shown, keep_from=keep_from)
        if state is v.state:
            if len(self._blocks) >= _BLOCK_CACHE:  # one entry per shown range: bounded
                self._blocks.clear()  # even when no fold comes to reset it
            self._blocks[key] = out
        return out

    def render_block(self, state: ConversationState, format: str | None = None,
                     lang: str | None = None, budget: int | None = None,
                     shown: list[Entry] | None = None, keep_from: float | None = None,
                     whole: bool = False) -> tuple[str, int]:
        """The state block and its token cost as a system message ('' for no state),
        less the values the ``shown`` raw turns hold (for the memory's state, when they
        run to its newest turn, as a context's do, those found as the turns came); of
        the items let go (``rows_of``), or with ``whole``, of every item."""
        v = self.view
        budget = v.state_budget if budget is None else budget
        if budget <= MESSAGE_OVERHEAD or (state.is_empty() and not self.profile_rows(state)):
            return "", 0
        lang = lang or v.lang or state.language or (
            v.profile.language if v.profile else None) or "en"
        rows = self.rows_of(state, lang) if lang in LANGUAGES and not whole else None
        held = None  # noted once per turn: for the memory's state and its newest turns
        if rows is not None and shown and v.recent and state is v.state \
                and shown[-1][0] == v.recent[-1][0].index:
            held = self._held(rows, shown[0][0])
        text, _ = render_dropping(
            state, format or v.state_format, lang, budget=budget - MESSAGE_OVERHEAD,
            counter=self._counts,
            keep_anchors=False, keep_from=keep_from,
            shown_from=shown[0][0] if shown else None,
            shown_texts=[] if held is not None else
            [str(msg.get("content") or "") for _, msg, _ in shown or []],
            rows=rows, held=held)
        if v.redact is not None:  # the model sees masked values; the store keeps all
            text = v.redact(text)
        return text, self._counts.message({"role": "system", "content": text}) if text else 0

    def _held(self, rows: RankedRows, since: int) -> set[int]:
        """The rows of the memory's state whose values its recent turns from ``since`` on
        hold: every context shows a run of the newest turns, so ``rows`` note each turn
        once, as it comes (a new state's rows note the recent turns on first use)."""
        new = []
        for t, msg, _ in reversed(self.view.recent):
            if t.index <= rows.noted:
                break
            new.append(_text(t, msg))
        rows.note(reversed(new))
        rows.source = self.view.recent  # (a reload starts another list)
        return rows.held_since(since)

    def rows_of(self, state: ConversationState, lang: str) -> RankedRows:
        """The block rows of ``state`` a context may show (of the items last stated at or
        before its ``evicted_through``), built once per state and language: a fold
        drafts its new state's block before the memory has it, and the contexts after
        use the same rows."""
        v = self.view
        key = (state.version, lang, v.profile.version if v.profile else None)
        cached = self._rows
        if cached is None or cached[0] is not state or cached[1] != key:
            rows = block_rows(state, lang, through=state.evicted_through, memo=self._made)
            ranked = RankedRows(rows + self.profile_rows(state))
            if cached is not None and cached[2].source is v.recent:  # the same turns
                ranked.carry(cached[2], [_text(t, msg) for t, msg, _ in v.recent])
            cached = self._rows = (state, key, ranked)
        return cached[2]

    def profile_rows(self, state: ConversationState) -> list[Row]:
        """The user's profile items this session's block shows, last, most important
        first, within ``PROFILE_SHARE`` of the block's budget."""
        v = self.view
        if v.profile is None:
            return []
        rows, room = [], PROFILE_SHARE * v.state_budget
        for item in shown(v.profile, state, v.session_id):
            room -= v.counter.count(item.value) + 4
            if room < 0:
                break
            rows.append(Row("profile", item.kind, item.value, "user", None, item.kind,
                            RANK_PROFILE + item.importance))
        return rows

    def row_costs(self, state: ConversationState | None = None
                  ) -> tuple[dict[bool, RowCosts], float | None, int]:
        """The block rows' (latest turn, estimated tokens) that come before earlier raw
        turns, by ``lines_first`` (True: every row; False: those ranked
        ``RANK_BEFORE_RAW`` or more); the mean tokens of a row ranked lower (None: no
        such row); and the tokens of the block's title and headers. Of ``state`` (the
        memory's by default)."""
        return self._costs_of(state or self.view.state)[1:4]

    def whole_tokens(self, state: ConversationState) -> int:
        """About, the tokens of ``state``'s whole block within its cap: counted where it
        is within twice the cap (the draft ``row_costs`` counts is all of it), else the
        cap (a cut block is short of it by the part of a row that does not fit). Drawing
        and searching a large state's block to count it would cost a fold more than all
        else it does."""
        return min(self.view.state_budget, self._costs_of(state)[4])

    def _costs_of(self, state: ConversationState) -> tuple[RankedRows, dict[bool, RowCosts],
                                                          float | None, int, int]:
        """``row_costs`` and the whole block's estimate, once per rows (``rows_of``)."""
        v = self.view
        lang = v.lang or state.language or "en"
        ranked, cached = self.rows_of(state, lang), self._costs
        if cached is None or cached[0] is not ranked:  # other rows: another state,
            rows = ranked.rows  # version, language or profile
            costs = [self._counts.count(f"{r.value}") + 3 for r in rows]
            overhead = v.counter.count(block_words(lang)["title"]) + 6 * len(
                {r.section for r in rows}) + MESSAGE_OVERHEAD
            # calibrated on a draft of the block's first rows, up to twice its cap (the
            # whole block when it is within that): a cost bounded by the cap
            sample, estimate, most = 0, 0, 2 * v.state_budget
            while sample < len(rows) and (estimate + costs[sample] <= most or not sample):
                estimate += costs[sample]
                sample += 1
            draft = draw_rows(state, rows[:sample], v.state_format, lang)
            drafted = self._counts.message({"role": "system", "content": draft}) - overhead
            if drafted > 0 and estimate > 0:
                costs = [max(1, round(n * drafted / estimate)) for n in costs]
            low = [n for n, r in zip(costs, rows, strict=True) if r.rank < RANK_BEFORE_RAW]
            every = [(r.turn, n) for n, r in zip(costs, rows, strict=True)]
            high = [c for c, r in zip(every, rows, strict=True) if r.rank >= RANK_BEFORE_RAW]
            # the whole block, uncut: counted when the draft is all of it
            whole = 0 if not rows else drafted + overhead if sample == len(rows) else \
                overhead + sum(costs)
            cached = self._costs = (ranked, {True: RowCosts(every), False: RowCosts(high)},
                                    sum(low) / len(low) if low else None, overhead, whole)
        return cached

    def layout(self, reserved: int = 0) -> tuple[str, list[dict[str, Any]]]:
        """The block and the raw messages of the context (see layout.py), in the budget
        less ``reserved`` tokens (another system block's)."""
        v = self.view
        state = v.state
        room = v.policy.budget - v.priming - v.system_tokens - reserved
        entries: list[Entry] = [(t.index, msg, n) for t, msg, n in v.recent]
        # shown raw whatever the block: every unfolded turn, and the last
        # keep_recent_turns user turns (the conversation as it stands)
        unfolded_at = next((p for p, e in enumerate(entries) if e[0] > state.evicted_through),
                           len(entries))
        first = min(unfolded_at, recent_start(entries, v.policy.keep_recent_turns))
        if sum(e[2] for e in entries[first:]) > room or v.redact is not None:
            # the recent floor alone does not fit: the block gets room; with redaction,
            # what was folded reaches the model only masked, in the block
            first = unfolded_at
        p, first_lines = first, False
        if v.redact is None:
            rows, line, overhead = self.row_costs()
            first_lines = lines_first(entries[:first], line)
            p = first_shown(entries, first, room, rows[first_lines], overhead,
                            v.state_budget)
        for _ in range(_LAYOUT_TRIES):  # the estimate may be off: check, show fewer
            if p >= first:
                break
            raw = sum(e[2] for e in entries[p:])
            budget = min(v.state_budget, room - raw)
            # the rows that come before raw turns, whole; the rest in the room left (when
            # every row comes first, the estimate gave them the room: the block fits it)
            text, tokens = self.block_at(state, budget, entries[p:],
                                         None if first_lines else RANK_BEFORE_RAW)
            if tokens <= budget:
                return text, self.filled(entries, p, room - raw - tokens)
            left = room - raw - tokens
            while left < 0 and p < first:  # show fewer turns, as many as the overshoot
                q = next_start(entries, p)
                left += sum(e[2] for e in entries[p:q])
                p = q
        shown = entries[first:]
        raw = sum(e[2] for e in shown)
        text, tokens = self.block_at(state, min(v.state_budget, room - raw), shown)
        if raw + tokens <= room and v.redact is None:
            return text, self.filled(entries, first, room - raw - tokens)
        return text, fit_raw(shown, room - tokens, v.counter).messages

    def filled(self, entries: list[Entry], p: int, left: int) -> list[dict[str, Any]]:
        """The turns from ``p`` on, and in the ``left`` tokens of room, the start of the
        turn before them, cut visibly (its values are in the block or the store)."""
        v = self.view
        part = cut_entry(entries[p - 1], left, v.counter) \
            if p > 0 and left >= _MIN_PART else None
        return ([part[1]] if part else []) + [msg for _, msg, _ in entries[p:]]

    def fixed_tokens(self, state: ConversationState | None = None) -> int:
        """About, the tokens of a context but its raw turns, with the whole block (see
        ``whole_tokens``): what the compaction log says a fold's context costs."""
        v = self.view
        block = self.whole_tokens(state or v.state) \
            if v.state_budget > MESSAGE_OVERHEAD else 0
        return v.priming + v.system_tokens + block

    def assemble(self, documents: dict[str, Any] | None = None, reserved: int = 0
                 ) -> list[dict[str, Any]]:
        """[system prompt] + [documents] + [state block] + raw turns; the documents'
        message costs ``reserved`` tokens of the budget."""
        v = self.view
        head = [v.system_message()] if v.system_prompt is not None else []
        if documents is not None:
            head.append(documents)
        block, raw = self.layout(reserved)
        if block:
            head.append({"role": "system", "content": block})
        return head + raw

    def documents_message(self, documents: Sequence[str | Mapping[str, Any]],
                          query: str | None, share: float
                          ) -> tuple[dict[str, Any] | None, int]:
        """The ``documents`` compressed for ``query`` (default: the last user turn) into
        one system message of at most ``share`` of the budget, and its cost."""
        if not isinstance(share, int | float) or not 0 < share < 1:
            raise ConfigError("document_share", "expected a share of the budget, in (0, 1)")
        v = self.view
        if query is None:
            users = [t for t, _, _ in v.recent if t.role == "user"]
            query = users[-1].text if users else ""
        budget = int(v.policy.budget * share) - MESSAGE_OVERHEAD
        from .documents import compress_documents  # its BM25 is only needed here

        text = compress_documents(query, documents, max(budget, 0), counter=v.counter).text
        if not text:
            return None, 0
        message = {"role": "system", "content": text}
        return message, v.counter.message(message)


def _text(turn: Turn, message: Mapping[str, Any]) -> tuple[int, str]:
    """A recent turn's index and the text of its message, as block rows note it."""
    return turn.index, str(message.get("content") or "")
