"""Replaced values are superseded for the same thing, in the state, its block and
``active_anchors()``; the old one stays in history (zh and en)."""

from __future__ import annotations

import pytest

from convstate import ConversationMemory, InMemoryStore
from convstate.extract.names import find_names
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


def test_the_users_changes_are_not_crowded_out_by_read_backs() -> None:
    """The block shows a key's newest replaced values from each speaker: the assistant
    reading back every change does not push the user's own earlier ones out."""
    turns = []
    for time, said_back in (("9am", "9:00 am"), ("10am", "10:00 am"), ("11am", "11:00 am"),
                            ("2pm", "2:00 pm"), ("3pm", "3:00 pm")):
        turns += [("user", f"Actually, make it {time}."),
                  ("assistant", f"Please confirm: an appointment at {said_back}?")]
    block = said(*turns).render("text")
    for time in ("9am", "10am", "11am", "2pm"):  # the user's own, under the newest
        assert f'"{time}"' in block, time


def test_values_said_in_one_turn_stand_together() -> None:
    mem = said(("user", "I can come in on March 3rd or March 5th."))
    assert active(mem, "date") == ["March 3rd", "March 5th"]
    mem = said(("user", "I need a hotel from March 3rd to March 5th."))  # a start, an end
    assert active(mem, "date") == ["March 3rd"] and active(mem, "until") == ["March 5th"]
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
    # a failure told with a contraction ("wasn't able to")
    ([("user", "Ideally I'd leave at 7:15 in the morning."),
      ("assistant", "I wasn't able to get those exact tickets - I've found a 7:20 am bus."),
      ("user", "That seems okay for me.")], "time", ["7:20 am"], "7:15 in the morning"),
    # ... or told by the nearest that can be had
    ([("user", "We would like to leave Washington at 07:15."),
      ("assistant", "The best I can do is 7:10 am for $30."), ("user", "That will be fine.")],
     "time", ["7:10 am"], "07:15"),
    ([("user", "Can I see the dentist on Monday?"),
      ("assistant", "The closest slot we have is Friday at 9 am."), ("user", "OK.")],
     "date", ["Friday"], "Monday"),
])
def test_a_proposal_made_instead_replaces_what_it_does_not_satisfy(turns, key, left, gone
                                                                   ) -> None:
    mem = said(*turns)
    assert active(mem, key) == left
    assert any(h.value == gone and h.status == "superseded"
               for h in mem.state.history(key))


@pytest.mark.parametrize("turns, key, left", [
    ([("user", "No, the appointment time should be in the morning 11:30."),
      ("assistant", "Please confirm an appointment at 11:30 am with Dr. Nangia."),
      ("user", "Yes, that is correct."),
      ("assistant", "Unfortunately I was not able to make an appointment at 11:30 am with "
                    "Dr. Nangia. Would you like me to try 11 am?"),
      ("user", "Yes, that would work for me.")], "time", ["11 am"]),
    ([("user", "Please change the appointment to a quarter to 6 in the evening."),
      ("assistant", "Please confirm you would like a 5:45 pm appointment on March 1st."),
      ("user", "Yes. Is this a unisex salon?"),
      ("assistant", "Yes, it is. Unfortunately I was not able to make the appointment on "
                    "March 1st. Would you like me to try a 5:30 pm appointment?"),
      ("user", "That would be great.")], "time", ["5:30 pm"]),
    # read back later than right after the request, the same time
    ([("user", "I'll be leaving out of Sacramento. I would prefer a bus leaving at 12:45 pm."),
      ("assistant", "What day will you be departing on?"),
      ("user", "This Saturday."),
      ("assistant", "Please confirm departing Sacramento on March 2nd at 12:45 pm. You "
                    "will be arriving in San Diego."),
      ("user", "Yes, that's right. Find out which stations I will be departing from."),
      ("assistant", "I was unable to book your request. I do show another bus leaving at "
                    "12:50 pm, the ticket would be $74! The origin station would be "
                    "Sacramento Valley Station."),
      ("user", "Yeah, go ahead and book that.")], "time", ["12:50 pm"]),
    # the failed time said back in fewer words (晚上7点, then 7点已经满了)
    ([("user", "我想订周五晚上7点的位子。"), ("assistant", "7点已经满了，8点可以吗？"),
      ("user", "8点吧。")], "time", ["8点"]),
    # ... but not in the other half of the day
    ([("user", "我想订周五早上8点的位子。"),
      ("assistant", "抱歉，早上8点没有位子了，晚上8点还有。")], "time", ["晚上8点"]),
    ([("user", "这家店的评分是4分以上的么？"),
      ("assistant", "不好意思，不是哦，老萨烤羊的评分是3.5分，附近的餐馆里面我也没有找到评分是"
                    "4分以上的。")], "rating", ["3.5分"]),
])
def test_what_failed_goes_with_the_request(turns, key, left) -> None:
    """The assistant's reading back of a request that then fails, and the failed value
    it says back beside what it proposes instead, are no live values."""
    mem = said(*turns)
    assert active(mem, key) == left
    # what it said in answer, not in reading back, stands ("it is 83元" of another place);
    # what failed is the newest request, an older one of the key (maybe of another
    # thing: a hotel's price beside a restaurant's) is not replaced
    mem = said(("user", "人均消费200元以上的餐馆有吗？"),
               ("assistant", "推荐大鸭梨，人均消费83元。"),
               ("user", "有没有人均消费100-150元的？"),
               ("assistant", "抱歉找不到这样的餐馆，推荐鱼大厨美食城，人均消费61元。"))
    assert sorted(active(mem, "amount")) == ["200元以上", "61元", "83元"]


@pytest.mark.parametrize("reply, times, task", [
    ("I don't think so.", ["13:15"], "done"),  # turned down: the request stands
    ("Nope, that's not good.", ["13:15"], "done"),
    ("Yes, please.", ["1:30 PM"], "done"),
    ("Sure, what's their address?", ["1:30 PM"], "done"),
    (None, ["13:15", "1:30 PM"], "open"),  # not answered yet: the user's to take
])
def test_an_offer_put_to_the_user_is_settled_by_their_answer(reply, times, task) -> None:
    """An offer the assistant asks the user to take ("Would you like me to try ...?",
    您能接受么？) is an open task of the user's; their answer closes it and settles what
    it proposed: taken, it replaces the request; turned down, it goes with nothing
    instead and the request stands (what failed is still what they asked for)."""
    turns = [("user", "Please try to book it again at 13:15."),
             ("assistant", "Confirming a table for 1 at House of Curries at 1:15 PM today."),
             ("user", "That sounds good."),
             ("assistant", "I was unable to book that for you. Would you like me to try a "
                           "reservation for 1 person today at 1:30 PM?")]
    mem = said(*turns, *([("user", reply)] if reply else []))
    assert active(mem, "time") == times
    offer = [t for t in mem.state.open_tasks if t.text.startswith("Would you like")]
    assert [(t.owner, t.status) for t in offer] == [("user", task)]
    # in Chinese, and an offer made without a failure
    offer = ("assistant", "推荐您去朝阳公园，但评分是4.4分，您能接受么？")
    mem = said(("user", "推荐一个评分5分的景点。"), offer, ("user", "不用了，谢谢。"))
    assert active(mem, "rating") == ["5分"]
    mem = said(("user", "推荐一个评分5分的景点。"), offer, ("user", "可以，地址在哪里？"))
    assert active(mem, "rating") == ["4.4分"]
    # only what the offer's turn proposed goes: not an earlier goal's value, not a fact
    mem = said(("user", "帮我找一个最低价格是300-400元的酒店。"),
               ("assistant", "推荐锦江之星，价格351元。"),
               ("user", "周边的餐馆哪家人均消费是150-500元的呢？"),
               ("assistant", "全聚德烤鸭店人均消费137元，你看可以吗？"), ("user", "可以。"))
    assert sorted(active(mem, "amount")) == ["137元", "300-400元", "351元"]


@pytest.mark.parametrize("reply, left", [
    ("No problem, go ahead.", ["4 pm"]),
    ("Yes please, 3 was too early anyway.", ["4 pm"]),  # read by how it opens
    ("What other times do you have?", ["3 pm", "4 pm"]),  # another asked for: not yet
    ("Let me check with my wife first.", ["3 pm", "4 pm"]),  # put off
    ("I'll think about it.", ["3 pm", "4 pm"]),
    ("我再想想", ["3 pm", "4 pm"]),
    ("No thanks.", ["3 pm"]),
    ("I can't do 4 pm.", ["3 pm"]),  # turned down by naming it
    ("4 pm is too late.", ["3 pm"]),
])
def test_a_reply_to_an_offer_is_read_by_how_it_opens(reply, left) -> None:
    mem = said(("user", "Can I book at 3 pm?"),
               ("assistant", "Sorry, 3 pm is taken. Would 4 pm work?"), ("user", reply))
    assert active(mem, "time") == left
    # an offer whose question refers back to the sentence before: the same
    mem = said(("user", "Can I book at 3 pm?"),
               ("assistant", "Sorry, 3 pm is taken. The next opening is 4 pm. Would that "
                             "work?"), ("user", reply))
    assert active(mem, "time") == left


@pytest.mark.parametrize("turns, key, left", [
    # "no" to a question that offers no value instead of one asked for drops nothing
    ([("user", "I'd like a table at 7 pm on Friday."),
      ("assistant", "Your table is booked for 7 pm on Friday. Do you want anything else?"),
      ("user", "No, thanks.")], "time", ["7 pm"]),
    ([("user", "我的订单什么时候到？"),
      ("assistant", "您的订单金额是299元，预计3月5日送达，需要我帮您取消吗？"),
      ("user", "不用了，谢谢。")], "date", ["3月5日"]),
    # the user asking about a value the assistant gave does not take it
    ([("user", "I'd like a table at 7 pm on Friday."),
      ("assistant", "Note that the kitchen closes at 9 pm."),
      ("user", "Is the bar still open after 9 pm?")], "time", ["7 pm", "9 pm"]),
    # an amount the user reports is no bound an answer replaces
    ([("user", "I was charged $59.99 for the order."),
      ("assistant", "That is $54.99 plus $5 shipping."),
      ("user", "OK, can you refund the shipping?")], "amount", ["$59.99", "$5", "$54.99"]),
    # an offer of no value: a receipt, a transfer (the values beside it are no offer)
    ([("user", "I'd like Friday at 3 pm."),
      ("assistant", "You're booked for Friday at 3:00 pm, would you like a receipt by email?"),
      ("user", "No, that's all.")], "time", ["3 pm", "3:00 pm"]),
    ([("user", "My package was supposed to arrive Monday."),
      ("assistant", "It is now scheduled for Wednesday, do you want me to transfer you to "
                    "the carrier?"), ("user", "No, that's fine.")], "date",
     ["Monday", "Wednesday"]),
    # what the offer's question does not hold is not offered
    ([("user", "Can I book at 7 pm?"),
      ("assistant", "Sorry, 7 pm is taken. Would 8 pm work? Just so you know, the kitchen "
                    "closes at 9 pm."), ("user", "No thanks.")], "time", ["7 pm", "9 pm"]),
    ([("user", "Can I book at 7 pm?"),
      ("assistant", "Sorry, 7 pm is taken. Would 8 pm work? Just so you know, the kitchen "
                    "closes at 9 pm."), ("user", "Yes, that works.")], "time",
     ["8 pm", "9 pm"]),
    # an add-on taken is no other plan
    ([("user", "I'd like to sign up for the Unlimited Basic plan."),
      ("assistant", "Would you like to add the Sports Pass add-on for $10 a month?"),
      ("user", "Sure, why not.")], "product", ["Unlimited Basic plan", "Sports Pass add-on"]),
    # a value turned down in a question or a condition is still theirs
    ([("user", "Please book the technician for Monday."), ("assistant", "Done, Monday it is."),
      ("user", "If Monday is bad for the technician, let me know.")], "date", ["Monday"]),
    ([("user", "请帮我约周一上门。"), ("assistant", "好的，周一。"), ("user", "周一不行吗？")],
     "date", ["周一"]),
    ([("user", "请帮我约周一上门。"), ("assistant", "好的，周一。"),
      ("user", "如果周一不行，请提前告诉我。")], "date", ["周一"]),
])
def test_only_what_was_offered_instead_is_settled(turns, key, left) -> None:
    assert active(said(*turns), key) == left


def test_every_value_of_an_offer_turned_down_is_replaced_by_none() -> None:
    mem = said(("user", "Can I book at 7 pm?"),
               ("assistant", "Sorry, 7 pm is taken. Would 8 pm or 9 pm work?"),
               ("user", "No, thanks."))
    assert active(mem, "time") == ["7 pm"]
    assert [(a.value, a.superseded_by) for a in mem.state.anchors
            if a.status == "superseded"] == [("8 pm", None), ("9 pm", None)]


@pytest.mark.parametrize("reply, left", [
    ("8 pm works.", ["8 pm"]),  # one of two taken by saying it: the other goes
    ("Let's do 9 pm then.", ["9 pm"]),
    ("No, make it 9 pm.", ["9 pm"]),  # "No" with the one wanted: not turned down
    ("I can't do 9 pm.", ["7 pm"]),  # turned down, both: the request stands
    ("No, 9 pm is too late.", ["7 pm"]),  # found wanting: turned down
    ("8 pm is too late. 9 pm works.", ["9 pm"]),  # one found wanting, the other taken
    # asked about, or taken along with the other: not picked
    ("Is 9 pm the last seating?", ["8 pm", "9 pm"]),
    ("9 pm? No way.", ["8 pm", "9 pm"]),
    ("I'd prefer 9 pm, but 8 pm is ok too.", ["8 pm", "9 pm"]),
])
def test_one_of_several_offered_values_is_taken_by_saying_it(reply, left) -> None:
    mem = said(("user", "Can I book at 7 pm?"),
               ("assistant", "Sorry, 7 pm is taken. Would 8 pm or 9 pm work?"),
               ("user", reply))
    assert active(mem, "time") == left
    zh = said(("user", "我想订周五晚上7点的位子。"),
              ("assistant", "7点已经满了，6点或者8点可以吗？"), ("user", "8点吧。"))
    assert active(zh, "time") == ["8点"]


@pytest.mark.parametrize("turns, left", [
    ([("user", "Book a table for Saturday at 12 pm."), ("assistant", "We have a table at 6 pm."),
      ("user", "Change it to 6 pm please.")], ["6 pm"]),
    ([("user", "Book a table for Saturday at 7 pm."),
      ("assistant", "We have tables at 6 pm and 8 pm."), ("user", "I'll take 8 pm.")], ["8 pm"]),
    ([("user", "周六中午12点订个包间"), ("assistant", "周六晚上6点有包间"),
      ("user", "行，就周六晚上6点")], ["晚上6点"]),
    # turned down or asked about: not taken (turned down, it goes)
    ([("user", "Book a table for Saturday at 7 pm."),
      ("assistant", "We have tables at 6 pm and 8 pm."), ("user", "I can't do 8 pm.")],
     ["7 pm", "6 pm"]),
    ([("user", "Book a table for Saturday at 7 pm."),
      ("assistant", "We have tables at 6 pm and 8 pm."), ("user", "Is 8 pm the last one?")],
     ["7 pm", "6 pm", "8 pm"]),
])
def test_a_value_the_assistant_stated_is_taken_by_saying_it(turns, left) -> None:
    """Not put as a question ("We have a table at 6 pm."), an offer is taken all the same
    when the user says its value plainly: the user's older request goes, and the other
    values stated with it."""
    mem = said(*turns)
    assert active(mem, "time") == left
    assert mem.state.anchor("time").value == left[0]


def test_a_rating_asked_for_is_the_least_wanted() -> None:
    """A rating asked for ("评分是5分") is a bound from below: a lower one found and agreed
    to takes it. A date or time asked for is no bound: agreeing to its reading back
    replaces nothing."""
    mem = said(("user", "我希望餐厅的评分是5分，这家店合适么？"),
               ("assistant", "这家店的评分为4分，请您考虑一下哦。"),
               ("user", "好吧，那麻烦您发一下这家店的地址给我吧。"))
    assert active(mem, "rating") == ["4分"]
    mem = said(("user", "Make it in the morning 11:30."),
               ("assistant", "Please confirm an appointment at 11:30 am."),
               ("user", "Yes, that is correct."))
    assert {h.value: h.status for h in mem.state.history("time")}["morning 11:30"] == "active"


def test_a_best_thing_the_assistant_has_is_no_failure() -> None:
    mem = said(("user", "Can I book the 7 pm tour on Friday?"),
               ("assistant", "Yes! Booked for Friday at 7 pm. The best guides we have lead it; "
                             "tours also run Saturday at 10 am."))
    assert "7 pm" in active(mem, "time") and "Friday" in active(mem, "date")


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


def test_a_kind_sought_by_any_verb_of_seeking_is_a_category() -> None:
    mem = said(("user", "I am seeking a General Practitioner in San Mateo."),
               ("assistant", "Dr. Paley is a General Practitioner in San Mateo."),
               ("user", "Who else is there? Try searching for a Gynecologist in Walnut Creek."))
    assert active(mem, "category") == ["Gynecologist"]
    mem = said(("user", "I'm interested in a Psychiatrist near Oakland."))
    assert active(mem, "category") == ["Psychiatrist"]


def test_a_new_search_inside_a_place_replaces_the_old_one() -> None:
    mem = said(("user", "Find diners in San Jose."),
               ("user", "Get diners inside Morgan Hill that offer pasta."))
    assert active(mem, "place") == ["Morgan Hill"]


@pytest.mark.parametrize("turns, mine, misread", [
    ([("user", "My order number is SR-778812."),
      ("assistant", "I have order SR-778821. Is that correct?"), ("user", "No, it's SR-778812.")],
     "SR-778812", "SR-778821"),
    ([("user", "我的订单号是DD20240511。"), ("assistant", "您的订单号是DD20240115，对吗？"),
      ("user", "不对，是DD20240511。")], "DD20240511", "DD20240115"),
])
def test_a_bare_id_corrects_a_misread_one(turns, mine, misread) -> None:
    """The bare id of a correction right after the assistant read an id back is the
    user's and replaces the misread one (a reply that agrees takes none: test_kinds)."""
    mem = said(*turns)
    assert active(mem, "order_id") == [mine]
    assert {h.value: h.status for h in mem.state.history("order_id")}[misread] == "superseded"


def test_a_bare_address_corrects_the_one_read_back() -> None:
    """An address read back as the user said it is the user's: "不对，是…" corrects it."""
    mem = said(("user", "寄到杭州市西湖区文三路90号。"),
               ("assistant", "好的，地址是杭州市西湖区文三路90号，对吗？"),
               ("user", "不对，是杭州市西湖区文三路98号。"))
    assert active(mem, "address") == ["杭州市西湖区文三路98号"]
    assert not mem.state.history("names")  # (no place name inside it)
    mem = said(("user", "寄到杭州市西湖区文三路90号。"),
               ("assistant", "好的，地址是杭州市西湖区文三路90号，对吗？"), ("user", "是的。"))
    assert active(mem, "address") == ["杭州市西湖区文三路90号"]


def test_an_address_said_shorter_is_the_same_address() -> None:
    """"No, it's 42 Maple Street." after the street was misread keeps the whole address
    the user gave (its town, state and ZIP code); another street replaces it."""
    mem = said(("user", "Ship it to 42 Maple Street, Springfield, IL 62704."),
               ("assistant", "Shipping to 24 Maple Street, Springfield, IL 62704."),
               ("user", "No, it's 42 Maple Street."))
    assert mem.state.anchor("address").value == "42 Maple Street, Springfield, IL 62704"
    assert active(mem, "address") == ["42 Maple Street, Springfield, IL 62704"]
    mem = said(("user", "Ship it to 42 Maple Street, Springfield, IL 62704."),
               ("assistant", "OK."), ("user", "Actually ship it to 100 Main Street."))
    assert active(mem, "address") == ["100 Main Street"]


def test_a_place_with_its_region_code_is_one_name() -> None:
    """"Seattle, WA" is one place (a name, a comma, a two-letter region code), so the
    value a later search replaces is the whole of it; a code that is a word ("OK", "IT")
    ends no name."""
    mem = said(("user", "Are there any events on March 7th in Seattle, WA?"),
               ("assistant", "Which kind of event?"),
               ("user", "Actually, look in Vancouver, BC instead."))
    assert {h.value: h.status for h in mem.state.history("place")} \
        == {"Seattle, WA": "superseded", "Vancouver, BC": "active"}
    assert [t[s:e] for t in ["Thanks John, OK I will."] for s, e in find_names(t)] \
        == ["John"]


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


def test_an_offer_is_taken_when_the_reply_said_the_bound_back_beside_it() -> None:
    """The bound said back (在200-300元的价位酒店里无…) is no offer that meets it; said back
    and nothing else offered, it stays."""
    asked = ("user", "帮我找个价格在200-300元、有室内游泳池的酒店。")
    offer = ("assistant", "在200-300元的价位酒店里无室内游泳池提供，"
                          "查询后北京华尔顿酒店价格是330元，然后此酒店有室内游泳池。")
    mem = said(asked, offer, ("user", "行这个价格，它周边有什么景点？"))
    assert active(mem, "amount") == ["330元"]
    assert any(h.value == "200-300元" and h.status == "superseded"
               for h in mem.state.history("amount"))
    mem = said(("user", "帮我找一个评分5分的景点。"), ("assistant", "故宫的评分是5分。"),
               ("user", "好的，就去这里吧。"))
    assert [h.status for h in mem.state.history("rating")] == ["active"] * 2


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
    or a cheaper one is no taking, and the bound asked for stands."""
    mem = said(("user", "这个餐馆的人均消费是50元以下吗？"),
               ("assistant", "不是的，人均消费是137元。"), ("user", reply))
    assert sorted(active(mem, "amount")) == amounts


@pytest.mark.parametrize("reply, ratings", [
    ("请告诉我口福居的地址。", ["4分"]),  # asked about by its name: taken
    ("口福居几点开门？", ["4分"]),
    ("口福居是不是很贵？", ["4分", "5分"]),  # asks for no detail of it: not taken
    ("口福居为什么评分这么低？", ["4分", "5分"]),
    ("口福居附近有没有别的火锅店？", ["4分", "5分"]),  # another one near it: not taken
    ("口福居附近还有哪些火锅店？", ["4分", "5分"]),
    ("口福居太远了，有别的吗？", ["4分", "5分"]),  # found wanting
    ("好吧。我还想找个景点。", ["4分"]),
])
def test_an_offer_asked_about_by_its_name_is_taken(reply, ratings) -> None:
    mem = said(("assistant", "为您推荐口福居，您可以去他家品尝特色火锅。"),
               ("user", "口福居的评分是5分吗？"), ("assistant", "口福居的评分是4分。"),
               ("user", reply))
    assert sorted(active(mem, "rating")) == ratings


@pytest.mark.parametrize("turns, budget, amounts", [
    ([("user", "I need a hotel under $100 a night."),
      ("assistant", "Sorry, nothing under $100. The Inn is $120 a night.")],
     "superseded", ["$120"]),
    ([("user", "My budget is $80."),
      ("assistant", "The cheapest plan is $95 a month. Would that work?"),
      ("user", "Yes, that works.")], "superseded", ["$95"]),
    ([("user", "预算不超过500元"), ("assistant", "抱歉，没有500元以下的，这款是650元。")],
     "superseded", ["650元"]),
    ([("user", "Find me a plan for at most $50 a month."),
      ("assistant", "The Basic plan is $45 a month."), ("user", "Great, what's included?")],
     "active", ["$45"]),  # met: still what the user asked for
    ([("user", "My budget is $80."),
      ("assistant", "The cheapest plan is $95 a month. Would that work?"),
      ("user", "That's too expensive.")], "active", []),  # turned down: the offer goes
    # turned down: the budget stands and the offer goes
    ([("user", "I need a plan for no more than $80 a month."),
      ("assistant", "Sorry, nothing under $80. The cheapest is $95 a month, would you like "
                    "the $95 one?"), ("user", "No thanks, that's too much.")], "active", []),
    ([("user", "预算500元以内，帮我找个酒店。"),
      ("assistant", "没有500元以下的，最便宜的是汉庭酒店，每晚560元，要不要帮您预订？"),
      ("user", "太贵了。")], "active", []),
    ([("user", "我想买个电饭煲，预算300元以内。"),
      ("assistant", "这款电饭煲售价399元，要不要帮您下单？"), ("user", "不用了")], "active", []),
])
def test_a_budget_is_a_bound_on_the_amounts_offered(turns, budget, amounts) -> None:
    """A budget ("under $100", "no more than $80", 预算不超过500元) bounds the amounts
    offered from above: one beyond it, proposed instead or agreed to, replaces it; the
    bound said back (没有500元以下的) is no offer."""
    mem = said(*turns)
    assert [h.status for h in mem.state.history("budget")] == [budget]
    assert active(mem, "amount") == amounts


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
    # ... and the day said of the thing talked of: its day
    for change, day in (("No, make it later today.", "later today"),
                        ("Sorry, it's for tomorrow.", "tomorrow"),
                        ("Actually, can we do it tomorrow instead?", "tomorrow"),
                        ("The booking is for today, please.", "today")):
        mem = said(("user", "I need a bus on the 9th of this month."),
                   ("assistant", "A bus on March 9th?"), ("user", change))
        assert active(mem, "date") == [day], change
    for passing in ("The parcel arrived today, broken.", "It came today.",
                    "Thanks for today, see you then.", "I was charged twice for today’s order.",
                    "It's today’s order I mean.", "I won't have them tomorrow, still in the mail.",
                    "The parcel was due yesterday and it's today already!",
                    "It is tonight that the noise started."):
        assert active(said(("user", passing)), "date") == [], passing
    # ... in Chinese, the day a change or a booking goes to; not a day told in passing
    mem = said(("assistant", "维修工程师会在今天下午6点前上门检查。"),
               ("user", "改成明天上午吧，今天下午家里没人。"))
    assert active(mem, "date") == ["明天"]
    for asked in ("可以改到明天下午吗？", "帮我改成明天好吗", "改成明天也行", "改成明天 谢谢"):
        assert active(said(("user", asked)), "date") == ["明天"], asked
    for passing in ("今天到货了", "明天上午可以吗", "我明天再打过来", "不要改成明天",
                    "别改到明天", "不改到明天了", "改成明天的话会不会更贵？",
                    "换成明天到货的那款", "推到明天再说吧", "把地址改成明天能收到的公司地址"):
        assert active(said(("user", passing)), "date") == [], passing
    # a day said with a time is the day of it
    for text, day in (("Can I get a table for two tomorrow at 7 pm?", "tomorrow"),
                      ("Book it for 4 pm tomorrow.", "tomorrow"),
                      ("I need a cab at 2 pm today.", "today"),
                      ("帮我约明天下午三点的保洁", "明天"), ("帮我订明天上午10点的洗车", "明天")):
        assert active(said(("user", text)), "date") == [day], text


@pytest.mark.parametrize("turns, key, value", [
    ([("user", "Hi, can I book a haircut for Friday at 3 pm?"),
      ("assistant", "Sorry, 3 pm is taken. Would 4 pm work?"), ("user", "Yes, 4 pm is fine.")],
     "time", "4 pm"),
    ([("user", "Book me for Monday."), ("assistant", "Monday is full. How about Wednesday?"),
      ("user", "OK, Wednesday then.")], "date", "Wednesday"),
    ([("user", "我想约周三。"), ("assistant", "周三满了，周四可以吗？"),
      ("user", "行，那就周四。")], "date", "周四"),
])
def test_the_user_saying_an_offered_value_takes_it_as_theirs(turns, key, value) -> None:
    """A value the assistant proposed that the user says again is the user's: it replaces
    their request (``anchor()`` gives it, not the slot that was taken)."""
    mem = said(*turns)
    assert active(mem, key) == [value]
    anchor = mem.state.anchor(key)
    assert anchor is not None and anchor.value == value


def test_an_address_ends_where_the_sentence_goes_on() -> None:
    mem = said(("user", "Share the address 255 North 1st Street with Nicole."))
    assert active(mem, "address") == ["255 North 1st Street"]
    assert "Nicole" in active(mem, "names")


@pytest.mark.parametrize("correction", [
    "No, the address is Heathrow International Airport.",
    "I made a mistake. The location to share is Heathrow International Airport.",
    "No, I want to share the address of Heathrow International Airport.",
    "No, I am actually sharing the address Heathrow International Airport.",
])
def test_a_name_said_to_be_the_address_corrects_the_address_said_back(correction) -> None:
    """A name after "the address/location ... is" is in the address role: the correction
    replaces the address read back (and the user's own equal one), not the contact."""
    mem = said(("user", "Share 2180 Third Street with Shirley."),
               ("assistant", "You want to share 2180 Third Street with Shirley, is that right?"),
               ("user", correction))
    assert active(mem, "address") == ["Heathrow International Airport"]
    assert "Shirley" in active(mem, "names")
    for asked in ("What is the address of Blue Bottle Coffee?",
                  "Can you send me the address of Blue Bottle Coffee?"):
        assert active(said(("user", asked)), "address") == []  # asks where it is


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
    # a typo owned up to corrects what was said back
    ([("user", "My order number is AB-55821-77 and it still hasn't shipped."),
      ("assistant", "I can't find any order AB-55821-77, could you double-check it?"),
      ("user", "Oops, typo on my end, it's AB-55812-77.")], "order_id", ["AB-55812-77"]),
    ([("user", "My order number is AB-55821-77."),
      ("assistant", "I can't find order AB-55821-77."),
      ("user", "Sorry, it's AB-55812-77.")], "order_id", ["AB-55812-77"]),
    # ... but "sorry" or a filler before another order corrects nothing
    ([("user", "My order number is AB-55821-77."),
      ("assistant", "I can't find order AB-55821-77."),
      ("user", "Sorry, it's been two weeks, and order AB-55812-78 hasn't arrived either.")],
     "order_id", ["AB-55821-77", "AB-55812-78"]),
    ([("user", "My order number is AB-55821-77."),
      ("assistant", "I can't find order AB-55821-77."),
      ("user", "I mean, order AB-55812-78 is late as well.")],
     "order_id", ["AB-55821-77", "AB-55812-78"]),
    # the way back is an end: the outbound date stands
    ([("user", "Please book my outbound flight to Lisbon on May 1st."),
      ("assistant", "Okay. And when do you fly back?"),
      ("user", "The return flight should be on May 6th.")], "date", ["May 1st"]),
    ([("user", "帮我订机票，去程5月1日，北京飞成都。"), ("assistant", "好的，请问回程是哪天？"),
      ("user", "回程5月6日。")], "date", ["5月1日"]),
    ([("user", "帮我订机票，5月1日出发。"), ("assistant", "好的，哪天回来？"),
      ("user", "5月6日回来。")], "until", ["5月6日"]),
    # a count with another value between its measure word and what it counts
    ([("user", "帮我订两张周六晚上的话剧票。"), ("assistant", "好的。"), ("user", "改成三张吧。")],
     "tickets", ["三张"]),
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
    # turned down in a clause before a question (the question is the last clause's)
    ([("user", "改签到下周五"), ("assistant", "下周五满了，下周六可以吗？"),
      ("user", "周六不行，周四呢？")], ["周四"], "周六"),
    ([("user", "Move it to Friday."), ("assistant", "Friday is full, is Saturday ok?"),
      ("user", "Saturday doesn't work, what about Thursday?")], ["Thursday"], "Saturday"),
    # a verb of managing it, negated ("I can't do Friday"), not a "no" before a request
    ([("user", "Friday works for me for the installation."), ("assistant", "Great, Friday it is."),
      ("user", "Scratch that, I can't do Friday. Saturday is good.")], ["Saturday"], "Friday"),
    ([("user", "Book it for the 11th of March."), ("assistant", "March 11th, confirmed?"),
      ("user", "No actually make it for the 12th of this month instead.")],
     ["12th of this month"], "11th of March"),
    # what someone could not manage before turns nothing down
    ([("user", "Please book the installation for Friday."), ("assistant", "OK."),
      ("user", "Your technician couldn't make it on Friday last time, so please make sure "
               "he comes.")], ["Friday"], None),
])
def test_a_value_the_user_turns_down_is_not_theirs_and_goes(turns, kept, gone) -> None:
    mem = said(*turns)
    assert active(mem, "date") == kept
    if gone is not None:
        assert all(h.status == "superseded" for h in mem.state.history("date")
                   if h.value == gone)


@pytest.mark.parametrize("turns, left", [
    ([("user", "Book me for 9 am."), ("assistant", "OK."),
      ("user", "9 am is too early for the technician, isn't it?")], ["9 am"]),
    # a value stated that the reply takes note of, or says as a bound, is not taken
    ([("user", "Book a haircut for 3 pm."), ("assistant", "Sure, we close at 6 pm."),
      ("user", "I'll be out well before 6 pm.")], ["3 pm", "6 pm"]),
    ([("user", "Book a table for 7 pm."), ("assistant", "The kitchen closes at 9 pm."),
      ("user", "OK, 9 pm, got it.")], ["7 pm", "9 pm"]),
    ([("user", "下午3点理发"), ("assistant", "我们晚上8点关门"), ("user", "好的，晚上8点，知道了")],
     ["下午3点", "晚上8点"]),
])
def test_a_question_or_a_note_takes_and_turns_down_nothing(turns, left) -> None:
    assert active(said(*turns), "time") == left


def test_a_value_found_too_early_or_too_late_is_turned_down() -> None:
    """"7:05 am is too early", 8点太晚了, 300元太贵了: the user's mention is no value of
    theirs."""
    for turns in ([("user", "Book a flight to Denver on Friday morning."),
                   ("assistant", "There is a flight at 7:05 am."),
                   ("user", "7:05 am is too early.")],
                  [("user", "订周五的位子"), ("assistant", "晚上8点可以吗？"),
                   ("user", "8点太晚了")]):
        mem = said(*turns)
        assert not [h for h in mem.state.history("time") if h.speaker == "user"], turns


@pytest.mark.parametrize("turns, left", [
    ([("user", "I'm on the Silver plan."), ("assistant", "OK."),
      ("user", "I want to upgrade from the Silver plan to the Gold plan.")], ["Gold plan"]),
    ([("user", "我想把畅享58元套餐升级成畅享128元套餐。")], ["畅享128元套餐"]),
])
def test_a_plan_upgraded_from_goes(turns, left) -> None:
    assert active(said(*turns), "product") == left


@pytest.mark.parametrize("turns, left", [
    # a product turned down, or one a negated want governs, is no product of theirs
    ([("user", "请帮我办一个5G畅享套餐，不要那个冰激凌套餐。")], ["5G畅享套餐"]),
    ([("user", "I want the Unlimited Plus plan, not the Premium Family plan.")],
     ["Unlimited Plus plan"]),
    ([("user", "I have the Premium Family plan."), ("assistant", "OK."),
      ("user", "I don't want the Premium Family plan anymore.")], []),
    # ... but not one asked about, nor the object of another act (cancelling names the
    # plan cancelled; a negated want of another act keeps it)
    ([("user", "Is the Premium Family plan not available?")], ["Premium Family plan"]),
    ([("user", "I want to cancel my Premium Family plan.")], ["Premium Family plan"]),
    ([("user", "I don't want to cancel the Premium Family plan, just pause it.")],
     ["Premium Family plan"]),
    ([("user", "我不想取消畅享套餐")], ["畅享套餐"]),
    ([("user", "不要动我的畅享套餐")], ["畅享套餐"]),
    # ... nor the one excepted from a negation
    ([("user", "I don't want anything except the Gold plan.")], ["Gold plan"]),
    ([("user", "I want any plan except the Gold plan.")], []),
])
def test_a_plan_turned_down_is_no_plan_of_theirs(turns, left) -> None:
    assert active(said(*turns), "product") == left


def test_no_one_coming_turns_no_date_down() -> None:
    mem = said(("user", "我预约了周一上门维修。"), ("assistant", "好的。"),
               ("user", "结果周一没人来。"))
    assert active(mem, "date") == ["周一"]


def test_a_time_no_one_is_home_for_is_turned_down() -> None:
    for reply in ("改到下午5点吧，3点家里没人。", "3点家里没人，改到下午5点吧。"):
        mem = said(("user", "请安排下午3点送货。"), ("assistant", "好的，下午3点。"),
                   ("user", reply))
        assert active(mem, "time") == ["下午5点"], reply


@pytest.mark.parametrize("turns", [
    [("user", "Can I book a technician visit on Monday?"), ("assistant", "Sure, Monday works."),
     ("user", "Sorry, Monday is bad after all.")],
    [("user", "我想预约周一上门维修。"), ("assistant", "好的，周一可以。"),
     ("user", "不好意思，周一不行了。")],
    [("user", "I'd like to come in on Monday."), ("assistant", "Monday is open."),
     ("user", "Hmm, Monday won't work after all.")],
])
def test_a_value_the_user_takes_back_with_nothing_instead_goes(turns) -> None:
    """Replaced by no value: it leaves the live state, stays in history, and the block
    shows it as replaced."""
    mem = said(*turns)
    assert active(mem, "date") == []
    assert [h.status for h in mem.state.history("date")] == ["superseded"]
    assert any("Monday" in line or "周一" in line for line in mem.render("text").splitlines()
               if "replaced" in line or "已更换" in line)
    # the assistant's value is not the user's to take back ("the 5th is bad for me")
    mem = said(("assistant", "The store is closed on Monday."), ("user", "Monday is bad."))
    assert active(mem, "date") == ["Monday"]


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


@pytest.mark.parametrize("second, about", [
    ("You can also try my work phone, 415-555-0177.", "work"),
    ("My backup number is 415-555-0177.", "backup"),
    ("If I do not pick up, call my alternate number 415-555-0177.", "alternate"),
    ("You can also reach me at 415-555-0177.", "also"),
    ("Or try my home line: 415-555-0177.", "home"),
    ("我的备用手机是13922223333。", "备用"),
    ("打不通的话可以打我另一个号码13922223333。", "另一个"),
    ("我家里座机是021-64381234。", "座机"),
    ("也可以打13922223333。", "也"),
])
def test_another_contact_of_the_users_stands_beside_the_first(second, about) -> None:
    """A second contact the user gives as another of theirs (a work, home, backup or
    alternate one, one they can "also" be reached at) stands beside the first, about what
    the qualifier says: the first stays the one code reads."""
    first = "My number is 415-555-0142." if second.isascii() else "我的手机是13811112222。"
    mem = said(("user", first), ("assistant", "OK."), ("user", second))
    assert len(active(mem, "phone")) == 2
    assert mem.state.anchor("phone").value in first
    assert [a.subject for a in mem.state.active_anchors() if a.key == "phone"] == [None, about]


@pytest.mark.parametrize("change", [
    "Please use 415-555-0177 from now on.", "My new number is 415-555-0177.",
    "Actually, it's 415-555-0177.", "My cell is 415-555-0177.",
    "我换号了，新号码是13922223333。", "不对，是13922223333。",
    # another one of theirs put in the first one's place
    "Please use my other number 415-555-0177 instead.",
    "以后别打这个了，打另一个号码13922223333",
])
def test_a_new_number_of_the_users_replaces_the_old(change) -> None:
    first = "My number is 415-555-0142." if change.isascii() else "我的手机是13811112222。"
    mem = said(("user", first), ("assistant", "OK."), ("user", change))
    assert active(mem, "phone") == [v for v in ("415-555-0177", "13922223333") if v in change]


@pytest.mark.parametrize("first, correction", [
    ("My work phone is 415-555-0100.", "No, it's 415-555-0199."),
    ("我的座机是021-64381234", "不对，是021-64381235"),
])
def test_a_first_contact_with_a_qualifier_is_the_users_and_corrected(first, correction
                                                                     ) -> None:
    """"my work phone" given first is the user's contact, no alternate of another."""
    mem = said(("user", first), ("assistant", "OK."), ("user", correction))
    assert len(active(mem, "phone")) == 1 and mem.state.anchor("phone").value in correction


def test_another_email_cc_d_stands_beside_the_users() -> None:
    mem = said(("user", "My email is ann@x.com."), ("assistant", "OK."),
               ("user", "Please also cc my work email a.b@acme.com."))
    assert sorted(active(mem, "email")) == ["a.b@acme.com", "ann@x.com"]
    assert mem.state.anchor("email").value == "ann@x.com"


@pytest.mark.parametrize("turns, kept", [
    ([("user", "I'm on the Unlimited Starter plan with the Gold membership."),
      ("user", "Please move me to the Unlimited Elite plan instead.")],
     ["Gold membership", "Unlimited Elite plan"]),
    ([("user", "我现在是300M宽带"), ("user", "帮我升级成1000M宽带")], ["1000M宽带"]),
    # the object moved before the verb, a choice made again, a correction's plan
    ([("user", "我现在是畅享199元套餐。"), ("user", "我想把套餐换成畅享129元套餐。")],
     ["畅享129元套餐"]),
    ([("user", "我想办88元套餐。"), ("user", "算了，还是办128元套餐吧。")], ["128元套餐"]),
    ([("user", "I'd like the Silver 20GB plan."),
      ("user", "Actually, the Gold 50GB plan please.")], ["Gold 50GB plan"]),
    ([("user", "I'm on the Gold plan."), ("user", "Hmm, make it the Silver plan.")],
     ["Silver plan"]),
    # asking which, or adding one, switches nothing
    ([("user", "I'm on the Gold plan."),
      ("user", "Is the Silver plan cheaper, or the Gold plan?")], ["Gold plan", "Silver plan"]),
    ([("user", "我办了畅享套餐。"), ("user", "是畅享套餐还是冰激凌套餐便宜？")],
     ["冰激凌套餐", "畅享套餐"]),
    ([("user", "我办了畅享套餐"), ("user", "5G流量包多少钱？")], ["5G流量包", "畅享套餐"]),
    # in one turn: the one it leaves goes (a name of Latin letters, digits and three Han
    # characters is one)
    ([("user", "我现在是畅享套餐，帮我升级成5G畅享199元套餐。")], ["5G畅享199元套餐"]),
    ([("user", "I'm on the Basic plan. I want to upgrade to the Unlimited Plus plan.")],
     ["Unlimited Plus plan"]),
    ([("user", "I'm on the Basic plan. How much is it to upgrade to the Gold plan?")],
     ["Basic plan", "Gold plan"]),
])
def test_a_change_of_product_replaces_the_one_of_its_kind(turns, kept) -> None:
    assert sorted(active(said(*turns), "product")) == kept


@pytest.mark.parametrize("mine, said_now", [
    ("I'm on the Unlimited Starter plan.",
     "How much would it cost to upgrade to the Unlimited Elite plan?"),
    ("I'm on the Basic plan.", "If I upgrade to the Gold plan, will I lose my data?"),
    ("I'm on the Basic plan.",
     "My son wants to switch to the Unlimited Elite plan, but I'll keep mine."),
    ("我现在用的是畅享套餐", "升级到尊享套餐要多少钱？"),
    ("我现在是100M宽带", "我同事升级成1000M宽带了，我先不升级"),
    ("我现在是100M宽带", "如果升级成1000M宽带，每个月多少钱？"),
])
def test_a_change_not_asked_for_now_replaces_nothing(mine, said_now) -> None:
    """A question, a condition or a third party's change: both stay."""
    assert len(active(said(("user", mine), ("user", said_now)), "product")) == 2


@pytest.mark.parametrize("mine, said_now, kept", [
    ("I'm on the Unlimited Starter plan.",
     "No, I don't want to switch to the Unlimited Elite plan.", ["Unlimited Starter plan"]),
    ("我现在用的是畅享套餐", "我不想换成尊享套餐", ["畅享套餐"]),
])
def test_a_change_refused_keeps_the_plan_and_takes_none(mine, said_now, kept) -> None:
    """A refused change replaces nothing, and the plan refused is none of theirs."""
    assert active(said(("user", mine), ("user", said_now)), "product") == kept


def test_an_offer_of_a_value_asked_for_once_before_replaces_the_newest_request() -> None:
    """A value the user asked for in an earlier request (免费, for another place) is still
    an offer when the assistant proposes it instead of what was asked for now; the earlier
    request of another thing stands."""
    earlier = [("user", "我想找一个免费的景点，再找一家800-900元的酒店。"),
               ("assistant", "推荐您去日坛公园，门票免费。")]
    failed = ("assistant", "没找到符合条件的景点，给你推荐一个免费的中国国家博物馆你看行吗？")
    asked = ("user", "我还想找一个门票20-50元的景点。")
    for reply in ("好的可以，这个景点在什么位置？", "中国国家博物馆的地址在哪？"):
        amounts = active(said(*earlier, asked, failed, ("user", reply)), "amount")
        assert "20-50元" not in amounts and {"800-900元", "免费"} <= set(amounts), reply
    # a recommendation the user goes on with, made without saying the request failed
    mem = said(*earlier, asked, ("assistant", "推荐您去中国国家话剧院吧，门票还免费。"),
               ("user", "中国国家话剧院的电话是多少？"))
    amounts = active(mem, "amount")
    assert "20-50元" not in amounts and {"800-900元", "免费"} <= set(amounts)
    # turned down: the request stands
    mem = said(*earlier, asked, failed, ("user", "不行，还是要20-50元的。"))
    assert "20-50元" in active(mem, "amount")


def test_a_later_count_of_the_same_thing_replaces_the_earlier() -> None:
    """"for 4 people" then "for 3 people" (a party changed): the newer count is the one;
    counts of other things stand beside it ("2 rooms" for "4 people"); a count told in
    passing replaces none."""
    mem = said(("user", "I want to book 2 rooms for 4 people on March 3rd."),
               ("assistant", "Found a hotel with 2 rooms for 4 people."),
               ("user", "Actually make it for 3 people."),
               ("user", "2 people in our group have nut allergies."))
    assert active(mem, "people") == ["3 people"] and active(mem, "rooms") == ["2 rooms"]
    assert [h.value for h in mem.state.history("people") if h.status == "superseded"] \
        == ["4 people"]
    mem = said(("user", "I need 2 tickets for Saturday."),
               ("assistant", "Saturday is sold out, but Sunday still has 40 seats left. "
                             "Would Sunday work?"), ("user", "Yes, Sunday works."))
    assert active(mem, "tickets") == ["2 tickets"]  # the stock is no count of theirs


def test_only_what_the_assistant_said_is_offered_and_a_failure_names_what_failed() -> None:
    """A user's own aside in a turn of theirs right before is no offer to take up; an
    older request the failing turn names again failed too."""
    mem = said(("user", "推荐一家人均50元以下的餐厅"), ("user", "上次去的那家人均100元，太贵了"),
               ("user", "好的，谢谢"))
    assert sorted(active(mem, "amount")) == ["100元", "50元以下"]
    mem = said(("user", "帮我找一家500-600元的酒店"), ("assistant", "请问需要什么区域？"),
               ("user", "朝阳区的，早餐要免费的"),
               ("assistant", "抱歉，朝阳区没有500-600元的酒店，推荐希尔顿，每晚900元。"))
    assert "500-600元" not in active(mem, "amount") and "900元" in active(mem, "amount")


@pytest.mark.parametrize("said_then", [
    "Sorry, Saturday is sold out for groups of 2 people. We have 40 seats for Sunday. "
    "Would Sunday work?",
    "Unfortunately only 12 rooms are free on Sunday. Would Sunday work?",
    "Sorry, the deluxe room only sleeps 3 guests. Would Sunday work?",
])
def test_what_the_assistant_says_there_is_no_count_the_user_wants(said_then) -> None:
    """The assistant's counts (stock, capacity) stand beside the user's, never replace
    them: how many the user wants is theirs to change."""
    mem = said(("user", "I need 2 tickets for 4 people for Saturday."),
               ("assistant", said_then), ("user", "Yes, Sunday works."))
    assert "2 tickets" in active(mem, "tickets") and "4 people" in active(mem, "people")


def test_an_older_request_is_named_by_its_whole_value() -> None:
    """The failing turn names an older request by its value, not by a piece of another
    (50元 is not 50元以下); a user's aside in a turn of their own offers nothing."""
    mem = said(("user", "帮我找一家人均50元的餐厅"), ("assistant", "推荐口福居。"),
               ("user", "再找一个门票50元以下的景点"),
               ("assistant", "抱歉，没有50元以下的景点，推荐故宫，门票60元。"))
    assert "50元" in active(mem, "amount")
    mem = said(("user", "推荐一家人均50元以下的餐厅"), ("user", "上次去的那家人均100元，太贵了"),
               ("user", "好的，谢谢"))
    assert sorted(active(mem, "amount")) == ["100元", "50元以下"]


@pytest.mark.parametrize("reply, nights", [
    ("OK, 1 night then.", ["1 night"]),  # taken: the count offered is the one
    ("No, that does not work.", ["2 nights"]),  # turned down: the request stands
])
def test_a_count_offered_as_a_question_is_settled_by_the_answer(reply, nights) -> None:
    mem = said(("user", "Room for 2 nights, May 2nd."),
               ("assistant", "We only have availability for 1 night on May 2nd. "
                             "Would 1 night work?"), ("user", reply))
    assert active(mem, "nights") == nights


def test_an_offer_after_a_turned_down_one_is_settled_by_its_answer() -> None:
    """"Want me to book it?" offers what the sentence before says; "Yes please." takes
    it, after an earlier offer was turned down."""
    mem = said(("user", "I need a haircut on Tuesday at 2 pm."),
               ("assistant", "2 pm is taken on Tuesday. We have 4 pm. Would that work?"),
               ("user", "I can't do 4 pm. Anything Wednesday morning?"),
               ("assistant", "Wednesday at 10 am is open. Want me to book it?"),
               ("user", "Yes please."))
    assert active(mem, "time") == ["10 am"] and active(mem, "date") == ["Wednesday"]


def test_a_correction_governs_its_own_sentence_not_one_before_it() -> None:
    """"It's Dana Smith. Actually, make it 3 people.": the name answers a question, the
    correction changes the party; the restaurant read back stays."""
    mem = said(("user", "I'd like a table for 4 at Luigi's tomorrow at 7 pm."),
               ("assistant", "A table for 4 at Luigi's tomorrow at 7 pm. Can I have your "
                             "name?"),
               ("user", "It's Dana Smith. Actually, make it 3 people."))
    names = [a.value for a in mem.state.active_anchors() if a.kind == "name"]
    assert "Luigi's" in names and "Dana Smith" in names


def test_a_kind_said_in_passing_goes_with_the_kind_replaced() -> None:
    """The same words read in no role ("names": "a Psychologist" at a sentence's end) are
    the kind the user then replaces; a place said in passing stays (it may be another
    search's: a salon in Antioch, a therapist in Redwood City)."""
    mem = said(("user", "I also want to search for a therapist in SFO, a Psychologist."),
               ("assistant", "Adam E. Pollock is a Psychologist in San Francisco."),
               ("user", "What about a Psychiatrist in Pittsburg?"))
    assert "Psychologist" not in active(mem, "names") + active(mem, "category")
    assert active(mem, "category") == ["Psychiatrist"]


@pytest.mark.parametrize("turns, dates, ends", [
    # a start and an end of one rental: each replaced by its own kind only
    ([("user", "I would like a car from Fresno Station from 9th of March."),
      ("user", "I need the car until March 13th."),
      ("user", "I will need the car until the 14th.")], ["9th of March"], ["the 14th"]),
    ([("user", "I need it from this Saturday till this Sunday."),
      ("user", "Actually I need it from Friday.")], ["Friday"], ["Sunday"]),
    ([("user", "Pick it up on March 1st and drop it off on March 5th."),
      ("user", "Sorry, I will return it on March 6th.")], ["March 1st"], ["March 6th"]),
    # "to" moves a date, it says no end; what it is moved from goes
    ([("user", "Book it for March 3rd."), ("user", "Please change it to March 5th.")],
     ["March 5th"], []),
    ([("user", "Please move it from Monday to Tuesday.")], ["Tuesday"], []),
    ([("user", "My installation is on Tuesday."), ("assistant", "OK"),
      ("user", "I need to reschedule my installation appointment from Tuesday to Thursday.")],
     ["Thursday"], []),
    ([("user", "送货时间能从周一改到周三吗？")], ["周三"], []),
    ([("user", "我从周一开始休假。")], ["周一"], []),
    ([("user", "把周一改成周三")], ["周三"], []),
    # a range's end, a date said right after an end, an end verb's object
    ([("user", "I need a room from March 3rd to March 5th."),
      ("user", "Actually I need it until March 6th.")], ["March 3rd"], ["March 6th"]),
    # setting out is a start: it changes the start the assistant read back, not the end
    ([("user", "I want to come back on the 10th of March."),
      ("assistant", "And you'll be travelling on March 7th, right?"),
      ("user", "No, I plan to fly out on the 4th of March.")], ["4th of March"],
     ["10th of March"]),
    # a stay made longer ends later
    ([("user", "I need a room from March 3rd to March 5th."),
      ("user", "Can I extend it to March 7th?")], ["March 3rd"], ["March 7th"]),
    ([("user", "我想3月3日入住，住到3月5日。"), ("user", "能延长到3月7日吗？")],
     ["3月3日"], ["3月7日"]),
    ([("user", "Pick it up on Monday."), ("user", "I need it until Friday, March 13th.")],
     ["Monday"], ["Friday", "March 13th"]),
    ([("user", "Pick it up on Monday."),
      ("user", "I'm returning the rental car on Friday.")], ["Monday"], ["Friday"]),
    # "not until" says when it starts; a negation elsewhere in the clause does not
    ([("user", "I don't need it until Friday.")], ["Friday"], []),
    ([("user", "Pick it up on Monday."),
      ("user", "I don't have a car right now so I need it until Friday.")],
     ["Monday"], ["Friday"]),
    ([("user", "Pick it up on Monday."), ("user", "I can't return it until Friday.")],
     ["Monday"], ["Friday"]),
    # a range whose dates carry their weekdays
    ([("user", "I need a car from Wednesday, March 3rd to Friday, March 5th.")],
     ["March 3rd", "Wednesday"], ["Friday", "March 5th"]),
    # Chinese: the second date of a range, or one before the act that ends the stay
    ([("user", "我想订3月3日到3月5日的酒店。")], ["3月3日"], ["3月5日"]),
    ([("user", "我想3月3日租车，3月6日还车。")], ["3月3日"], ["3月6日"]),
    ([("user", "我想5月3日取车，5月5日还车"), ("assistant", "好的"), ("user", "还车改到5月6日")],
     ["5月3日"], ["5月6日"]),
    # the answer to the assistant's question for the end is an end, not a new start
    ([("user", "I need a rental car starting March 3rd."),
      ("assistant", "Until when do you need the car?"), ("user", "March 13th.")],
     ["March 3rd"], ["March 13th"]),
    ([("user", "Book me a hotel from the 3rd."), ("assistant", "And the check-out date?"),
      ("user", "The 6th.")], ["the 3rd"], ["The 6th"]),
    ([("user", "I need a round trip flight to Paris on March 3rd."),
      ("assistant", "What day are you coming back? What city are you leaving from?"),
      ("user", "I want an economy ticket leaving from Chicago on March 14th.")],
     ["March 3rd"], ["March 14th"]),
    ([("user", "我想3月3日租车。"), ("assistant", "请问您什么时候还车？"), ("user", "3月6日。")],
     ["3月3日"], ["3月6日"]),
    # a question about a past return asks for no end; an end asked for and not answered
    # in the reply right after is no longer asked
    ([("user", "I sent the item back."), ("assistant", "When did you return the item?"),
      ("user", "I shipped it on March 3rd.")], ["March 3rd"], []),
    ([("user", "I need a car starting March 3rd."), ("assistant", "Until when do you need it?"),
      ("user", "Not sure yet."), ("assistant", "OK."),
      ("user", "Please deliver my new order on Friday.")], ["Friday"], []),
    # ... unless the answer says it starts then
    ([("user", "I need a rental car starting March 3rd."),
      ("assistant", "When will you return it?"),
      ("user", "Actually I'll pick it up on March 4th.")], ["March 4th"], []),
    ([("user", "我想3月3日租车。"), ("assistant", "请问您什么时候还车？"),
      ("user", "改到3月4日取车吧。")], ["3月4日"], []),
])
def test_an_end_date_replaces_the_end_and_a_start_the_start(turns, dates, ends) -> None:
    mem = said(*turns)
    assert active(mem, "date") == dates and active(mem, "until") == ends


def test_a_next_leg_of_a_trip_leaves_what_was_booked_for_the_first() -> None:
    """A new trip's ends replace the ends (the trip now asked about), but what the
    assistant said of a place still live in the new trip ("New York", now its start)
    stays: the first leg's time."""
    mem = said(("user", "I need a train from Boston to New York on Friday."),
               ("assistant", "Your train from Boston to New York leaves at 8 am Friday. "
                             "Booked, ticket TK-55123."),
               ("user", "Thanks. Now I need a train from New York to Washington on Sunday."))
    assert active(mem, "origin") == ["New York"] and active(mem, "destination") == ["Washington"]
    assert active(mem, "time") == ["8 am"] and active(mem, "ticket_id") == ["TK-55123"]


def test_the_assistants_promise_said_again_once_kept_stays_done() -> None:
    mem = said(("user", "Can you send me a return label?"),
               ("assistant", "I'll send you the return label."),
               ("assistant", "I've sent the return label."),
               ("user", "Thanks."),
               ("assistant", "As I said, I'll send you the return label. It's in your inbox."))
    assert [t.status for t in mem.state.open_tasks if t.owner == "assistant"] == ["done"]


@pytest.mark.parametrize("question, first, second, key, now", [
    ("What is your order number?", "It is BX-1234-5678", "CX99991111", "order_id",
     ["BX-1234-5678", "CX99991111"]),
    ("Where are you leaving from?", "Oakland.", "Fresno.", "origin", ["Fresno"]),
    ("您想在哪个城市找？", "上海", "杭州", "place", ["杭州"]),
])
def test_a_question_asked_again_takes_the_new_answer(question, first, second, key, now
                                                     ) -> None:
    """The task an ask opened is closed by its answer, and open again when the same
    question is asked again: the next answer answers it."""
    mem = said(("assistant", question), ("user", first), ("assistant", question),
               ("user", second))
    assert active(mem, key) == now
    assert [t.status for t in mem.state.open_tasks] == ["done"]


@pytest.mark.parametrize("turns, origins, destinations", [
    # where a trip starts and where it ends are two roles: a later start replaces the
    # start, a later end the end ("I'm leaving from Las Vegas, going to Sacramento")
    ([("user", "I'll be going from Fresno, CA to SD."),
      ("assistant", "2 tickets from Fresno to San Diego?"),
      ("user", "No, sorry, I'll actually be departing from Long Beach.")],
     ["Long Beach"], ["SD", "San Diego"]),
    ([("assistant", "Where are you leaving from?"), ("user", "I'm in SFO right now."),
      ("assistant", "Where are you going to?"), ("user", "We're going to Las Vegas."),
      ("assistant", "Leaving from San Francisco and going to Las Vegas?"),
      ("user", "Actually I'm leaving from Las Vegas, going to Sacramento, CA.")],
     ["Las Vegas"], ["Sacramento, CA"]),
    # the answer to where a trip ends, said where something is, is the end
    ([("assistant", "Where do you wish to go?"), ("user", "I need to be in Phoenix, AZ"),
      ("user", "Sorry, I need to fly to Paris, France.")], [], ["Paris"]),
    # ... and a place reached, in the sentence of a means of travel
    ([("assistant", "Where do you wish to go?"), ("user", "I need to be in Phoenix, AZ"),
      ("user", "I need to reach Paris, France, show me more flights")], [], ["Paris"]),
    # (in Chinese not: 从四季民福烤鸭店到国家大剧院 names places the assistant named, which
    # the same names of another key would stand beside in the block, docs/experiments.md)
    ([("user", "我想从四季民福烤鸭店乘坐地铁到国家大剧院")], [], []),
    # ... and to "Where will your trip start?"
    ([("assistant", "Where will your trip start?"), ("user", "Oakland, please.")],
     ["Oakland"], []),
    # where a rental is picked up is where its trip starts
    ([("assistant", "Can you tell me from where will you pick the car up?"),
      ("user", "I want to pick up the rented car in Pacific Central Station."),
      ("user", "No, I need to pick the car on March 9th at Charles de Gaulle Airport.")],
     ["Charles de Gaulle Airport"], []),
    # a "from", a "to" or a "leave" of no trip is none of its ends
    ([("user", "I got an email from Sarah about tickets to Giants Vs Dodgers.")], [], []),
    ([("user", "Please leave Sarah a note that I called.")], [], []),
    ([("user", "I'm leaving Google Chrome open, is that a problem?")], [], []),
    ([("user", "The bus driver from Greyhound was really rude to me.")], [], []),
    ([("user", "I want to go to the Lakers game on Sunday.")], [], []),
    ([("user", "I tried to reach John Smith. How do I get to Account Settings?")], [], []),
    ([("user", "I switched from Verizon to AT&T, and moved money from Chase to Wells Fargo.")],
     [], []),
    ([("user", "I want to leave Comcast. It is coming from China.")], [], []),
    ([("user", "My refund is going to PayPal.")], [], []),
    # ... nor the answer to a question of no trip, or of both its ends
    ([("assistant", "Where did you buy it from?"), ("user", "Best Buy.")], [], []),
    ([("assistant", "Where are you calling from?"), ("user", "Texas, please.")], [], []),
    ([("assistant", "Which city are you flying from and which city are you going to?"),
      ("user", "Boston.")], [], []),
    # a correction's "from" names the origin it corrects
    ([("user", "I need a bus from Fresno to Reno."), ("assistant", "A bus from Fresno to Reno?"),
      ("user", "Sorry, I meant from Modesto.")], ["Modesto"], ["Reno"]),
])
def test_a_trip_has_a_start_and_an_end(turns, origins, destinations) -> None:
    mem = said(*turns)
    assert active(mem, "origin") == origins and active(mem, "destination") == destinations


@pytest.mark.parametrize("turns, places, names", [
    # the answer to the assistant's question for the city a search is in is its place,
    # and a later search's place replaces it
    ([("assistant", "In what city would you like me to search?"), ("user", "Morgan Hill Please."),
      ("assistant", "Bay Area Kids Dentist is located in Morgan Hill. How does that sound?"),
      ("user", "No thank you. Find me something in Pittsburg please.")],
     ["Pittsburg"], ["Bay Area Kids Dentist"]),
    # ... not a trip's end
    ([("assistant", "Which city are you leaving from?"), ("user", "Fresno, please.")], [],
     None),
    ([("assistant", "In what city are you starting your trip?"), ("user", "Fresno, please.")],
     [], None),
    ([("assistant", "Sure thing. Where should I begin the search?"),
      ("user", "I'm looking for events next Wednesday in the Stanford area.")],
     ["Stanford"], None),
    # ... and a reply that says it in the role asked of gives no other name that role
    # (Indian is a kind of food: a category)
    ([("assistant", "What type of food are you looking for? What city do you want to "
                    "search in?"),
      ("user", "I'm looking for a restaurant serving Indian food in Berkeley.")],
     ["Berkeley"], []),
    ([("assistant", "What city do you want to search in?"),
      ("user", "I'd like to try Chez Panisse in Berkeley.")], ["Berkeley"], ["Chez Panisse"]),
])
def test_the_city_asked_for_is_the_place(turns, places, names) -> None:
    mem = said(*turns)
    assert active(mem, "place") == places
    assert names is None or active(mem, "names") == names


@pytest.mark.parametrize("question", ["What name is the booking under?",
                                      "In what city would you like me to search?"])
@pytest.mark.parametrize("reply", ["Yes please.", "Sure, please.", "Hold On please.",
                                   "Wait, please!", "Same please."])
def test_a_reply_that_names_nothing_gives_no_name(question, reply) -> None:
    mem = said(("assistant", question), ("user", reply))
    assert [a.value for a in mem.state.active_anchors()] == []


def test_the_city_asked_for_in_chinese() -> None:
    mem = said(("assistant", "您想在哪个城市找？"), ("user", "北京"))
    assert active(mem, "place") == ["北京"] and active(mem, "name") == []
    mem = said(("assistant", "What city should I search? And what name is the booking under?"),
               ("user", "Ann Lee"))
    assert active(mem, "name") == ["Ann Lee"] and active(mem, "place") == []


@pytest.mark.parametrize("change", [
    "Please use 628-555-0177 from now on, and move the delivery to Monday.",
    "From now on, move the delivery to Monday.",
])
def test_from_now_on_starts_no_range(change) -> None:
    mem = said(("user", "Delivery on Friday please."), ("assistant", "OK."), ("user", change))
    assert active(mem, "date") == ["Monday"] and active(mem, "until") == []


def test_an_end_date_is_a_date_to_a_refusal_and_a_proposal() -> None:
    mem = said(("user", "I need the car until Friday."), ("assistant", "Sure, until Friday."),
               ("user", "Actually Friday is bad for me."))
    assert active(mem, "until") == []
    # the proposal made instead of the end that failed takes its place; the start stays
    mem = said(("user", "I want to pick up on March 9th and return it on March 13th."),
               ("assistant", "Unfortunately March 13th is not available. Would March 12th "
                             "work?"), ("user", "Yes."))
    assert active(mem, "date") == ["March 9th"] and active(mem, "until") == ["March 12th"]


def test_a_later_value_with_the_same_numbers_is_no_read_back() -> None:
    """Only the reply to a request reads it back: the taxi booked "at 7 pm as well" stays
    when the dinner moves to 8 pm."""
    mem = said(("user", "Book a table for two at 7 pm tonight."),
               ("assistant", "Done, your table is booked."),
               ("user", "Can you also get me a taxi?"),
               ("assistant", "Sure. Your taxi with Yellow Cab is booked at 7 pm as well."),
               ("user", "Hmm, make the dinner 8 pm."))
    assert "7 pm" in active(mem, "time") and "8 pm" in active(mem, "time")


@pytest.mark.parametrize("change, key, now", [
    ("I will need the car until the 14th.", "until", ["the 14th"]),
    ("I will need it from March 7th now.", "date", ["March 7th"]),
    ("Make it 1:30 pm, please.", "time", ["1:30 pm"]),
])
def test_a_sum_up_read_back_goes_with_the_value_the_user_changes(change, key, now) -> None:
    """The assistant's sum-up of the request (two or more of the user's values said
    back, whatever place it ties them to) reads those values back: when the user changes
    one, even a turn later, the reading back goes with it."""
    mem = said(("user", "I want an SUV from Fresno Station on March 9th at 11 am."),
               ("assistant", "Until when do you need it?"),
               ("user", "I need the car until March 13th."),
               ("assistant", "Would you like insurance?"), ("user", "Yes, please."),
               ("assistant", "Booking an SUV from Fresno station on march 9th at 11 am "
                             "until march 13th."),
               ("user", change))
    assert active(mem, key) == now


@pytest.mark.parametrize("retry, times", [
    # a retry's value replaces the attempt's, whatever place it was about
    ("Can you try it again? SFO Airport is fine too for pick up at 2:45 PM.", ["2:45 PM"]),
    ("能再试一次吗？首都机场也可以，14:45取车。", ["14:45"]),
    ("OK. Please try Pearson again, at 2:45 PM.", ["2:45 PM"]),
    # no retry: a time at another place stands beside the first, and so it does after a
    # retry asked about or refused
    ("Also, I need a second car at SFO Airport at 2:45 PM.", ["13:45", "1:45 PM", "2:45 PM"]),
    ("Should I try again later? SFO Airport at 2:45 PM, maybe.", ["13:45", "1:45 PM", "2:45 PM"]),
    ("Don't try again. I need a second car at SFO at 2:45 PM.", ["13:45", "1:45 PM", "2:45 PM"]),
])
def test_a_retry_replaces_the_values_of_the_attempt_that_failed(retry, times) -> None:
    mem = said(("user", "Toronto Pearson Airport is a convenient place for pick up at 13:45."),
               ("assistant", "So pick up from Toronto Pearson Airport, at 1:45 PM?"),
               ("user", "Yes, that is correct."),
               ("assistant", "Sorry, but your reservation has failed."),
               ("user", retry))
    assert sorted(active(mem, "time")) == sorted(times)


@pytest.mark.parametrize("retry, names", [
    # the place a retry names replaces the one the attempt named ...
    ("Could you try again, this time find me movies at Smith Rafael Film Center?",
     ["Smith Rafael Film Center"]),
    # ... not when no retry is asked: a second place stands beside the first
    ("Also find me movies at Smith Rafael Film Center.",
     ["Century Regency", "Smith Rafael Film Center"]),
])
def test_a_retry_replaces_the_name_the_attempt_named(retry, names) -> None:
    mem = said(("user", "Can you help me find a movie to watch at Century Regency?"),
               ("assistant", "There are 2 movies: Brittany Runs a Marathon and The Farewell."),
               ("user", "Are there any other movies?"),
               ("assistant", "Sorry, there are no other movies that match."),
               ("user", retry))
    assert [n for n in active(mem, "names") if n in names + ["Century Regency"]] == names
    assert "Brittany Runs" in active(mem, "names")  # what the assistant offered stays


def test_a_retry_name_replaces_the_pick_up_it_retries() -> None:
    """A retry's name in no role ("SFO Airport is fine too for pick up") stands for the
    one where-role the newest request named (the pick-up's origin), with its reading
    back."""
    mem = said(("assistant", "Where would you like to pick up the vehicle?"),
               ("user", "Toronto Pearson Airport is a convenient place for pick up at 13:45."),
               ("assistant", "So pick up the vehicle from Toronto Pearson International Airport "
                             "on March 11th at 1:45 PM?"),
               ("user", "Can you try it again? SFO Airport is fine too for pick up at 2:45 PM."))
    assert active(mem, "origin") == []
    assert {h.value for h in mem.state.history("origin")} \
        == {"Toronto Pearson Airport", "Toronto Pearson International Airport"}


@pytest.mark.parametrize("turns, left", [
    # the assistant's saying of the name in more words goes with it ...
    ([("user", "I'd like to pick up the car at Toronto Pearson Airport."),
      ("assistant", "Sorry, no cars are left at Toronto Pearson International Airport."),
      ("user", "Can you try again at SFO Airport?")], ["SFO Airport"]),
    ([("user", "帮我订华尔顿酒店。"), ("assistant", "抱歉，华尔顿酒店没有房间了。"),
      ("user", "再试一次，订北京饭店吧。")], ["北京饭店"]),
    # ... not a name it offered that holds the user's words
    ([("user", "Find me a hotel in San Francisco."),
      ("assistant", "How about San Francisco Marriott Marquis?"),
      ("user", "Is there anything else?"), ("assistant", "Sorry, I couldn't find anything else."),
      ("user", "Please search again in Oakland.")], ["San Francisco Marriott Marquis", "Oakland"]),
    # a name in another role stays ("Mcdonald's in San Jose": another area, the same place
    # sought), and so do the names of an attempt that gave several: which one a name
    # replaces is not told
    ([("user", "I want to eat at Mcdonald's in San Jose."),
      ("assistant", "Sorry, I couldn't find Mcdonald's in San Jose."),
      ("user", "Please search again in Benicia.")], ["Mcdonald's", "Benicia"]),
    # a name in no role stands for the attempt's place
    ([("user", "Find me a hotel in San Francisco."),
      ("assistant", "Sorry, no rooms are available."),
      ("user", "Try again. Oakland is fine too.")], ["Oakland"]),
    # an offered name that ends with the user's is another place (a city before it)
    ([("user", "帮我订国际饭店。"), ("assistant", "抱歉，国际饭店没有房了，推荐您北京国际饭店。"),
      ("user", "再试一次，订如家酒店吧。")], ["北京国际饭店", "如家酒店"]),
    ([("user", "My package was shipped by UPS from Amazon."),
      ("assistant", "I wasn't able to find that shipment."),
      ("user", "Can you check again? It was shipped with FedEx.")],
     ["UPS", "Amazon", "FedEx"]),
])
def test_a_retry_replaces_the_names_of_the_attempt_only(turns, left) -> None:
    mem = said(*turns)
    assert sorted(active(mem, "names") + active(mem, "place")) == sorted(left)


@pytest.mark.parametrize("switch, left", [
    # a switch away to another thing of the kind, named: the proposal before it goes
    ("没啥，要不你换个景点吧，去欢乐水魔方水上乐园吧。", ["欢乐水魔方水上乐园"]),
    # ... not a switch that names nothing, nor another thing said without one
    ("没啥，要不你换个景点吧。", ["霞云岭国家森林公园"]),
    ("没啥，不过欢乐水魔方水上乐园周边有酒店。", ["霞云岭国家森林公园", "欢乐水魔方水上乐园"]),
    # ... nor one on a condition
    ("没啥，如需换个景点，也可以去欢乐水魔方水上乐园。",
     ["霞云岭国家森林公园", "欢乐水魔方水上乐园"]),
])
def test_a_switch_to_another_named_thing_replaces_the_proposal(switch, left) -> None:
    mem = said(("user", "有啥景点游玩时长可以在3天？"),
               ("assistant", "可以去霞云岭国家森林公园玩玩。"),
               ("user", "那它周边酒店有什么？"), ("assistant", switch))
    assert sorted(active(mem, "names")) == sorted(left)


@pytest.mark.parametrize("switch", ["另外换个酒店吧，我想住如家酒店。",
                                    "我想兑换一个如家酒店的住宿券。"])
def test_the_users_switch_leaves_what_was_proposed(switch) -> None:
    """The user's 换个酒店 may be a second stay, and 兑换 is no switch at all."""
    mem = said(("user", "帮我找家餐馆。"), ("assistant", "推荐全聚德烤鸭店。"), ("user", switch))
    assert "全聚德烤鸭店" in active(mem, "names")


def test_the_speakers_own_name_is_no_name_a_retry_replaces() -> None:
    mem = said(("user", "Book a table at Nopa tonight."), ("assistant", "Sorry, Nopa is full."),
               ("user", "OK. By the way, my name is John Smith."),
               ("user", "Can you try again at Zuni Cafe?"))
    assert active(mem, "names") == ["Zuni Cafe"] and active(mem, "name") == ["John Smith"]
    mem = said(("user", "My name is John Smith."), ("user", "Sorry, my name's Jon Smyth."))
    assert active(mem, "name") == ["Jon Smyth"]  # one current name
    # ... and anyone's saying of it after is that name, corrected with it
    mem = said(("user", "My name is Ann Lee."),
               ("assistant", "Thanks Ann Lee, your table at Zuni Cafe is booked."),
               ("user", "Actually, my name is Anne Leigh."))
    assert active(mem, "name") == ["Anne Leigh"] and active(mem, "names") == ["Zuni Cafe"]


def test_a_retry_replaces_the_place_said_back_in_another_role() -> None:
    mem = said(("user", "Please check San Jose."),
               ("assistant", "How about Mcdonald's in San Jose?"),
               ("user", "Is there anything else?"),
               ("assistant", "Sorry, I couldn't find anything else."),
               ("user", "Please search again and change the area to Benicia."))
    assert active(mem, "names") == ["Mcdonald's", "Benicia"]
    assert active(mem, "place") == []


@pytest.mark.parametrize("proposal", ["抱歉，周边没有舒适型的，推荐您去高档型的北京贵都大酒店。",
                                      "抱歉，没有符合您要的酒店，推荐您去价格815元的豪华型北京天伦王朝酒店住宿。"])
def test_a_type_said_of_a_named_place_is_its_category(proposal) -> None:
    """A type word before a named place (高档型的北京贵都大酒店) is that place's category,
    apart from its name: proposed after a failure, it replaces the type asked for; a
    later request for another kind (a restaurant's) leaves it."""
    mem = said(("user", "请给我推荐一家评分4分以上的舒适型酒店住宿。"), ("assistant", proposal),
               ("user", "请问酒店的地址是在哪里？"),
               ("assistant", "地址是北京西城区广安门内大街217号。"),
               ("user", "再帮我找一家中式餐厅。"))
    kinds = active(mem, "category")
    assert "舒适型酒店" not in kinds and "中式餐厅" in kinds
    assert [k for k in kinds if k in ("高档型", "豪华型")]  # the proposal's type
    names = active(mem, "names")
    assert "北京贵都大酒店" in names or "北京天伦王朝酒店" in names  # the name apart from it
    # about its kind: what the user seeks next for a hotel replaces it
    mem = said(("user", "请给我推荐一家评分4分以上的舒适型酒店住宿。"), ("assistant", proposal),
               ("user", "太贵了，我要找经济型酒店。"))
    assert active(mem, "category") == ["经济型酒店"]


@pytest.mark.parametrize("text, kinds", [
    ("我要订豪华型大酒店。", ["豪华型大酒店"]),  # a kind of place whole, no name in it
    ("帮我找造型工作室北京店。", []),  # 造型 is no grade
    ("新型材料展览馆在哪？", []),
])
def test_a_grade_is_split_from_a_name_only(text, kinds) -> None:
    assert active(said(("user", text)), "category") == kinds


@pytest.mark.parametrize("turns, kinds", [
    # one of a kind taken ("a SUV is fine"), or sought with a head that only says what it
    # is a kind of ("a Hatchback model"): what is sought, replaced by what is sought next
    ([("assistant", "Is there any particular model of car that you want?"),
      ("user", "Yes, a SUV is fine."),
      ("user", "Please find the one at Heathrow and I need to book a Hatchback model.")],
     ["Hatchback"]),
    ([("assistant", "So pick up the vehicle on March 11th, for a Sedan."),
      ("user", "Can you try it again? I am fine with a Hatchback.")], ["Hatchback"]),
    ([("user", "Get me a Luxury ride.")], ["Luxury"]),
    ([("user", "An Economy car is fine.")], ["Economy"]),
    # ... not a kind said of something ("my car is a Toyota", "a Toyota dealer"), nor one
    # refused
    ([("user", "My car is a Toyota and it works fine.")], []),
    ([("user", "I bought it from a Toyota dealer.")], []),
    ([("user", "I need a Sedan."), ("user", "I'm not happy with a Hatchback, too small.")],
     ["Sedan"]),
    ([("user", "I need a Sedan."), ("user", "Please don't pick a Minivan for me.")],
     ["Sedan"]),
])
def test_a_kind_taken_or_sought_with_a_bare_head_is_a_category(turns, kinds) -> None:
    assert active(said(*turns), "category") == kinds


@pytest.mark.parametrize("turns, kinds", [
    # a name right before a noun of a kind says which kind: a later one of that kind
    # replaces it, with any verb or none ("I love", "would be a great choice")
    ([("user", "I usually enjoy watching Documentary movies."), ("assistant", "How about X?"),
      ("user", "Can you try again? I am interested in a Suspense movie in 3d.")],
     [("Suspense", "movie")]),
    ([("user", "I think European food would be a great choice."),
      ("user", "Please suggest other restaurants with Halal type of food.")],
     [("Halal", "food")]),
    # ... or, in its own turn, one that corrects it
    ([("user", "I want Indian food, no wait, Thai food.")], [("Thai", "food")]),
    # ... the assistant's of that kind too, not one it asks about
    ([("assistant", "I found you a table at a place serving Italian food."),
      ("user", "Hmm, I'd prefer Thai food.")], [("Thai", "food")]),
    ([("assistant", "Would you like Italian food or Mexican food?")], []),
    # ... nor one a clause turns away before it, nor one more the user adds
    ([("user", "I want Italian food."),
      ("user", "I really don't think I want to have Mexican food.")], [("Italian", "food")]),
    ([("user", "I want Italian food."), ("user", "I'm allergic to Thai food.")],
     [("Italian", "food")]),
    ([("user", "I'd like Italian food."), ("user", "I'd also like some Thai food too.")],
     [("Italian", "food")]),
    # ... one of another kind stands beside it
    ([("user", "I love Drama movies."), ("user", "Now find me some Italian food nearby.")],
     [("Drama", "movie"), ("Italian", "food")]),
    ([("user", "I would like Japanese food in Livermore."),
      ("user", "I would like to rent a car. I would like a Hatchback.")],
     [("Japanese", "food"), ("Hatchback", None)]),
    # ... one refused or disliked is none
    ([("user", "I like Comedy films."), ("user", "I don't want Horror films at all.")],
     [("Comedy", "film")]),
    ([("user", "I like Comedy films."), ("user", "I hate Horror films, by the way.")],
     [("Comedy", "film")]),
    ([("user", "Anything but Horror films is fine.")], []),
    # ... nor a particular thing the user has (the, my), nor a name before a noun of a kind
    # that heads another thing ("concert tickets", "music app")
    ([("user", "I'd like to watch Drama movies tonight."),
      ("user", "Also, the Netflix movie I paid for won't load.")], [("Drama", "movie")]),
    ([("user", "My Disney movies won't play.")], []),
    ([("user", "Where are my Taylor Swift concert tickets?")], []),
    ([("user", "The Spotify music app keeps crashing.")], []),
])
def test_a_name_before_a_noun_of_a_kind_is_a_category_of_that_kind(turns, kinds) -> None:
    mem = said(*turns)
    assert [(a.value, a.subject) for a in mem.state.active_anchors()
            if a.key == "category"] == kinds


_RANGE = [("user", "I need a rental car in Boston from March 3rd until March 13th."),
          ("assistant", "Sure, a car from March 3rd until March 13th. Shall I book it?")]


@pytest.mark.parametrize("turns, dates, ends", [
    # a correction of one end of a range leaves the other
    (_RANGE + [("user", "Actually, I'll return it on the 14th.")], ["March 3rd"] * 2,
     ["the 14th"]),
    (_RANGE + [("user", "No, pick it up on March 4th.")], ["March 4th"],
     ["March 13th"] * 2),
    # a date with no role after an end said alone changes that end; said with a start's
    # act, it is the start
    ([("user", "I need a hotel in Boston until Friday."), ("assistant", "Sure."),
      ("user", "Sorry, I meant Saturday.")], [], ["Saturday"]),
    ([("user", "I will return the car on the 14th of March."), ("assistant", "OK."),
      ("user", "I want to pick the car up on March 12th.")], ["March 12th"],
     ["14th of March"]),
    # an end date proposed and taken stays the end; the start stays
    ([("user", "I need a car from March 3rd until March 13th."),
      ("assistant", "Sorry, March 13th is not available. Would March 12th work?"),
      ("user", "Yes, March 12th works.")], ["March 3rd"], ["March 12th"]),
    # a booking moved "from Monday to Tuesday" has no end
    ([("user", "Book a haircut at Supercuts on Monday at 3 pm."),
      ("assistant", "Booked for Monday at 3 pm."),
      ("user", "Can you move it from Monday to Tuesday?"), ("assistant", "Done."),
      ("user", "Hmm, what about Wednesday?")], ["Wednesday"], []),
    # a start negated a few words before "until"
    ([("user", "I won't be able to pick it up until Friday, and I'll return it on Monday."),
      ("assistant", "Noted."), ("user", "Actually, I'll return it on Tuesday.")],
     ["Friday"], ["Tuesday"]),
])
def test_a_start_and_an_end_are_changed_apart(turns, dates, ends) -> None:
    mem = said(*turns)
    assert sorted(active(mem, "date")) == sorted(dates)
    assert sorted(active(mem, "until")) == sorted(ends)


def test_a_retry_leaves_what_was_offered_elsewhere() -> None:
    mem = said(("user", "Book a table at Nopa at 7 pm."),
               ("assistant", "Nopa is full at 7 pm. Zuni Cafe has tables at 6 pm and 9 pm."),
               ("user", "Please try again at 8 pm."))
    assert sorted(active(mem, "time")) == ["6 pm", "8 pm", "9 pm"]


def test_a_kind_picked_after_it_was_offered_stays() -> None:
    """The user's pick ("The SUV, please.") is no passing mention of the kind the
    assistant offered: a new kind sought replaces the offer, not the pick."""
    mem = said(("user", "I need a car in Denver."),
               ("assistant", "We have a Sedan for $80 and a SUV for $60."),
               ("user", "The SUV, please."), ("assistant", "Great."),
               ("user", "Also, is there a Minivan?"))
    assert "SUV" in active(mem, "names")


def test_a_grade_is_of_a_kind_whatever_its_size() -> None:
    mem = said(("user", "我想住高档型的北京贵都大酒店"), ("assistant", "好的。"),
               ("user", "算了，我想要经济型大酒店"))
    assert active(mem, "category") == ["经济型大酒店"]


@pytest.mark.parametrize("turns, key, now, was", [
    # a contact changed from one value to another, taken instead of one, or out of use
    ([("user", "Please change my number from 415-555-0132 to 628-555-0199.")],
     "phone", ["628-555-0199"], []),
    ([("user", "My phone is 415-555-0132."), ("assistant", "Ok."),
      ("user", "Use 628-555-0199 instead of 415-555-0132.")],
     "phone", ["628-555-0199"], ["415-555-0132"]),
    ([("user", "My email is ana@old.com."), ("assistant", "Noted."),
      ("user", "Don't use ana@old.com anymore, use ana@new.com.")],
     "email", ["ana@new.com"], ["ana@old.com"]),
    ([("user", "我的手机号是13812345678。"), ("assistant", "好的。"),
      ("user", "把手机号从13812345678改成13900001111。")], "phone", ["13900001111"],
     ["13812345678"]),
    ([("user", "我的手机号是13812345678。"), ("assistant", "好的。"),
      ("user", "13812345678已经停用了，打13900001111吧。")], "phone", ["13900001111"],
     ["13812345678"]),
    # not a question about one, nor "no longer" in another clause
    ([("user", "My phone is 415-555-0132."), ("user", "Is 415-555-0132 still active?")],
     "phone", ["415-555-0132"], []),
    ([("user", "Call me at 415-555-0132 any time, I'm no longer at work.")],
     "phone", ["415-555-0132"], []),
    # nor said of another contact, or as a reason
    ([("user", "Email me at ana@example.com since I no longer use my work email.")],
     "email", ["ana@example.com"], []),
    ([("user", "以后请打13812345678联系我因为邮箱已经停用了")], "phone", ["13812345678"], []),
    # the value's own noun between them is no other contact
    ([("user", "13812345678是我的手机号"), ("assistant", "好的"),
      ("user", "13812345678这个号码已经停用了，请打13900001111")], "phone", ["13900001111"],
     ["13812345678"]),
])
def test_a_contact_moved_from_taken_instead_of_or_out_of_use_goes(turns, key, now, was
                                                                   ) -> None:
    mem = said(*turns)
    assert active(mem, key) == now
    assert [h.value for h in mem.state.history(key) if h.status == "superseded"] == was


def test_the_assistant_reading_back_a_replaced_value_does_not_bring_it_back() -> None:
    mem = said(("user", "My phone is 415-555-0132."), ("assistant", "Ok."),
               ("user", "New number: 628-555-0199."),
               ("assistant", "Great, we'll call you at 415-555-0132 tomorrow."))
    assert active(mem, "phone") == ["628-555-0199"]
    # its owner does
    mem = said(("user", "My phone is 415-555-0132."), ("assistant", "Ok."),
               ("user", "New number: 628-555-0199."), ("user", "Sorry, keep 415-555-0132."))
    assert active(mem, "phone") == ["415-555-0132"]


@pytest.mark.parametrize("turns, key, now", [
    # a bare number the user changes a value to is a count of the one thing counted
    ([("user", "Table for 2 please."), ("assistant", "Sure, for 2."),
      ("user", "Actually make it 3.")], "people", ["3"]),
    ([("user", "I need 2 tickets."), ("assistant", "OK."), ("user", "Make it four.")],
     "tickets", ["four"]),
    ([("user", "Table for 2 please."), ("assistant", "Sure."), ("user", "We'll be 5.")],
     "people", ["5"]),
    # not where a time is live too ("make it 8" may be the hour)
    ([("user", "Table for 2 at 7 pm please."), ("assistant", "Sure."),
      ("user", "Actually make it 8.")], "people", ["2"]),
    # one said with what it counts changes that count, whatever else is counted
    ([("user", "Four tickets and 2 rooms, please."), ("assistant", "Confirm 4 tickets?"),
      ("user", "Please modify the number of tickets to two.")], "tickets", ["two"]),
    # ... not one negated, supposed, asked about or told of another time
    ([("user", "Four tickets please."), ("assistant", "OK."),
      ("user", "Don't change the number of tickets to three, keep four.")], "tickets",
     ["Four tickets"]),
    ([("user", "Four tickets please."), ("assistant", "OK."), ("user", "How much would it "
      "cost if I changed the number of tickets to three?")], "tickets", ["Four tickets"]),
    ([("user", "Four tickets please."), ("assistant", "OK."),  # a request as a question
      ("user", "Can you change the number of tickets to 5?")], "tickets", ["5"]),
    ([("user", "Four tickets please."), ("assistant", "OK."),  # not a question of a change
      ("user", "Did you change the number of tickets to 5?")], "tickets", ["Four tickets"]),
    ([("user", "Four tickets please."), ("assistant", "OK."), ("user", "Last time I "
      "changed the number of tickets to 5 and it broke.")], "tickets", ["Four tickets"]),
])
def test_a_bare_number_changes_the_one_count(turns, key, now) -> None:
    mem = said(*turns)
    assert active(mem, key) == now
    assert [a.count for a in mem.state.active_anchors() if a.key == key] == \
        [{"two": 2, "four": 4, "Four tickets": 4}.get(n) or int(n) for n in now]


def test_a_count_reads_as_a_number() -> None:
    """``Anchor.count`` is how many a count says, in digits or words of any pack; None
    for a value that is no count."""
    mem = said(("user", "A place with two bedrooms and 3 baths, for four people, "
                        "on March 3rd, phone 415-555-0100."))
    counts = {a.key: a.count for a in mem.state.anchors}
    assert counts["bedrooms"] == 2 and counts["baths"] == 3 and counts["people"] == 4
    assert counts["date"] is None and counts["phone"] is None


@pytest.mark.parametrize("turns, dates, times", [
    # the day and the time of a booking called off are let go, whoever says it
    ([("user", "Book me a haircut on Friday at 3 pm."), ("assistant", "Booked."),
      ("user", "Please cancel my appointment on Friday at 3 pm."),
      ("assistant", "Your appointment on Friday at 3 pm has been cancelled.")], [], []),
    ([("user", "帮我约明天下午三点的保洁"), ("assistant", "好的。"),
      ("user", "帮我取消明天下午三点的预约"), ("assistant", "已为您取消明天下午三点的预约。")],
     [], []),
    # ... up to what goes on to another act; not where the cancelling is refused
    ([("user", "Book me a haircut on Friday at 3 pm."), ("assistant", "Booked."),
      ("user", "Cancel the Friday one and book Monday at 3 pm instead.")],
     ["Monday"], ["3 pm"]),
    ([("user", "Book me a haircut on Friday at 3 pm."), ("assistant", "Booked."),
      ("user", "Please do not cancel my appointment on Friday at 3 pm.")],
     ["Friday"], ["3 pm"]),
    ([("user", "Book me a haircut on Friday at 3 pm."), ("assistant", "Booked."),
      ("user", "Can I cancel my appointment on Friday at 3 pm?")], ["Friday"], ["3 pm"]),
    # ... nor supposed, nor another booking's (a value the state does not hold)
    ([("user", "Book me for Friday at 3 pm."), ("assistant", "Done."),
      ("user", "Cancel my 3 pm appointment on Friday if the doctor is not available.")],
     ["Friday"], ["3 pm"]),
    ([("user", "帮我约明天下午三点的剪发"), ("assistant", "好的。"),
      ("user", "顺便把我后天下午三点的按摩取消掉。")], None, ["下午三点"]),
    # a time the turn says again for what replaces the booking stays
    ([("user", "Book a haircut on Friday at 3 pm."), ("assistant", "Booked."),
      ("user", "Cancel Friday at 3 pm and book Monday at 3 pm instead.")],
     ["Monday"], ["3 pm"]),
    # not asked for: refused, a maybe, or under a condition before its clause
    ([("user", "Book a haircut on Friday at 3 pm."), ("assistant", "Booked."),
      ("user", "I'm not going to cancel Friday at 3 pm.")], None, ["3 pm"]),
    ([("user", "Book a haircut on Friday at 3 pm."), ("assistant", "Booked."),
      ("user", "I might cancel Friday at 3 pm.")], None, ["3 pm"]),
    ([("user", "帮我约明天下午三点的剪发"), ("assistant", "好的"),
      ("user", "如果师傅没空，就取消明天下午三点的预约")], None, ["下午三点"]),
])
def test_a_booking_called_off_lets_its_day_and_time_go(turns, dates, times) -> None:
    mem = said(*turns)  # (dates None: a later day of the user's replaces theirs anyway)
    assert dates is None or active(mem, "date") == dates
    assert active(mem, "time") == times


@pytest.mark.parametrize("text, key, value", [
    # a day told in passing, not a booking called off: kept
    ("Please cancel my subscription on June 30.", "date", "June 30"),
    ("I cancelled my order on Monday but I still haven't received my refund.", "date",
     "Monday"),
    ("Please refund my cancelled order by Friday.", "date", "Friday"),
    ("My appointment on Friday at 3 pm was cancelled by mistake, please restore it.",
     "time", "3 pm"),
    ("我3月5日取消的订单，到现在还没退款。", "date", "3月5日"),
])
def test_a_day_said_with_a_cancelling_in_passing_stays(text, key, value) -> None:
    assert active(said(("user", text)), key) == [value]


def test_a_failed_time_read_back_in_digits_goes_with_the_one_said_in_words() -> None:
    """The reading back of a request said in words ("quarter to 2 in the afternoon": 1:45
    pm) is that request: when it fails, both go, and the time taken instead stands."""
    mem = said(("user", "I'd like a bus for four people leaving from Philly at quarter to 2 "
                        "in the afternoon."),
               ("assistant", "Do you want to leave on March 4th?"),
               ("user", "No, I'd like to go on the 2nd."),
               ("assistant", "Okay so you want 4 tickets for the bus leaving from Philadelphia "
                             "to New York on March 2nd at 1:45 pm."),
               ("user", "Perfect."),
               ("assistant", "I have been unable to book your tickets. There is a bus leaving "
                             "at 2 pm that costs $22."),
               ("user", "That would be fine."))
    assert active(mem, "time") == ["2 pm"]


def test_where_the_user_moved_to_is_the_place() -> None:
    mem = said(("user", "I haven't found a new Gynecologist since I moved to Alameda. Can "
                        "you help me find one?"),
               ("assistant", "The first result is Dr Richard, located in Alameda."),
               ("user", "How about trying another location? Let's try one in San Francisco."))
    assert active(mem, "place") == ["San Francisco"]
    assert "Alameda" not in [a.value for a in mem.state.active_anchors()]
    # ... not a booking moved, nor one moved to a class ("move me to Economy Plus")
    mem = said(("user", "Please move me to Economy Plus."))
    assert active(mem, "place") == []


def test_a_trips_date_stays_beside_anothers_and_a_car_type_replaces_a_car_type() -> None:
    mem = said(("user", "I need a flight to Rome for March 5th."),
               ("user", "I also need a hotel in Paris for March 3rd."))
    assert active(mem, "date") == ["March 5th", "March 3rd"]
    mem = said(("user", "I'd like a Standard car."), ("user", "I'd like a Hatchback."))
    assert active(mem, "category") == ["Hatchback"]


@pytest.mark.parametrize("turns, kinds", [
    # the assistant's kind of another thing stays when the user seeks a kind of food
    ([("user", "I'm renting an SUV for the trip to Portland."),
      ("assistant", "Got it, an SUV from Hertz."),
      ("user", "Also, find me Japanese food in Portland.")],
     [("SUV", None), ("Japanese", "food")]),
    # the kinds of the places the assistant describes are no kind sought
    ([("user", "I want French food in SoHo."),
      ("assistant", "Balthazar serves French food. There's also Café Habana with Mexican "
                    "food.")], [("French", "food")]),
])
def test_a_kind_sought_replaces_only_a_kind_of_its_noun(turns, kinds) -> None:
    assert [(a.value, a.subject) for a in said(*turns).state.active_anchors()
            if a.key == "category"] == kinds


def test_a_kind_sought_anew_takes_what_was_found_for_the_old_one_with_it() -> None:
    mem = said(("user", "I'm looking for a restaurant in Oakland."),
               ("assistant", "Sure. What type of food would you like?"),
               ("user", "I'd like Italian food."),
               ("assistant", "I found 5 Italian restaurants. Bella Notte is a popular one."),
               ("user", "Hmm, actually let's do Thai food instead."))
    assert active(mem, "category") == ["Thai"] and "Bella Notte" not in active(mem, "names")


def test_an_end_date_corrected_in_its_answer_is_the_end() -> None:
    mem = said(("user", "I need a car in Phoenix from April 2nd."),
               ("assistant", "Which day will you return it?"),
               ("user", "April 6th. Actually, make that April 7th."))
    assert active(mem, "until") == ["April 7th"] and active(mem, "date") == ["April 2nd"]


@pytest.mark.parametrize("text", ["My package moved to Oakland yesterday.",
                                  "I'm moving to T-Mobile next month."])
def test_a_thing_moved_or_a_move_to_come_is_no_place(text: str) -> None:
    assert active(said(("user", text)), "place") == []
