"""``convstate eval-docs``: answer retention of compressed documents against truncation
and lead sentences at the same token budget (the layout of shared/data/qa: a question,
documents ``[{id, text}]``, verbatim ``answers``, the ``gold_document`` they were
annotated in).

The budget of an instance is ``floor(ratio x tokens)``, its tokens being the question's
and every document's, each counted on its own; the question is not charged. An answer is
kept, as the sets' README defines it, when one of its strings is verbatim in the kept
text of the gold document; beside it, the looser figure of earlier releases: verbatim
anywhere in the output (another document's copy of the answer, a ``[conflict]`` line).
"""

from __future__ import annotations

import math
import random
import re
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..documents import compress_documents
from ..errors import DataError
from ..jsonfile import read_json
from ..tokens import DEFAULT_COUNT, TokenCounter

METHODS = ("convstate", "truncation", "lead")
BOOTSTRAP_SAMPLES, BOOTSTRAP_SEED = 2000, 46
# The sets' own sentence ends for the lead baseline (shared/data/qa/README.txt): zh after
# 。！？!? with closing quotes, en after .!? and whitespace. Not compress_documents'
# splitter, which also cuts at ； and line breaks: a baseline must not move with ours.
_LEAD_SENTENCE = {"zh": re.compile(r".+?(?:[。！？!?]+[」』”’\"')）]*|$)", re.S),
                  "en": re.compile(r".+?(?:[.!?]+(?=\s)\s*|$)", re.S)}


def load_qa(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The instances of a QA file, checked: question, documents and answers, and the
    gold document (when named) one of the documents."""
    data = read_json(path)
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of instances")
    if not data:
        raise DataError(f"{path}: no instances to measure")
    for k, x in enumerate(data):
        ok = (isinstance(x, dict) and isinstance(x.get("question"), str)
              and isinstance(x.get("documents"), list) and x["documents"]
              and all(isinstance(d, dict) and isinstance(d.get("text"), str)
                      for d in x["documents"])
              and isinstance(x.get("answers"), list) and x["answers"])
        if not ok:
            raise DataError(f"{path}: instance {k} ({x.get('id') if isinstance(x, dict) else x!r})"
                            " needs question, documents [{id, text}] and answers")
        gold = x.get("gold_document")
        if gold is not None and gold not in [d.get("id") for d in x["documents"]]:
            raise DataError(f"{path}: instance {k} ({x.get('id')}): gold_document {gold!r} "
                            "is not the id of one of its documents")
    return data[:limit] if limit else data


def truncation(x: dict[str, Any], budget: int, counter: TokenCounter) -> dict[str, str]:
    """Documents in order, whole while they fit, the next one cut, the rest dropped: the
    kept text of each document, by id."""
    kept, left = {}, budget
    for k, d in enumerate(x["documents"]):
        n = counter.count(d["text"])
        kept[_id(d, k)] = d["text"] if n <= left else counter.truncate(d["text"], left)
        if n > left:
            break
        left -= n
    return kept


def lead(x: dict[str, Any], budget: int, counter: TokenCounter) -> dict[str, str]:
    """Sentences round robin (the first of every document, then the second...), whole
    while they fit, the next one cut, then stop; a document's kept sentences joined as
    written (an answer running over two of them stays whole), by document id."""
    ends = _LEAD_SENTENCE["zh" if x.get("language") == "zh" else "en"]
    split = [[m.group() for m in ends.finditer(d["text"]) if m.group()] or [d["text"]]
             for d in x["documents"]]
    kept: list[list[str]] = [[] for _ in split]
    left = budget
    order = ((kept[i], sents[k]) for k in range(max(map(len, split)))
             for i, sents in enumerate(split) if k < len(sents))
    for out, sentence in order:
        n = counter.count(sentence)
        out.append(sentence if n <= left else counter.truncate(sentence, left))
        if n > left:
            break
        left -= n
    return {_id(d, k): "".join(o) for k, (d, o) in enumerate(zip(x["documents"], kept,
                                                                   strict=True)) if o}


def _id(doc: dict[str, Any], k: int) -> str:
    """A document's id, as compress_documents names it (d1, d2, ... when it has none)."""
    return str(doc.get("id") or f"d{k + 1}")


def answer_kept(x: dict[str, Any], kept: dict[str, str], text: str) -> tuple[bool | None, bool]:
    """Whether an answer string is verbatim in the gold document's ``kept`` text (None
    when ``x`` names no gold document), and whether one is anywhere in ``text``."""
    gold = x.get("gold_document")
    in_gold = None if gold is None else any(a in kept.get(gold, "") for a in x["answers"])
    return in_gold, any(a in text for a in x["answers"])


def bootstrap_interval(hits: Sequence[bool], level: float = 0.95,
                       samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED
                       ) -> tuple[float, float]:
    """The percentile bootstrap interval of the share of ``hits`` (instances resampled
    with replacement, a fixed seed: the same hits give the same interval)."""
    if not hits:
        return (0.0, 0.0)
    rng, n = random.Random(seed), len(hits)
    means = sorted(sum(rng.choices(hits, k=n)) / n for _ in range(samples))
    cut = (1 - level) / 2
    return (round(means[int(cut * samples)], 3),
            round(means[min(samples - 1, int((1 - cut) * samples))], 3))


def score_instances(data: list[dict[str, Any]], ratio: float, counter: TokenCounter,
                    methods: Sequence[str] = METHODS) -> Iterator[dict[str, Any]]:
    """Each instance's budget, size, compress_documents' milliseconds and, per method,
    ``(gold, anywhere, tokens)``: the answer in the gold document's kept text, anywhere
    in the output, and the output's tokens."""
    baselines: dict[str, Callable[[dict[str, Any], int, TokenCounter], dict[str, str]]] = {
        "truncation": truncation, "lead": lead}
    for x in data:
        size = counter.count(x["question"]) + sum(counter.count(d["text"])
                                                  for d in x["documents"])
        budget = math.floor(ratio * size)
        row: dict[str, Any] = {"budget": budget, "size": size}
        for name in methods:
            if name == "convstate":
                start = time.perf_counter()
                out = compress_documents(x["question"], x["documents"], budget,
                                         counter=counter)
                row["ms"] = (time.perf_counter() - start) * 1000
                kept, text = out.kept, out.text
            else:
                kept = baselines[name](x, budget, counter)
                text = "\n".join(kept.values())
            row[name] = (*answer_kept(x, kept, text), counter.count(text))
        yield row


def evaluate_documents(data: list[dict[str, Any]], ratio: float, model: str = DEFAULT_COUNT,
                       progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Answer retention of each method, in the gold document (with its 95% bootstrap
    interval; None when the file names no gold documents) and anywhere in the output,
    and its mean tokens; how many outputs passed the budget; compress_documents'
    milliseconds per instance and per 1,000 of an instance's tokens (median and
    slowest). Tokens are ``model``'s: by default cl100k_base, the encoding the shared
    sets' budgets are defined in (and the one every model falls back to offline)."""
    rows = []
    for k, row in enumerate(score_instances(data, ratio, TokenCounter(model))):
        rows.append(row)
        if progress:
            progress(k + 1)
    per_1k = [r["ms"] * 1000 / max(r["size"], 1) for r in rows]
    return {"ratio": ratio, "instances": len(rows),
            "over_budget": sum(r["convstate"][2] > r["budget"] for r in rows),
            "ms_per_instance": round(statistics.median(r["ms"] for r in rows), 2),
            "ms_per_1k_tokens": {"median": round(statistics.median(per_1k), 2),
                                 "max": round(max(per_1k), 2)},
            "methods": {m: _summary([r[m] for r in rows]) for m in METHODS}}


def _summary(outcomes: list[tuple[bool | None, bool, int]]) -> dict[str, Any]:
    n = len(outcomes)
    gold = [g for g, _, _ in outcomes if g is not None]
    scored = len(gold) == n  # every instance names its gold document
    return {"answer_retention": round(sum(gold) / n, 3) if scored else None,
            "ci95": list(bootstrap_interval(gold)) if scored else None,
            "answer_anywhere": round(sum(a for _, a, _ in outcomes) / n, 3),
            "mean_tokens": round(sum(t for _, _, t in outcomes) / n, 1)}
