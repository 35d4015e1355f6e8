"""where() as an agent types it: a phone in any format, emails and ids in any case, whole
values only; and which item and turn hold the value, beside the place it always said."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from conftest import make_turns

from convstate import Anchor, ConversationMemory, ConversationState, InMemoryStore
from convstate.lookup import Found, Matcher, locate


def session(tmp_path: Path, window: int = 8192) -> ConversationMemory:
    mem = ConversationMemory("lookup", store=str(tmp_path / "lookup.db"), context_window=window,
                             keep_recent_turns=1)
    mem.add("user", "My cell is +1 (312) 555-0186, email Zhang.Wei@Example.com.")
    mem.add("assistant", "Okay.")
    mem.add("assistant", "What is your order number?")
    mem.add("user", "Sure, it's BX-7741-2290.")
    mem.add("assistant", "Thanks. Our hotline is 400-820-8820 if you need us.")
    return mem


@pytest.mark.parametrize("typed, said", [
    ("3125550186", "+1 (312) 555-0186"),
    ("312.555.0186", "+1 (312) 555-0186"),
    ("(312) 555 0186", "+1 (312) 555-0186"),
    ("+1 312 555 0186", "+1 (312) 555-0186"),
    ("zhang.wei@example.com", "Zhang.Wei@Example.com"),
    ("ZHANG.WEI@EXAMPLE.COM", "Zhang.Wei@Example.com"),
    ("bx77412290", "BX-7741-2290"),
    ("BX-7741-2290", "BX-7741-2290"),
    ("4008208820", "400-820-8820"),
])
def test_where_finds_a_value_as_an_agent_types_it(tmp_path: Path, typed: str, said: str) -> None:
    mem = session(tmp_path)
    mem.compact(keep_recent_turns=0)
    found = mem.where(typed)
    assert found in ("raw", "block") and found.value == said
    holder = mem.state.find(found.item or "")
    assert holder is not None and said in getattr(holder, "value", "")
    assert said in mem.history()[found.turn].text


@pytest.mark.parametrize("typed", [
    "3125550187",  # another number
    "77412290",  # the end of an id is not the id
    "BX 7741 229",
    "5550186312",
    "zhang.wei@example.org",
])
def test_a_near_miss_is_nowhere(tmp_path: Path, typed: str) -> None:
    found = session(tmp_path).where(typed)
    assert found == "nowhere" and (found.item, found.turn, found.value) == (None, None, None)


@pytest.mark.parametrize("typed, said", [
    # a country code typed without "+" or 00, before the national number said
    ("12125550199", "212-555-0199"),
    ("1 212 555 0199", "212-555-0199"),
    ("8613922223333", "13922223333"),
    # the international form of a number said with its trunk 0, and back
    ("+86 21 6438 1234", "021-64381234"),
    ("+44 20 7946 0958", "020 7946 0958"),
    ("442079460958", "020 7946 0958"),
    ("0044 (0)20 7946 0958", "020 7946 0958"),
    ("+44 020 7946 0958", "020 7946 0958"),
    ("020 7946 0958", "+44 (0)20 7946 0958"),
    ("07700900123", "+44 7700 900123"),
    ("+44 20 7946 0958", "(+44) 20 7946 0958"),
    ("13922223333", "8613922223333"),  # said with a country code and no "+"
    ("+65 6123 4567", "6123 4567"),  # a country code typed: its number said alone
    ("+39 06 1234 5678", "06 1234 5678"),  # (Italy keeps its 0 after the code)
    # as before: "+" or 00 and a country code, North America's trunk 1
    ("+1 212 555 0199", "212-555-0199"),
    ("008613922223333", "13922223333"),
    ("8005550199", "1-800-555-0199"),
])
def test_where_finds_a_phone_with_or_without_its_country_code(typed: str, said: str) -> None:
    mem = ConversationMemory("intl", store=InMemoryStore())
    mem.add("user", f"Please call me on {said} after six.")
    found = mem.where(typed)
    assert found == "raw" and found.value == said and found.turn == 0
    assert Matcher(typed).find(f"Tel: {said}.") == said


@pytest.mark.parametrize("typed, said", [
    # a local number is not a longer one that ends with it
    ("5550186", "+1 312 555 0186"),
    ("5550186", "312 555 0186"),
    ("5550186", "(312) 555-0186"),
    ("25550186", "+1 312 555 0186"),
    ("79460958", "+44 20 7946 0958"),
    ("+86 10 8820 4686", "联系电话是88204686"),
    ("+13125550186", "2555-0186"),  # 1 is a whole country code, 131 none
    ("+4420 7946 0958", "7946 0958"),
    ("13125550186", "2555 0186"),
    ("3125550186", "555-0186"),
    # a country code said without "+" is read before a whole national number only
    ("6561234567", "6123 4567"),
    # another country's number with the same national digits
    ("+1 312 555 0186", "+44 312 555 0186"),
    ("+1 312 555 0186", "+44(312)555-0186"),
    ("12125550199", "+44 2125550199"),
    ("+12125550199", "0044 212 555 0199"),
    ("3125550186", "+3125550186"),  # a Dutch number, +31 25550186
])
def test_a_phone_is_not_another_that_ends_alike(typed: str, said: str) -> None:
    assert Matcher(typed).find(f"Tel: {said}.") is None
    assert Matcher(typed).find(f"Tel: {said} or {typed}.") is not None  # (it finds at all)


def test_the_answer_is_still_the_place_it_always_was(tmp_path: Path) -> None:
    mem = session(tmp_path, window=300)
    for i in range(25):
        mem.add("user", f"Question {i}: where is the parcel now, and when will it arrive here?")
        mem.add("assistant", f"Answer {i}: it is on its way and should arrive tomorrow.")
        mem.context()
    mem.add("user", "My new cell is 312-555-0199.")
    mem.add("assistant", "Noted.")
    mem.compact(keep_recent_turns=0)
    old = mem.where("(312) 555-0186")
    assert isinstance(old, str) and old == "block"  # superseded: shown as history
    assert old.item is not None and mem.state.find(old.item).status == "superseded"
    assert old.turn == 0 and old.value == "+1 (312) 555-0186"
    assert json.dumps({"where": old}) == '{"where": "block"}'
    assert {"block": 1}[old] == 1 and pickle.loads(pickle.dumps(old)).item == old.item
    assert mem.where("Answer 24") == "raw" and mem.where("answer 24").turn == 54
    assert mem.where("Okay.") == "store"  # folded, and the state kept nothing of it
    assert repr(mem.where("nothing of the kind")) == \
        "Found('nowhere', item=None, turn=None, value=None)"


def test_a_live_item_holds_a_value_before_a_superseded_one() -> None:
    turns = make_turns(("user", "My cell is 312-555-0186."), ("user", "New cell: 312-555-0199."),
                       ("user", "Call me back at 312-555-0186 please."))
    said = [("phone", "312-555-0186", 0, "superseded"), ("phone", "312-555-0199", 1, "active"),
            ("callback", "312-555-0186", 2, "active")]
    state = ConversationState(anchors=[
        Anchor(id=f"A{k + 1}", kind="phone", key=key, value=value, turns=[turn], speaker="user",
               first_turn=turn, last_turn=turn, status=status)
        for k, (key, value, turn, status) in enumerate(said)])
    found = locate("3125550186", [], "", state, turns, 2)
    assert found == "state" and found.item == "A3" and found.turn == 2
    assert locate("+1 312 555 0199", [], "", state, turns, 2).item == "A2"


def test_matcher_reads_the_value_as_written() -> None:
    assert Matcher("13800138000").find("电话 +86 138 0013 8000 找我") == "+86 138 0013 8000"
    assert Matcher("+8613800138000").find("手机13800138000") == "13800138000"
    assert Matcher("sr-20240315-889").find("order SR-20240315-889.") == "SR-20240315-889"
    assert Matcher("第29个回答").find("这是第29个回答。") == "第29个回答"
    assert Matcher("0315 889").find("单号 DD20240315889") is None  # a part, typed apart
    # a part of an id is a mistyped id, not found inside the real one (nor linked to it)
    assert Matcher("BX-7741").find("BX-7741-2290") is None
    assert Matcher("DD2024031588").find("订单号DD20240315889") is None
    assert Found("raw", "A1", 3, "x") == "raw" and Found("raw").item is None
    assert Matcher("3125550186").find("call (312) 555-0186") == "(312) 555-0186"
    assert Matcher("01066667777").find("座机（010）6666-7777") == "（010）6666-7777"


def test_where_and_render_speak_of_the_context_the_next_call_sends(tmp_path: Path) -> None:
    """A fold due before the next call is done first, as context() does: where() and the
    block say where a value is in what the bot is about to send, not in the last one."""
    answers = []
    for look_first in (False, True):
        (tmp_path / str(look_first)).mkdir()
        mem = session(tmp_path / str(look_first), window=300)
        for i in range(6):
            mem.add("user", f"Question {i}: where is the parcel now, and when will it arrive?")
            mem.add("assistant", f"Answer {i}: it is on its way and should arrive tomorrow.")
        before = (mem.where("3125550186"), mem.render()) if look_first else None
        after = (mem.where("3125550186"), mem.render())
        context = mem.context()
        assert after[1] in context[0]["content"]  # the block the call carries
        answers.append((before, after))
    assert answers[1][0] == answers[1][1] == answers[0][1]
    assert answers[1][0][0] == "block"  # the phone left the raw turns, the block holds it
