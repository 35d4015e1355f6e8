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
from convstate.eval.state_accuracy import MEASURES, StateAccuracy, gold_states, state_scores
from convstate.sections import Anchor, Decision, Fact, Preference
from convstate.state import ConversationState

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
    (lambda d: d["state_by_turn"].append({"turn": 2, "user_state": [[1, "酒店", "名称"]]}),
     ["tiny-1", "state_by_turn[1].user_state[0]"]),
    (lambda d: d["state_by_turn"].append({"turn": 2, "slot_values": ["city"]}),
     ["tiny-1", "state_by_turn[1].slot_values"]),
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
    # tiny has no per-turn dialogue state: its state accuracy is not measured, not 0
    assert "state_turn_recall" in out.stdout and "state_precision" in out.stdout
    assert all(result["summary"]["convstate"][m] is None for m in MEASURES)
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


# -- the state as code reads it --------------------------------------------------------


def anchor(n: int, value: str, turn: int, status: str = "active", **kw) -> Anchor:
    return Anchor(id=f"A{n}", turns=[turn], speaker="user", first_turn=turn, last_turn=turn,
                  kind=kw.pop("kind", "other"), key=kw.pop("key", "value"), value=value,
                  status=status, **kw)


def fact(n: int, text: str, turn: int, status: str = "active") -> Fact:
    return Fact(id=f"F{n}", turns=[turn], speaker="user", first_turn=turn, last_turn=turn,
                text=text, status=status)


def sgd_rows(*states: tuple[int, dict]) -> list[dict]:
    return [{"turn": turn, "service": "Restaurants_1", "slot_values": values}
            for turn, values in states]


def test_gold_states_read_both_layouts() -> None:
    sgd = gold_states([
        {"turn": 0, "service": "Services_1", "slot_values": {}},
        {"turn": 2, "service": "Services_1", "slot_values": {"city": ["SFO", "San Francisco"],
                                                            "note": [" "]}},
        # a turn with two frames: the first service's values are still the user's
        {"turn": 2, "service": "Services_4", "slot_values": {"city": ["Berkeley"]}},
        {"turn": 4, "open_tasks": []},  # no dialogue state in this row: not a gold turn
    ])
    assert sgd == {0: {}, 2: {("Services_1", "city"): ("sfo", "san francisco"),
                              ("Services_4", "city"): ("berkeley",)}}
    crosswoz = gold_states([{"turn": 0, "user_state": [
        [1, "酒店", "名称", "北京亚太花园酒店", True],
        [1, "酒店", "电话", "", True],                      # asked for, no value
        [2, "景点", "门票", "免费", False],                 # not mentioned yet
        [3, "餐馆", "推荐菜", ["小炸糕", "豆汁"], True],
        [4, "景点", "名称", "出现在id=3的周边景点里", True],  # a pointer, not a value
    ]}])
    assert crosswoz == {0: {(1, "酒店", "名称"): ("北京亚太花园酒店",),
                            (3, "餐馆", "推荐菜"): ("小炸糕", "豆汁")}}


def test_recall_counts_values_held_by_live_items_and_active_anchors() -> None:
    acc = StateAccuracy(sgd_rows((0, {
        "city": ["SFO", "San Francisco"], "time": ["7 pm"], "restaurant": ["Chez Panisse"],
        "date": ["March 3rd"], "party": ["six people"]})))
    state = ConversationState(
        anchors=[anchor(1, "7 PM", 0, kind="time"),                    # another case
                 anchor(2, "(510) 555-0199", 0, subject="Chez Panisse"),  # about it
                 anchor(3, "March 3rd", 0, "superseded")],              # not live
        facts=[fact(1, "Dinner in San Francisco", 0),                  # live, no anchor
               fact(2, "A table for six people", 0, "faded")])          # not live
    acc.read(0, state)
    acc.read(1, state)  # no gold state at this turn: nothing is read
    s = state_scores(acc.tally)
    assert s["state_slots"] == 5
    assert s["state_turn_recall"] == 0.6    # city, time, restaurant
    assert s["state_anchor_recall"] == 0.4  # time, restaurant (the city only in a fact)


def test_stale_counts_replaced_values_still_active_beside_their_replacement() -> None:
    acc = StateAccuracy(sgd_rows(
        (0, {"date": ["March 3rd"], "time": ["7 pm"], "city": ["SFO"], "place": ["Oakland"]}),
        # the city is said another way, not replaced; the other three are replaced
        (2, {"date": ["March 5th"], "time": ["8 pm"], "city": ["SFO", "San Francisco"],
             "place": ["Berkeley"]})))
    end = ConversationState(anchors=[
        anchor(1, "March 3rd", 0), anchor(2, "March 5th", 2),        # stale
        anchor(3, "7 pm", 0, "superseded"), anchor(4, "8 pm", 2),     # replaced right
        anchor(5, "Oakland", 0),                                      # its replacement
        anchor(6, "SFO", 0), anchor(7, "San Francisco", 2)])          # is nowhere
    for turn in (0, 2):
        acc.read(turn, ConversationState())
    acc.end(end)
    s = state_scores(acc.tally)
    assert s["state_replaced"] == 3
    assert s["state_stale"] == pytest.approx(1 / 3, abs=1e-4)


def test_precision_is_the_share_of_active_anchors_that_are_gold_values_so_far() -> None:
    acc = StateAccuracy(sgd_rows(
        (0, {"city": ["SFO"]}),
        (2, {"city": ["Oakland"], "phone": ["555-0100"]})))
    early = [anchor(1, "SFO", 0), anchor(2, "555-0100", 0),  # not a gold value *yet*
             anchor(3, "555-0199", 0, "superseded")]          # not active: not counted
    acc.read(0, ConversationState(anchors=early))
    # a replaced gold value is still a gold value (state_stale counts it); a name that
    # is in no gold state is not
    acc.read(2, ConversationState(anchors=[*early, anchor(4, "Chez Panisse", 2)]))
    assert state_scores(acc.tally)["state_precision"] == 0.6  # 1/2 at turn 0, 2/3 at 2


def test_a_number_is_held_only_whole() -> None:
    """"5分" is not held by "4.5分以上", nor "2" people by a phone with a 2: a number
    form counts only where no digit (or decimal point) goes on from it."""
    rows = [{"turn": 0, "user_state": [[1, "餐馆", "评分", "5分", True],
                                       [1, "餐馆", "人数", "2", True]]},
            {"turn": 2, "user_state": [[1, "餐馆", "评分", "4分", True],
                                       [1, "餐馆", "人数", "2", True]]}]
    acc = StateAccuracy(rows)
    late = ConversationState(anchors=[anchor(1, "4.5分以上", 0), anchor(2, "4分", 2),
                                      anchor(3, "010-82512345", 0)])
    acc.read(0, late)
    acc.read(2, late)
    acc.end(late)
    s = state_scores(acc.tally)
    assert s["state_replaced"] == 1 and s["state_stale"] == 0.0  # 5分 is held nowhere
    assert s["state_turn_recall"] == 0.25  # 4分 at turn 2; neither 5分 nor 2 people
    acc = StateAccuracy(rows)
    acc.read(0, ConversationState(anchors=[anchor(1, "评分5分", 0), anchor(2, "2位", 0)]))
    assert state_scores(acc.tally)["state_turn_recall"] == 1.0


def test_a_value_current_for_another_slot_is_not_stale() -> None:
    """A requirement relaxed for one sub-goal and asked again for the next is current
    there; one that only looks like another slot's (5分 in 4.5分以上) is still stale."""
    rows = [{"turn": 0, "user_state": [[1, "景点", "评分", "4.5分以上", True],
                                       [2, "餐馆", "评分", "5分", True]]},
            {"turn": 2, "user_state": [[1, "景点", "评分", "4.3分", True],
                                       [2, "餐馆", "评分", "4分", True],
                                       [3, "酒店", "评分", "4.5分以上", True]]}]
    acc = StateAccuracy(rows)
    for turn in (0, 2):
        acc.read(turn, ConversationState())
    acc.end(ConversationState(anchors=[anchor(1, "4.5分以上", 2), anchor(2, "评分5分", 0),
                                       anchor(3, "4.3分", 2), anchor(4, "4分", 2)]))
    s = state_scores(acc.tally)
    assert s["state_replaced"] == 1  # 5分; 4.5分以上 is the hotel's now
    assert s["state_stale"] == 1.0


def test_a_count_holds_its_number() -> None:
    """An anchor counting a thing holds the number it says in words ("two bedrooms"
    holds 2); another value holds only the digits it says."""
    acc = StateAccuracy(sgd_rows((0, {"number_of_beds": ["2"], "number_of_baths": ["3"]})))
    acc.read(0, ConversationState(anchors=[
        anchor(1, "two bedrooms", 0, key="bedrooms"), anchor(2, "three", 0, key="floor")]))
    assert state_scores(acc.tally)["state_turn_recall"] == 0.5


def test_folded_recall_reads_the_last_gold_state() -> None:
    acc = StateAccuracy(sgd_rows((0, {"date": ["March 3rd"]}), (2, {"date": ["March 5th"]}),
                                 (4, {})))  # an empty last state: the one before counts
    for turn in (0, 2, 4):
        acc.read(turn, ConversationState())
    acc.folded(ConversationState(anchors=[anchor(1, "March 3rd", 0)]))
    acc.folded(ConversationState(facts=[fact(1, "Moved to March 5th", 2)]))
    s = state_scores(acc.tally)
    assert s["state_folded_recall"] == 0.5
    assert s["state_turn_recall"] == 0.0 and s["state_precision"] is None  # no anchors
    assert all(v is None for k, v in state_scores(StateAccuracy(None).tally).items()
               if k in MEASURES)


def test_said_recall_counts_only_values_some_turn_has_said() -> None:
    """A gold value no text says (SGD's "true" for a yes, "music" for a concert) is left
    out of said recall, not of turn recall; a value once said stays said."""
    acc = StateAccuracy(sgd_rows((0, {"insurance": ["true"], "city": ["Berkeley"]}),
                                 (2, {"insurance": ["true"], "city": ["Berkeley"]})))
    acc.hear("Yes, add insurance. I'm in berkeley.")
    acc.read(0, ConversationState())
    acc.hear("Thanks.")
    acc.read(2, ConversationState(anchors=[anchor(1, "Berkeley", 0)]))
    s = state_scores(acc.tally)
    assert s["state_turn_recall"] == 0.25 and s["state_said_recall"] == 0.5


def test_a_yes_or_a_no_is_held_by_the_latest_typed_answer_about_its_thing() -> None:
    """SGD's "True"/"False" is held by the latest live decision typed with that answer
    about the thing the slot names last (add_insurance: insurance); not by an answer
    about another thing (a round trip is no trip_protection), nor a superseded one, nor
    an older answer beside a newer one. Said recall leaves yes/no values out."""
    def decision(n: int, about: str, yes: bool, turn: int = 1,
                 status: str = "active") -> Decision:
        return Decision(id=f"D{n}", turns=[turn], speaker="user", first_turn=turn,
                        last_turn=turn, text=f"Would you like {about}? → {'Yes' if yes else 'No'}",
                        question=f"Would you like {about}?", about=about, answer=yes,
                        status=status)
    acc = StateAccuracy(sgd_rows((0, {"add_insurance": ["True"], "trip_protection": ["True"]}),
                                 (2, {"add_insurance": ["False"]})))
    acc.read(0, ConversationState(decisions=[decision(1, "insurance", True),
                                             decision(2, "trip", True)]))
    acc.read(2, ConversationState(decisions=[
        decision(1, "insurance", True, 1, "superseded"), decision(2, "insurance", False, 1),
        decision(3, "insurance", True, 2)]))  # two live: the latest says
    s = state_scores(acc.tally)
    assert s["state_turn_recall"] == pytest.approx(1 / 3, abs=1e-3)
    assert s["state_said_recall"] is None


def preference(n: int, text: str, polarity: str, turn: int = 1) -> Preference:
    return Preference(id=f"P{n}", turns=[turn], speaker="user", first_turn=turn,
                      last_turn=turn, text=text, polarity=polarity, topic=text)


def test_a_required_feature_holds_a_yes_of_the_thing_a_slot_names() -> None:
    """A feature the user requires or forbids (``Preference`` require/forbid) holds the
    yes or no of the slot that names it: the name's last word, or the word before a last
    word that says what holds of it (pets_allowed: pets), one of the phrase's last two
    words; not a mere like, nor a word inside another ("minibar" is no bar)."""
    acc = StateAccuracy(sgd_rows((0, {"has_live_music": ["True"], "pets_allowed": ["True"],
                                      "smoking_allowed": ["False"], "serves_alcohol": ["True"],
                                      "good_for_kids": ["True"], "has_bar": ["True"]})))
    acc.read(0, ConversationState(preferences=[
        preference(1, "with live music", "require"), preference(2, "that allows pets", "require"),
        preference(3, "with no smoking", "forbid"), preference(4, "alcohol", "like"),
        preference(5, "kid-friendly", "require", 0), preference(6, "with a minibar", "require")]))
    s = state_scores(acc.tally)
    assert s["state_turn_recall"] == pytest.approx(4 / 6, abs=1e-3)
    assert s["state_anchor_recall"] is None  # (no anchor holds a yes or a no)


def test_a_chinese_yes_is_read_from_typed_items_not_from_any_text_that_says_是() -> None:
    """CrossWOZ's 是/否 (a hotel's facility) is a yes or a no like SGD's: held by the
    latest typed item about the facility (吹风机; 洗衣 of 洗衣服务; not 电话 of 国际长途电话),
    not by any text with a 是 in it, with every turn folded too; no anchor's recall nor
    precision counts one."""
    rows = [{"turn": 0, "user_state": [[1, "酒店", "酒店设施-吹风机", "是", True],
                                       [1, "酒店", "酒店设施-洗衣服务", "是", True],
                                       [1, "酒店", "酒店设施-国际长途电话", "是", True],
                                       [1, "酒店", "酒店设施-棋牌室", "否", True]]}]
    state = ConversationState(
        preferences=[preference(1, "吹风机", "require"), preference(2, "洗衣", "require"),
                     preference(3, "电话", "require")],
        anchors=[anchor(1, "是的", 0)], facts=[fact(1, "是的，没有棋牌室也行", 0)])
    acc = StateAccuracy(rows)
    acc.read(0, state)
    acc.folded(state)
    s = state_scores(acc.tally)
    assert s["state_turn_recall"] == 0.5 and s["state_folded_recall"] == 0.5
    assert s["state_anchor_recall"] is None and s["state_precision"] == 0

def booking() -> dict:
    """A table booked, the date moved: the SGD layout, one dialogue state per user turn."""
    wait = ("Let me look at the options for you and check what is available in that area "
            "tonight, one moment please while I search the listings.")
    said = ["Hi, I need a table at Chez Panisse in Berkeley on March 3rd at 7 pm.",
            f"Sure. {wait}", "We are 2 people. My phone is 415-555-0100.", f"Thanks. {wait}",
            "Actually, please move it to March 5th.", f"Done: March 5th at 7 pm. {wait}",
            "Great, thank you, that is all.", f"You're welcome. {wait}"]
    first = {"restaurant_name": ["Chez Panisse"], "city": ["Berkeley"], "date": ["March 3rd"],
             "time": ["7 pm"]}
    second = first | {"party_size": ["2"], "phone_number": ["415-555-0100"]}
    moved = second | {"date": ["March 5th"]}
    return {"id": "booking-1", "language": "en", "gold": {},
            "turns": [{"idx": i, "speaker": "system" if i % 2 else "user", "text": t}
                      for i, t in enumerate(said)],
            "state_by_turn": sgd_rows((0, first), (2, second), (4, moved), (6, moved))}


@pytest.mark.parametrize("window", [256, 4096])
def test_eval_reads_the_state_after_every_user_turn(tmp_path: Path, window: int) -> None:
    result = evaluate(load_dialogues(write(tmp_path, [tiny(), booking()])),
                      EvalConfig(window=window))
    s = result["summary"]["convstate"]
    # read after each of the 4 user turns (4 + 6 + 6 + 6 slots), the moved date counted
    # once as replaced; every value is extracted once every turn is folded
    assert (s["state_slots"], s["state_replaced"]) == (22, 1)
    assert s["state_folded_recall"] == 1.0
    # every gold value here is said as it is: said recall is turn recall
    assert s["state_said_recall"] == s["state_turn_recall"]
    for name in MEASURES:
        assert s[name] is None or 0.0 <= s[name] <= 1.0, name
    rows = {d["id"]: d["methods"]["convstate"] for d in result["dialogues"]}
    assert rows["booking-1"]["state_slots"] == 22
    assert "state_slots" not in rows["tiny-1"]  # no dialogue state to read
