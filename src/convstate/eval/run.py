"""Measure what a context keeps: convstate against the usual alternatives, on dialogues
with gold annotations (the layout of docs/DATA.md), at the same token budget.

Methods, all counted with the same tokenizer against the same budget:

- ``convstate``: ConversationMemory with the chosen extractor;
- ``truncation``: the newest turns that fit, the rest dropped;
- ``sliding_window``: the last K turns (K = 2 x keep_recent_turns), cut to the budget;
- ``rolling_summary``: a prose summary that is re-summarized with each batch of expiring
  turns (same trigger and batches as convstate) + the recent turns. Its summarizer is an
  LLM when one is given, else a deterministic extractive one (each expiring turn's first
  clause appended, then the whole summary cut to its budget from the front).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from ..errors import DataError
from ..extract.rules import RuleExtractor, sentiment_of
from ..fold import fold
from ..jsonfile import read_json
from ..memory import ConversationMemory
from ..normalize import normalize
from ..registry import EXTRACTORS
from ..sections import text_of
from ..state import ConversationState
from ..store.sqlite import InMemoryStore
from ..tokens import DEFAULT_COUNT, TokenCounter
from ..turns import Turn
from ..window import KEEP_RECENT_TURNS, TARGET_RATIO, TRIGGER_RATIO, default_reserve
from .baselines import (
    SYSTEM_PROMPT,
    Convstate,
    Method,
    RollingSummary,
    SlidingWindow,
    Truncation,
    extractive_summarizer,
    llm_summarizer,
)
from .state_accuracy import StateAccuracy, gold_states, state_scores
from .tally import Tally

METHODS = ("convstate", "truncation", "sliding_window", "rolling_summary")


# -- the data layout -------------------------------------------------------------------


class DataTurn(BaseModel):
    idx: int
    speaker: Literal["user", "system", "assistant"]
    text: str


class GoldAnchor(BaseModel):
    value: str = Field(min_length=1)
    type: str = "other"
    first_turn: int
    verbatim_turns: list[int] | None = None
    mentions: list[dict[str, Any]] | None = None

    def turns(self) -> list[int]:
        """Turns the value is claimed to be verbatim in ([] when the annotation says it
        is not verbatim anywhere)."""
        if self.verbatim_turns is not None:
            return self.verbatim_turns
        if self.mentions is not None:  # spans; a mention may differ in case ("san JOse")
            return [int(m["turn"]) for m in self.mentions if m.get("text") == self.value]
        return [self.first_turn]


class Gold(BaseModel):
    anchors: list[GoldAnchor] | None = None
    constraints: list[dict[str, Any]] | None = None
    decisions: list[dict[str, Any]] | None = None
    open_tasks_final: list[Any] | None = None
    sentiment: dict[str, Any] | None = None
    goals: list[dict[str, Any]] | None = None


class Dialogue(BaseModel):
    id: str
    language: Literal["zh", "en"]
    turns: list[DataTurn] = Field(min_length=1)
    gold: Gold
    state_by_turn: list[dict[str, Any]] | None = None

    @model_validator(mode="after")
    def _anchors_occur(self) -> Dialogue:
        texts = {t.idx: t.text for t in self.turns}
        for k, a in enumerate(self.gold.anchors or []):
            for m in a.mentions or []:
                text = texts.get(m.get("turn", -1), "")
                if "start" in m and text[m["start"]:m.get("end")] != m.get("text"):
                    raise ValueError(f"gold.anchors[{k}].mentions: span {m.get('start')}-"
                                     f"{m.get('end')} of turn {m.get('turn')} is not "
                                     f"{m.get('text')!r}")
            for turn in a.turns():
                if a.value not in texts.get(turn, ""):
                    raise ValueError(f"gold.anchors[{k}]: {a.value!r} does not occur in "
                                     f"turn {turn}")
        gold_states(self.state_by_turn)  # a malformed row is named here, not mid-run
        return self


def load_dialogues(path: str | Path, limit: int | None = None) -> list[Dialogue]:
    """Dialogues from a JSON file; DataError names the dialogue and the field at fault."""
    raw = read_json(path)
    if not isinstance(raw, list):
        raise DataError(f"{path}: expected a JSON array of dialogues")
    if not raw:
        raise DataError(f"{path}: no dialogues to measure")
    out = []
    for i, item in enumerate(raw[:limit] if limit else raw):
        name = item.get("id", f"#{i}") if isinstance(item, dict) else f"#{i}"
        try:
            out.append(Dialogue.model_validate(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "dialogue"
            raise DataError(f"{path}: dialogue {name!r}, field {where}: {err['msg']}") \
                from None
    return out


def _message(t: DataTurn) -> dict[str, str]:
    return {"role": "user" if t.speaker == "user" else "assistant", "content": t.text}


# -- scoring ---------------------------------------------------------------------------


def _values(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [v for x in value for v in _values(x)]
    if isinstance(value, dict):
        return [v for x in value.values() for v in _values(x)]
    return [str(value)] if value not in (None, "") else []


def _constraint_values(c: dict[str, Any]) -> list[str]:
    """A gold constraint's values; a corrected one only in its corrected form."""
    return _values(c.get("final_value", c.get("values", c.get("value"))))


def _decision_values(dec: dict[str, Any]) -> list[str]:
    return _values(dec.get("value", dec.get("values")))


def score_context(d: Dialogue, context: list[dict[str, Any]], first_fold: int | None
                  ) -> Tally:
    """Anchors, constraints and decisions of ``d`` present verbatim in ``context``."""
    text = "\n".join(str(m.get("content") or "") for m in context)
    t = Tally()
    for a in d.gold.anchors or []:
        if not a.turns():
            continue  # not verbatim in the source text: nothing to keep verbatim
        hit = a.value in text
        t.add("anchor", hit)
        t.add(f"anchor:{a.type}", hit)
        early = first_fold is not None and a.first_turn <= first_fold
        t.add("anchor:early" if early else "anchor:late", hit)
    for c in d.gold.constraints or []:
        variants = _constraint_values(c)
        if variants:  # a corrected value counts only in its corrected form
            t.add("constraint", any(v in text for v in variants))
    for dec in d.gold.decisions or []:
        values = _decision_values(dec)
        if values:
            t.add("decision", all(v in text for v in values))
    return t


# Where a gold anchor is at the end, as ConversationMemory.where() says, by the names
# results.json uses: kept in the raw turns or the block, in the state but not shown,
# never extracted from a folded turn, or left out of the context unfolded.
LOSS_NAMES = {"raw": "raw", "block": "block", "state": "state", "store": "never_extracted",
              "pending": "unfolded", "nowhere": "nowhere"}


def loss_of(d: Dialogue, mem: ConversationMemory) -> Counter[str]:
    """Where each verbatim gold anchor of ``d`` is after its last turn."""
    out: Counter[str] = Counter({name: 0 for name in LOSS_NAMES.values()})
    for a in d.gold.anchors or []:
        if a.turns():
            out[LOSS_NAMES[mem.where(a.value)]] += 1
    return out


def _shares(counts: Counter[str]) -> dict[str, float]:
    total = sum(counts.values())
    return {k: round(v / total, 4) for k, v in sorted(counts.items())} if total else {}


def block_precision(d: Dialogue, block: str) -> tuple[int, int]:
    """(lines of the block's items holding a gold value, lines of items): how much of
    the block is worth its tokens. Gold values are anchors, constraints and decisions."""
    gold = [a.value for a in d.gold.anchors or []]
    for c in d.gold.constraints or []:
        gold += _constraint_values(c)
    for dec in d.gold.decisions or []:
        gold += _decision_values(dec)
    gold = [g for g in gold if len(g.strip()) >= 2]
    lines = [line for line in block.splitlines() if line.startswith("- ")]
    return sum(any(g in line for g in gold) for line in lines), len(lines)


def window_budget(cfg: EvalConfig) -> int:
    """The budget a memory of ``cfg.window`` tokens gets (its default reply reserve)."""
    return cfg.window - default_reserve(cfg.window)


def duplicates(state: ConversationState) -> int:
    """Live items whose normalized key repeats another's (0 when deduplication works)."""
    n = 0
    for spec in state.sections():
        keys = [normalize(text_of(i)) for i in getattr(state, spec.name) if spec.is_live(i)]
        n += len(keys) - len(set(keys))
    return n


def gold_open_tasks(d: Dialogue) -> dict[int, set[str]]:
    """Per user turn, the slots the user asked about that are still unanswered
    (CrossWOZ: ``open_tasks[].slot``; SGD: ``requested_slots``)."""
    out: dict[int, set[str]] = {}
    for row in d.state_by_turn or []:
        turn = row.get("turn")
        if not isinstance(turn, int):
            continue
        slots = {t.get("slot") for t in row.get("open_tasks") or [] if isinstance(t, dict)}
        slots |= set(row.get("requested_slots") or [])
        if "open_tasks" in row or "requested_slots" in row:
            out.setdefault(turn, set()).update(s for s in slots if isinstance(s, str) and s)
    return out


def _slot_words(slot: str) -> list[str]:
    """How a slot shows in a question: its English words ('phone_number' -> phone,
    number), or the slot itself and its character pairs ('营业时间' -> 营业, 业时, 时间)."""
    if slot.isascii():
        return [w for w in slot.lower().replace("-", "_").split("_") if len(w) >= 4] or [slot]
    return [slot] + [slot[i:i + 2] for i in range(len(slot) - 1)]


def open_task_counts(d: Dialogue) -> tuple[int, int, int, int]:
    """Open questions the rule extractor tracks against the per-turn gold: (predicted that
    match a gold slot, predicted, gold slots matched, gold slots), summed over user turns.
    At each gold turn the turns so far are extracted and folded afresh, so this scores
    the tracking itself, not how far the window has folded."""
    gold = gold_open_tasks(d)
    turns = [Turn.model_validate({"index": t.idx, "role": _message(t)["role"],
                                  "content": t.text}) for t in d.turns]
    counts = [0, 0, 0, 0]
    for at, slots in sorted(gold.items()):
        seen = [t for t in turns if t.index <= at]
        if not seen:
            continue
        delta = RuleExtractor().extract(seen, []).delta
        state = fold(ConversationState(), delta, {t.index: t for t in seen})
        open_texts = [r.text.lower() for r in state.requests if r.status == "open"]
        words = {s: _slot_words(s) for s in slots}
        counts[0] += sum(any(w.lower() in text for ws in words.values() for w in ws)
                         for text in open_texts)
        counts[1] += len(open_texts)
        counts[2] += sum(any(w.lower() in text for w in ws for text in open_texts)
                         for ws in words.values())
        counts[3] += len(slots)
    return counts[0], counts[1], counts[2], counts[3]


_GOLD_SENTIMENT = {"dissatisfied": "negative", "neutral": "neutral", "satisfied": "positive"}


def sentiment_pairs(d: Dialogue) -> list[tuple[str, str]]:
    """(gold, predicted) per user turn with a gold label; the rule lexicon's reading."""
    per_turn = (d.gold.sentiment or {}).get("per_user_turn") or []
    texts = {t.idx: t.text for t in d.turns}
    out: list[tuple[str, str]] = []
    for row in per_turn:
        if row.get("turn") not in texts or row.get("label") not in _GOLD_SENTIMENT:
            continue
        reading = sentiment_of([Turn(index=row["turn"], role="user",
                                     content=texts[row["turn"]])])
        out.append((_GOLD_SENTIMENT[row["label"]], reading.label if reading else "neutral"))
    return out


def macro_f1(pairs: Sequence[tuple[str, str]]) -> float | None:
    labels = sorted({g for g, _ in pairs})
    if not labels:
        return None
    f1s = []
    for lab in labels:
        tp = sum(g == p == lab for g, p in pairs)
        fp = sum(p == lab and g != lab for g, p in pairs)
        fn = sum(g == lab and p != lab for g, p in pairs)
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return round(sum(f1s) / len(f1s), 4)


# -- running ---------------------------------------------------------------------------


@dataclass
class EvalConfig:
    window: int = 1000
    extractor: str = "rules"  # rules | llm | hybrid
    llm_url: str | None = None
    llm_model: str = "local"
    keep_recent_turns: int = KEEP_RECENT_TURNS
    trigger_ratio: float = TRIGGER_RATIO
    target_ratio: float = TARGET_RATIO
    block_share: float | None = None  # of the budget; None: the memory's default
    model: str = DEFAULT_COUNT  # tokenizer


def _extractor(cfg: EvalConfig) -> Any:
    return EXTRACTORS.get(cfg.extractor)(base_url=cfg.llm_url, model=cfg.llm_model,
                                         timeout=120)


def evaluate(dialogues: Sequence[Dialogue], cfg: EvalConfig,
             progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Replay every dialogue through every method; return {"config", "summary",
    "dialogues"} as described in docs/DATA.md."""
    counter = TokenCounter(cfg.model)
    results = []
    totals = {m: Tally() for m in METHODS}
    sums: dict[str, Counter[str]] = {m: Counter() for m in METHODS}
    sentiment: list[tuple[str, str]] = []
    loss_sums: Counter[str] = Counter()
    precision_sums: Counter[str] = Counter()
    state_tally = Tally()
    summarizer = llm_summarizer(cfg.llm_url, cfg.llm_model) if cfg.llm_url else \
        extractive_summarizer(counter)
    for k, d in enumerate(dialogues):
        mem = ConversationMemory(d.id, store=InMemoryStore(), extractor=_extractor(cfg),
                                 context_window=cfg.window, model=cfg.model,
                                 system_prompt=SYSTEM_PROMPT,
                                 keep_recent_turns=cfg.keep_recent_turns,
                                 trigger_ratio=cfg.trigger_ratio,
                                 target_ratio=cfg.target_ratio,
                                 state_budget=None if cfg.block_share is None else
                                 int(window_budget(cfg) * cfg.block_share))
        policy = mem.policy
        methods: list[Method] = [
            Convstate(mem), Truncation(policy.budget, counter),
            SlidingWindow(policy.budget, counter, 2 * cfg.keep_recent_turns),
            RollingSummary(policy, counter, summarizer, mem.state_budget)]
        curves: dict[str, list[int]] = {m.name: [] for m in methods}
        contexts: dict[str, list[dict[str, Any]]] = {}
        accuracy = StateAccuracy(d.state_by_turn)
        for t in d.turns:
            for m in methods:
                m.add(_message(t))
                contexts[m.name] = m.context()
                curves[m.name].append(counter.messages(contexts[m.name]))
            if accuracy.gold:
                accuracy.hear(t.text)
            if t.speaker == "user" and accuracy.gold:  # the state as code reads it now
                accuracy.read(t.idx, mem.state)
        history = counter.messages([{"role": "system", "content": SYSTEM_PROMPT}]
                                   + [_message(t) for t in d.turns])
        log = [r for r in mem.compactions() if r.error is None]
        first_fold = log[0].last_turn if log else None
        row: dict[str, Any] = {"id": d.id, "turns": len(d.turns), "history_tokens": history,
                               "first_fold_turn": first_fold, "methods": {}}
        for m in methods:
            tally = score_context(d, contexts[m.name], first_fold)
            totals[m.name].merge(tally)
            extra: dict[str, Any] = {
                "context_tokens": curves[m.name][-1], "peak_tokens": max(curves[m.name]),
                "context_tokens_by_turn": curves[m.name]}
            if isinstance(m, Convstate):
                where = loss_of(d, mem)
                precise, lines = block_precision(d, mem.render())
                loss_sums.update(where)
                precision_sums.update(hits=precise, lines=lines)
                extra |= {"loss": _shares(where), "block_lines": lines,
                          "block_precision": round(precise / lines, 4) if lines else None,
                          "duplicates": duplicates(mem.state),
                          "rejected_anchors": sum(r.rejected for r in log),
                          "extractor_prompt_tokens": mem.usage().prompt_tokens,
                          "folds": len(log)}
            if isinstance(m, RollingSummary):
                extra["extractor_prompt_tokens"] = m.prompt_tokens
            row["methods"][m.name] = _scores(tally) | extra
            for key in ("context_tokens", "duplicates", "rejected_anchors",
                        "extractor_prompt_tokens"):
                sums[m.name][key] += extra.get(key, 0)
            sums[m.name]["history_tokens"] += history
        if accuracy.gold:  # last: folding every turn changes what the rest reads
            accuracy.end(mem.state)
            mem.compact(keep_recent_turns=0)
            accuracy.folded(mem.state)
            state_tally.merge(accuracy.tally)
            row["methods"]["convstate"] |= state_scores(accuracy.tally)
        tasks = open_task_counts(d)
        for key, value in zip(("open_hits", "open_predicted", "open_found", "open_gold"),
                              tasks, strict=True):
            sums["convstate"][key] += value
        if tasks[1] or tasks[3]:
            row["methods"]["convstate"] |= _open_scores(*tasks)
        pairs = sentiment_pairs(d)
        sentiment += pairs
        if pairs:
            row["methods"]["convstate"]["sentiment_accuracy"] = _accuracy(pairs)
        results.append(row)
        mem.close()
        if progress:
            progress(k + 1)
    summary = {}
    for name in METHODS:
        s = _scores(totals[name])
        n = max(len(dialogues), 1)
        s["context_tokens"] = round(sums[name]["context_tokens"] / n, 1)
        s["history_tokens"] = round(sums[name]["history_tokens"] / n, 1)
        if name in ("convstate", "rolling_summary"):
            s["extractor_prompt_tokens"] = sums[name]["extractor_prompt_tokens"]
        if name == "convstate":
            s["loss"] = _shares(loss_sums)
            s["block_precision"] = round(precision_sums["hits"] / precision_sums["lines"], 4) \
                if precision_sums["lines"] else None
            s["duplicates"] = sums[name]["duplicates"]
            s["rejected_anchors"] = sums[name]["rejected_anchors"]
            c = sums[name]
            s |= _open_scores(c["open_hits"], c["open_predicted"], c["open_found"],
                              c["open_gold"])
            s["sentiment_accuracy"] = _accuracy(sentiment)
            s["sentiment_macro_f1"] = macro_f1(sentiment)
            s |= state_scores(state_tally)
        summary[name] = s
    return {"config": cfg.__dict__ | {"summarizer": cfg.llm_model if cfg.llm_url
                                      else "extractive"},
            "summary": summary, "dialogues": results}


def _open_scores(hits: int, predicted: int, found: int, gold: int) -> dict[str, Any]:
    return {"open_task_precision": round(hits / predicted, 4) if predicted else None,
            "open_task_recall": round(found / gold, 4) if gold else None}


def _accuracy(pairs: Sequence[tuple[str, str]]) -> float | None:
    return round(sum(g == p for g, p in pairs) / len(pairs), 4) if pairs else None


def _scores(t: Tally) -> dict[str, Any]:
    by_type = {k.split(":", 1)[1]: t.rate(k) for k in sorted(t.totals)
               if k.startswith("anchor:") and k not in ("anchor:early", "anchor:late")}
    return {"anchor_retention": t.rate("anchor"),
            "anchor_retention_early": t.rate("anchor:early"),
            "anchor_retention_late": t.rate("anchor:late"),
            "anchor_retention_by_type": by_type,
            "constraint_retention": t.rate("constraint"),
            "decision_recall": t.rate("decision"),
            "anchors": t.totals["anchor"]}
