"""``convstate eval-docs``: answer retention of compressed documents against truncation
and lead sentences at the same token budget (the layout of shared/data/qa: a question,
documents ``[{id, text}]``, verbatim ``answers``).

The budget of an instance is ``floor(ratio x tokens)``, its tokens being the question's
and every document's, each counted on its own; the question is not charged. An answer is
kept when one of its strings is verbatim in what a method keeps.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..documents import compress_documents, sentences
from ..errors import DataError
from ..jsonfile import read_json
from ..tokens import TokenCounter

METHODS = ("convstate", "truncation", "lead")


def load_qa(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The instances of a QA file, checked: question, documents and answers."""
    data = read_json(path)
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of instances")
    for k, x in enumerate(data):
        ok = (isinstance(x, dict) and isinstance(x.get("question"), str)
              and isinstance(x.get("documents"), list) and x["documents"]
              and all(isinstance(d, dict) and isinstance(d.get("text"), str)
                      for d in x["documents"])
              and isinstance(x.get("answers"), list) and x["answers"])
        if not ok:
            raise DataError(f"{path}: instance {k} ({x.get('id') if isinstance(x, dict) else x!r})"
                            " needs question, documents [{id, text}] and answers")
    return data[:limit] if limit else data


def truncation(x: dict[str, Any], budget: int, counter: TokenCounter) -> str:
    """Documents in order, whole while they fit, the next one cut, the rest dropped."""
    kept, left = [], budget
    for d in x["documents"]:
        n = counter.count(d["text"])
        if n > left:
            kept.append(counter.truncate(d["text"], left))
            break
        kept.append(d["text"])
        left -= n
    return "\n".join(kept)


def lead(x: dict[str, Any], budget: int, counter: TokenCounter) -> str:
    """Sentences round robin (the first of every document, then the second...), whole
    while they fit, the next one cut, then stop."""
    split = [[d["text"][s:e] for s, e in sentences(d["text"])] for d in x["documents"]]
    kept, left = [], budget
    for k in range(max(len(s) for s in split)):
        for sents in split:
            if k >= len(sents):
                continue
            n = counter.count(sents[k])
            if n > left:
                kept.append(counter.truncate(sents[k], left))
                return "\n".join(kept)
            kept.append(sents[k])
            left -= n
    return "\n".join(kept)


def evaluate_documents(data: list[dict[str, Any]], ratio: float, model: str = "gpt-4o-mini",
                       progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Answer retention, tokens and milliseconds per instance of each method."""
    counter = TokenCounter(model)
    kept = {m: 0 for m in METHODS}
    tokens: dict[str, list[int]] = {m: [] for m in METHODS}
    ms: list[float] = []
    over = 0
    for k, x in enumerate(data):
        size = counter.count(x["question"]) + sum(counter.count(d["text"])
                                                  for d in x["documents"])
        budget = math.floor(ratio * size)
        start = time.perf_counter()
        ours = compress_documents(x["question"], x["documents"], budget, counter=counter).text
        ms.append((time.perf_counter() - start) * 1000)
        for name, text in (("convstate", ours), ("truncation", truncation(x, budget, counter)),
                           ("lead", lead(x, budget, counter))):
            kept[name] += any(a in text for a in x["answers"])
            tokens[name].append(counter.count(text))
        over += tokens["convstate"][-1] > budget
        if progress:
            progress(k + 1)
    n = max(len(data), 1)
    return {"ratio": ratio, "instances": len(data), "over_budget": over,
            "ms_per_instance": round(statistics.median(ms), 2) if ms else None,
            "methods": {m: {"answer_retention": round(kept[m] / n, 3),
                            "mean_tokens": round(sum(tokens[m]) / n, 1)} for m in METHODS}}
