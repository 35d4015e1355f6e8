"""How one context shares its budget between the state block and the raw turns.

Pure functions over sizes: no store, no extractor, no rendering. Unfolded turns are
always shown (no state holds them yet), and so are the last ``keep_recent_turns`` user
turns while they fit. Older folded turns are shown again, newest first, for
as long as they and the block fit: each one shown takes the block's items it states
verbatim out of the block. Which rows of the block come before those turns depends on
how long the turns are (``lines_first``). So a context is as full as its budget allows,
and the block never repeats what the raw turns of the same context carry.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from .window import Entry


def starts_group(entry: Entry) -> bool:
    """A context may start here: a tool result never leaves the call it answers."""
    return entry[1].get("role") != "tool"


LINES_PER_TURN = 5  # an earlier turn costing this many block lines is worth less than them


def lines_first(earlier: Sequence[Entry], line: float | None) -> bool:
    """Whether every block row comes before the ``earlier`` raw turns (the folded turns a
    context may show again), not only the rows ranked ``RANK_BEFORE_RAW`` or more.
    ``line`` is the mean tokens of a row ranked lower (None: there is none).

    Not while an earlier turn costs about what the lines quoted from it do: short task
    turns, shown whole, say more than a line each. Where the turns are long
    (explanations, documents) a line costs a fraction of the turn it comes from."""
    if not earlier or line is None:
        return False
    return sum(e[2] for e in earlier) / len(earlier) >= LINES_PER_TURN * line


def first_shown(entries: Sequence[Entry], first_must: int, room: int,
                rows: RowCosts, overhead: int, cap: int) -> int:
    """The position of the oldest turn to show raw: the most turns whose tokens and the
    estimated block left by them fit in ``room``.

    ``entries`` are the recent turns, oldest first; those from ``first_must`` on are
    always shown (the unfolded ones and the last few user turns). ``rows`` are the
    block's estimated costs; ``overhead`` the block's fixed cost (title, headers);
    ``cap`` the most tokens the block may take. An item stated at or after the first
    shown turn leaves the block.
    """
    raw = sum(e[2] for e in entries[first_must:])
    by_turn, block = rows.by_turn, rows.total
    best, j = first_must, 0
    for p in range(first_must - 1, -1, -1):
        raw += entries[p][2]
        if raw > room:
            break
        if not starts_group(entries[p]):
            continue
        while j < len(by_turn) and by_turn[j][0] >= entries[p][0]:
            block -= by_turn[j][1]
            j += 1
        if raw + (min(cap, overhead + block) if block else 0) <= room:
            best = p
    return best


class RowCosts:
    """A block's rows as ``first_shown`` needs them, prepared once per state: the
    estimated tokens of all, and (latest turn, tokens) of those tied to a turn, the
    newest first."""

    def __init__(self, rows: Sequence[tuple[int | None, int]]):
        self.total = sum(n for _, n in rows)
        # the newest first, rows of one turn in their order (a reversed sort is stable)
        self.by_turn: list[tuple[int, int]] = sorted(
            [(t, n) for t, n in rows if t is not None], key=itemgetter(0), reverse=True)


def next_start(entries: Sequence[Entry], p: int) -> int:
    """The next position after ``p`` where a context may start."""
    p += 1
    while p < len(entries) and not starts_group(entries[p]):
        p += 1
    return p


def recent_start(entries: Sequence[Entry], keep_users: int) -> int:
    """The position of the ``keep_users``-th last user turn (0 when there are fewer)."""
    seen = 0
    for p in range(len(entries) - 1, -1, -1):
        if entries[p][1].get("role") == "user":
            seen += 1
            if seen >= keep_users:
                return p
    return 0 if keep_users else len(entries)
