"""What the user requires of the thing sought is a typed preference of theirs
(extract/requirements.py), zh and en: polarity require or forbid, the feature as topic."""

from __future__ import annotations

import pytest

from convstate import ConversationMemory, InMemoryStore
from convstate.extract.requirements import requirements
from convstate.normalize import normalize
from convstate.turns import Turn


def required(text: str, role: str = "user") -> list[tuple[str, str, str]]:
    return [(p.polarity, p.topic, p.text)
            for p in requirements(Turn(index=3, role=role, content=text))]


@pytest.mark.parametrize("text, expected", [
    ("Hey, can you find me a place to eat with live music at a budget price?",
     [("require", "live music", "with live music")]),
    ("Are there any other one star hotels with wifi?", [("require", "wifi", "with wifi")]),
    ("I need an apartment in San Jose that has four bedrooms and allows pets.",
     [("require", "pets", "and allows pets")]),  # (four bedrooms: a count, an anchor's)
    ("I want something a little costly that serves alcohol.",
     [("require", "alcohol", "that serves alcohol")]),
    ("Something else you can find with in-unit laundry?",
     [("require", "in-unit laundry", "with in-unit laundry")]),
    ("I'd like to find some kid-friendly attractions in London.",
     [("require", "kid", "kid-friendly")]),
    ("I want you to find 2 star hotels where smoking is allowed.",
     [("require", "smoking", "smoking is allowed")]),
    ("Can you show me a wildlife spot without an entry fee.",
     [("forbid", "entry fee", "without an entry fee")]),
    ("Find me a hotel that doesn't allow pets.", [("forbid", "pets", "that doesn't allow pets")]),
    ("I'd like a room with no smoking and a minibar.",
     [("forbid", "smoking", "with no smoking"), ("require", "minibar", "a minibar")]),
    ("I want a hotel with wifi, parking and a gym.",  # a list ends with "and"
     [("require", "wifi", "with wifi"), ("require", "parking", "parking"),
      ("require", "gym", "a gym")]),
    ("I would like a hotel without wifi and with a pool.",
     [("forbid", "wifi", "without wifi"), ("require", "pool", "with a pool")]),
    ("And I'd like something with a gym too.", [("require", "gym", "with a gym")]),
    ("I'm looking for a restaurant with a kids menu.",
     [("require", "kids menu", "with a kids menu")]),  # (kids alone: a person)
    ("I don't want a car with a sunroof.",  # (its phrase from the negation that turns it)
     [("forbid", "sunroof", "don't want a car with a sunroof")]),
    ("I want a hotel with a pool but not one with a casino.",
     [("require", "pool", "with a pool"), ("forbid", "casino", "not one with a casino")]),
    ("Find me a hotel that doesn't have a pool but has a gym.",
     [("forbid", "pool", "that doesn't have a pool"), ("require", "gym", "but has a gym")]),
    ("I'm looking for kid-friendly hotels in Orlando.", [("require", "kid", "kid-friendly")]),
    ("Find me a TV with HDMI 2.1, Dolby Vision, and a 120Hz panel.",
     [("require", "hdmi 2.1", "with HDMI 2.1"), ("require", "dolby vision", "Dolby Vision"),
      ("require", "120hz panel", "a 120Hz panel")]),
    ("Can you find a car rental that allows one-way drop-off?",
     [("require", "one-way drop-off", "that allows one-way drop-off")]),
    ("I need a laptop with at least 16GB of RAM and a backlit keyboard.",
     [("require", "16gb", "with at least 16GB of RAM"),
      ("require", "backlit keyboard", "a backlit keyboard")]),
    ("I can't drive so I need a hotel with a shuttle.",  # (a negation of another verb)
     [("require", "shuttle", "with a shuttle")]),
    ("I'm not sure but I need a hotel with a pool.", [("require", "pool", "with a pool")]),
    ("Find me a room without a minibar or a TV.",  # each forbidden by its negation
     [("forbid", "minibar", "without a minibar"),
      ("forbid", "tv", "without a minibar or a TV")]),
    ("Find me a hotel that isn't pet-friendly.",
     [("forbid", "pet", "isn't pet-friendly")]),
    ("Find me a hotel in 北京 with a pool.", [("require", "pool", "with a pool")]),
    ("Sorry, I meant a hotel without a pool, it's too noisy.",
     [("forbid", "pool", "without a pool")]),
    ("Actually, an apartment that doesn't allow pets, my son is allergic.",
     [("forbid", "pets", "that doesn't allow pets")]),  # one said alone
    ("I don't have a car, so I need a hotel with a shuttle.",  # (another clause's not)
     [("require", "shuttle", "with a shuttle")]),
    ("Any hotel with wifi, thanks.",  # (a comma ends a list that no "and" ends)
     [("require", "wifi", "with wifi")]),
    ("I need a plan with 10GB of data.", [("require", "10gb", "with 10GB of data")]),
])
def test_an_english_feature_of_a_thing_sought(text: str, expected: list) -> None:
    assert required(text) == [(p, normalize(t), s) for p, t, s in expected]


@pytest.mark.parametrize("text", [
    "I have a problem with my order.",  # what troubles the user
    "I'm having trouble with login.",
    "Can I pay for the room with a credit card?",  # how they pay
    "I'll go with a sedan.",  # nothing sought before it
    "I'm traveling with my kids and need a hotel.",  # a person
    "I need a table with two chairs.",  # a count: an anchor's
    "Is there an issue with the delivery?",  # a thing known
    "I don't need a hotel with a pool.",  # needed not, sought not: nothing
    "I'm not looking for a hotel with a casino.",
    "I received a phone with a cracked screen.",  # no verb of seeking governs it
    "I booked a room with a view last week but it faced the parking lot.",
    "Thanks, that's a great hotel with a pool!",
    "I want to cancel a subscription with automatic renewal.",
    "Book me an appointment with Dr. Lee.",  # a person by title
])
def test_not_a_feature(text: str) -> None:
    assert required(text) == []


@pytest.mark.parametrize("text, expected", [
    ("好的，吃完饭我想找一家有吹风机服务设施的酒店住宿，给我推荐一家吧。",
     [("require", "吹风机", "有吹风机服务设施")]),  # (服务设施 left off)
    ("您好，请帮我推荐一家提供无烟房和国际长途电话的舒适型酒店。",
     [("require", "无烟房", "提供无烟房"), ("require", "国际长途电话", "国际长途电话")]),
    ("请给我推荐一家评分4分以上的酒店住宿，要有行李寄存服务的。",
     [("require", "行李寄存", "要有行李寄存服务")]),
    ("帮我找一家没有吸烟区的餐厅。", [("forbid", "吸烟区", "没有吸烟区")]),
    ("帮我找一个没有月租的套餐。", [("forbid", "月租", "没有月租")]),
    ("我想订一个带有阳台的房间。", [("require", "阳台", "带有阳台")]),
    ("我想要一个带5G的套餐。", [("require", "5g", "带5G")]),
    ("我想要一辆不带天窗的车。", [("forbid", "天窗", "不带天窗")]),
    ("帮我推荐一家既有早餐又有泳池的酒店。",
     [("require", "早餐", "有早餐"), ("require", "泳池", "泳池")]),
    ("帮我找一家有24小时热水的宾馆。", [("require", "24小时热水", "有24小时热水")]),
    ("还要有健身房。", [("require", "健身房", "要有健身房")]),  # 要有 says it alone
    ("酒店要提供早餐。", [("require", "早餐", "要提供早餐")]),
    ("我不想要有泳池的酒店。", [("forbid", "泳池", "不想要有泳池")]),
    ("我不要带泳池的酒店。", [("forbid", "泳池", "不要带泳池")]),
    ("我想找一张带抽屉和书架的书桌。",
     [("require", "抽屉", "带抽屉"), ("require", "书架", "书架")]),
    ("我需要买一个带USB-C接口的充电宝。", [("require", "usbc接口", "带USB-C接口")]),
    ("我要订的酒店要有行李寄存服务。", [("require", "行李寄存", "要有行李寄存服务")]),
    ("我找一家不太贵、有泳池的酒店。", [("require", "泳池", "有泳池")]),  # (不 of 贵)
    ("帮我找一家提供和牛的餐厅。", [("require", "和牛", "提供和牛")]),  # (和 in a word)
])
def test_a_chinese_feature_of_a_thing_sought(text: str, expected: list) -> None:
    assert required(text) == [(p, normalize(t), s) for p, t, s in expected]


@pytest.mark.parametrize("text", [
    "这个酒店有健身房吗？",  # a question about a thing known: nothing sought
    "我想找一家有没有健身房都行的酒店。",  # 有没有: either
    "我想找个酒店，有推荐的吗？",  # asks for nothing
    "我有一个问题想问。",
    "我要退款，不要换货了。",
    "我不需要有泳池的酒店。",  # needed not: nothing
    "不用找有健身房的酒店。",
    "我上周订的酒店没有热水。",  # a report, not a search
    "我想投诉一家没有热水的酒店。",  # complained of
    "我想退掉一个有质量问题的手机壳。",  # given back
    "我找了半天，没有找到合适的酒店。",
    "我想带孩子去玩。",  # 带 a person along, no 的
    "我昨天买的手机有划痕，怎么处理？",  # what was bought, rented or received
    "我租的房子有蟑螂，怎么办？",
    "我的订单号是8823，收到的桌子有划痕。",
    "帮我找家酒店，我有会员卡。",  # what the user has
    "帮我推荐一家餐厅，我们有老人和小孩。",
])
def test_not_a_chinese_feature(text: str) -> None:
    assert required(text) == []


def test_only_the_user_requires() -> None:
    assert required("We found a hotel with wifi and a pool for you.", role="assistant") == []


def test_a_later_requirement_of_a_feature_supersedes_the_earlier() -> None:
    """Read turn by turn through the memory: the state types each feature once, the
    latest word on it active ("with no live music" after "with live music")."""
    mem = ConversationMemory("req", store=InMemoryStore(), context_window=8192)
    for role, text in [
            ("user", "Can you find me a place to eat with live music?"),
            ("assistant", "Sure, in which city?"),
            ("user", "San Jose. Somewhere that serves alcohol, without a dress code."),
            ("assistant", "There is Blue Note, 123 Main St."),
            ("user", "Actually, I'd rather have a place with no live music.")]:
        mem.add(role, text)
        mem.context()
    live = {(p.topic, p.polarity) for p in mem.state.preferences
            if p.status == "active" and p.polarity in ("require", "forbid")}
    assert live == {("livemusic", "forbid"), ("alcohol", "require"), ("dresscode", "forbid")}
    assert all(p.speaker == "user" for p in mem.state.preferences)


def test_a_later_word_on_a_feature_in_the_same_turn_wins() -> None:
    """However many features a turn names, a later word on one it named replaces it."""
    text = " ".join(f"Find me a hotel with {f}." for f in
                    ("wifi", "a pool", "a gym", "a spa", "a bar", "parking", "a sauna",
                     "a garden")) + " Actually, find me a hotel without wifi."
    assert ("forbid", "wifi", "without wifi") in required(text)


def test_a_long_phrase_is_no_feature_and_stops_nothing() -> None:
    """A phrase too long for a feature's topic, or a pasted text, is read as no feature;
    the turn's values are read as ever (a state that would not validate would stop the
    session from folding)."""
    long = ("My order number is BX-7741-2290. I need a laptop with an extraordinarily "
            "comprehensive manufacturer-backed international warranty coverage plan.")
    assert required(long) == []
    mem = ConversationMemory("long", store=InMemoryStore(), context_window=8192)
    mem.add("user", long)
    mem.add("user", "Find me a hotel " + "with wifi and a pool " * 250)
    mem.add("user", "x-" * 10000)
    mem.context()
    assert [a.value for a in mem.state.active_anchors()] == ["BX-7741-2290"]
    assert mem.compact(keep_recent_turns=0).error is None
