"""Long-term memory: a user's profile across sessions — promoted, shown, superseded,
faded, isolated, erased."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import make_turns

from convstate import ConfigError, ConversationMemory, InMemoryStore, RuleExtractor, SQLiteStore
from convstate.lang.acts import event, expressive, standing
from convstate.profile import (
    IMPORTANCE,
    ONE_OFF,
    Profile,
    ProfileItem,
    candidates,
    fade,
    promote,
    stable,
    weight,
)

CALL = {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}


def first_session(db: Path, session: str = "s1", user: str = "u1") -> ConversationMemory:
    mem = ConversationMemory(session, store=SQLiteStore(db), user_id=user, context_window=500)
    mem.add("user", "My phone is 13912345678. Order DD20240315889 came broken. "
                    "I don't want an exchange.")
    mem.add("assistant", "Sorry! Our hotline is 400-820-8820 if you need it.")
    mem.add_message({"role": "assistant", "content": None, "tool_calls": [CALL]})
    mem.add("tool", "customer phone 212-555-0199, email evil@example.com", tool_call_id="c1")
    mem.add("user", "Thanks. Please also cc my assistant at kim.lee@example.com.")
    mem.compact(keep_recent_turns=0)
    return mem


def test_the_users_own_values_are_promoted_and_no_one_elses(tmp_path: Path) -> None:
    mem = first_session(tmp_path / "p.db")
    profile = mem.profile
    assert profile is not None
    assert {(i.kind, i.value) for i in profile.live()} >= {
        ("phone", "13912345678"), ("order_id", "DD20240315889"),
        ("negative_constraint", "I don't want an exchange")}
    values = {i.value for i in profile.items}
    assert not values & {"400-820-8820", "212-555-0199", "evil@example.com",
                         "kim.lee@example.com"}  # a third party's contact is not theirs
    item = profile.anchor("phone")
    assert item is not None and (item.session_id, item.turn) == ("s1", 0)


@pytest.mark.parametrize("said, theirs", [
    ("收件人是我妈，她的电话是13600002222", "13600002222"),
    ("Please send the invoice to my boss, his email is Tom.Reed@acme.com.", "Tom.Reed@acme.com"),
])
def test_someone_elses_contact_reaches_the_profile_in_no_fact_either(tmp_path: Path, said,
                                                                       theirs) -> None:
    mem = ConversationMemory("s", store=SQLiteStore(tmp_path / "p.db"), user_id="u")
    mem.add("user", said)
    mem.compact(keep_recent_turns=0)
    assert mem.profile is not None
    assert not [i for i in mem.profile.items if theirs in i.value]


def test_the_next_session_starts_with_what_the_user_said_and_its_own_values_win(
        tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    first_session(db).close()
    mem = ConversationMemory("s2", store=SQLiteStore(db), user_id="u1", context_window=500)
    mem.add("user", "Hello again.")
    block = mem.context()[0]["content"]
    assert "From earlier conversations" in block
    assert '"13912345678"' in block and '"DD20240315889"' in block
    mem.add("user", "New number: 13800001111, please use it.")
    mem.add("assistant", "Noted.")
    mem.compact(keep_recent_turns=0)
    context = str(mem.context())
    assert "13800001111" in context and "13912345678" not in context  # the session's wins
    phones = mem.profile.history("phone")
    assert [(p.value, p.status) for p in phones] == [("13912345678", "superseded"),
                                                     ("13800001111", "active")]
    assert phones[0].superseded_by == phones[1].id
    third = ConversationMemory("s3", store=SQLiteStore(db), user_id="u1", context_window=500)
    third.add("user", "Hi.")
    assert "13800001111" in third.context()[0]["content"]


def test_a_users_first_session_never_shows_its_own_values_as_earlier_ones(
        tmp_path: Path) -> None:
    """What only this session said is its own, not "From earlier conversations": shown
    there again it would take the place of raw turns."""
    db = tmp_path / "p.db"
    mem = ConversationMemory("s1", store=SQLiteStore(db), user_id="u1", context_window=500)
    mem.add("user", "My phone is 13912345678. I always prefer email, never call me after "
                    "8pm. I'm vegetarian.")
    mem.add("assistant", "Noted.")
    mem.add("user", "Order DD20240315889 came broken.")
    mem.add("assistant", "Sorry!")
    mem.compact(keep_recent_turns=0)
    assert {i.value for i in mem.profile.live()} >= {"I'm vegetarian", "13912345678"}
    assert "earlier conversations" not in str(mem.context())
    mem.close()
    again = ConversationMemory("s2", store=SQLiteStore(db), user_id="u1", context_window=500)
    again.add("user", "Hello again.")
    block = again.context()[0]["content"]
    assert "From earlier conversations" in block and "I'm vegetarian" in block


def test_forgetting_by_age_and_importance_never_forgets_contacts_or_standing_constraints(
        tmp_path: Path) -> None:
    mem = first_session(tmp_path / "p.db")
    mem.add("user", "I prefer in-ear models. Please never call me after 8pm.")
    mem.add("assistant", "Noted.")
    mem.compact(keep_recent_turns=0)
    later = datetime.now(UTC) + timedelta(days=365 * 3)
    old = fade(mem.profile.model_copy(deep=True), later)
    status = {i.value: i.status for i in old.items}
    assert status["13912345678"] == status["Please never call me after 8pm"] == "active"
    # a one-off request of that session ("I don't want an exchange") fades like the rest
    assert status["I don't want an exchange"] == "archived"
    status = {i.kind: i.status for i in old.items}
    assert status["order_id"] == status["preference"] == "archived"  # kept, not shown
    assert len(old.items) == len(mem.profile.items)  # nothing deleted
    assert weight(old.anchor("phone"), later) == old.anchor("phone").importance
    # said again in a new session: confirmed, alive again, more important
    revived = promote(old, mem.state, "s9", now=later)
    order = next(i for i in revived.items if i.kind == "order_id")
    assert order.status == "active" and order.confirmations == 2


def test_a_session_of_another_user_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    first_session(db).close()
    with pytest.raises(ConfigError, match="another user"):
        ConversationMemory("s1", store=SQLiteStore(db), user_id="u2")
    other = ConversationMemory("x1", store=SQLiteStore(db), user_id="u2", context_window=500)
    other.add("user", "hi")
    assert "13912345678" not in str(other.context())  # never another user's profile


def test_profile_queries_and_diff(tmp_path: Path) -> None:
    mem = first_session(tmp_path / "p.db")
    before = mem.profile
    mem.add("user", "Also my email is zhang.wei@example.com.")
    mem.add("assistant", "Thanks.")
    mem.compact(keep_recent_turns=0)
    after = mem.profile
    assert after.version == before.version + 1
    assert [after.items[int(i[1:]) - 1].value for i in after.diff(before)["added"]] == [
        "zhang.wei@example.com"]
    assert Profile.model_validate(after.model_dump(mode="json")) == after


def test_profile_and_forget_commands(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    first_session(db).close()
    second = ConversationMemory("s2", store=SQLiteStore(db), user_id="u1", context_window=500)
    second.add("user", "Call 13912345678 again please")
    second.close()
    keep = ConversationMemory("k1", store=SQLiteStore(db), user_id="u2", context_window=500)
    keep.add("user", "my phone is 13700007777")
    keep.close()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "convstate.cli", *args],
                              capture_output=True, text=True, timeout=120)

    shown = run("profile", "u1", "--store", str(db))
    assert shown.returncode == 0 and "13912345678" in shown.stdout, shown.stderr
    out = run("forget", "u1", "--store", str(db))
    assert out.returncode == 0 and "2 sessions" in out.stdout, out.stderr
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("p.db*"))
    assert b"13912345678" not in raw and b"DD20240315889" not in raw  # WAL, free pages too
    assert b"13700007777" in raw  # another user's data stays
    assert run("profile", "u1", "--store", str(db)).returncode == 1


def test_erasing_a_session_takes_its_part_and_brings_back_what_it_replaced(
        tmp_path: Path) -> None:
    from convstate.profile import erase_session

    db = tmp_path / "p.db"
    first_session(db).close()  # s1: phone 13912345678, order DD20240315889, no exchange
    second = ConversationMemory("s2", store=SQLiteStore(db), user_id="u1", context_window=500)
    second.add("user", "New number: 13800001111. Order DD20240315889 is still not here.")
    second.compact(keep_recent_turns=0)
    both = second.profile
    order = both.anchor("order_id")
    assert [s.session_id for s in order.sources] == ["s1", "s2"] and order.confirmations == 2
    # without the second session: the number it replaced is live again, the order is s1's
    back = erase_session(both, "s2")
    assert [(p.value, p.status, p.superseded_by) for p in back.history("phone")] == [
        ("13912345678", "active", None)]
    order = back.anchor("order_id")
    assert (order.session_id, order.turn, order.confirmations) == ("s1", 0, 1)
    assert order.importance == pytest.approx(both.anchor("order_id").importance - 0.05)
    # without the first: only what the second said, as it said it
    left = erase_session(both, "s1")
    assert {(i.kind, i.value, i.session_id) for i in left.items} == {
        ("phone", "13800001111", "s2"), ("order_id", "DD20240315889", "s2")}
    assert left.anchor("phone").status == "active" and left.version == both.version
    # a later promotion gives a new item an id no item has (erasure leaves gaps)
    third = promote(left, first_session(tmp_path / "q.db", "s3").state, "s3")
    ids = [i.id for i in third.items]
    assert len(ids) == len(set(ids))
    # an item saved before sources were kept is all its session's
    legacy = both.model_dump(mode="json")
    for item in legacy["items"]:
        del item["sources"]
    assert erase_session(Profile.model_validate(legacy), "s2").anchor("order_id") is None


def test_junk_is_never_promoted_and_a_one_off_request_is_promoted_low_and_fades(
        tmp_path: Path) -> None:
    mem = ConversationMemory("j1", store=SQLiteStore(tmp_path / "p.db"), user_id="u1",
                             context_window=500)
    for text in ["This is the second time I have to chase you.", "你们这服务太差了",
                 "I'm so frustrated.", "我已经等了三天了，我很生气。",
                 "Please never call me after 8pm.", "It must arrive by Friday.",
                 "I don't eat pork.", "Thanks, have a nice day!", "You have to be kidding me.",
                 "I'm really upset and disappointed with how this was handled.",
                 "我真的很失望，等了一个星期了。", "I have to say, you guys are slow."]:
        mem.add("user", text)
        mem.add("assistant", "Noted.")
    mem.compact(keep_recent_turns=0)
    profile = mem.profile
    assert profile is not None
    values = {i.value: i for i in profile.items}
    assert not [v for v in values if any(junk in v for junk in (
        "chase", "太差", "frustrated", "生气", "have a nice day", "kidding", "upset", "失望",
        "slow"))], sorted(values)
    standing, one_off = values["Please never call me after 8pm"], values[
        "It must arrive by Friday"]
    assert standing.importance > 0.6 >= ONE_OFF >= one_off.importance
    later = datetime.now(UTC) + timedelta(days=365)
    old = fade(profile.model_copy(deep=True), later)
    status = {i.value: i.status for i in old.items}
    assert status["Please never call me after 8pm"] == "active"  # a standing rule stays
    assert status["It must arrive by Friday"] == "archived"  # the request of that session
    assert "I don't eat pork" in status  # how the user lives: a stable fact


def test_junk_promoted_before_the_rule_fades_at_once() -> None:
    now = datetime.now(UTC)
    junk = ProfileItem(id="P1", kind="constraint", value="This is the second time I have "
                       "to chase you", session_id="s0", turn=3, importance=0.8,
                       first_seen=now, last_confirmed=now)
    rule = junk.model_copy(update={"id": "P2", "kind": "negative_constraint",
                                   "value": "以后别给我打电话", "importance": 0.85})
    profile = fade(Profile(user_id="u1", items=[junk, rule]), now)
    assert [i.status for i in profile.items] == ["archived", "active"]
    assert weight(junk, now) == 0.0 and weight(rule, now + timedelta(days=3650)) == 0.85


def test_a_one_off_said_again_in_a_later_session_becomes_stable(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    for session in ("a1", "a2"):
        mem = ConversationMemory(session, store=SQLiteStore(db), user_id="u1",
                                 context_window=500)
        mem.add("user", "Don't leave the parcel with the neighbours.")
        mem.add("assistant", "Noted.")
        mem.compact(keep_recent_turns=0)
        item = mem.profile.anchor("negative_constraint")
        assert item is not None
        mem.close()
    assert item.confirmations == 2 and item.importance > ONE_OFF
    later = datetime.now(UTC) + timedelta(days=3650)
    assert weight(item, later) == item.importance  # a hard constraint said twice stays


# What a user's long-term profile takes: only what is stable and the user's, read by
# grammar in both languages (lang/acts.py), never the session's feelings or events.

def _live(*texts: str) -> dict[str, ProfileItem]:
    """The live profile items, by value, of a session in which the user says ``texts``
    (the rule extractor, default settings; a fold of every turn)."""
    mem = ConversationMemory("x1", store=InMemoryStore(), user_id="u1")
    for text in texts:
        mem.add("user", text)
        mem.add("assistant", "OK.")
    mem.compact(keep_recent_turns=0)
    assert mem.profile is not None
    return {i.value: i for i in mem.profile.live()}


FACT = IMPORTANCE["fact"]


@pytest.mark.parametrize("text", [
    "I'm so angry right now, this is the worst experience ever.",
    "我很生气，你们太不负责了。",
    "太气人了，我真的很失望。",
    # variants: a time after the feeling, a noun it qualifies, who is made to feel it
    "I'm furious right now, this is the worst service ever.",
    "I am extremely angry at the moment!",
    "This is the most useless company I've ever dealt with.",
    "What a waste of time.",
    "Your service is a joke.",
    "我现在很生气。",
    "我真的很失望，你们太过分了。",
    "太让人失望了！",
    "气死我了，你们太不专业了",
    "这是最差的服务",
    "我很生气，你们太不负责任了！",
    # a grievance of waiting
    "I can't wait any longer.",
    "我不能再等了",
    # pleasantries, acknowledgments
    "I understand.",
    "Okay, I see what you mean.",
])
def test_a_feeling_is_the_sentiments_never_the_profiles(text: str) -> None:
    assert _live(text) == {}
    assert expressive(text)


@pytest.mark.parametrize("text", [
    "I placed an order yesterday but lost the confirmation.",
    "I never added those",
    "I never ordered this.",
    "I paid twice for the same order.",
    "My parcel came broken.",
    "I returned the item three days ago.",
    "We bought it last month.",
    "我昨天下了一个订单，但是找不到确认邮件了。",
    "我从来没加过这些东西",  # 从来 + 没 and a verb: it did not happen, no habit
    "我上周买了一台洗衣机",
    "我刚才付了钱",
    "我没有收到验证码",
    "我前天打过电话",
])
def test_what_happened_once_is_no_trait_and_is_not_promoted(text: str) -> None:
    live = _live(text, "I don't eat pork.", "我对花生过敏。")
    assert {v: i.importance for v, i in live.items() if i.kind == "fact"} == {
        "I don't eat pork": FACT, "我对花生过敏": FACT}, sorted(live)
    assert event(text) and not standing(text)


@pytest.mark.parametrize("zh, en", [
    ("我不吃猪肉。", "I don't eat pork."),
    ("我对海鲜过敏。", "I'm allergic to seafood."),
    ("我是素食者。", "I'm vegetarian."),
    ("我是素食主义者。", "I'm a vegetarian."),
    ("我吃素。", "I'm vegan."),
    ("本人不喝酒。", "I don't drink alcohol."),
    ("我从来不吃辣。", "I never eat spicy food."),
    ("我花生过敏", "I'm allergic to peanuts."),
    ("我们家不吃香菜", "We don't eat coriander."),
    ("我信佛，不吃肉。", "I don't eat meat at all."),
])
def test_a_stable_chinese_fact_is_promoted_like_its_english_twin(zh: str, en: str) -> None:
    for text in (zh, en):
        live = _live(text)
        value = text.rstrip("。.")
        assert value in live, (text, sorted(live))
        item = live[value]
        assert (item.kind, item.importance) == ("fact", FACT) and stable(item)


def test_not_and_a_verb_is_a_habit_and_mei_and_a_verb_an_event() -> None:
    assert standing("我不吃猪肉") and not event("我不吃猪肉")
    assert event("我没吃猪肉") and not standing("我没吃猪肉")
    assert event("我没吃过猪肉") and not standing("我从来没吃过猪肉")
    assert standing("I never eat pork") and not standing("I never ate the pork")
    assert _live("我没吃猪肉。") == {}


@pytest.mark.parametrize("text, fact, rule", [
    ("我对花生过敏，别放花生。", "我对花生过敏", "别放花生"),
    ("我对海鲜过敏，请不要放虾。", "我对海鲜过敏", "请不要放虾"),
    ("I'm allergic to peanuts, please don't put any in.", "I'm allergic to peanuts",
     "please don't put any in"),
])
def test_an_allergy_said_beside_a_request_is_kept_with_it(text: str, fact: str,
                                                          rule: str) -> None:
    live = _live(text)
    assert (live[fact].kind, live[fact].importance) == ("fact", FACT)
    assert live[rule].kind == "negative_constraint"
    assert live[rule].importance <= ONE_OFF  # "leave them out" of this order: a one-off
    later = datetime.now(UTC) + timedelta(days=365)
    assert weight(live[fact], later) < FACT  # a fact fades slowly, the allergy is kept


@pytest.mark.parametrize("text", [
    "Also please don't call me with promotions anymore.",
    "以后不要给我打营销电话",
    "Please don't send me promotional emails anymore.",
    "And don't text me anymore.",
    "Don't ever call me again.",
    "Never call me before 9am.",
    "From now on, don't call me with promotions.",
    "Going forward, never leave the parcel at the door.",
    "Never call me after 8pm like you did yesterday.",  # a rule, whatever it recalls
    "以后别给我发短信。",
    "以后，别给我打电话。",
    "再也不要给我打电话了。",
    "不要再给我打营销电话了",
    "今后，不要再给我发广告短信了",
])
def test_a_standing_rule_weighs_the_same_in_every_language(text: str) -> None:
    live = _live(text)
    rules = [i for i in live.values() if i.kind in ("constraint", "negative_constraint")]
    assert len(rules) == 1, sorted(live)
    assert rules[0].importance == IMPORTANCE["negative_constraint"] == 0.85
    assert weight(rules[0], datetime.now(UTC) + timedelta(days=3650)) == 0.85


@pytest.mark.parametrize("text", [
    "I don't need it anymore.",  # takes back a want of this session
    "I don't want the blue one anymore.",
    "I don't want an exchange.",
    "这次不要加急",
    "It must arrive by Friday.",
])
def test_a_request_of_this_session_stays_a_one_off(text: str) -> None:
    (item,) = _live(text).values()
    assert item.importance <= ONE_OFF and not stable(item)


@pytest.mark.parametrize("text, name, owner", [
    ("你们的APP老是闪退，烦死了。", "APP", None),  # APP: a common noun, no name
    ("你们的Chrome插件老是崩溃，烦死了", "Chrome", "你们"),
    ("Your SmartHome app keeps crashing.", "SmartHome", "Your"),
    ("Is your Downtown branch open on Sundays?", "Downtown", "your"),
])
def test_a_name_the_user_gives_as_the_services_is_not_theirs(text: str, name: str,
                                                             owner: str | None) -> None:
    mem = ConversationMemory("x1", store=InMemoryStore(), user_id="u1")
    mem.add("user", text)
    mem.add("assistant", "OK.")
    mem.compact(keep_recent_turns=0)
    assert mem.profile is not None and mem.profile.live() == []
    names = {a.value: a.subject for a in mem.state.active_anchors() if a.kind == "name"}
    assert names.get(name) == owner  # the service's: about the service, or no name at all


def test_english_complaints_and_pleasantries_still_give_nothing() -> None:
    texts = ["This is the second time I have to chase you.", "你们这服务太差了",
             "Thanks, have a nice day!", "好的，谢谢", "I have to say, you guys are slow.",
             "I'm so frustrated.", "我已经等了三天了，我很生气。"]
    assert _live(*texts) == {}
    for text in texts:
        delta = RuleExtractor().extract(make_turns(("user", text)), []).delta
        assert not delta.anchors and not delta.facts, text


@pytest.mark.parametrize("text, fact", [
    ("I'm allergic to peanuts, I'm so angry.", "I'm allergic to peanuts"),
    ("我对花生过敏，气死我了", "我对花生过敏"),
    ("Thanks, I'm vegetarian.", "I'm vegetarian"),
])
def test_a_trait_said_with_a_feeling_is_promoted_without_it(text: str, fact: str) -> None:
    live = _live(text)
    assert list(live) == [fact] and live[fact].importance == FACT


def test_a_feeling_beside_a_request_makes_it_no_rule() -> None:
    (item,) = _live("我等不了了，你们必须今天发货").values()
    assert item.value == "你们必须今天发货" and item.importance <= ONE_OFF
    assert not standing("我等不了了，你们必须今天发货")


def test_what_one_session_settles_on_is_no_profile_item() -> None:
    """A trip's ends, a search's place and category are this session's, not lasting facts
    about the user; the user's contact is."""
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=8192)
    for text in ("I need a bus from Fresno to Reno on Friday.",
                 "Find me a Psychiatrist in Oakland. My email is ann@example.com"):
        mem.add("user", text)
        mem.context()
    offered = {value for _, value, _ in candidates(mem.state)}
    assert "ann@example.com" in offered
    assert not offered & {"Fresno", "Reno", "Friday", "Oakland", "Psychiatrist"}
