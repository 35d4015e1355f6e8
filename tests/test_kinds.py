"""Speakers and kinds: who said a value, what kind of value a cue or a question makes it,
and product and plan names (zh + en), extracted in one batch or turn by turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_turns, sources

from convstate import (
    ConversationMemory,
    ConversationState,
    IndexEntry,
    InMemoryStore,
    RuleExtractor,
    SQLiteStore,
    Turn,
    fold,
)
from convstate.extract.answers import _ROLE_CUES, _asks_a_role
from convstate.extract.rules import find_anchors
from convstate.lang import cue
from convstate.profile import candidates


def folded(rows: list[tuple[str, str]], batch: int) -> ConversationState:
    """The rows folded ``batch`` turns at a time, each batch extracted against the
    index of the state before it (as a live state extracts turn by turn)."""
    turns, state = make_turns(*rows), ConversationState()
    for k in range(0, len(turns), batch):
        part = turns[k:k + batch]
        delta = RuleExtractor().extract(part, state.index()).delta
        state = fold(state, delta, sources(part))
    return state


def values(state: ConversationState, *keys: str) -> list[tuple[str, str, str]]:
    """(key, value, speaker) of the anchors of ``keys``, in order of first turn."""
    return [(a.key, a.value, a.speaker) for a in sorted(state.anchors, key=lambda a: a.first_turn)
            if a.key in keys]


BATCHES = pytest.mark.parametrize("batch", [1, 2, 100])


@BATCHES
@pytest.mark.parametrize("question, answer, key, value", [
    ("What is your order number?", "Sure, it's BX-7741-2290.", "order_id", "BX-7741-2290"),
    ("您的订单号是多少？", "BX77412290", "order_id", "BX77412290"),
    ("Could you give me the tracking number?", "It's 1Z999AA10123456784",
     "tracking_number", "1Z999AA10123456784"),
    ("请提供一下快递单号", "好的，YT8829301156", "tracking_number", "YT8829301156"),
    ("Can I have your account number?", "sure: zw_20931", "account", "zw_20931"),
    ("请问您的账号是什么？", "是 zhangwei88", "account", "zhangwei88"),
    ("What's the best phone number to reach you?", "3125550186", "phone", "3125550186"),
    ("请问您的手机号是多少？", "88204686", "phone", "88204686"),
    ("What is your email?", "it's Zhang.Wei@Example.com", "email", "Zhang.Wei@Example.com"),
    ("What's your shipping address?", "It's 1600 Amphitheatre Parkway, Mountain View.",
     "address", "1600 Amphitheatre Parkway, Mountain View"),
    ("请告诉我您的收货地址", "好的，是上海市浦东新区张江路88号", "address",
     "上海市浦东新区张江路88号"),
    ("您的订单号是多少？", "13812345678", "order_id", "13812345678"),  # the question is the cue
    ("What is your booking number?", "It's BK-88213", "order_id", "BK-88213"),
    # Chinese joins no word to an id: 是 right before it, 吧 right after
    ("请问您的订单号是多少？", "是DD20240601123吧", "order_id", "DD20240601123"),
    ("请问您的账号是多少？", "是zhangsan_2024", "account", "zhangsan_2024"),
    # a booking reference is its order's; a member's card or a customer's number, an account
    ("What is your booking reference?", "QX7PLM", "order_id", "QX7PLM"),
    ("What is your booking reference?", "Sure, it is 7781203.", "order_id", "7781203"),
    ("请问您的会员卡号是多少？", "88120394", "account", "88120394"),
    ("请问您的会员卡号是多少？", "是VIP8812", "account", "VIP8812"),
    ("Could I have your customer number?", "It's 4471209.", "account", "4471209"),
    ("What is your order number?", "It's 6645 1234 9988.", "order_id", "6645 1234 9988"),
    ("Can I have your account number, please?", "Of course — 7740 1123 9981.", "account",
     "7740 1123 9981"),
    # a number of the case named after it
    ("Do you have a reference from the earlier complaint?", "Yes, CMP-33817.", "ticket_id",
     "CMP-33817"),
    # a person's name asked for is the one name
    ("What name is the booking under?", "Alvarez", "name", "Alvarez"),
    ("What name is the booking under?", "Sure, it's under Ann Lee.", "name", "Ann Lee"),
    ("Could I have your full name, please?", "Maria Gonzalez", "name", "Maria Gonzalez"),
    ("预约人姓名是？", "王丽", "name", "王丽"),
    ("预约人姓名是？", "叫王丽", "name", "王丽"),
    ("请问您贵姓？", "姓张。", "name", "张"),
    ("您贵姓？", "免贵姓王", "name", "王"),
    ("预约人姓名是？", "王丽，订的是如家酒店。", "name", "王丽"),
    ("请提供一下您的邮箱地址。", "zhang.wei@qq.com", "email", "zhang.wei@qq.com"),  # no address
    # "it" after a sentence naming a kind in whose shape the value is not, or the kind
    # asked (see the test below)
    ("What is your order number?", "I used my email for it. It's DD123456.", "order_id",
     "DD123456"),
    ("请提供一下您的宽带账号。", "账号是多少我忘了。13912345678。", "account", "13912345678"),
    ("What is your account number?", "Sure. It's 206-555-0143.", "account", "206-555-0143"),
    # ... or the sentence before names a phone, not a phone number (a device, a channel)
    ("请问您的订单号是多少？", "我看一下手机，是20240518001。", "order_id", "20240518001"),
    ("请提供一下您的订单号。", "我是打电话订的，就是2024051800。", "order_id", "2024051800"),
    ("What is your order number?", "I placed the order over the phone. It's 45872213.",
     "order_id", "45872213"),
])
def test_an_answer_takes_the_kind_of_the_question_and_is_the_users(
        batch: int, question: str, answer: str, key: str, value: str) -> None:
    state = folded([("user", "Hi, I need help."), ("assistant", question),
                    ("user", answer), ("assistant", f"Thanks, I have {value} now.")], batch)
    assert values(state, key) == [(key, value, "user")]
    assert state.anchor(key).value == value and state.anchor(key).speaker == "user"
    assert (key, value) in {(k, v) for k, v, _ in candidates(state)}  # into the profile
    asks = [t for t in state.open_tasks if t.owner == "user"]
    assert asks and all(t.status == "done" for t in asks)  # the question was answered


@BATCHES
@pytest.mark.parametrize("question, answer, ids", [
    ("What are the order numbers?", "KT-20931 and KT-20932", ["KT-20931", "KT-20932"]),
    ("What are the order numbers?", "They are KT-20931, KT-20932 and KT-20933.",
     ["KT-20931", "KT-20932", "KT-20933"]),
    ("请问订单号分别是多少？", "JD1001203和JD1001204", ["JD1001203", "JD1001204"]),
    # another form is no other value of the list
    ("What is your order number?", "KT-20931 and 415-555-0100", ["KT-20931"]),
])
def test_an_answer_listing_ids_gives_each(batch: int, question: str, answer: str,
                                          ids: list[str]) -> None:
    state = folded([("user", "I was charged twice."), ("assistant", question),
                    ("user", answer)], batch)
    assert values(state, "order_id") == [("order_id", i, "user") for i in ids]


@BATCHES
def test_values_asked_for_together_are_answered_one_by_one(batch: int) -> None:
    state = folded([
        ("assistant", "ok, may I have your username, email address and order ID please?"),
        ("user", "Username: cminh730"),
        ("user", "cminh730@email.com"),
        ("user", "7916676427"),
        ("assistant", "请提供您的订单号和手机号"),
        ("user", "DD20240315889"),
        ("user", "88204686"),
    ], batch)
    assert values(state, "account", "email", "order_id", "phone") == [
        ("account", "cminh730", "user"), ("email", "cminh730@email.com", "user"),
        ("order_id", "7916676427", "user"), ("order_id", "DD20240315889", "user"),
        ("phone", "88204686", "user")]
    assert [t.status for t in state.open_tasks] == ["done", "done"]


@BATCHES
def test_a_value_the_user_names_keeps_its_own_kind_and_the_question_stays_open(
        batch: int) -> None:
    state = folded([("assistant", "What is your order number?"),
                    ("user", "My phone is 312 555 0186, I don't have the number here."),
                    ("assistant", "OK."),
                    ("user", "Found it: A-20931-77")], batch)
    assert values(state, "order_id", "phone") == [("phone", "312 555 0186", "user"),
                                                  ("order_id", "A-20931-77", "user")]
    state = folded([("assistant", "What is your order number?"),
                    ("user", "My phone is 312-555-0186, I don't have the order here.")], batch)
    assert values(state, "order_id", "phone") == [("phone", "312-555-0186", "user")]
    assert [t.status for t in state.open_tasks] == ["open"]


@BATCHES
@pytest.mark.parametrize("question, answer, kind, value", [
    # "it" (or the value alone) after a sentence naming a kind: the kind just named
    ("What is your account number?", "I don't have it. Can you look it up by phone number? "
     "It's 206-555-0143.", "phone", "206-555-0143"),
    ("What is your account number?", "Can you look it up by phone number? 206-555-0143.",
     "phone", "206-555-0143"),
    ("What is your order number?", "My phone number changed recently. It's 2065550143.",
     "phone", "2065550143"),
    ("请提供一下您的宽带账号。", "账号我不记得了，用手机号查可以吗？是13912345678。", "phone",
     "13912345678"),
    ("请提供一下您的宽带账号。", "用我电话查吧，是13812345678。", "phone", "13812345678"),
])
def test_a_value_that_points_back_is_of_the_kind_just_named(
        batch: int, question: str, answer: str, kind: str, value: str) -> None:
    state = folded([("user", "Hi."), ("assistant", question), ("user", answer)], batch)
    assert values(state, "account", "order_id", "phone") == [(kind, value, "user")]
    assert [t.status for t in state.open_tasks] == ["open"]  # what was asked is owed


@pytest.mark.parametrize("question, answer", [
    ("How much were you charged?", "89.99"), ("How much were you charged?", "It was 49.99."),
    ("扣了您多少钱？", "299"), ("扣了您多少钱？", "扣了299")])
def test_how_much_the_user_was_charged_is_an_amount_of_theirs(question, answer) -> None:
    """(an amount of this case, not of the user: the profile keeps none)"""
    state = folded([("assistant", question), ("user", answer)], 1)
    amount = state.anchor("amount")
    assert amount.value in answer and amount.value[0].isdigit() and amount.speaker == "user"


@pytest.mark.parametrize("question, reply", [
    ("What's the name of the hotel?", "Hilton"),  # a thing's name, not a person's
    ("What name is the booking under?", "Why do you need it?"),  # no name at all
    ("What name is the booking under?", "Let me check."),
    ("预约人姓名是？", "稍等一下"), ("预约人姓名是？", "我查一下"), ("预约人姓名是？", "不知道"),
])
def test_a_reply_with_no_persons_name_gives_none(question, reply) -> None:
    state = folded([("assistant", question), ("user", reply)], 1)
    assert not [a for a in state.anchors if a.key == "name"]


@BATCHES
@pytest.mark.parametrize("question", [
    "Would you like the hotel's phone number?",
    "您需要酒店的电话吗？",
    "Please verify: you are sharing the address 888 Oak Grove Avenue with Maria.",
    "您的订单号是DD20240315889，对吗？",
    "Let me know if you need anything else.",
])
def test_offers_and_read_backs_ask_for_no_value(batch: int, question: str) -> None:
    state = folded([("assistant", question), ("user", "Yes. 2024031588")], batch)
    assert [a.value for a in state.anchors if a.value == "2024031588"] == []
    assert state.tasks(owner="user") == []


def test_a_question_about_a_tracking_number_of_an_order_asks_for_the_tracking_number() -> None:
    state = folded([("assistant", "What's the tracking number of your order?"),
                    ("user", "YT8829301156")], 100)
    assert values(state, "tracking_number", "order_id") == [
        ("tracking_number", "YT8829301156", "user")]
    state = folded([("assistant", "Could I get the order number from your confirmation email?"),
                    ("user", "Yeah, AZ-99318-UK.")], 100)  # where to find it: not asked
    assert values(state, "order_id") == [("order_id", "AZ-99318-UK", "user")]
    assert [t.status for t in state.open_tasks] == ["done"]


@pytest.mark.parametrize("text, kind, value", [
    ("我的投诉单号是TS20240315001，之前一直没人处理", "ticket_id", "TS20240315001"),
    ("工单号：GD-8812-301", "ticket_id", "GD-8812-301"),
    ("My complaint number is TS-20240315-77.", "ticket_id", "TS-20240315-77"),
    ("the case number is CS20931882", "ticket_id", "CS20931882"),
    ("ticket TK-88213 is still open", "ticket_id", "TK-88213"),
    ("订单号DD20240315889", "order_id", "DD20240315889"),
    ("快递单号 SF1234567890 一直没更新", "tracking_number", "SF1234567890"),
    ("tracking number: 1Z999AA10123456784", "tracking_number", "1Z999AA10123456784"),
    ("账号是 zhangwei_88", "account", "zhangwei_88"),
    ("Username: cminh730", "account", "cminh730"),
    # a booking's number is its order's
    ("Your confirmation number is CP-88213.", "order_id", "CP-88213"),
    ("My reservation code is XK7TQ2.", "order_id", "XK7TQ2"),
    ("预订号是YD2024031501。", "order_id", "YD2024031501"),
    # a ticket's number of five, a case named by its number, an RMA's, a booking reference
    ("I'm calling about ticket #58213.", "ticket_id", "58213"),
    ("Ticket number: 58213", "ticket_id", "58213"),
    ("Re: case CS-2024-0042, the refund still hasn't arrived.", "ticket_id", "CS-2024-0042"),
    ("My return authorization number is RMA-55120.", "ticket_id", "RMA-55120"),
    ("The order was placed under booking reference QX7PLM.", "order_id", "QX7PLM"),
    ("Sorry, the order number is actually SR-20240315-898.", "order_id", "SR-20240315-898"),
    # a reference names a ticket as a number does; a relative clause may stand between
    ("My complaint reference is CMP-77812.", "ticket_id", "CMP-77812"),
    ("Your case ref is CS-55102.", "ticket_id", "CS-55102"),
    ("The case number you gave me was CS-0048812.", "ticket_id", "CS-0048812"),
    ("报修单号BX20240611。", "ticket_id", "BX20240611"),
    ("您的报修申请已提交，单号为BX0098123，请保持电话畅通。", "ticket_id", "BX0098123"),
    ("My refund reference is RF-55120.", "ticket_id", "RF-55120"),
    # a customer's or a member's number is their account
    ("My customer number is 4471209.", "account", "4471209"),
    ("My customer ID is CU-339201.", "account", "CU-339201"),
    ("我的客户编号是KH009981。", "account", "KH009981"),
    ("My loyalty card number is 6012345678.", "account", "6012345678"),
    # an id said in groups of digits after its cue is that id, whole, and no phone
    ("订单号 0123 4567 8901", "order_id", "0123 4567 8901"),
    ("Tracking: 0012 3456 7890", "tracking_number", "0012 3456 7890"),
    ("My loyalty card number is 6012 3456 7890.", "account", "6012 3456 7890"),
    ("会员卡号是 6222 1234 5678", "account", "6222 1234 5678"),
])
def test_an_ids_kind_comes_from_its_cue(text: str, kind: str, value: str) -> None:
    found = [(a.kind, a.key, a.value) for a in find_anchors(Turn(index=0, role="user",
                                                                   content=text))]
    assert (kind, kind, value) in found
    assert not any(a[2] == value and a[0] != kind for a in found)  # one kind only


@pytest.mark.parametrize("said, kept, replaced", [
    # an id of the form of the user's live one is of its kind: another order, or in a
    # correction the one it corrects
    ("I also have another order, SR-20240315-898, with the same problem.",
     ["SR-20240315-889", "SR-20240315-898"], []),
    ("Sorry, wrong one. It's SR-20240315-898.", ["SR-20240315-898"], ["SR-20240315-889"]),
    ("No, that was a typo, I typed it too fast. It's SR-20240315-898.", ["SR-20240315-898"],
     ["SR-20240315-889"]),
    ("Sorry, the order number is actually SR-20240315-898.", ["SR-20240315-898"],
     ["SR-20240315-889"]),
    # ... what another sentence adds is no more ids
    ("Sorry, wrong one — it's SR-20240315-898. I also want a refund.", ["SR-20240315-898"],
     ["SR-20240315-889"]),
    # another form is another system's: not taken by its shape
    ("It's TK-20931.", ["SR-20240315-889"], []),
])
def test_an_id_of_the_form_of_the_users_is_of_its_kind(said, kept, replaced) -> None:
    state = folded([("user", "My order number is SR-20240315-889."), ("assistant", "Thanks."),
                    ("user", said)], 1)  # (as the live state reads: turn by turn)
    assert [h.value for h in state.history("order_id") if h.status == "active"] == kept
    assert [h.value for h in state.history("order_id") if h.status != "active"] == replaced


@pytest.mark.parametrize("said, kept, replaced", [
    # an id of digits alone: corrected where an id is said, by its cue or bare
    ("Sorry, wrong one — the order number is 88210.", ["88210"], ["88120"]),
    ("Sorry, wrong one, it's 88210.", ["88210"], ["88120"]),
    ("Actually, my order number is 88210.", ["88210"], ["88120"]),
    ("Sorry, wrong one. It's 88210.", ["88210"], ["88120"]),
    # ... not a number of something else, nor one more order
    ("No, I paid 12000 for it.", ["88120"], []),
    ("No, it is 10000 steps.", ["88120"], []),
    ("Actually my postcode is 10115.", ["88120"], []),
    ("不对，邮编是31000。", ["88120"], []),  # (of the same form: a noun before 是)
    ("Actually, can you also check order 88210?", ["88120", "88210"], []),
    ("Actually, what about order 88210?", ["88120", "88210"], []),
])
def test_a_correction_replaces_the_users_id_of_digits_alone(said, kept, replaced) -> None:
    state = folded([("user", "My order number is 88120."), ("assistant", "Thanks."),
                    ("user", said)], 1)
    assert [h.value for h in state.history("order_id") if h.status == "active"] == kept
    assert [h.value for h in state.history("order_id") if h.status != "active"] == replaced


@pytest.mark.parametrize("batch", [1, 100])
@pytest.mark.parametrize("rows, hotline, subject", [
    # the hotline the assistant gave, said back by the user: still the assistant's
    ([("user", "My number is 415-555-0142."),
      ("assistant", "Please call our repair desk at 1-888-555-0100."),
      ("user", "OK, I'll call 18885550100 now.")], "1-888-555-0100", "our repair desk"),
    ([("user", "My number is 415-555-0142."),
      ("assistant", "Our support line is 1-888-555-0100."),
      ("user", "OK, I'll call 1-888-555-0100 now.")], "1-888-555-0100", "Our support line"),
    ([("user", "My number is 415-555-0142."),
      ("assistant", "Please call our repair desk at 1-888-555-0100."),
      ("user", "OK, I'll call 888-555-0100 now.")], "1-888-555-0100", "our repair desk"),
    # one the user calls the listener's: the service's
    ([("user", "My number is 415-555-0142."), ("assistant", "Thanks."),
      ("user", "I called your hotline 1-800-555-0166 three times and nobody picked up.")],
     "1-800-555-0166", "your hotline"),
    ([("user", "My number is 415-555-0142."), ("assistant", "Thanks."),
      ("user", "Is 1-800-555-0166 your customer service number?")],
     "1-800-555-0166", "your customer service number"),
    ([("user", "我的手机是13912345678。"), ("assistant", "好的。"),
      ("user", "我打了你们客服电话400-888-2323，一直没人接。")], "400-888-2323", "你们客服电话"),
    # set beside what it is, in brackets, or after 你们 alone
    ([("user", "My number is 415-555-0142."), ("assistant", "Thanks."),
      ("user", "Your hotline, 1-800-555-0177, kept hanging up on me.")],
     "1-800-555-0177", "Your hotline"),
    ([("user", "My number is 415-555-0142."), ("assistant", "Thanks."),
      ("user", "Your hotline (1-800-555-0177) is always busy.")], "1-800-555-0177",
     "Your hotline"),
    ([("user", "我的手机是13912345678。"), ("assistant", "好的。"),
      ("user", "你们的客服热线，400-820-1236，一直占线。")], "400-820-1236", "你们的客服热线"),
    ([("user", "我的手机是13912345678。"), ("assistant", "好的。"),
      ("user", "打你们400-820-1237一直没人接。")], "400-820-1237", "你们"),
])
def test_a_contact_of_the_services_said_by_the_user_stays_the_services(
        rows: list[tuple[str, str]], hotline: str, subject: str, batch: int) -> None:
    state = folded(rows, batch)
    mine = rows[0][1].rstrip("。.").split("是")[-1].split(" is ")[-1]
    assert state.anchor("phone").value == mine  # the user's own number, still active
    assert [(h.value, h.status) for h in state.history("phone", speaker="user")
            if h.value != hotline] == [(mine, "active")]
    theirs = [a for a in state.anchors if a.value.replace("-", "") == hotline.replace("-", "")]
    assert [a.subject for a in theirs] == [subject]
    assert ("phone", mine) in {(k, v) for k, v, _ in candidates(state)}
    assert not any(v.replace("-", "") == hotline.replace("-", "")
                   for _, v, _ in candidates(state))


def test_the_users_own_contact_told_to_the_service_stays_theirs() -> None:
    state = folded([("user", "My number is 415-555-0100."), ("assistant", "Thanks."),
                    ("user", "Tell your technician my number is 415-555-0142 now.")], 1)
    assert state.anchor("phone").value == "415-555-0142" and not state.anchor("phone").subject
    state = folded([("user", "I wrote to your support team at support@acme.com. "
                             "My email is jo@gmail.com.")], 1)
    assert state.anchor("email").value == "jo@gmail.com"
    assert ("email", "jo@gmail.com") in {(k, v) for k, v, _ in candidates(state)}
    assert ("email", "support@acme.com") not in {(k, v) for k, v, _ in candidates(state)}


def test_history_says_who_said_each_value_and_the_assistants_never_become_the_users() -> None:
    state = folded([
        ("user", "My number is 138-0013-8000."),
        ("assistant", "You can also call our hotline 400-820-8820, or email help@shop.com."),
        ("tool", '{"phone": "139-1111-2222", "account": "ACC88213"}'),
        ("user", "新号码是139-8765-4321"),
        ("assistant", "好的，已记录139-8765-4321。您的会员账号是 VIP20931。"),
    ], 100)
    phones = state.history("phone")
    assert [(h.value, h.speaker, h.status) for h in phones] == [
        ("138-0013-8000", "user", "superseded"), ("400-820-8820", "assistant", "active"),
        ("139-1111-2222", "tool", "active"), ("139-8765-4321", "user", "active")]
    assert [h.value for h in state.history("phone", speaker="user")] == [
        "138-0013-8000", "139-8765-4321"]
    assert state.anchor("phone").value == "139-8765-4321"  # the user's, the latest
    assert state.anchor("email", speaker="user") is None
    assert state.anchor("email").value == "help@shop.com"
    offered = {(kind, value) for kind, value, _ in candidates(state)}
    assert ("phone", "139-8765-4321") in offered
    assert not offered & {("phone", "400-820-8820"), ("phone", "139-1111-2222"),
                          ("email", "help@shop.com"), ("account", "ACC88213"),
                          ("account", "VIP20931")}


@BATCHES
def test_the_users_own_contact_comes_before_one_they_give_for_someone_else(batch: int
                                                                            ) -> None:
    state = folded([("user", "My number is 415-555-0100."), ("assistant", "Noted."),
                    ("user", "My wife's number is 415-555-0177, call her if I don't "
                             "answer.")], batch)
    assert state.anchor("phone").value == "415-555-0100"
    assert state.anchor("phone", speaker="user").value == "415-555-0100"
    assert [a.value for a in state.about("My wife")] == ["415-555-0177"]



@BATCHES
def test_a_correction_replaces_the_users_value_not_the_assistants_own(batch: int) -> None:
    """"Actually, use ..." replaces the user's number and its reading back or a number on
    file proposed; the hotline the assistant gave of its own in the turn before stays
    (about "Our hotline", 我们的客服热线)."""
    for own, rows in (
            ("Our hotline", [("user", "My number is 415-555-0100."),
                             ("assistant", "Thanks. Our hotline is 1-800-555-0123."),
                             ("user", "Actually, use 415-555-0111.")]),
            ("us", [("user", "My number is 415-555-0100."),
                    ("assistant", "You can call us at 1-800-555-0123."),
                    ("user", "Actually, use 415-555-0111.")]),
            ("我们的客服热线", [("user", "我的号码是13512345678"),
                         ("assistant", "好的。我们的客服热线是400-820-8820。"),
                         ("user", "不对，我的号码是13512345679")])):
        state = folded(rows, batch)
        assert [(a.speaker, a.status) for a in state.about(own)] == [("assistant", "active")]
        assert [h.status for h in state.history("phone", speaker="user")] \
            == ["superseded", "active"]
    # the user's number said back to them ("you gave us", 您留给我们的) is not the assistant's
    for rows in ([("user", "My number is 415-555-0100"),
                  ("assistant", "The phone number you gave us is 415-555-0100"),
                  ("user", "No, it's 415-555-0111")],
                 [("user", "我的电话是13811112222"), ("assistant", "您留给我们的电话是13811112222"),
                  ("user", "不对，是13811113333")]):
        state = folded(rows, batch)
        assert not [a for a in state.anchors if a.subject]
    if batch == 1:  # (a correction reads the turn before in the index: as turns come)
        state = folded([("user", "hi"), ("assistant", "I see the number on file is "
                                                      "415-555-0100, is that right?"),
                        ("user", "No, use 415-555-0111.")], batch)
        assert [h.status for h in state.history("phone")] == ["superseded", "active"]


@BATCHES
def test_a_correction_to_someone_elses_number_leaves_the_users_own(batch: int) -> None:
    """"Actually, can they call my wife instead? Her number is ...": the wife's number
    corrects none of the user's own, said back in the turn before."""
    for rows, own in (([("user", "Call me on 917-555-0133."),
                        ("assistant", "A specialist will call you at 917-555-0133 tomorrow."),
                        ("user", "Actually, can they call my wife instead? Her number is "
                                 "917-555-0188.")], "917-555-0133"),
                      ([("user", "我的电话是13811112222"),
                        ("assistant", "好的，我们会打13811112222联系您。"),
                        ("user", "不对，打我老婆的电话吧，她的号码是13822223333")], "13811112222")):
        state = folded(rows, batch)
        assert state.anchor("phone").value == own, rows
        assert [h.status for h in state.history("phone", speaker="user")] \
            == ["active", "active"]
    if batch == 1:  # (a correction reads the turn before in the index: as turns come)
        # ... while the wife's number misread in the turn before is corrected
        state = folded([("user", "Call me on 555-201-3344."), ("assistant", "OK."),
                        ("user", "Please call my wife instead, her number is 555-877-1200."),
                        ("assistant", "I'll call your wife at 555-877-1210."),
                        ("user", "No, her number is 555-877-1200.")], batch)
        assert [(h.value, h.status) for h in state.history("phone")
                if h.value.endswith("1210")] == [("555-877-1210", "superseded")]
        assert state.anchor("phone").value == "555-201-3344"


@BATCHES
def test_correcting_ones_own_number_leaves_a_number_given_for_someone_else(batch: int
                                                                          ) -> None:
    for rows, hers in (
            ([("user", "My number is 415-555-0100."), ("assistant", "Noted."),
              ("user", "Send the gift to my wife, my wife's number is 415-555-0177."),
              ("assistant", "OK, the recipient phone is now 415-555-0177."),
              ("user", "No, my own number is 415-555-0111, I said it wrong.")],
             "415-555-0177"),
            ([("user", "我的电话是13811112222"), ("assistant", "好的"),
              ("user", "我老婆的电话是13822223333"), ("assistant", "好的，收件人电话是13822223333"),
              ("user", "不对，我自己的电话是13811113333")], "13822223333")):
        state = folded(rows, batch)
        assert all(h.status == "active" for h in state.history("phone") if h.value == hers)
        assert [h.status for h in state.history("phone", speaker="user")
                if h.value != hers] == ["superseded", "active"]
        assert not state.history("names")  # 老婆, 自己: someone of the user's, no name


@pytest.mark.parametrize("rows, subject, value", [
    ([("user", "My phone is 415-555-0100."), ("assistant", "Who else?"),
      ("user", "My daughter Amy. Her phone is 415-555-0122.")], "My daughter", "415-555-0122"),
    ([("user", "My email is li.wei@acme.com. Please cc my boss, his email is boss@x.com")],
     "my boss", "boss@x.com"),
    ([("user", "我的电话是13811112222"), ("assistant", "好的"),
      ("user", "我老婆也要通知，她的电话是13822223333")], "我老婆", "13822223333"),
    ([("user", "Her email is priya.shah@acme.com")], "Her", "priya.shah@acme.com"),
    # another party's, a relation's in apposition, and orders as well as contacts
    ([("user", "My phone is 415-555-0132."), ("assistant", "Ok."),
      ("user", "The courier's number is 415-555-0777, he never picks up.")],
     "The courier", "415-555-0777"),
    ([("user", "Please use my wife's email, anna.lee@example.com, for the invoice.")],
     "my wife", "anna.lee@example.com"),
    ([("user", "My number is 628-555-0199."), ("assistant", "Thanks."),
      ("user", "The store's phone number is 415-555-0100.")], "The store", "415-555-0100"),
    ([("user", "我手机号13812345678。"), ("assistant", "好的。"),
      ("user", "快递员电话是13700001111，一直打不通。")], "快递员", "13700001111"),
    ([("user", "我的订单号DD20240315889。"), ("assistant", "好的。"),
      ("user", "我朋友的订单号是DD20240315777，也帮他看看。")], "我朋友", "DD20240315777"),
])
def test_a_contact_said_of_him_or_her_is_about_that_one(rows, subject, value) -> None:
    assert not folded([("user", "我的其他联系方式是13911112222")], 100).anchors[0].subject  # 其他
    """"Her phone is ..." is about the one named before it (else about "Her"): not the
    user's own, which it replaces not."""
    state = folded(rows, 100)
    assert [a.value for a in state.about(subject)] == [value]
    own = [a for a in state.active_anchors() if a.subject is None and a.value == value]
    assert not own
    assert all(h.status == "active" for k in ("phone", "email", "order_id")
               for h in state.history(k))


def test_the_users_account_and_ticket_reach_the_profile() -> None:
    state = folded([("user", "账号是 zhangwei_88，投诉单号TS20240315001")], 100)
    offered = {(kind, value) for kind, value, _ in candidates(state)}
    assert {("account", "zhangwei_88"), ("ticket_id", "TS20240315001")} <= offered


@pytest.mark.parametrize("text, names", [
    ("我想办理畅享套餐，再加一个5G流量包", ["畅享套餐", "5G流量包"]),
    ("畅享套餐和5G流量包哪个划算？", ["畅享套餐", "5G流量包"]),
    ("我是PLUS会员，用的是北京联通校园套餐", ["PLUS会员", "北京联通校园套餐"]),
    ("升级到尊享套餐要多少钱", ["尊享套餐"]),
    ("帮我升级成1000M宽带", ["1000M宽带"]),
    ("我想办理畅联58元套餐", ["畅联58元套餐"]),  # a price in the name (and an amount too)
    ("我想办理国际漫游包", ["国际漫游包"]),
    ("I'm on the Unlimited Plus plan and want the Gold membership.",
     ["Unlimited Plus plan", "Gold membership"]),
    ("Does the 5GB plan include a Disney+ subscription?", ["5GB plan", "Disney+ subscription"]),
    # a service got or dropped by name (业务 after a verb of getting or dropping it); a
    # head's own modifiers (定向流量包, 漫游日包)
    ("我要开通来电显示业务", ["来电显示业务"]), ("帮我取消亲情号码业务", ["亲情号码业务"]),
    ("帮我开通一下来电显示业务", ["来电显示业务"]),
    ("好的，我想办10GB定向流量包", ["10GB定向流量包"]), ("我想办国际漫游日包", ["国际漫游日包"]),
    # the 用 of a word of what a thing is for is no verb before a name ("use")
    ("要20GB通用流量包。", ["20GB通用流量包"]), ("我在用畅享套餐", ["畅享套餐"]),
    ("我家用畅享套餐好几年了。", ["畅享套餐"]), ("我老公用畅享套餐", ["畅享套餐"]),
    ("这个优惠适用畅享套餐吗？", ["畅享套餐"]), ("这个优惠适用于畅享套餐吗", ["畅享套餐"]),
    # words of what it is between the name and its head
    ("I want the 20GB data add-on.", ["20GB data add-on"]),
    ("I need the 20GB data pack.", ["20GB data pack"]),
    ("Add the Travel Pass roaming package, please.", ["Travel Pass roaming package"]),
    ("I bought the AppleCare+ protection plan.", ["AppleCare+ protection plan"]),
    ("I have the Fibre 500 broadband.", ["Fibre 500 broadband"]),
    ("Can you add the Gold Shield warranty to my order?", ["Gold Shield warranty"]),
    # a head alone, or after a word saying which one or what for, names no product
    ("这个套餐太贵了，有没有便宜点的套餐？流量套餐也行。", []),
    ("办个家用宽带", []), ("要一个20GB的通用流量包", []), ("家里宽带从昨天晚上就断了", []),
    ("酒店提供宽带吗？有叫醒服务和宽带", []),
    ("明天下午3点来装宽带，周一下午来修宽带也行。", []),  # a verb before the head
    ("我想办理悦享来电套餐和精装宽带", ["悦享来电套餐", "精装宽带"]),  # 来, 装 in a name
    ("您是会员吗？成为会员可以打折，会员费每年99元", []),
    ("2011年卡塔尔亚洲杯", []),
    ("The plan is fine. Basic plans cost less, and my credit card works.", []),
    ("Actually I plan to pass on that card.", []),
    # a verb acting on the product is no part of its name; 业务 alone names a line of work
    ("我想暂停会员。", []), ("银行业务很多，排队很久。", []), ("我想了解彩铃业务怎么收费", []),
    # a word that joins or points is no word of what a product is
    ("I spoke to John about the plan.", []), ("I paid with Visa and the card.", []),
])
def test_product_and_plan_names_by_their_head(text: str, names: list[str]) -> None:
    found = find_anchors(Turn(index=0, role="user", content=text))
    assert [a.value for a in found if a.key == "product"] == names
    assert all(a.kind == "name" for a in found if a.key == "product")


def test_a_price_is_about_the_plan_before_it() -> None:
    state = folded([("user", "畅享套餐每月多少钱？"),
                    ("assistant", "畅享套餐每月199元，5G流量包每月30元。")], 100)
    assert {a.value for a in state.about("畅享套餐")} == {"199元"}
    assert {a.value for a in state.about("5G流量包")} == {"30元"}
    assert state.anchor("product").value in ("畅享套餐", "5G流量包")


def test_the_users_answer_reaches_the_profile_when_each_turn_folds_alone(tmp_path: Path) -> None:
    mem = ConversationMemory("s1", store=SQLiteStore(tmp_path / "p.db"), user_id="u1",
                             context_window=2000)
    for role, text in [("user", "My parcel never came."),
                       ("assistant", "I'm sorry to hear that. What is your order number?"),
                       ("user", "Sure, it's BX-7741-2290."),
                       ("assistant", "Thanks, order BX-7741-2290 is with the courier.")]:
        mem.add(role, text)
        mem.compact(keep_recent_turns=0)  # each turn its own batch, as a live state folds
    assert mem.state.anchor("order_id", speaker="user").value == "BX-7741-2290"
    assert mem.state.tasks(owner="user")[0].status == "done"
    item = mem.profile.anchor("order_id")
    assert item is not None and item.value == "BX-7741-2290"


def test_an_open_task_of_the_users_in_the_index_asks_for_the_values_it_names() -> None:
    # any extractor's words (an LLM's task need not quote the question)
    index = [IndexEntry(id="T1", section="open_tasks", text="Provide the order number and phone",
                        status="open", owner="user", turn=1),
             IndexEntry(id="A1", section="anchors", text="phone=13812345678", status="active",
                        turn=0)]  # said before the ask: not its answer
    turns = make_turns(("user", "BX-7741-2290"), start=2)
    delta = RuleExtractor().extract(turns, index).delta
    assert [(a.key, a.value) for a in delta.anchors] == [("order_id", "BX-7741-2290")]
    assert delta.updates == []  # the phone is still owed
    turns = make_turns(("user", "88204686"), start=3)
    index.append(IndexEntry(id="A2", section="anchors", text="order_id=BX-7741-2290",
                            status="active", turn=2))
    delta = RuleExtractor().extract(turns, index).delta
    assert [(a.key, a.value) for a in delta.anchors] == [("phone", "88204686")]
    assert [(u.id, u.status) for u in delta.updates] == [("T1", "done")]


def test_a_thing_named_by_apposition_is_a_product() -> None:
    from convstate.extract.products import find_products
    text = "我想找一家有海虾这道菜的餐馆，再吃炒饭和火焰冰淇淋这两道菜。我想吃这道菜。"
    assert [text[s:e] for s, e in find_products(text)] == ["海虾", "炒饭", "火焰冰淇淋"]
    for text in ("请问这款有现货吗？", "麻烦帮我看看那款冰箱。", "退货这道手续太麻烦了。"):
        assert find_products(text) == [], text


def test_the_kind_of_place_the_assistant_says_something_is_is_kept() -> None:
    mem = ConversationMemory("k", store=InMemoryStore(), context_window=8192)
    mem.add("user", "北京亚太花园酒店是哪种类型的酒店？")
    mem.add("assistant", "您好，这个是高档型的酒店。")
    assert "高档型的酒店" in [a.value for a in mem.state.active_anchors()]


@pytest.mark.parametrize("mine, said, kept", [
    # digits alone are any number's: not taken by their form
    ("My order number is 123456.", "The verification code I got is 654321, and my zip is 100086",
     ["123456"]),
    # one more of a thing is no correction of the first
    ("My order number is SR-20240315-889.",
     "I got the wrong item in my other order too, SR-20240315-891.",
     ["SR-20240315-889", "SR-20240315-891"]),
])
def test_an_id_is_taken_by_its_form_only_when_it_says_which_system(mine, said, kept) -> None:
    state = folded([("user", mine), ("assistant", "Thanks."), ("user", said)], 1)
    assert [h.value for h in state.history("order_id") if h.status == "active"] == kept


@pytest.mark.parametrize("text", ["The package's tracking number is 1Z999AA10123456784.",
                                  "The new phone's number is 628-555-0199",
                                  "我的会员账号是ana123456，我的会员手机号是13812345678"])
def test_a_things_value_is_the_users_own(text: str) -> None:
    """Only a person owns a value apart from the user: a thing's (the package's, the new
    phone's) or a membership's is the user's."""
    anchors = [a for a in folded([("user", text)], 1).anchors if a.kind != "name"]
    assert anchors and all(a.subject is None for a in anchors)


@pytest.mark.parametrize("text", ["I want to claim 25000 bonus points.",
                                  "Just in case 10086 is busy, call again.",
                                  "Can I claim 50000 miles for this?"])
def test_a_claim_or_a_case_without_a_number_of_its_kind_is_no_ticket(text: str) -> None:
    assert not [a for a in find_anchors(Turn(index=0, role="user", content=text))
                if a.kind == "ticket_id"]


@pytest.mark.parametrize("question", [
    "In what city would you like me to search?", "For what city?", "Where should I begin the "
    "search?", "Where are you leaving from?", "Where do you wish to go?", "Which city are you "
    "flying out of?", "What's your destination?", "Departure station, please?",
    "Can you tell me from where will you pick the car up?", "您想在哪个城市找？",
    "Which airport are you departing from?", "Until when do you need the car?",
])
def test_the_fast_test_for_role_questions_misses_none(question) -> None:
    """The word test before the role cues (answers._asks_a_role) never skips a question a
    cue reads."""
    cued = any(cue(name).search(question) for _, name in _ROLE_CUES)
    assert _asks_a_role(question) == cued


@pytest.mark.parametrize("batch", [1, 100])
def test_the_services_address_said_back_by_the_user_stays_the_services(batch: int) -> None:
    state = folded([("user", "我想退货。"),
                    ("assistant", "请寄到我们的退货仓：广州市白云区机场路1688号。"),
                    ("user", "好的，寄到广州市白云区机场路1688号对吧？")], batch)
    assert [(a.value, a.speaker) for a in state.active_anchors() if a.key == "address"] == \
        [("广州市白云区机场路1688号", "assistant")]
    assert state.anchor("address", speaker="user") is None
