"""``convstate eval-docs``: answer retention of compressed documents against truncation
and lead sentences at the same token budget (the layout of shared/data/qa: a question,
documents ``[{id, text}]``, verbatim ``answers``).

The budget of an instance is ``floor(ratio x tokens)``, its tokens being the question's
and every document's, each counted on its own; the question is not charged. An answer is
kept when one of its strings is verbatim in what a method keeps.
"""

from __future__ import annotations

import math
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..documents import compress_documents
from ..errors import DataError
from ..jsonfile import read_json
from ..tokens import TokenCounter

METHODS = ("convstate", "truncation", "lead")
# The sets' own sentence ends for the lead baseline (shared/data/qa/README.txt): zh after
# 。！？!? with closing quotes, en after .!? and whitespace. Not compress_documents'
# splitter, which also cuts at ； and line breaks: a baseline must not move with ours.
_LEAD_SENTENCE = {"zh": re.compile(r".+?(?:[。！？!?]+[」』”’\"')）]*|$)", re.S),
                  "en": re.compile(r".+?(?:[.!?]+(?=\s)\s*|$)", re.S)}


def load_qa(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The instances of a QA file, checked: question, documents and answers."""
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
    while they fit, the next one cut, then stop; a document's kept sentences joined as
    written (an answer running over two of them stays whole)."""
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
    return "\n".join("".join(o) for o in kept if o)


def evaluate_documents(data: list[dict[str, Any]], ratio: float, model: str = "gpt-4o-mini",
                       progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Answer retention and tokens of each method; compress_documents' milliseconds per
    instance and per 1,000 of an instance's tokens (median and slowest)."""
    counter = TokenCounter(model)
    kept = {m: 0 for m in METHODS}
    tokens: dict[str, list[int]] = {m: [] for m in METHODS}
    ms: list[float] = []
    per_1k: list[float] = []  # milliseconds per 1,000 of the instance's tokens
    over = 0
    for k, x in enumerate(data):
        size = counter.count(x["question"]) + sum(counter.count(d["text"])
                                                  for d in x["documents"])
        budget = math.floor(ratio * size)
        start = time.perf_counter()
        ours = compress_documents(x["question"], x["documents"], budget, counter=counter).text
        ms.append((time.perf_counter() - start) * 1000)
        per_1k.append(ms[-1] * 1000 / max(size, 1))
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
            "ms_per_1k_tokens": {"median": round(statistics.median(per_1k), 2),
                                 "max": round(max(per_1k), 2)} if per_1k else None,
            "methods": {m: {"answer_retention": round(kept[m] / n, 3),
                            "mean_tokens": round(sum(tokens[m]) / n, 1)} for m in METHODS}}
