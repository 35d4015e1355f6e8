"""`convstate eval`: exact scores on a tiny dialogue with known answers, and clear errors
for malformed data."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from convstate.eval.run import DataError, EvalConfig, evaluate, load_dialogues, macro_f1

FILLER = "关于配送和包装的问题，请再详细说明一下流程和时间安排，谢谢你们的耐心解答和帮助"


def tiny() -> dict:
    """The order id and phone are said once, at the start; the time only at the end."""
    turns = [{"idx": 0, "speaker": "user", "text": "订单号 DD1234567，电话 13812345678。"}]
    for i in range(1, 15):
        turns.append({"idx": i, "speaker": "system" if i % 2 else "user",
                      "text": f"第{i}轮：{FILLER}。"})
    turns[14]["text"] = "电话是多少？营业时间呢"
    turns.append({"idx": 15, "speaker": "system", "text": "好的，下午3点给您回电。"})
    return {
        "id": "tiny-1", "language": "zh", "turns": turns,
        "gold": {
            "anchors": [
                {"type": "order", "value": "DD1234567", "first_turn": 0, "verbatim_turns": [0]},
                {"type": "phone", "value": "13812345678", "first_turn": 0},
                {"type": "time", "value": "下午3点", "first_turn": 15,
                 "mentions": [{"turn": 15, "start": 3, "end": 7, "text": "下午3点"}]},
                {"type": "name", "value": "不在原文", "first_turn": 3, "verbatim_turns": []},
            ],
            "constraints": [{"slot": "phone", "value": "139", "final_value": "13812345678"}],
            "decisions": [{"type": "callback", "value": "下午3点"}],
            "sentiment": {"per_user_turn": [
                {"turn": 0, "label": "neutral"}, {"turn": 2, "label": "satisfied"}]},
        },
        # turn 14 asks two things; only the phone is a gold open question at turn 14
        "state_by_turn": [{"turn": 14, "open_tasks": [{"slot": "电话"}]}],
    }


def write(tmp_path: Path, data) -> Path:
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return path


def test_exact_scores_for_every_method(tmp_path: Path) -> None:
    result = evaluate(load_dialogues(write(tmp_path, [tiny()])), EvalConfig(window=300))
    s = result["summary"]
    # 3 verbatim anchors (the 4th is not verbatim in its source and is not scored)
    assert {m: s[m]["anchors"] for m in s} == dict.fromkeys(s, 3)
    # convstate folded turn 0 into the state: all three values are in its context
    assert s["convstate"]["anchor_retention"] == 1.0
    assert s["convstate"]["anchor_retention_early"] == 1.0
    assert s["convstate"]["constraint_retention"] == 1.0
    assert s["convstate"]["decision_recall"] == 1.0
    assert s["convstate"]["anchor_retention_by_type"] == {"order": 1.0, "phone": 1.0,
                                                          "time": 1.0}
    # the others lost turn 0: only the time, said in the last turn, is left
    for method in ("truncation", "sliding_window", "rolling_summary"):
        assert s[method]["anchor_retention"] == pytest.approx(1 / 3, abs=1e-4), method
        assert s[method]["anchor_retention_early"] == 0.0
        assert s[method]["anchor_retention_late"] == 1.0
        assert s[method]["constraint_retention"] == 0.0
        assert s[method]["decision_recall"] == 1.0
    assert s["convstate"]["duplicates"] == 0 and s["convstate"]["rejected_anchors"] == 0
    # at turn 14 two questions are open, one of them the gold one
    assert s["convstate"]["open_task_precision"] == 0.5
    assert s["convstate"]["open_task_recall"] == 1.0
    # sentiment: the lexicon reads turn 0 as neutral (right) and turn 2's thanks as positive
    assert s["convstate"]["sentiment_accuracy"] == 1.0
    assert s["convstate"]["sentiment_macro_f1"] == 1.0
    d = result["dialogues"][0]
    assert d["first_fold_turn"] is not None and d["first_fold_turn"] >= 0
    assert d["methods"]["convstate"]["context_tokens"] < d["history_tokens"]
    assert all(m["peak_tokens"] <= 300 for m in d["methods"].values())


def test_macro_f1() -> None:
    pairs = [("negative", "negative"), ("neutral", "negative"), ("neutral", "neutral")]
    # negative: tp 1 fp 1 fn 0 -> 2/3; neutral: tp 1 fp 0 fn 1 -> 2/3
    assert macro_f1(pairs) == pytest.approx(2 / 3, abs=1e-4)


@pytest.mark.parametrize("mutate, words", [
    (lambda d: d.pop("turns"), ["tiny-1", "turns", "Field required"]),
    (lambda d: d["turns"][2].update(idx="two"), ["tiny-1", "turns.2.idx"]),
    (lambda d: d["turns"][1].update(speaker="robot"), ["tiny-1", "turns.1.speaker"]),
    (lambda d: d["gold"]["anchors"][0].update(verbatim_turns=[3]),
     ["tiny-1", "gold.anchors[0]", "does not occur in turn 3"]),
    (lambda d: d["gold"]["anchors"][2]["mentions"][0].update(start=0),
     ["tiny-1", "gold.anchors[2].mentions"]),
    (lambda d: d.update(language="fr"), ["tiny-1", "language"]),
])
def test_malformed_data_names_the_dialogue_and_the_field(tmp_path, mutate, words) -> None:
    d = tiny()
    mutate(d)
    with pytest.raises(DataError) as err:
        load_dialogues(write(tmp_path, [d]))
    for w in words:
        assert w in str(err.value)


def test_eval_command_writes_results_and_charts(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    data = write(tmp_path, [tiny(), tiny() | {"id": "tiny-2"}])
    out = subprocess.run([sys.executable, "-m", "convstate.cli", "eval", str(data), "--window",
                          "300", "--out", str(tmp_path / "r.json"), "--plot",
                          str(tmp_path / "plots")], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert "anchor_retention" in out.stdout and re.search(r"rolling .*\n.* summary", out.stdout)
    result = json.loads((tmp_path / "r.json").read_text())
    assert set(result["summary"]) == {"convstate", "truncation", "sliding_window",
                                      "rolling_summary"}
    assert result["summary"]["convstate"]["anchor_retention"] == 1.0
    assert [d["id"] for d in result["dialogues"]] == ["tiny-1", "tiny-2"]
    for png in ("retention_by_window.png", "tokens_by_turn.png"):
        assert (tmp_path / "plots" / png).read_bytes()[:4] == b"\x89PNG"
    bad = subprocess.run([sys.executable, "-m", "convstate.cli", "eval",
                          str(tmp_path / "nope.json")], capture_output=True, text=True)
    assert bad.returncode == 1 and "cannot read" in bad.stderr
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("extra, field", [
    (["--limit", "0"], "limit"),
    (["--limit", "-1"], "limit"),
    (["--out", "{file}/r.json"], "out"),
    (["--out", "{dir}"], "out"),
    (["--plot", "{file}/charts"], "plot"),
])
def test_eval_refuses_bad_options_before_it_runs(tmp_path, extra, field) -> None:
    data = write(tmp_path, [tiny()])
    a_file = tmp_path / "a-file.txt"
    a_file.write_text("x")
    args = [a.format(file=a_file, dir=tmp_path) for a in extra]
    out = subprocess.run([sys.executable, "-m", "convstate.cli", "eval", str(data), *args],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and f"'{field}'" in out.stderr, out.stderr
    assert "anchor_retention" not in out.stdout  # nothing was run
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_eval_makes_the_folder_of_its_results(tmp_path) -> None:
    data = write(tmp_path, [tiny()])
    target = tmp_path / "new" / "deeper" / "r.json"
    out = subprocess.run([sys.executable, "-m", "convstate.cli", "eval", str(data),
                          "--window", "300", "--out", str(target)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(target.read_text())["summary"]["convstate"]["anchors"] >= 1
