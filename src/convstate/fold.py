"""The pure fold: state + delta + the turns it came from -> new state.

No I/O, no clock, no randomness. Folding the same delta twice gives the same state.
Ids are assigned here. Nothing is deleted: changes are status changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .delta import NewAnchor, StateDelta
from .normalize import normalize
from .state import (
    ID_PREFIX,
    Anchor,
    ConversationState,
    Decision,
    Goal,
    Item,
    OpenTask,
    Preference,
    Sentiment,
)
from .turns import Turn

# Keys that hold one current value: a new value supersedes the old one.
SINGLE_VALUED_KEYS = frozenset({"phone", "email", "address", "budget", "account", "language",
                                "name", "refund_method", "deadline"})
_UPDATE_STATUSES = {
    "goals": {"achieved", "abandoned"},
    "open_tasks": {"done", "cancelled"},
    "anchors": {"superseded"},
    "decisions": {"superseded"},
    "preferences": {"superseded"},
}
_SENTIMENT_STEP = 0.15  # a score change below this is "stable"


@dataclass
class FoldStats:
    """What one fold did: counts for the compaction log, and why items were rejected."""

    added: int = 0
    deduplicated: int = 0
    rejected: int = 0
    superseded: int = 0
    updated: int = 0
    reasons: list[str] = field(default_factory=list)

    def reject(self, why: str) -> None:
        self.rejected += 1
        self.reasons.append(why)


def fold(state: ConversationState, delta: StateDelta,
         sources: Mapping[int, Turn]) -> ConversationState:
    """Return the state with ``delta`` folded in; ``sources`` are the turns being folded."""
    return fold_report(state, delta, sources)[0]


def fold_report(state: ConversationState, delta: StateDelta,
                sources: Mapping[int, Turn]) -> tuple[ConversationState, FoldStats]:
    """Like :func:`fold`, and also say what was added, deduplicated and rejected."""
    new = state.model_copy(deep=True)
    stats = FoldStats()
    if new.language is None and delta.language is not None:
        new.language = delta.language

    touched_keys: set[str] = set()
    for a in sorted(delta.anchors, key=_order):
        if (key := _fold_anchor(new, a, sources, stats)) is not None:
            touched_keys.add(key)
    for key in sorted(touched_keys & SINGLE_VALUED_KEYS):
        _settle(new.anchors, lambda a, k=key: a.key == k, stats, turn_field=True)

    for t in sorted(delta.open_tasks, key=_order):
        if t.owner == "assistant" and not any(
            sources[i].role == "assistant" for i in t.turns if i in sources
        ):
            stats.reject(f"assistant task not said by the assistant: {t.text[:40]!r}")
            continue
        item = _fold_text(new, "open_tasks", t.text, t.turns, sources, stats, OpenTask,
                          key=f"{t.owner}:{normalize(t.text)}", owner=t.owner)
        if item is not None and t.status != "open" and item.status == "open":
            item.status, item.closed_turn = t.status, max(_cited(t.turns, sources))
    for g in sorted(delta.goals, key=_order):
        item = _fold_text(new, "goals", g.text, g.turns, sources, stats, Goal)
        if item is not None and g.status != "active":
            item.status = g.status
    for d in sorted(delta.decisions, key=_order):
        _fold_text(new, "decisions", d.text, d.turns, sources, stats, Decision)
    topics: set[str] = set()
    for p in sorted(delta.preferences, key=_order):
        topic = normalize(p.topic)
        if _fold_text(new, "preferences", p.text, p.turns, sources, stats, Preference,
                      polarity=p.polarity, topic=topic) is not None:
            topics.add(topic)
    for topic in sorted(topics):
        _settle(new.preferences, lambda p, t=topic: p.topic == t, stats, turn_field=False)

    for u in delta.updates:
        _apply_update(new, u.id, u.status, u.turn, sources, stats)
    _fold_sentiment(new, delta, sources)
    if sources:
        new.folded_through = max(new.folded_through, max(sources))
    return new, stats


def _order(item: Any) -> tuple[int, str]:
    return (min(item.turns), getattr(item, "value", None) or getattr(item, "text", ""))


def _cited(turns: list[int], sources: Mapping[int, Turn]) -> list[int]:
    return sorted({i for i in turns if i in sources})


def _fold_anchor(state: ConversationState, a: NewAnchor, sources: Mapping[int, Turn],
                 stats: FoldStats) -> str | None:
    """Add or merge one anchor; reject it unless its value is verbatim in a cited turn."""
    turns = [i for i in _cited(a.turns, sources) if a.value in sources[i].text]
    if not turns or not a.value.strip():
        stats.reject(f"anchor {a.key}={a.value[:40]!r} is not verbatim in turns {a.turns}")
        return None
    key = "_".join(a.key.casefold().split()) or a.kind
    dedup = (key, normalize(a.value))
    for old in state.anchors:
        if (old.key, normalize(old.value)) == dedup:
            _merge_turns(old, turns)
            stats.deduplicated += 1
            return key
    state.anchors.append(Anchor(
        id=_next_id(state, "anchors"), kind=a.kind, key=key, value=a.value, turns=turns,
        speaker=sources[turns[0]].role, first_turn=turns[0], last_turn=turns[-1],
    ))
    stats.added += 1
    return key


def _fold_text(state: ConversationState, section: str, text: str, turns_in: list[int],
               sources: Mapping[int, Turn], stats: FoldStats, cls: type[Item],
               key: str | None = None, **extra: Any) -> Any:
    """Add or merge one text item, deduplicated by its normalized text (or ``key``)."""
    turns = _cited(turns_in, sources)
    text = text.strip()
    if not turns or not text:
        stats.reject(f"{section} item cites no folded turn: {text[:40]!r}")
        return None
    items = getattr(state, section)
    key = key or normalize(text)
    for old in items:
        old_key = f"{old.owner}:{normalize(old.text)}" if section == "open_tasks" else None
        if (old_key or normalize(old.text)) == key:
            _merge_turns(old, turns)
            stats.deduplicated += 1
            return old
    item = cls(id=_next_id(state, section), text=text, turns=turns,
               speaker=sources[turns[0]].role, first_turn=turns[0], last_turn=turns[-1],
               **extra)
    items.append(item)
    stats.added += 1
    return item


def _merge_turns(item: Item, turns: list[int]) -> None:
    item.turns = sorted(set(item.turns) | set(turns))
    item.first_turn, item.last_turn = item.turns[0], item.turns[-1]


def _settle(items: list[Any], same: Any, stats: FoldStats, turn_field: bool) -> None:
    """Among items of one key/topic, the latest stated is active; the others superseded."""
    group = [i for i in items if same(i)]
    if len(group) < 2:
        return
    winner = max(group, key=lambda i: (i.last_turn, int(i.id[1:])))
    if winner.status != "active":
        winner.status = "active"
        winner.superseded_by = None
        if turn_field:
            winner.superseded_turn = None
    for item in group:
        if item is not winner and item.status == "active":
            item.status, item.superseded_by = "superseded", winner.id
            if turn_field:
                item.superseded_turn = winner.last_turn
            stats.superseded += 1


def _apply_update(state: ConversationState, item_id: str, status: str, turn: int,
                  sources: Mapping[int, Turn], stats: FoldStats) -> None:
    item = state.find(item_id)
    section = next((s for s, p in ID_PREFIX.items() if item_id.startswith(p)), "")
    if item is None or status not in _UPDATE_STATUSES.get(section, ()):
        stats.reject(f"update {item_id}->{status} names no item that can take it")
        return
    if turn not in sources:
        stats.reject(f"update {item_id}->{status} cites turn {turn}, which is not being folded")
        return
    if isinstance(item, OpenTask) and item.owner == "assistant" and status == "done" \
            and sources[turn].role != "assistant":
        stats.reject(f"only the assistant can complete its task {item_id}")
        return
    if item.status == status:
        return
    item.status = status  # type: ignore[attr-defined]
    if isinstance(item, OpenTask):
        item.closed_turn = turn
    if isinstance(item, Anchor):
        item.superseded_turn = turn
    stats.updated += 1


def _fold_sentiment(state: ConversationState, delta: StateDelta,
                    sources: Mapping[int, Turn]) -> None:
    s = delta.sentiment
    if s is None or s.turn not in sources:
        return
    prev = state.sentiment
    if prev is not None and s.turn <= prev.turn:
        return  # an older reading never replaces a newer one (keeps the fold idempotent)
    trend = "stable"
    if prev is not None and s.score - prev.score > _SENTIMENT_STEP:
        trend = "improving"
    elif prev is not None and prev.score - s.score > _SENTIMENT_STEP:
        trend = "worsening"
    state.sentiment = Sentiment(label=s.label, score=s.score, trend=trend, reason=s.reason,
                                turn=s.turn)


def _next_id(state: ConversationState, section: str) -> str:
    # Items are never removed, so the count gives a fresh, deterministic id.
    return f"{ID_PREFIX[section]}{len(getattr(state, section)) + 1}"
