"""A yes or a no to the assistant's closed question is a typed decision of the user's
(extract/yesno.py), zh and en, the same read turn by turn or in one batch."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from convstate import ConversationMemory, InMemoryStore, RuleExtractor
from convstate.delta import NewDecision
from convstate.extract.yesno import closed, head
from convstate.turns import Turn

A, U = "assistant", "user"


def said(*turns: tuple[str, str]) -> ConversationMemory:
    mem = ConversationMemory("yn", store=InMemoryStore(), context_window=8192)
    for role, text in turns:
        mem.add(role, text)
        mem.context()  # the rule extractor reads each turn as it comes
    return mem


def answers(mem: ConversationMemory) -> list[tuple[str | None, bool | None]]:
    return [(d.question, d.answer) for d in mem.state.decisions
            if d.status == "active" and d.question]


@pytest.mark.parametrize("question, reply, yes", [
    ("Would you like to buy insurance?", "Yes, please add insurance.", True),
    ("Do you want travel insurance?", "Yes, I do.", True),
    ("Did you need insurance?", "No, I don't.", False),
    ("Would you like to add insurance?", "That's not necessary.", False),
    ("Would you like to add the optional insurance?",
     "No, I think my personal car insurance will cover it.", False),  # how it opens
    ("Will you want to add insurance and what kind of car do you like?",
     "I would like a hatchback which is nice and I'd like to buy insurance.", True),
    ("Can you also tell me if you want to have insurance with the car?",
     "I would like to have a Sedan car without insurance, and I need it till Tuesday.",
     False),
    ("Shall I include breakfast?", "Sure.", True),
    ("Shall I include breakfast?", "Yup.", True),
    ("Shall I include breakfast?", "Go for it.", True),
    ("Would you like gift wrap?", "Skip it.", False),
    ("Would you like to add breakfast?", "Yes, and can you also make it a late checkout?", True),
    ("Do you want to cancel the order?", "No, I want to keep the order.", False),
    ("Would you like to request a credit limit increase?", "Yes, please.", True),
    ("需要为您购买保险吗？", "不用了，谢谢", False),
    ("需要为您购买保险吗？", "不要不要。", False),
    ("要不要开发票？", "要的", True),
    ("要不要开通国际漫游？", "开通吧", True),
    ("您需要加购延保服务吗？", "需要", True),
    ("需要为您购买保险吗？", "保险就不用买了", False),  # said again, negated
    ("Would you like to add insurance?", "Absolutely not.", False),
    ("Would you like to add insurance?", "Of course not, I have my own.", False),
    ("Would you like to add insurance?", "Please don't.", False),
    ("Would you like to add insurance?", "I don't mind.", True),
    ("Would you like to add insurance?", "I'm good with that.", True),
    ("需要为您购买保险吗？", "没有问题", True),
    # any act the assistant offers to do, a kind word that is not what it asks about
    ("Shall I cancel your subscription?", "Please don't.", False),
    ("Should I renew your subscription for another year?", "No, thanks.", False),
    ("Would you like us to arrange a pickup?", "Yes please.", True),
    ("Would you like to add roaming to your mobile plan?", "Yes please.", True),
    ("Would you like a copy of the receipt by email?", "No thanks.", False),
    ("要不要给您办一张信用卡？", "信用卡不需要", False),
    ("Would you like breakfast?", "Yes, but please hurry.", True),  # a contrast, still yes
    ("Would you like a bottle of wine with dinner?", "Yes please.", True),
    ("需要帮您取消这个订单吗？", "订单先不取消了", False),
    ("需要接机服务吗？", "接机要的", True),
])
def test_a_yes_or_a_no_is_a_typed_decision_of_the_user(question: str, reply: str,
                                                       yes: bool) -> None:
    mem = said((U, "I need a car." if question.isascii() else "我要订一辆车。"),
               (A, f"I can do that. {question}" if question.isascii() else question), (U, reply))
    assert answers(mem) == [(question, yes)]
    decision = next(d for d in mem.state.decisions if d.question)
    assert decision.speaker == "user" and decision.turns == [2]
    assert decision.text.startswith(question)  # the block shows what was answered
    # the question, the user's to answer, is answered
    assert not [t for t in mem.state.open_tasks if t.status == "open" and t.text == question]
    # shown as the user's answer, not as a claim of something agreed
    line = next(x for x in mem.render("text").splitlines() if question in x)
    assert line.startswith(f'- "{question}') and line.endswith(("(user)", "(用户)"))


def test_a_value_ending_in_a_capital_ends_its_sentence() -> None:
    # ("14C." ends a sentence: an initial, "J. Smith", has no digit)
    mem = said((U, "I need a new seat."),
               (A, "I moved you to seat 14C. Would you like a meal voucher?"), (U, "Yes"))
    assert answers(mem) == [("Would you like a meal voucher?", True)]


@pytest.mark.parametrize("question, reply", [
    ("Would that work for you?", "Yes."),                        # names nothing
    ("Is there anything else I can help you with?", "No."),      # asks for more
    ("Would you like an SUV or a sedan?", "Yes."),               # a choice
    ("What time would you like?", "7 pm."),                      # not closed
    ("还有什么需要帮您的吗？", "没有了"),
    ("Would you like insurance?", "I'd like to pick it up at 5 pm."),  # no answer to it
    # a question back, a hedge, a remark that names the thing: no answer yet
    ("Would you like to add insurance?", "Is insurance mandatory in Spain?"),
    ("Shall I add breakfast?", "I'll decide about breakfast later."),
    ("Shall I add breakfast?", "Breakfast was cold last time I stayed."),
    ("Would you like to add insurance?", "I don't know if I need insurance."),
    ("Would you like to add insurance?", "Yes and no, it depends on the price."),
    # an offer of information, a confirmation, "more details": no closed question
    ("需要我把物流链接发给您吗？", "好的"), ("需要了解更多详情吗？", "好的"),
    ("确定要取消吗？", "是的"), ("您需要酒店的电话吗？", "需要"),
    # what opens like a yes but is none, and a remark whose words hold a verb
    ("需要为您购买保险吗？", "对了，能换个时间吗？"),
    ("需要为您购买保险吗？", "是这样的，我想先问价格"),
    ("需要为您购买保险吗？", "保险费用太高了"),
    # a yes that does more than agree: a condition, a contrast, a put-off
    ("Would you like to add the extended warranty?", "Yes, but only if it's free."),
    ("需要为您购买保险吗？", "好的，不过我要先问问我老婆"),
    # no closed question: a formula, an offer of information, of a value
    ("Shall I put you through?", "Yes."), ("Shall I explain the fees?", "Sure."),
    ("Would you like the phone number of the hotel?", "Yes please."),
    # a remark that names the thing, negated but not its want
    ("需要接机服务吗？", "上次没人来接机"),
    ("需要快递员的电话号码吗？", "要。"),  # an offer of a value
    ("Would you like it sent to the address on file?", "Yes."),  # about what was said
    ("Shall I add breakfast?", "Yeah right, like I'd eat there again."),
])
def test_no_decision_without_a_closed_question_answered(question: str, reply: str) -> None:
    mem = said((U, "Book a car."), (A, question), (U, reply))
    assert answers(mem) == []


def test_a_question_back_leaves_it_open_and_a_later_yes_answers_it() -> None:
    mem = said((U, "Book a car."), (A, "Would you like insurance?"),
               (U, "How much is it?"))
    assert answers(mem) == []
    assert [t.text for t in mem.state.open_tasks if t.status == "open"] == \
        ["Would you like insurance?"]
    mem.add(A, "It's $10 a day.")
    mem.add(U, "OK, sure.")
    mem.context()
    assert answers(mem) == [("Would you like insurance?", True)]
    # too late: a yes more than REACH turns after answers no question
    mem = said((U, "Book a car."), (A, "Would you like insurance?"), (U, "How much?"),
               (A, "$10."), (U, "What time does it leave?"), (A, "At 5."), (U, "Yes."))
    assert answers(mem) == []


def test_a_change_of_mind_supersedes_the_answer() -> None:
    mem = said((U, "Book a car."), (A, "Do you want insurance with it?"),
               (U, "No, I don't need insurance."), (A, "Please confirm: a sedan, no insurance."),
               (U, "That is not right, I changed my mind and I do want insurance."))
    assert answers(mem) == [("Do you want insurance with it?", True)]
    old = next(d for d in mem.state.decisions if d.answer is False)
    assert old.status == "superseded" and old.superseded_by is not None
    # a correction of something else answers nothing again ("No, from next Monday")
    mem = said((U, "Book a car."), (A, "Would you like to add insurance?"), (U, "Yes."),
               (A, "Please confirm: from March 3rd."), (U, "No, I want it from next Monday."))
    assert answers(mem) == [("Would you like to add insurance?", True)]


def test_several_questions_each_answered_by_what_says_it_again() -> None:
    mem = said((U, "Book a car."),
               (A, "Do you need a child seat? Would you like to add insurance?"),
               (U, "I need a child seat, and no insurance please."))
    assert sorted(answers(mem)) == [("Do you need a child seat?", True),
                                    ("Would you like to add insurance?", False)]


@pytest.mark.parametrize("question, reply, expected", [
    # each said again answers its own
    ("Would you like the extended warranty? Do you want installation?",
     "No to the warranty, yes to installation.", [("warranty", False), ("installation", True)]),
    ("需要购买保险吗？要不要加购行李额？", "保险不用，行李额要加。",
     [("保险", False), ("行李额", True)]),
    # a bare yes answers all of them only when it says so
    ("Would you like gift wrap? Do you want expedited shipping?", "Yes to both.",
     [("expedited shipping", True), ("gift wrap", True)]),
    ("要不要开发票？需要安装服务吗？", "都要", [("发票", True), ("安装服务", True)]),
    # what a Chinese question is about is its whole thing, said again without 服务 too
    ("需要接机服务吗？需要加早餐吗？", "接机要，早餐不用了。", [("接机", True), ("早餐", False)]),
    ("Do you want GPS? Would you like insurance?", "No.", []),  # which one?
])
def test_several_questions_of_one_turn(question: str, reply: str, expected) -> None:
    mem = said((U, "Book it." if question.isascii() else "订吧。"), (A, question), (U, reply))
    got = answers(mem)
    assert len(got) == len(expected)
    for thing, want in expected:
        assert [yes for q, yes in got if q and thing in q] == [want]
    # a reply closes the questions it does not leave open (a question back, a hedge)
    assert [t.text for t in mem.state.open_tasks if t.status == "open"] == []


def test_a_chinese_change_of_mind_supersedes_the_answer() -> None:
    mem = said((U, "订机票。"), (A, "需要为您购买保险吗？"), (U, "不用了。"), (A, "好的。"),
               (U, "我改主意了，保险还是要买的。"))
    assert answers(mem) == [("需要为您购买保险吗？", True)]
    mem = said((U, "订酒店。"), (A, "需要加早餐吗？"), (U, "要。"), (A, "已为您添加早餐。"),
               (U, "算了，早餐还是不要了。"))
    assert answers(mem) == [("需要加早餐吗？", False)]


@pytest.mark.parametrize("question, reply, yes", [
    ("Shall I upgrade you to express shipping?", "Actually no, standard shipping is fine.",
     False),
    ("Would you like to add gift wrap?", "On second thought, yes please.", True),
    ("需要给您加购运费险吗？", "算了，不要了。", False),
])
def test_a_reply_is_read_past_the_change_of_mind_it_opens_with(question: str, reply: str,
                                                                yes: bool) -> None:
    mem = said((U, "Hi." if question.isascii() else "你好。"), (A, question), (U, reply))
    assert answers(mem) == [(question, yes)]


@pytest.mark.parametrize("later", [
    [(A, "Done. Anything else?"), (U, "Actually no, that's all, thanks.")],  # names nothing
    [(A, "已为您加购，还有什么可以帮您？"), (U, "算了，没有了，谢谢。")],
    [(A, "OK."), (U, "还是不行，页面打不开。")],  # 还是: still
    [(A, "OK."), (U, "Actually no, the shipping address is wrong.")],
    [(A, "OK."), (U, "Actually no, does express shipping cost extra?")],
    [(A, "OK."), (U, "Actually no, my sister wants express shipping.")],
])
def test_a_change_of_mind_that_does_not_name_the_thing_answers_nothing_again(later) -> None:
    question = "Shall I upgrade you to express shipping?"
    mem = said((U, "Hi."), (A, question), (U, "Yes please."), *later)
    assert answers(mem) == [(question, True)]


@pytest.mark.parametrize("turns, expected", [
    ([(U, "I'd like to rent a car."), (A, "Sure. Would you like to buy insurance?"),
      (U, "Yes please."), (A, "需要为您开发票吗？"), (U, "不需要")],
     [("Would you like to buy insurance?", True), ("需要为您开发票吗？", False)]),
    ([(U, "Book a car."), (A, "Do you want insurance with it?"),  # a change of mind
      (U, "No, I don't need insurance."), (A, "OK."), (U, "Actually, I do want insurance.")],
     [("Do you want insurance with it?", True)]),
])
def test_the_same_read_turn_by_turn_or_in_one_batch(turns, expected) -> None:
    made = [Turn(index=i, role=r, content=t) for i, (r, t) in enumerate(turns)]
    mem = ConversationMemory("batch", store=InMemoryStore(), context_window=8192)
    for role, text in turns:
        mem.add(role, text)
    mem.compact(keep_recent_turns=0)  # one batch, one fold
    assert answers(said(*turns)) == answers(mem) == expected
    assert RuleExtractor().extract(made, []).delta.decisions  # (read in one call)


def test_a_later_answer_about_the_same_thing_supersedes_however_asked() -> None:
    mem = said((U, "Book a car."), (A, "Would you like to add insurance?"), (U, "No."),
               (A, "Sorry, do you want insurance after all?"), (U, "Yes, I do."))
    assert [(d.about, d.answer) for d in mem.state.decisions
            if d.status == "active" and d.question] == [("insurance", True)]
    with pytest.raises(ValidationError):
        NewDecision(text="x", question="", turns=[0])  # a blank question settles nothing


def test_a_counter_proposal_settles_the_offer_and_answers_no_question() -> None:
    mem = said((U, "A table at Nobu, please."),
               (A, "Would you like me to reserve a table at Nobu for 7 pm?"),
               (U, "Make it 8 pm instead."))
    assert [t.status for t in mem.state.open_tasks] == ["done"] and answers(mem) == []


def test_long_replies_and_questions_are_read_whole() -> None:
    """A reply or a question longer than the state keeps is cut, not a failure; a reply
    that says the thing thousands of times is read in one pass."""
    long = "Sure thing, " + "i really want the coverage " * 30
    mem = said((U, "Book a car."), (A, "Would you like to add insurance?"), (U, long))
    decision = next(d for d in mem.state.decisions if d.question)
    assert decision.answer is True and len(decision.text) <= 500
    mem = said((U, "Book a car."), (A, "Would you like " + "very " * 200 + "good insurance?"),
               (U, "Yes."))
    assert answers(mem) == []  # no closed question: a pasted text
    mem = said((U, "Book a car."), (A, "Would you like to add insurance?"),
               (U, "Well, " + "about the insurance, " * 2000 + "I don't need insurance."))
    assert answers(mem) == [("Would you like to add insurance?", False)]  # the last clause


def test_what_a_closed_question_asks_about() -> None:
    assert head("Would you like to add the optional insurance to the rental?") == "insurance"
    assert head("Do you want travel insurance?") == "insurance"
    assert head("Would that work for you?") is None
    assert closed("Which location, and do you need insurance?")
    assert not closed("Do you need insurance")  # not asked as a question
    assert closed("要不要开发票？") and not closed("这个可以吗？")
    # the customer moved to a service is no object ("upgrade you to", "sign you up for")
    assert head("Shall I upgrade you to express shipping?") == "shipping"
    assert head("Should I switch you to paperless billing?") == "billing"
    assert head("Do you want me to sign you up for our newsletter?") == "newsletter"
    assert not closed("Do you want your order number?")  # a value offered
