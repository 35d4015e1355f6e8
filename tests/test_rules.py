"""The offline rule extractor, zh and en: what it finds, verbatim, and what it leaves."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from conftest import make_turns, sources

from convstate import (
    ConversationMemory,
    ConversationState,
    InMemoryStore,
    RuleExtractor,
    Turn,
    fold,
    render,
)
from convstate.extract import rules
from convstate.extract.rules import MAX_ANCHORS_PER_TURN, detect_language, find_anchors
from convstate.redact import mask_phones


def anchors_of(text: str, role: str = "user") -> list[tuple[str, str]]:
    return [(a.key, a.value) for a in find_anchors(make_turns((role, text))[0])]


@pytest.mark.parametrize("text, expected", [
    ("订单号是 DD20240315889，麻烦查一下", ("order_id", "DD20240315889")),
    ("my order number is SR-20240315-889.", ("order_id", "SR-20240315-889")),
    ("order #A1234567 arrived broken", ("order_id", "A1234567")),
    ("My order number is 12345.", ("order_id", "12345")),  # five characters after a cue
    ("我的订单号是88231。", ("order_id", "88231")),
    ("电话 +86 138 0013 8000", ("phone", "+86 138 0013 8000")),
    ("打 139-8765-4321 找我", ("phone", "139-8765-4321")),
    ("手机13812345678", ("phone", "13812345678")),
    ("call (415) 555-0132 please", ("phone", "(415) 555-0132")),
    ("邮箱 zhang.wei@example.com 收", ("email", "zhang.wei@example.com")),
    ("实付 ¥459.00", ("amount", "¥459.00")),
    ("退了 299元", ("amount", "299元")),
    ("It cost $1,299.50 in total", ("amount", "$1,299.50")),
    ("预算不超过500元", ("budget", "500元")),
    ("budget at most $80", ("budget", "$80")),
    ("3月15日下的单", ("date", "3月15日")),
    # a day of the month alone, where a date is said; not a number a place is known by
    ("改到16号吧", ("date", "16号")),
    ("日期改成10号。", ("date", "10号")),
    ("换成10号吧。", ("date", "10号")),
    ("出发日期改为12号。", ("date", "12号")),
    ("帮我订15日的房间", ("date", "15日")),
    ("delivered on March 15, 2024", ("date", "March 15, 2024")),
    ("2024-03-15 到的", ("date", "2024-03-15")),
    ("下午5点前联系", ("time", "下午5点")),
    ("before 5 pm today", ("time", "5 pm")),
    ("at 14:30", ("time", "14:30")),
    ("收货地址是上海市浦东新区张江路88号，谢谢", ("address", "上海市浦东新区张江路88号")),
    ("地址改一下，改成：上海市浦东新区世纪大道100号。", ("address", "上海市浦东新区世纪大道100号")),
    ("地址已更新为北京市朝阳区建国路88号1502室，对吗？",
     ("address", "北京市朝阳区建国路88号1502室")),
    ("好的，已为您更新为北京市海淀区中关村大街1号。", ("address", "北京市海淀区中关村大街1号")),
    # a Chinese address by its shape alone: a city or a district, a road and its number
    ("不对，是杭州市滨江区江南大道2号。", ("address", "杭州市滨江区江南大道2号")),
    # a label before a colon is no part of it; 对吧 after it is no part either
    ("请寄到我们的退货仓：广州市白云区机场路1688号。", ("address", "广州市白云区机场路1688号")),
    ("请寄到我家：朝阳路88号3单元。", ("address", "朝阳路88号3单元")),
    ("好的，寄到广州市白云区机场路1688号对吧？", ("address", "广州市白云区机场路1688号")),
    ("地址写错了，应该是杭州市滨江区江南大道2号。", ("address", "杭州市滨江区江南大道2号")),
    ("改成杭州市滨江区江南大道2号3栋1202室。", ("address", "杭州市滨江区江南大道2号3栋1202室")),
    ("广东省深圳市南山区科技园路1号", ("address", "广东省深圳市南山区科技园路1号")),
    ("送到杭州市滨江区江南大道2号吧。", ("address", "杭州市滨江区江南大道2号")),  # (吧 ends it)
    ("地址还是北京市海淀区学院路30号。", ("address", "北京市海淀区学院路30号")),  # (还是: no part)
    ("the shipping address is 88 Market Street, San Francisco.",
     ("address", "88 Market Street, San Francisco")),
    ("快递单号 SF1234567890 一直没更新", ("tracking_number", "SF1234567890")),
    ("My tracking number is 1Z999AA10123456784.", ("tracking_number", "1Z999AA10123456784")),
    # a bare 单号 is of what its sentence names before it: a complaint's is a ticket
    ("您的投诉已受理，单号TS20240611777。", ("ticket_id", "TS20240611777")),
    ("您的售后申请已提交，单号为SH20240611777。", ("ticket_id", "SH20240611777")),
    ("我要投诉，单号是DD20240601123", ("order_id", "DD20240601123")),  # no ticket filed yet
    ("已为您提交投诉，单号TS20240601001，请耐心等待。", ("ticket_id", "TS20240601001")),
    ("请用英文回复我", ("language", "用英文回复")),
    ("电话010-81528822", ("phone", "010-81528822")),
    ("营业时间 11:00-15:00", ("time", "11:00-15:00")),
    ("人均50-100元", ("amount", "50-100元")),
    ("人均100到150元的餐馆没有", ("amount", "100到150元")),  # a range said in words too
    ("价格在200~300元之间", ("amount", "200~300元")),
    ("月租怎么从58到88元了？", ("amount", "88元")),  # a change from one price to another
    ("评分4.5分以上", ("rating", "4.5分以上")),
    ("游玩2小时 - 3小时", ("duration", "2小时 - 3小时")),
    ("退款3到5个工作日到账", ("duration", "3到5个工作日")),
    ("I moved to 100 Masonic Avenue last year", ("address", "100 Masonic Avenue")),
    # a street address with the town, state and ZIP code after it, whole; a name after
    # the street is no town ("…, Bob will sign")
    ("Ship it to 742 Evergreen Terrace, Springfield, IL 62704.",
     ("address", "742 Evergreen Terrace, Springfield, IL 62704")),
    ("Send it to 200 Main Street, Bob will sign.", ("address", "200 Main Street")),
    ("on the 12th of this month", ("date", "12th of this month")),
    ("maybe Friday next week", ("date", "Friday next week")),
    ("联系电话是88204686！", ("phone", "88204686")),
    ("酒店位于北京丰台区广安路1号。", ("address", "北京丰台区广安路1号")),
    ("它的门票是免费的。", ("amount", "免费")),
    # phones as people type them: one separator throughout, a trunk 1, brackets, or ten
    # digits that their cue names a phone
    ("My cell is 773.555.0143", ("phone", "773.555.0143")),
    ("Try 773 555 0143 after six", ("phone", "773 555 0143")),
    ("the line is 1-800-555-0199", ("phone", "1-800-555-0199")),
    ("My mobile number is 7735550143", ("phone", "7735550143")),
    ("座机是(010) 6666-7777", ("phone", "(010) 6666-7777")),
    ("电话（010）66667777", ("phone", "（010）66667777")),
    ("call 312-555-0186x123", ("phone", "312-555-0186")),  # an extension after it
    ("Phone is 7735550143", ("phone", "7735550143")),
    ("my number is 7735550143", ("phone", "7735550143")),
    # international (E.164): "+" or 00 and a country code, the national number in groups,
    # its trunk 0 left out or in brackets; national, after the trunk 0
    ("My number is 07700 900123.", ("phone", "07700 900123")),
    ("+44 7700 900123", ("phone", "+44 7700 900123")),
    ("You can reach our repair desk on 0800 123 4567", ("phone", "0800 123 4567")),
    ("+49 151 23456789", ("phone", "+49 151 23456789")),  # the country code kept
    ("call 0044 20 7946 0958 now", ("phone", "0044 20 7946 0958")),
    ("It's +44 (0)20 7946 0958.", ("phone", "+44 (0)20 7946 0958")),
    ("Moscow office: +7 (495) 123-45-67", ("phone", "+7 (495) 123-45-67")),
    ("(+44) 20 7946 0958", ("phone", "(+44) 20 7946 0958")),
    ("Paris: +33 6 12 34 56 78", ("phone", "+33 6 12 34 56 78")),
    ("+61 412 345 678", ("phone", "+61 412 345 678")),
    ("+39 06 1234 5678", ("phone", "+39 06 1234 5678")),  # Italy's 0 stays after its code
    ("text +447700900123", ("phone", "+447700900123")),
    ("电话 +86 21 6438 1234", ("phone", "+86 21 6438 1234")),
    ("电话 0086 138 0013 8000", ("phone", "0086 138 0013 8000")),
    ("座机 021 6438 1234", ("phone", "021 6438 1234")),
    ("tel (020) 7946 0958", ("phone", "(020) 7946 0958")),
    ("Berlin: 030 12345678, mobile 0151 23456789", ("phone", "0151 23456789")),
    ("appelez le 01 23 45 67 89", ("phone", "01 23 45 67 89")),
    ("call 020 7946 0958x12", ("phone", "020 7946 0958")),
    ("Call +44 20 7946 0958 (24h)", ("phone", "+44 20 7946 0958")),
    ("Tel:+44 20 7946 0958", ("phone", "+44 20 7946 0958")),
    # the run of digit groups ends before an hour or a count said after it
    ("Call 0800 123 4567 24/7.", ("phone", "0800 123 4567")),
    ("Call +44 20 7946 0958 9am-5pm", ("phone", "+44 20 7946 0958")),
    ("+44 20 7946 0958 2 days ago", ("phone", "+44 20 7946 0958")),
    ("Phone:07700 900123", ("phone", "07700 900123")),
    # Chinese weekdays and times in Chinese numerals
    ("能改到下周三下午两点吗", ("date", "下周三")),
    ("能改到下周三下午两点吗", ("time", "下午两点")),
    ("星期五晚上八点半到", ("time", "晚上八点半")),
    ("礼拜天十点钟见", ("time", "十点钟")),
    ("不是三点，是四点。", ("time", "四点")),  # alone, where a time is said
    ("明天三点可以吗", ("time", "三点")),
    ("那就三点吧", ("time", "三点")),
    ("三点到五点之间都行", ("time", "五点")),
    ("师傅说三点前到", ("time", "三点")),
    # an address named in another sentence, and the words that go on past it
    ("That's my old address! I live at 9 Pine Road, Austin, TX 73301 now.",
     ("address", "9 Pine Road, Austin, TX 73301")),
    ("My address is 9 Pine Road, Austin now.", ("address", "9 Pine Road, Austin")),
    # a window: its first end takes the second's am or pm
    ("The technician will arrive between 9 and 11 am tomorrow.", ("time", "9 and 11 am")),
    ("Can you come from 2 to 4 pm?", ("time", "2 to 4 pm")),
    ("Any time 9-11 am works.", ("time", "9-11 am")),
])
def test_anchor_patterns(text: str, expected: tuple[str, str]) -> None:
    found = anchors_of(text)
    assert expected in found
    for _, value in found:
        assert value in text  # verbatim


@pytest.mark.parametrize("text", ["北京市东城区钟楼湾胡同临9号。", "地址在5号牛街清真超市内。",
                                  "住在3号楼", "坐地铁5号线", "西城区牛街西里商业1号楼5-2号",
                                  "遥控器用的是7号电池", "在2号航站楼", "我买的是3号链接",
                                  "我的房间号为5号。", "我想把口红色号换成12号", "座位改成5号吧",
                                  "尺码换成7号"])
def test_a_number_a_place_or_a_thing_is_known_by_is_no_date(text: str) -> None:
    assert not [a for a in anchors_of(text) if a[0] in ("date", "until")]


@pytest.mark.parametrize("text", ["Our hotline is open Monday to Friday 9am to 6pm.",
                                  "We're open from 9 am to 6 pm, Monday to Friday.",
                                  "营业时间周一到周五早上9点到晚上6点"])
def test_opening_hours_give_no_date_or_time(text: str) -> None:
    assert not [a for a in anchors_of(text, "assistant") if a[0] in ("date", "until", "time")]
    # a range asked for is no opening hours
    assert ("time", "9 am") in anchors_of("The store is open, can you book me from 9 am to 11 am?")


@pytest.mark.parametrize("text, kept, not_found", [
    ("I'd like 2 Large Square pizzas.", [], "address"),  # no street type: no address
    ("Send it to Jane Doe, PO Box 4471.", ["Jane Doe"], "Jane Doe, PO"),  # no region code
])
def test_a_quantity_or_a_name_before_capitals_is_no_place(text, kept, not_found) -> None:
    found = anchors_of(text)
    assert all(v in [value for _, value in found] for v in kept)
    assert not_found not in [k for k, _ in found] + [v for _, v in found]


@pytest.mark.parametrize("text, counts", [
    ("Find something else, for 3 people.", [("people", "3 people")]),
    ("I want one ticket.", [("tickets", "one ticket")]),
    ("A table for 4 at 7 pm, please.", [("people", "4")]),
    ("I need at least two bedrooms.", [("bedrooms", "two bedrooms")]),
    ("I want to book 2 nights at the Hilton.", [("nights", "2 nights")]),
    # told in passing, a price a head, a name, a time: no count asked for
    ("2 people complained about it", []), ("3 nights ago", []), ("10 seats left", []),
    ("2 people in our group have nut allergies.", []), ("The 2 beds were dirty.", []),
    ("No, 2 tickets please.", [("tickets", "2 tickets")]),
    ("How much is it for one person?", []), ("Can I get a table for 8 o'clock?", []),
    ("I want the 2 Bedroom Deluxe Suite", []), ("I need 2 guest rooms", []),
    ("It costs $3 per person, room 12 is free.", []),
    # Chinese: the measure word says what is counted, where a booking is (or the count
    # is said alone, an answer)
    ("我们3个人，要两张票", [("people", "3个人"), ("tickets", "两张票")]),
    ("我想订两间大床房，住两晚。", [("rooms", "两间大床房"), ("nights", "两晚")]),
    ("两位。", [("people", "两位")]), ("改成四张吧。", [("tickets", "四张")]),
    ("我们一共5位，今晚7点。", [("people", "5位")]),
    ("两人之间的感情比较稳定。", []), ("他是一位著名钢琴家。", []),  # not a booking
    ("我经常感觉我会一个人过完一生。", []), ("收到了三张图片，验证码是6位数。", []),
    ("我们点了三人套餐。", []), ("你们客服一个人都没回。", []),  # a product, not even one
    ("我订了两张票。", []),  # told of the past
    ("上次我们六个人来吃，等了一个小时。", []), ("我们订的是两间房，结果只给了一间。", []),
    ("帮我订两张明天去北京的高铁票。", [("tickets", "两张明天去北京的高铁票")]),
    ("麻烦帮我开两张发票。", []), ("有一位导游带我们逛了一整天。", []),  # an invoice, a person
    ("订两间房，每间两个人。", [("rooms", "两间房")]),  # one of each
    ("我们三个人，一人一份牛排。", [("people", "三个人")]),
    ("我们一共十个人，有三个人不吃辣。", [("people", "十个人")]),  # some of the party
    ("今晚那桌从4位改到5位。", [("people", "5位")]),
    ("我们120人，订个大厅。", [("people", "120人")]),
    ("酒店有300间房，怎么会没房？", []),
    ("My 2 tickets never arrived.", []), ("2 tickets didn't arrive", []),
    ("The room sleeps up to 6 guests.", []), ("max 4 people", []),
    ("Last time I was charged for 3 nights.", []), ("If I bought 3 tickets, is it cheaper?", []),
    ("I don't need 3 tickets.", []),
    ("Book 3 nights at the best price.", [("nights", "3 nights")]),
    ("A table for 4 people at 7 pm.", [("people", "4 people")]),
    ("Table for two at 8 pm.", [("people", "two")]),
    ("Can the restaurant that seats 50 people fit our group of 12?", [("people", "12")]),
    ("Your hotel has 300 rooms and you can't find one for me?", []),
])
def test_a_count_is_keyed_by_what_it_counts(text, counts) -> None:
    """How many of a thing (a party, tickets, rooms, nights): a number and the noun it
    counts, not one that refers to some or is told in passing; the key is the thing
    counted."""
    keys = {"people", "tickets", "rooms", "bedrooms", "beds", "baths", "nights"}
    assert [a for a in anchors_of(text) if a[0] in keys] == counts


@pytest.mark.parametrize("text, expected", [
    ("我的生日是２０２４年３月５日", ("date", "２０２４年３月５日")),  # full-width digits
    ("deliver to １２３ Main Street please", ("address", "１２３ Main Street")),
    ("book it for tonıght at 7 pm", ("date", "tonıght")),  # cased as the patterns read it
    ("TONİGHT at 7 pm", ("date", "TONİGHT")),
])
def test_a_pattern_skipped_for_want_of_its_words_misses_no_match(text, expected) -> None:
    """A pattern is not run on a turn without a word each match needs; the words are
    looked for as the pattern reads (any digit, ignoring case)."""
    assert expected in anchors_of(text)


def test_a_free_service_is_not_a_price_and_a_bare_number_not_a_phone() -> None:
    for text in ("免费停车，免费WiFi", "房间号是20240315", "编号68086818"):
        anchors = find_anchors(Turn(index=0, role="assistant", content=text))
        assert [a.kind for a in anchors if a.kind in ("amount", "phone")] == [], text


def test_an_email_is_not_also_an_address() -> None:
    assert anchors_of("凭证发送到 zhang.wei@example.com") == [("email", "zhang.wei@example.com")]


def test_a_bit_more_is_no_time_and_every_monday_no_date() -> None:
    assert anchors_of("快一点好吗？便宜一点。每周一例会。") == []
    # a word that starts with a weekday's character, a count of weeks, "a bit"
    for text in ("你们上周一直不接电话", "一周一次", "本周五折", "早上一点消息都没有",
                 "我有一点半信半疑"):
        assert anchors_of(text) == [], text


@pytest.mark.parametrize("text", [
    # a date and a time, a date, a time, prices, an order id, a ZIP code, a year, a
    # quantity, a version, a verification code: no phone
    "on 05.06.2024 10.30", "by 2024-03-15", "at 14:30", "€0.99 0.50", "$1,299.50",
    "order #A1234567", "ZIP 02139", "since 2024", "20GB of data", "version 0.12.3",
    "the code is 482913", "SSN 123-45-6789", "10:00 1234 5678",
    # a count with a sign is no international number, nor is a run of digits too long
    # for one (a card's, an IBAN's last groups, 00 and 13 digits in a row)
    "+10 000 000 users", "+1 000 000 000", "+5 000 000", "up +20 30", "5+ years",
    "card 4111 1111 1111 1111", "0123 4567 8901 2345 678", "IBAN DE89 3704 0044 0532 0130 00",
    "GTIN 00012345678905", "00447700900123", "ISBN 0-306-40615-2",
    "身份证号码是11010119900307123X", "银行卡号是6222021234567890123",
])
def test_numbers_of_other_kinds_are_no_international_phone(text: str) -> None:
    assert [v for k, v in anchors_of(text) if k == "phone"] == []
    assert mask_phones(text) == text  # nor masked as one


def test_international_phones_are_the_users_and_the_desks_its_own() -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=8192)
    mem.add("user", "My number is 07700 900123.")
    mem.add("user", "+44 7700 900123")
    mem.add("assistant", "You can reach our repair desk on 0800 123 4567")
    mem.add("user", "+49 151 23456789")
    assert [(h.value, h.speaker, h.status) for h in mem.state.history("phone")] == [
        ("07700 900123", "user", "superseded"), ("+44 7700 900123", "user", "superseded"),
        ("0800 123 4567", "assistant", "active"), ("+49 151 23456789", "user", "active")]
    desk = next(a for a in mem.state.anchors if a.value == "0800 123 4567")
    assert desk.subject == "our repair desk"  # the assistant's own, never the user's


def test_digits_inside_an_id_are_no_phone() -> None:
    assert anchors_of("我的宽带账号是sh02188776655") == [("account", "sh02188776655")]
    assert [k for k, _ in anchors_of("是 sh02188776655, ref 773.555.01434")] == []


def test_order_number_is_not_read_as_a_phone() -> None:
    assert anchors_of("订单号 13812345678") == [("order_id", "13812345678")]


@pytest.mark.parametrize("text, found", [
    # an id of no kind, named by its noun, is kept as said (a reference)
    ("My invoice number is INV-20931.", [("reference", "INV-20931")]),
    ("发票号是FP20240315001", [("reference", "FP20240315001")]),
    ("保单编号：PL-2024-88123", [("reference", "PL-2024-88123")]),
    # ... after the kinds that have a cue of their own, and not a count or a word
    ("The serial number is SN8472A and my order number is DD20240315889.",
     [("reference", "SN8472A"), ("order_id", "DD20240315889")]),
    ("预订号码是HB123456", [("order_id", "HB123456")]),  # a booking's number, said whole
    ("My phone number is 312-555-0186.", [("phone", "312-555-0186")]),
    ("The number is 12345 but the room number is 305.", []),
    # digits alone are a person's numbers or a count, not a reference
    ("My social security number is 123-45-6789. The verification code is 482913.", []),
    ("我的身份证号码是11010119900307123X，银行卡号是6222021234567890123。", []),
    ("My zip code is 94103. Total number is 15000 units. Any 24-hour pharmacies?", []),
    # ... nor a code or a document's number: the person's
    ("Your verification code is 7H3K9Z. Passport number E12345678. 护照号码E12345678", []),
])
def test_an_id_of_no_kind_is_a_reference(text, found) -> None:
    assert sorted(anchors_of(text), key=lambda a: text.index(a[1])) == found


def extract(*rows: tuple[str, str]):
    turns = make_turns(*rows)
    delta = RuleExtractor().extract(turns, []).delta
    return fold(ConversationState(), delta, sources(turns))


def fold_in_two(first: list[tuple[str, str]], later: list[tuple[str, str]]):
    """Fold ``first``; extract ``later`` against the state's index. (delta, new state)"""
    t1 = make_turns(*first)
    state = fold(ConversationState(), RuleExtractor().extract(t1, []).delta, sources(t1))
    t2 = make_turns(*later, start=len(t1))
    delta = RuleExtractor().extract(t2, state.index()).delta
    return delta, fold(state, delta, sources(t2))


def test_zh_constraints_goals_tasks_decisions_sentiment() -> None:
    s = extract(
        ("user", "我要退款。我不要换货，只要退款。退款必须原路退回。"),
        ("assistant", "好的，我会为您提交退款申请。"),
        ("user", "那就这样。太慢了，真的很失望！"),
    )
    negs = [a.value for a in s.anchors if a.kind == "negative_constraint"]
    cons = [a.value for a in s.anchors if a.kind == "constraint"]
    assert negs == ["我不要换货"]
    assert cons == ["只要退款", "退款必须原路退回"]
    assert [g.text for g in s.goals] == ["我要退款"]
    assert [(t.owner, t.text) for t in s.open_tasks] == [("assistant", "我会为您提交退款申请")]
    assert [d.text for d in s.decisions] == ["那就这样"]
    assert s.sentiment.label == "negative" and "失望" in s.sentiment.reason
    assert s.language == "zh"


def test_en_constraints_goals_tasks_decisions_sentiment() -> None:
    s = extract(
        ("user", "I want a refund. I don't want an exchange, it must go back to my card."),
        ("assistant", "Okay, I will submit the refund request."),
        ("user", "Let's go with that. This is ridiculous, I'm really frustrated."),
    )
    assert [a.value for a in s.anchors if a.kind == "negative_constraint"] == [
        "I don't want an exchange"]
    assert [a.value for a in s.anchors if a.kind == "constraint"] == [
        "it must go back to my card"]
    assert [g.text for g in s.goals] == ["I want a refund"]
    assert [t.text for t in s.tasks(owner="assistant")] == ["I will submit the refund request"]
    assert [d.text for d in s.decisions] == ["Let's go with that"]
    assert s.sentiment.label == "negative" and s.language == "en"


@pytest.mark.parametrize("one_batch", [False, True])
def test_an_answer_to_a_closed_question_is_one_decision(one_batch: bool) -> None:
    turns = make_turns(("assistant", "Shall I book the table for 7pm?"), ("user", "Sounds good."))
    state = ConversationState()
    for batch in [turns] if one_batch else [[t] for t in turns]:
        state = fold(state, RuleExtractor().extract(batch, state.index()).delta, sources(batch))
    assert [d.text for d in state.decisions] == ["Shall I book the table for 7pm? → Sounds good"]


@pytest.mark.parametrize("text, goals", [
    # a clause no section takes, after a goal in its sentence, goes on with what it seeks
    ("你好，我想去吃饭。请帮我找一家人均消费是100-150元，有大螃蟹这个菜的餐馆。",
     ["我想去吃饭", "请帮我找一家人均消费是100-150元，有大螃蟹这个菜的餐馆"]),
    ("I need a hotel in SF, close to the airport, thanks.",
     ["I need a hotel in SF, close to the airport"]),
    # not a complaint, nor a clause of another sentence or another section's, nor one
    # that says something of its own (a new subject, the user's details, taking back,
    # correcting): it ends the goal's words
    ("我要退款，快递员态度很差。", ["我要退款"]),
    ("I want a refund, never mind.", ["I want a refund"]),
    ("I want to book a table for Friday, actually no, make it Saturday.",
     ["I want to book a table for Friday"]),
    ("I want a refund, my name is Ann Lee, my email is ann@example.com.", ["I want a refund"]),
    ("I want a refund. I have asked twice. I want a refund, the blender is broken.",
     ["I want a refund"]),
    ("I want a refund, and the package arrived damaged.", ["I want a refund"]),
    ("I need a hotel in SF, preferably cheap, and my name is John.",
     ["I need a hotel in SF, preferably cheap"]),

    ("I want a refund. The box was crushed.", ["I want a refund"]),
    ("I want a refund, but I don't want to send it back.", ["I want a refund"]),
])
def test_a_goal_runs_through_the_clauses_that_go_on_with_it(text, goals) -> None:
    assert [g.text for g in extract(("user", text)).goals] == goals


@pytest.mark.parametrize("first, again, goals", [
    # the same goal said again with or without what goes on with it is one goal
    ("I want a refund for my order, within this week.", "I want a refund for my order.",
     ["I want a refund for my order, within this week"]),
    ("我想退款。", "我想退款，尽快处理。", ["我想退款"]),
    ("I want a refund.", "I want a refund for my other order.",
     ["I want a refund", "I want a refund for my other order"]),
])
def test_a_goal_said_again_with_or_without_its_clauses_is_one(first, again, goals) -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=8192)
    for text in (first, again):
        mem.add("user", text)
    assert [g.text for g in mem.state.goals] == goals


@pytest.mark.parametrize("text, goal", [
    # a question that asks the assistant to search or book, naming what it seeks, is a
    # goal: answered, what it seeks is still sought
    ("Can you find me a cheap restaurant?", True),
    ("Could you help me find a Psychologist in San Jose?", True),
    ("Will you find me something else like a direct bus?", True),
    ("请帮我找一家评分4.5分以上的酒店好吗？", True),
    # ... not one that names nothing, asks of a thing known, or asks for information
    ("Could you find me the cheapest flight to Boston?", True),  # "the" + a superlative
    ("能帮我找一家便宜的酒店吗？", True),
    ("Will you find me something else?", False),
    ("Can you book it for me?", False),
    ("能帮我找那家餐厅吗？", False),
    ("Can you get me their user rating?", False),
    ("Can you find my package?", False),
    ("Would you recommend the pasta?", False),
    ("Can you find out what time it opens?", False),
    ("Can you get back to me tomorrow?", False),
    ("What is the address?", False),
    ("能帮我找一下吗？", False),
    ("能帮我订这家吗？", False),
    ("你帮我订的房间是几号？", False),  # what was done, not a search asked for
])
def test_a_question_that_asks_for_a_search_is_a_goal(text, goal) -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=8192)
    mem.add("user", text)
    mem.add("assistant", "Sure, how about this one? 好的，这家怎么样？")
    mem.add("user", "OK.")
    state = mem.state
    assert [g.text for g in state.goals if g.status == "active"] == (
        [text] if goal else []), text
    assert [r.text for r in state.requests] == ([] if goal else [text]), text


@pytest.mark.parametrize("text, name", [
    ("我叫王小明，电话13811112222。", "王小明"),
    ("你好，我的名字是李娜。", "李娜"),
    ("My name is Ann Lee.", "Ann Lee"),
    # 叫 as "call for" or "call someone" names no one
    ("帮我叫个车，顺便告诉我车牌。", None),
    ("我叫下车，从鬼味烤翅到北京饭店。", None),
    ("我叫一辆出租车，从北京站出发。", None),
])
def test_the_users_own_name_is_the_one_name(text, name) -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=8192)
    mem.add("user", text)
    mem.add("assistant", "您好，我叫小美。Hi, I'm here to help.")  # the agent's: no one's
    assert [a.value for a in mem.state.active_anchors() if a.key == "name"] == (
        [name] if name else [])


def test_not_satisfied_is_negative() -> None:
    assert extract(("user", "我很不满意")).sentiment.label == "negative"
    assert extract(("user", "I am not happy")).sentiment.label == "negative"
    assert extract(("user", "非常满意，谢谢")).sentiment.label == "positive"


def test_completion_closes_the_task_in_the_same_batch_and_across_folds() -> None:
    s = extract(("assistant", "我马上为您提交退款申请。"), ("assistant", "退款申请已经提交。"))
    assert [t.status for t in s.open_tasks] == ["done"]
    # across folds: the completion arrives later and refers to the task by id
    delta, state = fold_in_two([("assistant", "I will expedite your refund.")],
                               [("assistant", "Your refund has been expedited.")])
    assert [(u.id, u.status) for u in delta.updates] == [("T1", "done")]
    assert state.open_tasks[0].status == "done"


def test_a_request_is_closed_by_the_value_it_asked_for() -> None:
    s = extract(("assistant", "请您提供一下订单号。"), ("user", "订单号 DD20240315889"))
    assert [(t.owner, t.status) for t in s.open_tasks] == [("user", "done")]


def test_offers_and_questions_are_not_commitments() -> None:
    s = extract(("assistant", "我们可以为您办理换货或者退款。"),
                ("assistant", "我会帮您查一下，可以吗？"))
    assert s.open_tasks == []


def test_assistant_text_never_becomes_a_user_constraint() -> None:
    s = extract(("assistant", "您必须今天之内付款，不要告诉别人。"))
    assert [a for a in s.anchors if "constraint" in a.kind] == []


def test_the_extractor_reads_only_the_turns_it_is_given() -> None:
    turns = make_turns(("user", "订单号 DD1111111"), ("user", "订单号 DD2222222"))
    delta = RuleExtractor().extract(turns[1:], []).delta
    assert [a.value for a in delta.anchors] == ["DD2222222"]


def test_language_detection() -> None:
    assert detect_language("我要退款 please") == "zh"
    assert detect_language("I want a refund") == "en"
    assert detect_language("123 !!") is None


def test_user_questions_are_requests_closed_by_the_answer() -> None:
    s = extract(("user", "你好，请问酒店的电话是多少？营业时间呢"),
                ("assistant", "电话是010-81528822。"),
                ("user", "What is the phone number? Where is it located"),
                ("assistant", "It is 415-346-2356."))
    assert [(r.text, r.status) for r in s.requests] == [
        ("营业时间呢", "open"), ("请问酒店的电话是多少？", "answered"),
        ("What is the phone number?", "answered"), ("Where is it located", "open")]
    assert all(r.speaker == "user" for r in s.requests)
    # across folds the answer closes the question by its id
    delta, state = fold_in_two([("user", "退款什么时候到账？")],
                               [("assistant", "退款一般1到3个工作日到账。")])
    assert [(u.id, u.status) for u in delta.updates] == [("Q1", "answered")]
    assert state.requests[0].status == "answered"


@pytest.mark.parametrize("text, names", [
    ("北京鹏润国际大酒店的电话是多少？", ["北京鹏润国际大酒店"]),
    ("推荐您去天安门广场游玩，附近有海底捞火锅(西单店)。", ["天安门广场", "海底捞火锅(西单店)"]),
    ("在九棵树地铁站B口下车，走到清华大学", ["九棵树地铁站B口", "清华大学"]),
    ("I booked 1512 Barber Shop with Dr. Manuj K. Nangia in San Francisco, near SFO.",
     ["1512 Barber Shop", "Dr. Manuj K. Nangia", "San Francisco", "SFO"]),
    ("Sure, your stylist is Adam E. Pollock. Thanks!", ["Adam E. Pollock"]),
    ("Great. That must have been awesome! I'll never forget it.", []),
    ("我在家里休息，今天有点累。", []),
    ("Terence is my name.", ["Terence"]),
    ("Sure is nice out today.", []),
    ("我想找一家酒店，中国国家博物馆几点开门？", ["中国国家博物馆"]),
    ("哪家餐馆好？周边酒店和其他景点呢？该餐馆在家居博物馆旁边。", ["家居博物馆"]),
    ("我想去军都山餐厅，然后去家乐福超市。", ["军都山餐厅", "家乐福超市"]),
    ("- Average price: high.\n| Number | Total |\n**Assuming** it holds. However, it fell.",
     []),
    ("Family Solutions Inc. opened a branch.", ["Family Solutions Inc"]),
    # a business named without a kind word and its branch are one name
    ("推荐您去全聚德(王府井店)吃烤鸭，或者新辣道鱼火锅(通州北苑店)。",
     ["全聚德(王府井店)", "新辣道鱼火锅(通州北苑店)"]),
    ("我觉得北京万寿宾馆不错，你知道观复博物馆的电话吗？此酒店和啥餐厅都行。",
     ["北京万寿宾馆", "观复博物馆"]),
    ("推荐您去烤肉宛饭庄。", ["烤肉宛饭庄"]),
    # ... whatever cuts the brand's run: a kind word within it, a stop character in the
    # branch (什 of 什么); not a word of its own in parentheses (在北京饭店)
    ("就去儒宴孔府菜(亦庄店)吧。推荐聚德华天烤肉季(什刹海总店)。我觉得99旅馆连锁(北京物资学院店)好",
     ["儒宴孔府菜(亦庄店)", "聚德华天烤肉季(什刹海总店)", "99旅馆连锁(北京物资学院店)"]),
    ("我要投诉(在北京饭店)的服务。我想去中国说唱艺术博物馆。", ["北京饭店", "中国说唱艺术博物馆"]),
    # someone's saying leads no name (我老公说…); a branch may begin with 和 (和平门店)
    ("我老公说故宫博物院不错，朋友说全聚德(和平门店)好吃", ["故宫博物院", "全聚德(和平门店)"]),
    # a connective or "for example" before a name is no part of it
    ("没有，不过欢乐水魔方水上乐园不错，比如北新桥卤煮老店也行",
     ["欢乐水魔方水上乐园", "北新桥卤煮老店"]),
    ("查询后北京华尔顿酒店价格是330元", ["北京华尔顿酒店"]),
    ("比如说北京饭店，我想咨询北京华尔顿酒店", ["北京饭店", "北京华尔顿酒店"]),
    ("这家店叫世界商场", ["世界商场"]),  # ... only where the run opens
    # a number a name begins with is no duration (7天连锁酒店: the rest names no place);
    # one before a place named, or no place, is
    ("7天连锁酒店(北京顺义首都机场店)很不错，3天内到店。", ["7天连锁酒店(北京顺义首都机场店)"]),
    ("我想订3天北京饭店。", ["北京饭店"]),
    ("7天优品酒店(北京国贸劲松地铁站店)的地址在哪", ["7天优品酒店(北京国贸劲松地铁站店)"]),
    # a name with no kind word, known by its role; what stands for no one is no name
    ("天坛的电话是多少？您可以看看张裕爱斐堡国际酒庄这个景点。这个景点的门票呢？它的地址呢？",
     ["天坛", "张裕爱斐堡国际酒庄"]),
    ("京西十八潭的附近有景点吗？酒店的周边呢？", ["京西十八潭"]),  # what is near it
    ("我想找学校的附近的餐厅。我们小区的周边有超市吗", []),  # ... not a common noun
    ("不对吧，这家店的电话打不通。你们客服的电话是多少？售后的地址在哪里？你们店(总店)的地址是什么？",
     []),
    ("能换成华为(旗舰店)的那款手机吗？另外便宜坊的电话呢？", ["华为(旗舰店)", "便宜坊"]),
    # a model's number or code is part of its name, a brand may start small; a count, a
    # decimal or a time after a word is not, nor a sentence's first word before a number
    ("My iPhone 15 Pro is cracked. I want the Galaxy S24 Ultra, or go to Terminal 2.",
     ["iPhone 15 Pro", "Galaxy S24 Ultra", "Terminal 2"]),
    ("我的华为Mate 60 Pro屏幕坏了。", ["Mate 60 Pro"]),
    ("Reserving 1 table. See you Friday 5 sharp at Room 305, 2.5 GB.", ["Room 305", "GB"]),
    ("I spoke with Jane 2 days ago at Walmart 24 hours store. I bought 2 iPhone chargers.",
     ["Jane", "Walmart", "iPhone"]),  # a count after a name, or before a brand
    ("My iPhone 15 keeps crashing. The Pixel 8 comes with a case.", ["iPhone 15", "Pixel 8"]),
    # a person opening a sentence is someone, whatever follows ("Sarah was charged")
    ("Sarah was charged twice. 我在解放路店买的，开放大学附近。",
     ["Sarah", "解放路店", "开放大学"]),
])
def test_names_are_found_verbatim_without_a_list_of_names(text, names) -> None:
    anchors = find_anchors(Turn(index=0, role="assistant", content=text))
    assert [a.value for a in anchors if a.kind == "name"] == names
    assert all(a.value in text for a in anchors)


def test_names_in_a_tool_result_are_not_taken_as_said() -> None:
    turn = Turn(index=0, role="tool", content='{"hotel": "Grand Plaza Hotel"}')
    assert [a for a in find_anchors(turn) if a.kind == "name"] == []


@pytest.mark.parametrize("text, key, value", [
    ("Can we do eleven in the morning?", "time", "eleven in the morning"),
    ("Make it quarter to 6 in the evening.", "time", "quarter to 6 in the evening"),
    ("Book it for Friday at noon.", "time", "noon"),
    ("It must be done by 12 midnight.", "time", "12 midnight"),
    ("one pm is fine", "time", "one pm"),
    # o'clock however its apostrophe is typed
    ('Try it for 2 o"clock in the afternoon.', "time", '2 o"clock in the afternoon'),
    ("At 6 o’clock in the evening", "time", "6 o’clock in the evening"),
    ("At 6 o‘clock in the evening", "time", "6 o‘clock in the evening"),
    ("How about morning 11:30?", "time", "morning 11:30"),
    ("Is there any possibility for afternoon 2?", "time", "afternoon 2"),
    ("Book it for the 12th please", "date", "the 12th"),
    ("the day after tomorrow works", "date", "the day after tomorrow"),
    ("It has a rating of 4.8", "rating", "4.8"),
    ("这家店评分4.3", "rating", "4.3"),
    ("人均五十元左右", "amount", "五十元左右"),
    ("大概要两个小时", "duration", "两个小时"),
])
def test_numbers_in_words_and_cued_values(text, key, value) -> None:
    anchors = find_anchors(Turn(index=0, role="user", content=text))
    assert (key, value) in [(a.key, a.value) for a in anchors]


@pytest.mark.parametrize("text, times", [
    # a part of the day before a time said whole, or before a count, is no hour of its own
    ("Saturday afternoon 3 pm works.", ["3 pm"]),
    ("A table for the evening 2 guests, please.", []),
    ("It is the afternoon 2nd shift.", []),
    ("For the evening 4 of us will be coming.", []),
    ("We need the hall for the afternoon 3 hours total.", []),
    ("It was an afternoon 25 minutes wait.", []),
    ("The Morning 10 coffee blend was out of stock.", []),
    ("Monday afternoon 2 o'clock works.", ["afternoon 2 o'clock"]),
    ("Could I come in at afternoon 2.30?", ["afternoon 2.30"]),
])
def test_a_part_of_the_day_takes_only_a_bare_hour(text, times) -> None:
    anchors = find_anchors(Turn(index=0, role="user", content=text))
    assert [a.value for a in anchors if a.key == "time"] == times


def test_quoted_words_are_kept_whole() -> None:
    text = 'Remember this: "The greatest glory in living lies not in never falling." Thanks'
    anchors = find_anchors(Turn(index=0, role="user", content=text))
    assert ("quote", "The greatest glory in living lies not in never falling") in [
        (a.key, a.value) for a in anchors]


@pytest.mark.parametrize("text, quotes", [
    ("When I sneeze, say: 'Here is a tissue for you'", ["'Here is a tissue for you'"]),
    ("'Don't go where the path may lead, go instead' - Emerson",
     ["'Don't go where the path may lead, go instead'"]),
    ("It's John's car and it's Mary's too, isn't it?", []),
    ("He said 'ok' and left.", []),  # too short to be worth a quote
])
def test_single_quoted_words_are_kept_and_apostrophes_are_not_quotes(text, quotes) -> None:
    anchors = find_anchors(Turn(index=0, role="user", content=text))
    assert [a.value for a in anchors if a.key == "quote"] == quotes


def test_a_turn_gives_at_most_a_bounded_number_of_values_and_says_which_not() -> None:
    pasted = "My orders: " + ", ".join(f"SR-{20240000 + i}-889" for i in range(100))
    ex = RuleExtractor().extract([Turn(index=2, role="user", content=pasted)], [])
    assert len(ex.delta.anchors) == 100 and ex.notes == []  # a real list is taken whole
    text = "，".join(f"订单号 DD{20240000000 + i}" for i in range(500))
    ex = RuleExtractor().extract([Turn(index=3, role="user", content=text)], [])
    assert len(ex.delta.anchors) == MAX_ANCHORS_PER_TURN == 256
    assert ex.notes[0] == ("turn #3: 244 values past the first 256 not taken (order_id 244), "
                           "from 'DD20240000256' on")


@pytest.mark.parametrize("text, ids", [
    ("My orders: SR-20240315-889, SR-20240315-890.", ["SR-20240315-889", "SR-20240315-890"]),
    ("order numbers are A123456, A123457 and A123458", ["A123456", "A123457", "A123458"]),
    ("订单号分别是DD20240315889、DD20240315890和DD20240315891",
     ["DD20240315889", "DD20240315890", "DD20240315891"]),
    ("tracking numbers: 1Z999AA10123456784 / 1Z999AA10123456785",
     ["1Z999AA10123456784", "1Z999AA10123456785"]),
    # a list goes on with values of the same form: a phone is not another order id
    ("订单号DD20240315889，13812345678", ["DD20240315889"]),
    ("order SR-123456 and 2 items", ["SR-123456"]),
])
def test_every_id_of_a_list_is_an_anchor(text: str, ids: list[str]) -> None:
    anchors = find_anchors(Turn(index=0, role="user", content=text))
    assert [a.value for a in anchors if a.key in ("order_id", "tracking_number")] == ids


def test_values_are_tied_to_the_name_they_describe() -> None:
    turns = [Turn(index=0, role="user",
                  content="海底捞火锅(西单店)的电话是多少？我的手机 13812345678"),
             Turn(index=1, role="assistant", content="电话是010-66171920，人均96元。"),
             Turn(index=2, role="assistant",
                  content="北京鹏润国际大酒店的电话是010-51922288，价格是850元。"),
             Turn(index=3, role="assistant",
                  content="1512 Barber Shop is at 1532 20th Street, rating 4.8.")]
    state = fold(ConversationState(), RuleExtractor().extract(turns, []).delta, sources(turns))
    about = {(a.key, a.value): a.subject for a in state.anchors if a.kind != "name"}
    assert about[("phone", "010-66171920")] == "海底捞火锅(西单店)"  # from the question
    assert about[("amount", "96元")] == "海底捞火锅(西单店)"
    assert about[("phone", "010-51922288")] == "北京鹏润国际大酒店"
    assert about[("phone", "13812345678")] is None  # the user's own phone is the user's
    assert about[("address", "1532 20th Street")] == "1512 Barber Shop"
    # two businesses' phones both stay: one never supersedes the other
    assert {a.value for a in state.active_anchors() if a.key == "phone"} == {
        "13812345678", "010-66171920", "010-51922288"}
    assert [a.value for a in state.about("北京鹏润国际大酒店")] == ["010-51922288", "850元"]
    block = render(state, "text", "zh")
    assert '- "北京鹏润国际大酒店" → phone (助手): "010-51922288"; amount (助手): "850元"' in block


def test_a_full_stop_typed_with_no_space_ends_what_a_value_is_about() -> None:
    """"…Caltrain Station.I will need it till March 14th": the date is not the station's."""
    text = "I want to pick it up from Palo Alto Caltrain Station.I will need it till March 14th."
    found = {a.value: a.subject for a in find_anchors(Turn(index=0, role="user", content=text))}
    assert found["March 14th"] is None


def test_a_subject_not_in_the_turns_is_dropped_not_the_value() -> None:
    from convstate.delta import NewAnchor, StateDelta

    turns = make_turns(("assistant", "电话是010-66171920"))
    delta = StateDelta(anchors=[NewAnchor(kind="phone", key="phone", value="010-66171920",
                                          subject="不存在的饭店", turns=[0])])
    state = fold(ConversationState(), delta, sources(turns))
    assert state.anchors[0].value == "010-66171920" and state.anchors[0].subject is None


def _demo_texts() -> list[str]:
    """Every turn of the demo conversations, both languages."""
    texts = []
    for lang in ("en", "zh"):
        demo = json.loads(resources.files("convstate.data").joinpath(f"demo_{lang}.json")
                          .read_text(encoding="utf-8"))
        texts += [m["content"] for m in demo["messages"]]
    return texts


_PREFILTERED = [  # values of every prefiltered pattern, in the forms that test them
    "Table for 4 people at 7:30 pm tomorrow, 2 tickets and two bedrooms for 3 nights.",
    "A table for two, our group of 12, a party of 6 and a family of 4 for tonight.",
    "预订２０２４年３月５日晚上七点半，两位，电话13811112222，邮箱 kim@example.com。",
    "My order BX-7741-2290 ships to 742 Evergreen Terrace; tracking number 1Z999AA10123456784.",
    "Complaint number TS20240301001, rating 4.8, budget under $100, 50元以下, 评分4.5分以上。",
    "It's for later today; next Monday at 10 am, or the day after tomorrow at noon.",
    "Room for ONE NIGHT on Friday the 13th, 3 Adults, 2 PASSENGERS, 1 bathroom.",
    # one cue each: a count found by the one word it needs
    "A table for two, please.", "Party of 6.", "We are a family of 4.", "3 guests.",
    "Two travellers.", "2 seats.", "Two beds.",
]


@pytest.mark.parametrize("text", _PREFILTERED + _demo_texts())
def test_the_prefilters_never_change_what_is_found(text, monkeypatch) -> None:
    """A pattern is skipped on a turn without a word every match of it needs (a digit, a
    cue): the values found are those the patterns find when every one is run."""
    for role in ("user", "assistant"):
        turn = Turn(index=0, role=role, content=text)
        filtered = [(a.key, a.value) for a in find_anchors(turn)]
        with monkeypatch.context() as m:
            m.setattr(rules, "_NEEDS", {})
            m.setattr(rules, "_NUMERIC", set())
            assert [(a.key, a.value) for a in find_anchors(turn)] == filtered


@pytest.mark.parametrize("reply, status", [
    # a hold, an apology for the wait or a lookup begun answers nothing
    ("稍等哦亲，马上为您查询~", "open"),
    ("非常抱歉让您久等了。", "open"),
    ("Sorry for the wait.", "open"),
    ("退款已经原路退回，预计1-3个工作日到账。", "answered"),
    ("Thanks for your patience, the refund was issued yesterday.", "answered"),
])
def test_a_hold_or_an_apology_answers_no_question(reply: str, status: str) -> None:
    s = extract(("user", "我的退款到哪一步了？"), ("assistant", reply))
    assert [r.status for r in s.requests] == [status]


@pytest.mark.parametrize("text", ["我有三点建议。", "第三点，服务要好。", "再快一点。",
                                  "以上三点，请尽快处理。", "我的诉求就这两点。",
                                  "积分扣了五点，请退回。", "原因是两点，第一物流慢。"])
def test_a_number_of_points_is_no_time(text: str) -> None:
    assert not [a for a in anchors_of(text) if a[0] == "time"]


@pytest.mark.parametrize("text", ["你们北京市朝阳区的门店几点关门？", "我在杭州市出差",
                                  "北京市海淀区天气怎么样", "上海市浦东新区的那家店",
                                  # a place said of something else: a store, what is near
                                  "我之前在杭州市滨江区江南大道2号的门店买过",
                                  "我是在北京市朝阳区建国路88号那家店买的"])
def test_a_city_or_a_district_with_no_road_and_number_is_no_address(text: str) -> None:
    assert not [a for a in anchors_of(text) if a[0] == "address"]


def test_a_long_marked_address_keeps_its_first_sixty_characters() -> None:
    text = "收货地址：" + "广东省深圳市南山区科技园南区高新南七道深圳大学城创新大厦A座十二楼" * 3
    assert [len(v) for k, v in anchors_of(text) if k == "address"] == [60]


def test_a_correction_to_a_chinese_address_replaces_it() -> None:
    mem = ConversationMemory("addr", store=InMemoryStore())
    for role, text in [("user", "收货地址是杭州市西湖区文三路1号。"), ("assistant", "好的。"),
                       ("user", "不对，是杭州市滨江区江南大道2号。")]:
        mem.add(role, text)
    assert [a.value for a in mem.state.active_anchors() if a.key == "address"] == [
        "杭州市滨江区江南大道2号"]
