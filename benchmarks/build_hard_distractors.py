"""Hard-distractor variants of the shared SQuAD and CMRC sets, built from their own pools.

The shared multi-document sets pair each question's gold paragraph with random paragraphs
of other articles: unrelated, so finding the gold document is easy. Here each question
keeps its gold paragraph (at the same position, with the same id) and gets, in place of
the random ones, the paragraphs of the same file's pool nearest to it by BM25 that hold
none of its answer strings: topically related distractors, as a retriever would return.

- The pool: every distinct paragraph of the file (by the source's paragraph id).
- The retriever is not compress_documents' scoring (that would tune the test to the code
  under test, and move it when the code moves): Lucene's BM25 (k1 1.2, b 0.75) over
  lower-case English words without Lucene's 33 English stop words, and Chinese
  characters and character pairs.
- Ties are broken by a seeded draw, and the distractors fill the places the gold
  paragraph leaves in a seeded order (``--seed``, 46 by default): the same input and
  seed give byte-identical files.

The files are written under ``--out`` with the names of their sources, for
``convstate eval-docs FILES --hard DIR``. Never write them into the repository: they are
derived copies of the shared data.

    python benchmarks/build_hard_distractors.py ../shared/data/qa/squad2_dev_multidoc.json \\
        ../shared/data/qa/cmrc2018_dev_multidoc.json --out /tmp/qa_hard
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

SEED = 46
_K1, _B = 1.2, 0.75
_WORD = re.compile(r"[a-z0-9]+")
_HAN = re.compile(r"[\u4e00-\u9fff]+")
# Lucene's English stop words (EnglishAnalyzer's default set)
_STOP = frozenset("""a an and are as at be but by for if in into is it no not of on or such
that the their then there these they this to was will with""".split())


def tokens(text: str) -> list[str]:
    """English words (stop words out), Chinese characters and character pairs."""
    out = [w for w in _WORD.findall(text.lower()) if w not in _STOP]
    for run in _HAN.findall(text):
        out += list(run) + [run[k:k + 2] for k in range(len(run) - 1)]
    return out


class Pool:
    """The distinct paragraphs of a set, indexed for BM25."""

    def __init__(self, data: list[dict[str, Any]]):
        texts: dict[str, tuple[str, str | None]] = {}
        for x in data:
            for doc, meta in zip(x["documents"], _meta(x), strict=True):
                texts.setdefault(meta.get("paragraph_id") or doc["text"],
                                 (doc["text"], meta.get("title")))
        self.ids = sorted(texts)
        self.texts = [texts[i][0] for i in self.ids]
        self.titles = [texts[i][1] for i in self.ids]
        self.tfs = [Counter(tokens(t)) for t in self.texts]
        self.lens = [sum(tf.values()) for tf in self.tfs]
        self.avg = sum(self.lens) / len(self.lens)
        df = Counter(t for tf in self.tfs for t in tf)
        n = len(self.tfs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.postings: dict[str, list[int]] = {}
        for k, tf in enumerate(self.tfs):
            for t in tf:
                self.postings.setdefault(t, []).append(k)

    def scores(self, query: str) -> dict[int, float]:
        """BM25 of every paragraph sharing a term with ``query``."""
        out: dict[int, float] = {}
        for t, qf in Counter(tokens(query)).items():
            for k in self.postings.get(t, ()):
                f = self.tfs[k][t]
                norm = _K1 * (1 - _B + _B * self.lens[k] / self.avg)
                out[k] = out.get(k, 0.0) + qf * self.idf[t] * f * (_K1 + 1) / (f + norm)
        return out


def _meta(x: dict[str, Any]) -> list[dict[str, Any]]:
    """The source's record of each document (paragraph id, title, gold), or empty ones."""
    meta = x.get("source", {}).get("documents")
    return meta if isinstance(meta, list) and len(meta) == len(x["documents"]) else [
        {} for _ in x["documents"]]


def harden(x: dict[str, Any], pool: Pool, seed: int = SEED) -> dict[str, Any]:
    """``x`` with its distractors replaced by the pool's BM25-nearest paragraphs that hold
    none of its answers (the gold document stays where it is, with its id)."""
    rng = random.Random(f"{seed}:{x['id']}")
    gold = next(k for k, d in enumerate(x["documents"]) if d["id"] == x["gold_document"])
    gold_text = x["documents"][gold]["text"]
    gold_pid = _meta(x)[gold].get("paragraph_id")
    scored = pool.scores(x["question"])
    ranked = sorted(scored, key=lambda k: (-scored[k], rng.random()))
    picked: list[int] = []
    for k in ranked + [k for k in range(len(pool.ids)) if k not in scored]:
        if len(picked) == len(x["documents"]) - 1:
            break
        text = pool.texts[k]
        if text == gold_text or pool.ids[k] == gold_pid or any(a in text for a in x["answers"]):
            continue
        picked.append(k)
    places = [k for k in range(len(x["documents"])) if k != gold]
    rng.shuffle(picked)
    docs, meta = [dict(d) for d in x["documents"]], [dict(m) for m in _meta(x)]
    for place, k in zip(places, picked, strict=True):
        docs[place]["text"] = pool.texts[k]
        meta[place] = {"id": docs[place]["id"], "paragraph_id": pool.ids[k],
                       "title": pool.titles[k], "gold": False,
                       "bm25_rank": ranked.index(k) + 1 if k in scored else None}
    source = dict(x.get("source", {}), documents=meta, distractors=(
        f"the BM25-nearest paragraphs of the set's pool holding no answer string "
        f"(benchmarks/build_hard_distractors.py, seed {seed})"))
    return dict(x, documents=docs, source=source)


def build(data: list[dict[str, Any]], seed: int = SEED) -> list[dict[str, Any]]:
    """Every instance of ``data`` with hard distractors from ``data``'s own pool."""
    pool = Pool(data)
    return [harden(x, pool, seed) for x in data]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+", help="shared QA files (SQuAD, CMRC)")
    parser.add_argument("--out", type=Path, required=True,
                        help="a folder outside the repository")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    repo = Path(__file__).resolve().parents[1]
    if args.out.resolve().is_relative_to(repo):
        parser.error("--out is inside the repository: derived copies of shared data stay out")
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.data:
        hard = build(json.loads(path.read_text("utf-8")), args.seed)
        target = args.out / path.name
        target.write_text(json.dumps(hard, ensure_ascii=False, indent=1) + "\n", "utf-8")
        print(f"{target}: {len(hard)} instances")


if __name__ == "__main__":
    main()
