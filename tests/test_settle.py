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
    assert '- time: "8 pm"' in lines and any(line.endswith('time (replaced): "7 pm"')
                                             for line in lines)
    # a key's replaced values follow its current ones on one line
    mem = said(("user", "My phone is 415-555-0100."),
               ("user", "Sorry, my new phone is 415-555-0199."))
    assert '- phone: "415-555-0199"; replaced: "415-555-0100"' in mem.render("text").splitlines()


def test_values_said_in_one_turn_stand_together() -> None:
    mem = said(("user", "I need a hotel from March 3rd to March 5th."))
    assert active(mem, "date") == ["March 3rd", "March 5th"]
    # ... unless the speaker corrects themselves between them
    assert active(said(("user", "My number is 415-555-0100, sorry, I mean 415-555-0111.")),
                  "phone") == ["415-555-0111"]
    assert active(said(("user", "我的手机号是13811112222，不对，是13811112233")),
                  "phone") == ["13811112233"]
    assert active(said(("user", "My email is kim@old.com"),
                       ("user", "Wait, kim@old.com is wrong, it's kim@olds.com")),
                  "email") == ["kim@olds.com"]
    # ... right after the value: a word of complaint between two ids corrects nothing
    wrong = "Order #12345678 arrived with the wrong item, and order #87654321 too."
    assert len(active(said(("user", wrong)), "order_id")) == 2
    again = "订单号A12345678，这不是我第一次投诉了，还有订单号B87654321也有问题"
    assert len(active(said(("user", again)), "order_id")) == 2
    for text in ("My mobile is 415-555-0101 and my home number is 415-555-0102.",
                 "我的手机是13811112222，家里座机是010-66667777。"):  # a key of one value
        mem = said(("user", "My number is 415-555-0100."), ("user", text))
        assert len(active(mem, "phone")) == 2, text
        assert [h.status for h in mem.state.history("phone")][0] == "superseded"


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
    """A name in the place role ("in X") is where a search is, one in the category role
    ("a X" sought) what it is for: the user's next search replaces both."""
    mem = said(("user", "I need a Psychologist in San Francisco."),
               ("assistant", "Dr. Lee is a Psychologist in San Francisco."),
               ("user", "What about a Psychiatrist in Pittsburg?"))
    places = {h.value: h.status for h in mem.state.history("place")}
    assert places == {"San Francisco": "superseded", "Pittsburg": "active"}
    assert active(mem, "category") == ["Psychiatrist"]
    assert {h.value: h.status for h in mem.state.history("category")} \
        == {"Psychologist": "superseded", "Psychiatrist": "active"}


def test_what_is_sought_is_replaced_by_what_is_sought_next() -> None:
    mem = said(("user", "Can you find me a therapist in Vallejo?"),
               ("assistant", "What kind would you like to see?"),
               ("user", "I'd like to see a Psychologist."),
               ("assistant", "Would you be interested in seeing Dwyer Patricia J?"),
               ("user", "Is there a Family Counselor in Gilroy?"))
    assert active(mem, "category") == ["Family Counselor"]
    assert "Dwyer Patricia J" in active(mem, "names")  # which one, not what kind
    both = said(("user", "I'd like a Coke and a Sprite, please."))
    assert active(both, "category") == ["Coke", "Sprite"]


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


@pytest.mark.parametrize("reply, amounts", [
    ("哦，那它的营业时间是什么时候？", ["137元"]),
    ("这家店在哪儿？", ["137元"]),
    ("它太远了。", ["137元", "50元以下"]),
    ("那附近有别的餐馆吗？", ["137元", "50元以下"]),
    ("有没有更便宜的？", ["137元", "50元以下"]),
    ("这个不行", ["137元", "50元以下"]),  # refers back, but no question: turned down
    ("这家我不喜欢", ["137元", "50元以下"]),
])
def test_an_offer_asked_about_is_taken_and_one_found_wanting_is_not(reply, amounts) -> None:
    """Going on about the offer (它, 这家) takes it as agreeing does; too far, another one
    or a cheaper one is no taking, and the bound asked for stands. (English bounds are
    not read as bounds yet: "under $100" is a budget of $100.)"""
    mem = said(("user", "这个餐馆的人均消费是50元以下吗？"),
               ("assistant", "不是的，人均消费是137元。"), ("user", reply))
    assert sorted(active(mem, "amount")) == amounts


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


def test_a_read_back_goes_with_the_request_the_user_changes() -> None:
    mem = said(("user", "Book it for 1:15 pm on March 4th please."),
               ("assistant", "An appointment with Loffer Shirley at 1:15 pm on March 4th, "
                             "right?"),
               ("user", "Yes, but make it 1:30 pm."))
    assert active(mem, "time") == ["1:30 pm"]


def test_a_day_asked_for_is_a_date_and_one_told_in_passing_is_not() -> None:
    mem = said(("user", "Book me in on Friday next week."),
               ("assistant", "An appointment on March 8th, is that correct?"),
               ("user", "No, change that to today."))
    assert active(mem, "date") == ["today"]
    for passing in ("The parcel arrived today, broken.",
                    "Thanks for today, see you then.", "I was charged twice for today’s order."):
        assert active(said(("user", passing)), "date") == []


def test_an_address_ends_where_the_sentence_goes_on() -> None:
    mem = said(("user", "Share the address 255 North 1st Street with Nicole."))
    assert active(mem, "address") == ["255 North 1st Street"]
    assert "Nicole" in active(mem, "names")


@pytest.mark.parametrize("correction", [
    "No, the address is Heathrow International Airport.",
    "I made a mistake. The location to share is Heathrow International Airport.",
])
def test_a_name_said_to_be_the_address_corrects_the_address_said_back(correction) -> None:
    """A name after "the address/location ... is" is in the address role: the correction
    replaces the address read back (and the user's own equal one), not the contact."""
    mem = said(("user", "Share 2180 Third Street with Shirley."),
               ("assistant", "You want to share 2180 Third Street with Shirley, is that right?"),
               ("user", correction))
    assert active(mem, "address") == ["Heathrow International Airport"]
    assert "Shirley" in active(mem, "names")
    where = said(("user", "What is the address of Blue Bottle Coffee?"))
    assert active(where, "address") == []  # asks where it is: no address said


def test_a_chinese_category_replaces_the_one_of_its_kind() -> None:
    """A type before a kind word (经济型酒店, 中式餐厅) is a category about that kind: the
    user's next category of hotel replaces the last, a restaurant's stands beside it."""
    mem = said(("user", "帮我找一家经济型酒店，再找一家中式餐厅。"),
               ("assistant", "好的，请问还有别的要求吗？"),
               ("user", "酒店还是换成舒适型的酒店吧。"))
    assert sorted(active(mem, "category")) == ["中式餐厅", "舒适型的酒店"]
    assert {h.value: h.status for h in mem.state.history("category")}["经济型酒店"] \
        == "superseded"


def test_what_is_not_a_change_replaces_nothing() -> None:
    """Another place's time is no reading back; a failure only imagined is none; a kind
    described or added is not sought instead; two places' types stand together."""
    mem = said(("user", "Find me a table for 7 pm."),
               ("assistant", "Chez Panisse has a table at 7 pm and Nopa has one at 9 pm."),
               ("user", "Hmm, make it 8 pm."))
    assert "9 pm" in active(mem, "time")
    mem = said(("user", "Please deliver it on March 5th."),
               ("assistant", "Scheduled for March 5th. If delivery fails, we retry on "
                             "March 6th."))
    assert "March 5th" in active(mem, "date")
    mem = said(("user", "请在3月5日送货。"),
               ("assistant", "已安排3月5日送货，如果送货失败，3月6日会再次配送。"))
    assert "3月5日" in active(mem, "date")
    mem = said(("user", "My car is a Toyota."), ("assistant", "Noted."),
               ("user", "My wife drives a Honda."))
    assert {"Toyota", "Honda"} <= set(active(mem, "names"))
    mem = said(("user", "I'd like a Coke, please."), ("assistant", "Sure."),
               ("user", "I'd like a Sprite for my son too."))
    assert active(mem, "category") == ["Coke"] and "Sprite" in active(mem, "names")
    mem = said(("user", "我想找一家经济型酒店。"), ("assistant", "好的。"),
               ("user", "另外给我父母找一家高档型的酒店。"))
    assert active(mem, "category") == ["经济型酒店"]
    mem = said(("user", "推荐两家酒店吧。"),
               ("assistant", "如家是经济型酒店，价格200元。"),
               ("assistant", "全季是舒适型酒店，价格300元。"))
    assert sorted(active(mem, "category")) == ["经济型酒店", "舒适型酒店"]


@pytest.mark.parametrize("turns, key, left", [
    ([("user", "我想找一家经济型酒店。"), ("assistant", "好的。"), ("user", "改为舒适型酒店。")],
     "category", ["舒适型酒店"]),
    ([("user", "I need a Psychiatrist in Pittsburg."), ("assistant", "Dr. Roe is one."),
      ("user", "That one is too expensive, I need a Psychologist instead.")],
     "category", ["Psychologist"]),
    ([("user", "Book a table at 7 pm."),
      ("assistant", "A table at Chez Panisse at 7:00 pm, is that right?"),
      ("user", "Make it 8 pm.")], "time", ["8 pm"]),
    ([("user", "Can you book a table at Chez Panisse for tomorrow?")], "date", ["tomorrow"]),
    ([("user", "请帮我预订3月5日的房间。"),
      ("assistant", "已为您预订3月5日。如果预订失败，我们会改订3月6日。")],
     "date", ["3月5日", "3月6日"]),
    ([("user", "I need to tell you my car is a Toyota."), ("assistant", "Noted."),
      ("user", "I want you to know my wife drives a Honda.")], "category", []),
])
def test_a_change_is_read_by_its_grammar(turns, key, left) -> None:
    assert active(said(*turns), key) == left


@pytest.mark.parametrize("turns, kept, gone", [
    ([("assistant", "I can book you on Monday at 9am."),
      ("user", "Monday is bad. Wednesday at 1pm works.")], ["Wednesday"], "Monday"),
    ([("assistant", "可以给您安排周一上午9点"), ("user", "周一不行，下周三下午两点可以")],
     ["下周三"], "周一"),
    ([("user", "Not Monday, Tuesday please.")], ["Tuesday"], "Monday"),
    ([("user", "周一没空，周二吧")], ["周二"], "周一"),
    ([("user", "下周三不行，周三可以")], ["周三"], "下周三"),  # where each stands
    ([("assistant", "I can do Monday."), ("user", "Sorry, not on Monday. Tuesday works.")],
     ["Tuesday"], "Monday"),
    ([("user", "Monday is not taken yet, so Monday please.")], ["Monday"], None),
    ([("user", "My flight on Friday is booked, so please deliver before Thursday.")],
     ["Friday", "Thursday"], None),  # a booking confirmed turns nothing down
    ([("user", "I'm away, I can't receive it, not until Friday.")], ["Friday"], None),
    # what a negated verb governs is still the value said
    ([("user", "Friday please."), ("user", "I don't need it until Friday.")], ["Friday"],
     None),
])
def test_a_value_the_user_turns_down_is_not_theirs_and_goes(turns, kept, gone) -> None:
    mem = said(*turns)
    assert active(mem, "date") == kept
    if gone is not None:
        assert all(h.status == "superseded" for h in mem.state.history("date")
                   if h.value == gone)


@pytest.mark.parametrize("turns, key, mine", [
    ([("user", "My email is a.b@x.com."), ("user", "Please also cc my assistant at c.d@x.com.")],
     "email", "a.b@x.com"),
    ([("user", "My number is 415-555-0100."), ("user", "My wife's number is 415-555-0111.")],
     "phone", "415-555-0100"),
    ([("user", "我的电话是13811112222"), ("user", "我老婆的电话是13933334444")],
     "phone", "13811112222"),
])
def test_someone_elses_contact_replaces_none_of_the_users(turns, key, mine) -> None:
    """A contact the user gives for someone they name ("my assistant", 我老婆) is about
    that one: the user's own stays, and the profile never takes the other's."""
    mem = said(*turns)
    assert len(active(mem, key)) == 2
    own = [a for a in mem.state.active_anchors() if a.key == key and not a.subject]
    assert [a.value for a in own] == [mine]
    # the user's own, whatever words they put before it
    for text in ("不对，我现在的手机号是13912345678", "my cellphone is 415-555-0199",
                 "My gmail is kim@gmail.com", "Hi, my company's phone is 415-555-0100",
                 "My account's email is kim@example.com"):
        assert [a.subject for a in said(("user", text)).state.active_anchors()
                if a.kind in ("phone", "email")] == [None], text


@pytest.mark.parametrize("turns, kept", [
    ([("user", "I'm on the Unlimited Starter plan with the Gold membership."),
      ("user", "Please move me to the Unlimited Elite plan instead.")],
     ["Gold membership", "Unlimited Elite plan"]),
    ([("user", "我现在是300M宽带"), ("user", "帮我升级成1000M宽带")], ["1000M宽带"]),
    ([("user", "我办了畅享套餐"), ("user", "5G流量包多少钱？")], ["5G流量包", "畅享套餐"]),
])
def test_a_change_of_product_replaces_the_one_of_its_kind(turns, kept) -> None:
    assert sorted(active(said(*turns), "product")) == kept


@pytest.mark.parametrize("mine, said_now", [
    ("I'm on the Unlimited Starter plan.",
     "How much would it cost to upgrade to the Unlimited Elite plan?"),
    ("I'm on the Unlimited Starter plan.",
     "No, I don't want to switch to the Unlimited Elite plan."),
    ("I'm on the Basic plan.", "If I upgrade to the Gold plan, will I lose my data?"),
    ("I'm on the Basic plan.",
     "My son wants to switch to the Unlimited Elite plan, but I'll keep mine."),
    ("我现在用的是畅享套餐", "升级到尊享套餐要多少钱？"),
    ("我现在用的是畅享套餐", "我不想换成尊享套餐"),
    ("我现在是100M宽带", "我同事升级成1000M宽带了，我先不升级"),
    ("我现在是100M宽带", "如果升级成1000M宽带，每个月多少钱？"),
])
def test_a_change_not_asked_for_now_replaces_nothing(mine, said_now) -> None:
    """A question, a refusal, a condition or a third party's change: both stay."""
    assert len(active(said(("user", mine), ("user", said_now)), "product")) == 2
