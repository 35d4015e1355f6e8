"""eval-docs scores an answer where the sets' README says (the gold document's kept text),
beside anywhere in the output; the hard-distractor builder is deterministic and picks the
nearest paragraphs that hold no answer."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from convstate import compress_documents
from convstate.errors import DataError
from convstate.eval.docs import (
    answer_kept,
    bootstrap_interval,
    evaluate_documents,
    lead,
    load_qa,
    truncation,
)
from convstate.tokens import TokenCounter

ROOT = Path(__file__).resolve().parents[1]
COUNTER = TokenCounter("gpt-4")


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_hard_distractors", ROOT / "benchmarks" / "build_hard_distractors.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The answer is in the gold document, in one long sentence, and in another document's short
# line: at a budget under the long sentence's tokens only the short line can be kept.
COPIED = {"id": "copied", "language": "en", "question": "Which river flows through Basel?",
          "answers": ["Rhine"], "gold_document": "d1",
          "documents": [{"id": "d1", "text": "The Rhine, which rises in the Alps and crosses "
                                             "several countries on its long way north to the "
                                             "sea, flows through Basel."},
                        {"id": "d2", "text": "Basel: the Rhine."}]}


def test_an_answer_counts_in_the_gold_documents_kept_text_not_anywhere() -> None:
    out = compress_documents(COPIED["question"], COPIED["documents"], 13, counter=COUNTER)
    assert out.kept == {"d2": "Basel: the Rhine."}
    assert answer_kept(COPIED, out.kept, out.text) == (False, True)
    out = compress_documents(COPIED["question"], COPIED["documents"], 40, counter=COUNTER)
    assert answer_kept(COPIED, out.kept, out.text) == (True, True)
    # a number only in a conflict line, or in another document, is kept anywhere only
    x = dict(COPIED, answers=["1998"])
    assert answer_kept(x, {"d1": "It opened.", "d2": "It opened in 1998."},
                       "[d1] It opened.\n[d2] It opened in 1998.") == (False, True)
    assert answer_kept(x, {"d1": "It opened in 1998."}, "[d1] It opened in 1998.") == (
        True, True)
    # a file naming no gold document is scored anywhere only
    assert answer_kept(dict(x, gold_document=None), {}, "1998") == (None, True)


def test_the_baselines_are_scored_by_what_they_keep_of_each_document() -> None:
    x = dict(COPIED, documents=[{"id": "a", "text": "Which river flows through Basel? The Rhine."},
                                {"id": "d1", "text": "The Rhine flows through Basel."}])
    kept = truncation(x, COUNTER.count(x["documents"][0]["text"]), COUNTER)
    assert kept == {"a": x["documents"][0]["text"], "d1": ""}
    assert answer_kept(x, kept, "\n".join(kept.values())) == (False, True)
    assert lead(x, 100, COUNTER) == {d["id"]: d["text"] for d in x["documents"]}


def test_evaluate_documents_reports_gold_retention_its_interval_and_anywhere() -> None:
    result = evaluate_documents([COPIED], 0.35)  # a budget of 13 tokens
    ours = result["methods"]["convstate"]
    assert ours["answer_retention"] == 0.0 and ours["answer_anywhere"] == 1.0
    assert ours["ci95"] == [0.0, 0.0] and result["over_budget"] == 0
    tiny = load_qa(ROOT / "examples" / "tiny_qa.json")
    unnamed = [{k: v for k, v in x.items() if k != "gold_document"} for x in tiny]
    for m in evaluate_documents(unnamed, 0.5)["methods"].values():
        assert m["answer_retention"] is None and m["ci95"] is None  # nothing to score on


def test_the_bootstrap_interval_is_seeded_and_holds_the_share() -> None:
    hits = [True] * 45 + [False] * 15
    lo, hi = bootstrap_interval(hits)
    assert lo < 0.75 < hi and (lo, hi) == bootstrap_interval(hits)
    assert bootstrap_interval([True] * 10) == (1.0, 1.0)
    assert bootstrap_interval(hits, level=0.5)[1] - bootstrap_interval(hits, level=0.5)[0] \
        < hi - lo


def test_a_gold_document_that_is_not_a_document_is_named(tmp_path: Path) -> None:
    path = tmp_path / "qa.json"
    path.write_text(json.dumps([dict(COPIED, gold_document="d7")]), "utf-8")
    with pytest.raises(DataError, match="gold_document 'd7'"):
        load_qa(path)


def _pool_set() -> list[dict[str, Any]]:
    """Three questions over a pool of paragraphs, some on the same subjects."""
    paras = {
        "Rhine#1": "The Rhine flows through Basel and then north to the sea.",
        "Rhine#2": "The Rhine is a river of many towns, Basel among them on its bend.",
        "Rhine#3": "Basel has a river port on the Rhine, the busiest of the country.",
        "Rhine#4": "Ships on the Rhine carry coal.",
        "Nile#1": "The Nile flows north through Egypt to the sea.",
        "Nile#2": "Cairo lies on the Nile, near its delta.",
        "Alps#1": "The Alps are mountains, Mont Blanc the highest of them.",
        "Alps#2": "Glaciers of the Alps feed many rivers.",
        "Oak#1": "An oak can live a thousand years.",
    }
    ids = list(paras)

    def instance(qid: str, question: str, gold: str, answers: list[str], others: list[str],
                 place: int) -> dict[str, Any]:
        order = others[:place] + [gold] + others[place:]
        return {"id": qid, "language": "en", "question": question, "answers": answers,
                "gold_document": f"d{place + 1}",
                "documents": [{"id": f"d{k + 1}", "text": paras[p]} for k, p in enumerate(order)],
                "source": {"documents": [{"id": f"d{k + 1}", "paragraph_id": p,
                                          "title": p.split("#")[0], "gold": p == gold}
                                         for k, p in enumerate(order)]}}

    return [instance("q1", "Which city does the Rhine flow through?", "Rhine#1", ["Basel"],
                     ["Oak#1", "Alps#1"], 1),
            instance("q2", "Where does the Nile flow?", "Nile#1", ["Egypt"],
                     ["Alps#2", "Oak#1"], 2),
            instance("q3", "What is the highest of the Alps?", "Alps#1", ["Mont Blanc"],
                     ["Rhine#4", "Nile#2"], 0)] + [
        instance(f"p{k}", "filler", p, ["zzz"], [ids[(k + 1) % 9], ids[(k + 2) % 9]], 0)
        for k, p in enumerate(ids)]


def test_hard_distractors_are_the_nearest_paragraphs_holding_no_answer() -> None:
    build = _builder().build
    data = _pool_set()
    hard = build(data)
    q1 = hard[0]
    # the gold paragraph stays, with its id and place; the Rhine pages that name Basel
    # (the answer) are no distractors, the nearest others are
    assert q1["gold_document"] == "d2" and q1["documents"][1] == data[0]["documents"][1]
    others = {m["paragraph_id"] for m in q1["source"]["documents"] if not m["gold"]}
    assert others == {"Rhine#4", "Nile#1"}, others
    assert all("Basel" not in d["text"] for d in q1["documents"] if d["id"] != "d2")
    assert len(q1["documents"]) == len(data[0]["documents"])
    assert {m["paragraph_id"] for m in hard[2]["source"]["documents"]} >= {"Alps#2"}
    # the same input and seed give the same variants; the seed moves only the order
    assert build(data) == hard
    other_seed = build(data, seed=7)
    for a, b in zip(hard, other_seed, strict=True):
        assert sorted(d["text"] for d in a["documents"]) == sorted(
            d["text"] for d in b["documents"])
        assert a["gold_document"] == b["gold_document"]


def test_the_builder_writes_identical_files_and_never_into_the_repo(tmp_path: Path) -> None:
    src = tmp_path / "pool.json"
    src.write_text(json.dumps(_pool_set()), "utf-8")
    script = ROOT / "benchmarks" / "build_hard_distractors.py"
    for out in ("a", "b"):
        run = subprocess.run([sys.executable, str(script), str(src), "--out",
                              str(tmp_path / out)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
    assert (tmp_path / "a" / "pool.json").read_bytes() == (tmp_path / "b" / "pool.json"
                                                            ).read_bytes()
    run = subprocess.run([sys.executable, str(script), str(src), "--out",
                          str(ROOT / "eval-out" / "hard")], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode != 0 and "inside the repository" in run.stderr
    assert not (ROOT / "eval-out" / "hard").exists()


def test_eval_docs_reports_the_hard_variant_beside_its_set(tmp_path: Path) -> None:
    data = tmp_path / "pool.json"
    data.write_text(json.dumps(_pool_set()), "utf-8")
    (tmp_path / "hard").mkdir()
    (tmp_path / "hard" / "pool.json").write_text(json.dumps(_builder().build(_pool_set())),
                                                 "utf-8")
    run = subprocess.run([sys.executable, "-m", "convstate.cli", "eval-docs", str(data),
                          "--hard", str(tmp_path / "hard"), "--out", str(tmp_path / "r.json")],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    result = json.loads((tmp_path / "r.json").read_text())
    assert list(result) == ["pool", "pool (hard)"]
    for runs in result.values():
        ours = runs["0.25"]["methods"]["convstate"]
        assert ours["answer_retention"] <= ours["answer_anywhere"]
        assert runs["0.25"]["over_budget"] == 0
    (tmp_path / "none").mkdir()
    run = subprocess.run([sys.executable, "-m", "convstate.cli", "eval-docs", str(data),
                          "--hard", str(tmp_path / "none")], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode != 0 and "'hard'" in run.stderr
