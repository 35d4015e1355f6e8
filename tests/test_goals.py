"""A goal is achieved by the assistant's later report of the act it wants (zh + en), read
turn by turn (the goal in the state's index) as in one batch; a search, another act,
another thing or id, an event of before, half the goal, the user's own report or a
negated report achieves nothing."""

from __future__ import annotations

import pytest
from conftest import make_turns, sources

from convstate import ConversationState, RuleExtractor, fold


def goals_after(rows: list[tuple[str, str]], one_batch: bool) -> list[tuple[str, str]]:
    turns = make_turns(*rows)
    state = ConversationState()
    for batch in [turns] if one_batch else [[t] for t in turns]:
        state = fold(state, RuleExtractor().extract(batch, state.index()).delta,
                     sources(batch))
    return [(g.text, g.status) for g in state.goals]


@pytest.mark.parametrize("one_batch", [False, True])
@pytest.mark.parametrize("goal, report, status", [
    ("I need to change the delivery address for order 7781.",
     "Done, I've changed the delivery address for order 7781 to 12 Elm Street.", "achieved"),
    ("I want a refund for my broken headphones.",
     "I'm sorry. Your refund has been processed.", "achieved"),  # a generic verb names it
    ("I'd like to cancel my subscription.", "I have cancelled your subscription.",
     "achieved"),
    ("我要退款。", "好的，已经为您退款了。", "achieved"),
    ("我想修改收货地址。", "收货地址已修改为北京市朝阳区建国路1号。", "achieved"),
    ("帮我取消订单DD123456。", "订单已取消。", "achieved"),
    # a search is ended by the user's choice, not by the list found
    ("I want to find a restaurant in San Jose.", "I found 10 restaurants in San Jose.",
     "active"),
    ("I want a refund.", "I haven't processed your refund yet.", "active"),  # negated
    ("I want to return the blender.", "I've sent you a return label.", "active"),  # another act
    ("I need to change the delivery address.", "I've changed your phone number.", "active"),
    ("我要退款。", "退款申请已经提交了，请耐心等待。", "active"),  # submitted, not refunded
    # another thing, another id, another way, a past event, or half the goal
    ("I want to cancel order 1234.", "I've cancelled order 5678.", "active"),
    ("I want to cancel order 1234.", "Order 1234 has been cancelled.", "achieved"),
    ("我要取消订单DD123456。", "订单DD999999已取消。", "active"),
    ("I want a refund for my headphones.", "Your refund for the blender has been processed.",
     "active"),
    ("我想寄回这个电饭煲", "我们已经给您寄出了新的电饭煲", "active"),
    ("I need to replace my router.",
     "We replaced your router in March, so it's out of the swap window.", "active"),
    ("I need to cancel my booking.", "Another customer cancelled the booking for room 5.",
     "active"),
    ("I want to send the package back.", "We sent the package on Monday.", "active"),
    ("I want to cancel my subscription and get a refund.", "I have cancelled your subscription.",
     "active"),
    ("我想修改收货地址和手机号。", "手机号已修改。", "active"),
    ("我想修改收货地址。", "收货地址已修改为北京市朝阳区建国路1号。", "achieved"),
    ("I want a refund for order 88231.", "Your refund for order 88231 has been processed.",
     "achieved"),
    ("我要退款。", "已为您办理退款。", "achieved"),
    ("我要退款。", "您的退款已经处理完毕。", "achieved"),
    ("I want a refund for my broken headphones.", "Your refund is complete.", "achieved"),
    ("I want a refund.", "Is your refund complete?", "active"),  # asked, not reported
    # a noun of the act said done: the act done
    ("I'd like to cancel my order.", "The cancellation is done.", "achieved"),
    ("I want to book a table for two.", "Your booking is confirmed.", "achieved"),
    ("I want to book a table for two.", "Your order is confirmed.", "active"),
    ("I'd like to cancel my order.", "Your cancellation request has been processed.",
     "active"),  # the request's processing, not the cancelling
    # what might have been, someone else's, another one, or taken back after it
    ("I need to change the delivery address.",
     "I would have changed the delivery address, but the parcel has already shipped.",
     "active"),
    ("I'd like to cancel my order.", "Your husband's order has been cancelled.", "active"),
    ("我想取消订单。", "您先生的订单已取消。", "active"),
    ("I'd like to cancel my order.", "I've cancelled the other order, the one from May.",
     "active"),
    ("I need to change the delivery address.",
     "I've changed the delivery address, but unfortunately the change failed.", "active"),
    ("我想修改收货地址。", "收货地址已经修改了，但是没有成功。", "active"),
    # acts of the lexicon: block, upgrade, rebook, switch, 冻结, 改签 (where it goes to is
    # no thing it is done to: CA1518)
    ("I want to block my card.", "I've blocked your card.", "achieved"),
    ("I want to block my card.", "I've unblocked your card.", "active"),
    ("I'd like to upgrade my plan.", "I've upgraded your plan.", "achieved"),
    ("I need to rebook my flight.", "I've rebooked your flight to Friday.", "achieved"),
    ("I want to switch to the Basic plan.", "I've switched you to the Basic plan.",
     "achieved"),
    ("我要冻结我的银行卡。", "已为您冻结银行卡。", "achieved"),
    ("我想改签。", "已为您改签到CA1518。", "achieved"),
    ("我要取消订单DD123456。", "已为您取消订单DD999999。", "active"),
    # "update" a thing changes it ("update you" tells)
    ("I need to change the delivery address for my order.",
     "I've updated the delivery address to 12 Oak Street.", "achieved"),
    ("我要修改收货地址。", "已为您更新收货地址。", "achieved"),
    ("I need to change the delivery address.", "I've updated you on the delivery.", "active"),
    # ... what the report's thing is about is no thing it was done to
    ("I need to change the delivery address.",
     "I've updated your case notes about the delivery address.", "active"),
    # a word of the thing after the goal's ("plan", 功能, 信息) is the same thing still
    ("I want to cancel my subscription.",
     "I've cancelled your subscription plan, effective today.", "achieved"),
    ("我要取消自动续费。", "已为您取消自动续费功能。", "achieved"),
    ("我要改收货地址。", "已为您修改收货地址信息。", "achieved"),
    ("I need to change my technician appointment to Friday.",
     "I've updated the technician appointment to Friday.", "achieved"),
])
def test_a_report_of_the_act_a_goal_wants_achieves_it(goal: str, report: str, status: str,
                                                      one_batch: bool) -> None:
    got = goals_after([("user", goal), ("assistant", report)], one_batch)
    assert [s for _, s in got] == [status], got


def test_the_users_own_report_achieves_nothing() -> None:
    got = goals_after([("user", "I want to change the delivery address."),
                       ("assistant", "Sure."),
                       ("user", "I changed the delivery address on the app but it still "
                                "shows the old one.")], one_batch=False)
    assert [s for _, s in got] == ["active"], got


def test_a_want_goes_on_past_a_report_in_its_clause() -> None:
    """"The blender I bought" reports nothing the goal gives up: the want is a goal."""
    for text in ["I want to return the blender I bought last week, order 55-1234.",
                 "I need to exchange the shoes you sent me.",
                 "I want to return the blender that I bought."]:
        got = goals_after([("user", text)], one_batch=False)
        assert [s for _, s in got] == ["active"] and got[0][0] in text, got
    # a want that frames a report is no goal
    assert goals_after([("user", "I need you to know I've already returned the blender.")],
                       one_batch=False) == []


@pytest.mark.parametrize("goal, later, status", [
    ("I want to cancel my gym membership.", "Never mind the cancellation.", "abandoned"),
    # another verb of the class, or a thing of it, is not the act given up
    ("I want a refund for my blender.", "Never mind the credit card, I paid with PayPal.",
     "active"),
    ("I want to ship it to my office.", "Never mind the email, just call me.", "active"),
    ("I want to reschedule my delivery.", "Forget the booking fee.", "active"),
])
def test_a_noun_of_the_act_given_up_gives_up_the_goal(goal, later, status) -> None:
    assert status_after(goal, later, one_batch=False) == [status]


def status_after(goal: str, later: str, one_batch: bool) -> list[str]:
    """The goals' statuses after ``goal``, the assistant's "Sure", and the user's ``later``."""
    rows = [("user", goal), ("assistant", "Sure, I can help."), ("user", later)]
    return [s for _, s in goals_after(rows, one_batch)]


@pytest.mark.parametrize("one_batch", [False, True])
@pytest.mark.parametrize("goal, later, status", [
    # keeping the thing gives up a goal to end it: what is kept is what the goal ends,
    # its head last
    ("I want to cancel my gym membership.", "Never mind, I'll keep the membership.",
     "abandoned"),
    ("I want to cancel my gym membership.", "Never mind I'll keep the membership.",
     "abandoned"),
    ("我想取消健身卡会员。", "算了，会员我还是留着吧。", "abandoned"),
    ("我想取消健身卡会员。", "算了，还是保留这个会员吧。", "abandoned"),
    ("我想取消健身卡会员。", "算了，会员还是保留吧。", "abandoned"),
    ("我想取消会员。", "会员我老婆想留着", "active"),
    ("I want to return the headphones I bought last week.",
     "OK, I'll keep the headphones then.", "abandoned"),
    ("I want to cancel my order.", "Keep the order but change the address.", "abandoned"),
    # ... not a thing of it, another thing, a pronoun (what it stands for is not told), a
    # goal that ends nothing or goes somewhere, a question, a negated or supposed keep, a
    # later end
    ("I want to cancel my order.", "I'll keep the order number handy.", "active"),
    ("I want to cancel my membership.", "Keep in mind my membership renews on June 1.",
     "active"),
    ("I want to cancel my flight.", "I'll keep my flight credit for later.", "active"),
    ("I want to cancel my phone plan.", "I'll keep the phone.", "active"),
    ("I want to return the headphones.",
     "I'll keep the box and the headphones ready for pickup.", "active"),
    ("I want to return the jacket.", "Yes, I'll keep it.", "active"),
    ("I want a refund for the headphones.", "I'll keep the headphones.", "active"),
    ("I need to return to Chicago on Friday.", "Keep the same flight to Chicago.", "active"),
    ("I want to cancel my plan.", "Can I keep my number?", "active"),
    ("I want to return the shoes.", "There's no way I'm keeping the shoes.", "active"),
    ("I want to return the shoes.", "I'd keep the shoes if they weren't broken.", "active"),
    ("I want to cancel my membership.", "I don't want to keep the membership.", "active"),
    # ... nor one of the same head that another word tells apart, a keep that is not
    # the speaker's own now (a third party's, a report, a habit of the service's), in
    # doubt, for a while, or under a condition anywhere in the turn
    ("I want to close my savings account.", "I'll keep my checking account.", "active"),
    ("我想注销旧账户。", "新账户我保留", "active"),
    ("I want to cancel my subscription.", "You guys keep renewing my subscription.",
     "active"),
    ("I want to cancel my membership.", "I was told I could keep the membership until June.",
     "active"),
    ("我想取消会员。", "我老婆想保留会员", "active"),
    ("I want to cancel my membership.", "I might keep the membership.", "active"),
    ("I want to cancel my membership.", "I'm thinking about keeping the membership.",
     "active"),
    ("I want to cancel my membership.",
     "Last time I decided to keep the membership, this time I'm done.", "active"),
    ("I want to cancel my Netflix subscription.", "I'll keep my Hulu subscription.",
     "active"),
    ("I want to return the headphones.", "I'll keep the headphones until the label arrives.",
     "active"),
    ("I want to cancel my membership.", "I'll keep the membership, unless you can waive the "
     "fee.", "active"),
    ("我想取消会员。", "会员费的收据我留着", "active"),
    ("我想注销账号。", "请保留我的账号数据三十天", "active"),
    ("我想停掉宽带。", "宽带我继续用到月底再停", "active"),
])
def test_keeping_the_thing_gives_up_ending_it(goal, later, status, one_batch) -> None:
    assert status_after(goal, later, one_batch) == [status]
