"""Replaced values are superseded for the same thing, in the state, its block and
``active_anchors()``; the old one stays in history (zh and en)."""

from __future__ import annotations

import pytest

from convstate import ConversationMemory, InMemoryStore
from convstate.extract.settle import satisfies


def said(*turns: tuple[str, str]) -> ConversationMemory:
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=8192)
    for role, text in turns:
        mem.add(role, text)
        mem.context()
    return mem


def active(mem: ConversationMemory, key: str) -> list[str]:
    return [a.value for a in mem.state.active_anchors() if a.key == key]


def test_a_later_time_of_the_same_thing_replaces_the_earlier() -> None:
    mem = said(("user", "Book a table at Chez Panisse at 7 pm on March 3rd."),
               ("assistant", "Sure, a table at Chez Panisse at 7 pm on March 3rd?"),
               ("user", "Actually, make it 8 pm."))
    assert active(mem, "time") == ["8 pm"]
    assert active(mem, "date") == ["March 3rd"]  # the date was not replaced
    history = mem.state.history("time")
    assert [(h.value, h.status) for h in history] == [("7 pm", "superseded"),
                                                      ("8 pm", "active")]
    lines = mem.render("text").splitlines()  # the whole state's block: 7 pm as history
    assert '- time: "8 pm"' in lines and any(line.endswith('(replaced): "7 pm"')
                                             for line in lines)


def test_values_said_in_one_turn_stand_together() -> None:
    mem = said(("user", "I need a hotel from March 3rd to March 5th."))
    assert active(mem, "date") == ["March 3rd", "March 5th"]


def test_the_times_of_two_named_places_do_not_replace_each_other() -> None:
    mem = said(("user", "全聚德几点开门？"), ("assistant", "全聚德的营业时间是10:00-22:00。"),
               ("user", "那便宜坊呢？"), ("assistant", "便宜坊的营业时间是11:00-21:00。"))
    assert sorted(active(mem, "time")) == ["10:00-22:00", "11:00-21:00"]


@pytest.mark.parametrize("turns, key, left, gone", [
    ([("user", "Please book me an appointment at 11:30 am on March 1st."),
      ("assistant", "Unfortunately I was not able to book 11:30 am. Would 11 am work?"),
      ("user", "Yes, that works.")], "time", ["11 am"], "11:30 am"),
    ([("user", "推荐一家评分4.5分以上，人均消费100-150元的餐馆。"),
      ("assistant", "抱歉，没有符合要求的餐馆，推荐小吊梨汤，人均消费85元，评分4.6分。")],
     "amount", ["85元"], "100-150元"),
])
def test_a_proposal_made_instead_replaces_what_it_does_not_satisfy(turns, key, left, gone
                                                                   ) -> None:
    mem = said(*turns)
    assert active(mem, key) == left
    assert any(h.value == gone and h.status == "superseded"
               for h in mem.state.history(key))


def test_a_requirement_the_proposal_meets_stays() -> None:
    mem = said(("user", "推荐一家评分4.5分以上，人均消费100-150元的餐馆。"),
               ("assistant", "抱歉，没有符合要求的餐馆，推荐小吊梨汤，人均消费85元，评分4.6分。"))
    ratings = {h.value: h.status for h in mem.state.history("rating")}
    assert ratings["4.5分以上"] == "active"  # 4.6 meets it: still what the user asked for


def test_a_correction_replaces_what_was_said_back() -> None:
    mem = said(("user", "Share my location with Douglas."),
               ("assistant", "You want to share 1 Vivian Street with Douglas, right?"),
               ("user", "No, share it with Nancy."))
    names = {h.value: h.status for h in mem.state.history("names")}
    assert names["Douglas"] == "superseded" and names["Nancy"] == "active"


def test_a_new_search_place_replaces_the_old_one() -> None:
    """A name in the place role ("in X") is where a search is: the user's next search
    somewhere else replaces it (and the assistant's saying it back); the kinds of
    service asked for are names, and stay."""
    mem = said(("user", "I need a Psychologist in San Francisco."),
               ("assistant", "Dr. Lee is a Psychologist in San Francisco."),
               ("user", "What about a Psychiatrist in Pittsburg?"))
    places = {h.value: h.status for h in mem.state.history("place")}
    assert places == {"San Francisco": "superseded", "Pittsburg": "active"}
    assert {"Psychologist", "Psychiatrist"} <= set(active(mem, "names"))


def test_a_contrast_is_no_correction() -> None:
    """"instead of X" / "rather than X" say what is not wanted, not that the turn before
    was wrong: what it named stays."""
    mem = said(("user", "Which frameworks can I use?"),
               ("assistant", "You could use TensorFlow Lite or Dialogflow."),
               ("user", "We use Rasa instead of a generic chatbot, rather than Watson."))
    names = {h.value: h.status for h in mem.state.history("names")}
    assert names["TensorFlow Lite"] == names["Dialogflow"] == "active"


def test_a_value_said_again_after_its_replacement_is_current_again() -> None:
    mem = said(("user", "5 pm please."), ("user", "No, 6 pm."), ("user", "Sorry, 5 pm after all."))
    assert active(mem, "time") == ["5 pm"]


@pytest.mark.parametrize("required, value, ok", [
    ("100-150元", "85元", False), ("100-150元", "120元", True), ("4.5分以上", "4.6分", True),
    ("4.5分以上", "4分", False), ("under $50", "$42", True), ("at least 4 stars", "3", False),
    ("11:30 am", "11 am", False), ("March 1st", "March 1st", True),
])
def test_satisfies_reads_a_bound_or_asks_for_the_same_value(required, value, ok) -> None:
    assert satisfies(required, value) is ok


def test_what_the_assistant_said_about_a_replaced_name_goes_with_it() -> None:
    mem = said(("user", "Please send my location to Douglas."),
               ("assistant", "I will send Douglas the address 1 Vivian Street."),
               ("user", "No, send it to Nancy instead."),
               ("assistant", "I will send Nancy the address 1 Vivian Street."))
    about = {(a.value, a.subject) for a in mem.state.active_anchors() if a.key == "address"}
    assert ("1 Vivian Street", "Douglas") not in about
    assert ("1 Vivian Street", "Nancy") in about
    assert "Douglas" not in active(mem, "names")


def test_an_offered_dish_replaces_the_one_that_could_not_be_had() -> None:
    mem = said(("user", "请推荐一家评分5分有杏仁豆腐这道菜的餐馆。"),
               ("assistant", "抱歉，周边餐馆没有这道菜，推荐您去那家小馆吃自制豆腐这道菜。"))
    assert active(mem, "product") == ["自制豆腐"]
    assert [h.status for h in mem.state.history("product")] == ["superseded", "active"]


def test_an_offer_outside_the_bound_the_user_agrees_to_is_taken() -> None:
    asked = ("user", "这个餐馆的人均消费是50元以下吗？")
    offer = ("assistant", "人均消费比您说的高一点，是137元。")
    mem = said(asked, offer, ("user", "嗯，就它家了，附近有啥景点？"))
    assert active(mem, "amount") == ["137元"]
    for reply in ("不行，要50元以下的。", "还有别的便宜点的吗？", "太贵了。"):  # not taken
        assert "50元以下" in active(said(asked, offer, ("user", reply)), "amount"), reply


@pytest.mark.parametrize("turns, key, both", [
    ([("user", "请给我退款200元。"), ("assistant", "已为您退款200元，不过运费10元不退。")],
     "amount", ["200元", "10元"]),
    ([("user", "Book a table at Nopa for 7 pm."),
      ("assistant", "Booked Nopa for 7 pm. The kitchen closes at 10 pm, but you are all set.")],
     "time", ["7 pm", "10 pm"]),
])
def test_a_value_said_back_beside_a_contrast_only_stands(turns, key, both) -> None:
    mem = said(*turns)  # no failure is said: the contrast adds a value, it replaces none
    assert set(active(mem, key)) == set(both)
