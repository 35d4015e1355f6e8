"""Which turns expire, and how the context is fit under its hard limit.

Pure functions over turn sizes: no store, no extractor. A fold cuts only in front of a
user turn, so an assistant tool call and its tool results always stay together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import ConfigError
from .tokens import Counter, truncate

MIN_WINDOW = 256
Entry = tuple[int, dict[str, Any], int]  # a turn as a context takes it: (index, message, tokens)
# The defaults, chosen by sweeping them with `convstate eval` on every set of public
# dialogues (benchmarks/sweep_defaults.py, docs/sweep.png): a fold takes a fifth of the
# budget, and folding costs nothing in the context, since folded turns are shown again
# while they fit; the block may take most of the budget, never the last
# KEEP_RECENT_TURNS user turns.
TRIGGER_RATIO = 0.5
TARGET_RATIO = 0.3
KEEP_RECENT_TURNS = 2
BLOCK_SHARE = 0.85


def default_reserve(context_window: int) -> int:
    """The reply reserve when none is given: an eighth of the window, at most 1,024."""
    return min(1024, context_window // 8)


@dataclass(frozen=True)
class WindowPolicy:
    """When to fold and how far: ratios of the budget (the window minus the reply reserve)."""

    context_window: int = 8192
    reply_reserve: int = 1024
    trigger_ratio: float = TRIGGER_RATIO
    target_ratio: float = TARGET_RATIO
    keep_recent_turns: int = KEEP_RECENT_TURNS
    # The fewest tokens of turns a fold takes (as far as keep_recent_turns allows, at most
    # half the budget), so an extractor's fixed cost per call (an LLM's instructions and
    # tool definition) is spread over enough turns. None: the extractor's own
    # ``min_batch_tokens`` (0 for the rules).
    min_batch: int | None = None

    def __post_init__(self) -> None:
        names = ("context_window", "reply_reserve", "keep_recent_turns") + (
            ("min_batch",) if self.min_batch is not None else ())
        for name in names:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ConfigError(name, f"expected a non-negative integer, got {value!r}")
        if self.context_window < MIN_WINDOW:
            raise ConfigError("context_window",
                              f"{self.context_window} is too small; at least {MIN_WINDOW}")
        if self.budget < MIN_WINDOW // 2:
            raise ConfigError("reply_reserve", f"{self.reply_reserve} leaves only "
                              f"{self.budget} tokens of a {self.context_window} window")
        if not 0 < self.target_ratio < self.trigger_ratio <= 1:
            raise ConfigError("trigger_ratio", "need 0 < target_ratio < trigger_ratio <= 1, "
                              f"got {self.target_ratio} and {self.trigger_ratio}")

    @property
    def budget(self) -> int:
        """The hard limit of a context: the window minus the reply reserve."""
        return self.context_window - self.reply_reserve

    @property
    def trigger(self) -> int:
        return int(self.budget * self.trigger_ratio)

    @property
    def target(self) -> int:
        return int(self.budget * self.target_ratio)

    def due(self, unfolded: int) -> bool:
        """Whether a context holding ``unfolded`` tokens besides its folded turns (the
        system prompt and the unfolded turns) is due a fold: it passes the trigger."""
        return unfolded > self.trigger


@dataclass(frozen=True)
class Slot:
    """A raw turn as the window sees it."""

    index: int
    role: str
    tokens: int


def plan_expiry(fixed: int, slots: list[Slot], policy: WindowPolicy,
                force: bool = False) -> int | None:
    """The index of the last turn to fold now, or None when no fold is due or possible.

    ``fixed`` is the token cost of what a context always holds besides its turns (the
    system prompt). A fold is due when the unfolded turns pass the trigger; it expires
    the fewest oldest turns that bring them under the target, keeping the last
    ``keep_recent_turns`` user turns unless those alone pass the target: then it folds
    past them (never the newest user turn) rather than leave unfolded turns out of the
    context. ``force`` (compact) expires as much as the keep rule allows. So a fold
    takes at least ``trigger - target`` of the budget, and at least ``min_batch`` tokens
    (capped at half the budget) where the keep rule leaves that many: an LLM is never
    called for a sliver, and its fixed prompt is spread over a batch worth it.
    """
    total = fixed + sum(s.tokens for s in slots)
    if not force and not policy.due(total):
        return None
    cuts = _cut_points(slots, policy.keep_recent_turns)
    if force:
        return slots[cuts[-1] - 1].index if cuts else None
    remaining = total
    expired = 0
    batch = min(policy.min_batch or 0, policy.budget // 2)
    last_kept = cuts[-1] if cuts else 0
    # past the floor: down to the newest user turn, which the model must see to answer
    floor = _cut_points(slots, min(1, policy.keep_recent_turns))
    for cut in cuts + [c for c in floor if not cuts or c > cuts[-1]]:
        remaining -= sum(s.tokens for s in slots[expired:cut])
        expired = cut
        if remaining <= policy.target and (total - remaining >= batch or cut >= last_kept):
            break
    return slots[expired - 1].index if expired else None


def bounded_batch(slots: list[Slot], through: int, limit: int) -> int:
    """The last turn of the first batch of a fold up to ``through`` that holds at most
    ``limit`` tokens, cut in front of a user turn (at least one exchange, however long):
    a backlog is folded in batches an extractor can read, never in one request larger
    than its window."""
    used, start, best = 0, 0, None
    for p in _cut_points(slots, 0):
        if slots[p - 1].index > through:
            break
        used += sum(s.tokens for s in slots[start:p])  # running: linear in the backlog
        start = p
        if used > limit and best is not None:
            break
        best = p
    return slots[best - 1].index if best else through


def _cut_points(slots: list[Slot], keep_users: int) -> list[int]:
    """Positions p > 0 where slots[:p] may expire: slots[p] is a user turn (or p is the
    end) and at least ``keep_users`` user turns stay raw."""
    users_after = [0] * (len(slots) + 1)
    for p in range(len(slots) - 1, -1, -1):
        users_after[p] = users_after[p + 1] + (slots[p].role == "user")
    return [p for p in range(1, len(slots) + 1)
            if (p == len(slots) or slots[p].role == "user") and users_after[p] >= keep_users]


@dataclass
class Fitted:
    """The raw part of a context after fitting: messages, and what was cut or left out."""

    messages: list[dict[str, Any]]
    omitted: list[int]
    truncated: list[int]


def fit_raw(turns: list[Entry], available: int,
            counter: Counter) -> Fitted:
    """Keep the newest whole turn groups that fit in ``available`` tokens.

    ``turns`` holds (index, message, tokens). A group is a turn, or an assistant tool call
    with its results. Older groups that do not fit are left out behind a one-line notice;
    a newest group larger than everything is cut with a visible marker.
    """
    groups = _groups(turns)
    kept: list[list[Entry]] = []
    used = 0
    notice_cost = _notice_tokens(counter, len(groups) > 1)
    for group in reversed(groups):
        size = sum(t[2] for t in group)
        reserve = notice_cost if len(kept) + 1 < len(groups) else 0
        if used + size + reserve > available:
            break
        kept.append(group)
        used += size
    kept.reverse()
    truncated: list[int] = []
    if not kept and groups:
        newest = groups[-1]
        room = available - notice_cost
        newest, cut = _shrink(newest, room, counter)
        if sum(t[2] for t in newest) <= room:
            kept, truncated = [newest], cut
        # else: even cut down it cannot fit (a huge tool group in a tiny window): every
        # raw turn is left out behind the notice rather than breaking the budget
    flat = [t for g in kept for t in g]
    first_kept = flat[0][0] if flat else None
    omitted = [i for i, _, _ in turns if first_kept is None or i < first_kept]
    messages = [m for _, m, _ in flat]
    if omitted:
        messages.insert(0, notice_message(omitted))
    return Fitted(messages=messages, omitted=omitted, truncated=truncated)


def notice_message(omitted: list[int]) -> dict[str, Any]:
    """The one-line notice that stands for turns left out of a context."""
    span = f"#{omitted[0]}" if len(omitted) == 1 else f"#{omitted[0]}-#{omitted[-1]}"
    return {"role": "system", "content": f"[convstate] {len(omitted)} earlier turn(s) "
            f"({span}) are left out of this context; they are kept in the store."}


def _notice_tokens(counter: Counter, needed: bool) -> int:
    return counter.message(notice_message([10**9, 10**9])) if needed else 0


def _groups(turns: list[Entry]) -> list[list[Any]]:
    groups: list[list[Any]] = []
    for t in turns:
        if t[1]["role"] == "tool" and groups and groups[-1][0][1].get("tool_calls"):
            groups[-1].append(t)  # a result joins the call it answers
        else:
            groups.append([t])
    return groups


def cut_entry(entry: Entry, room: int, counter: Counter
              ) -> Entry | None:
    """A plain turn cut (with a visible marker) to ``room`` tokens; None when nothing of
    it fits or it is a tool call or result (those are never cut apart)."""
    index, msg, _ = entry
    if msg.get("role") == "tool" or msg.get("tool_calls") or not msg.get("content"):
        return None
    group, _ = _shrink([entry], room, counter)
    return group[0] if group[0][2] <= room and group[0][1] is not msg else None


def _shrink(group: list[Entry], room: int,
            counter: Counter) -> tuple[list[Any], list[int]]:
    """Cut the group's messages, largest first, until the group fits in ``room`` tokens
    (a tool call's results are cut together with it, never dropped from it)."""
    group = list(group)
    cut: list[int] = []
    for pos in sorted(range(len(group)), key=lambda k: -group[k][2]):
        others = sum(t[2] for k, t in enumerate(group) if k != pos)
        if others + group[pos][2] <= room:
            break
        index, msg, tokens = group[pos]
        content = msg.get("content") or ""
        if not content:
            continue  # a tool call's arguments are not cut: they must stay valid JSON
        marker = f"\n…[convstate: turn #{index} cut here; the full text is kept in the store]"
        keep = room - others - (tokens - counter.count(content)) - counter.count(marker)
        while True:  # a cut can merge with the marker into one more token: shrink to fit
            cut_msg = dict(msg, content=truncate(counter, content, max(keep, 0)) + marker)
            size = counter.message(cut_msg)
            if others + size <= room or keep <= 0:
                break
            keep -= others + size - room
        group[pos] = (index, cut_msg, size)
        cut.append(index)
    return group, sorted(cut)
