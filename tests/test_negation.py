"""Negation and scope (zh + en): a negated option is not chosen, a cue fires on the user's
requests and decisions and not on any mention, and complaints, pleasantries and feelings
ask for nothing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

import pytest
from conftest import make_turns, sources

from convstate import (
    ConversationMemory,
    ConversationState,
    Cue,
    InMemoryStore,
    RuleExtractor,
    SetOnce,
    delta_model,
    fold_report,
)


class Case(ConversationState):
    refund_method: Annotated[Literal["refund", "exchange"] | None,
                             Cue({"refund": "退款|refund", "exchange": "换货|exchange"})] = None
    urgency: Annotated[Literal["today", "expedite"] | None,
                       Cue({"today": "今天|today", "expedite": "加急|尽快|expedite|asap"})] = None


D = delta_model(Case)


def case_after(*texts: str) -> Case:
    """The case as the rule extractor reads these user turns (one batch)."""
    return case_after_turns([("user", t) for t in texts])


def case_after_turns(turns: list[tuple[str, str]]) -> Case:
    """The case as the rule extractor reads these turns in one batch."""
    made = make_turns(*turns)
    state, _ = fold_report(Case(), RuleExtractor().extract(made, [], D).delta, sources(made))
    assert isinstance(state, Case)
    return state


@pytest.mark.parametrize("text, method", [
    ("我要退款，不要换货了。", "refund"),
    ("A refund please, not an exchange.", "refund"),
    ("I want a refund not an exchange.", "refund"),
    ("I don't want an exchange but a refund.", "refund"),
    ("I'd rather have a refund than an exchange.", "refund"),
    ("我不要换货只要退款", "refund"),
    ("不要换货了，还是退款吧。", "refund"),
    ("An exchange is fine.", "exchange"),
    ("Exchange, please.", "exchange"),
    ("I'll take the exchange.", "exchange"),
    ("能帮我换货吗？", "exchange"),  # a question with a request marker asks for it
    ("Could you please do an exchange instead?", "exchange"),
    # "instead of" refuses what follows it; "instead" alone contrasts
    ("I want a refund instead of an exchange.", "refund"),
    ("Can you please process an exchange instead of a refund?", "exchange"),
    ("Instead of an exchange, I'd like a refund.", "refund"),
    # the cue word as an imperative's verb, with its object
    ("Refund it.", "refund"),
    ("Please don't refund me, just exchange it.", "exchange"),
    ("Not an exchange — refund me, please.", "refund"),
    ("Not an exchange but a refund.", "refund"),
    ("Go ahead with the refund.", "refund"),
    ("与其换货，不如退款", "refund"),
    # a preference that compares: what it is preferred over is not chosen
    ("I'd prefer a refund over an exchange.", "refund"),
    ("I prefer a refund to an exchange.", "refund"),
    ("I'd prefer an exchange.", "exchange"),
    ("I'd prefer to get an exchange.", "exchange"),
    ("Never mind the exchange, a refund please.", "refund"),
    ("I'd prefer you to refund it.", "refund"),
    ("我宁愿退款也不要换货。", "refund"),
    ("我宁可退款，也不换货。", "refund"),
    # an imperative of giving asks for what it names; "let's" and "asking for" ask too
    ("Just give me a refund.", "refund"),
    ("Honestly I don't want an exchange, just give me a refund.", "refund"),
    ("Send me an exchange, not a refund.", "exchange"),
    ("Let's just refund it.", "refund"),
    ("Actually, never mind the refund, let's do an exchange.", "exchange"),
    ("I'm asking for a refund.", "refund"),
    ("I'm not asking for an exchange, I'm asking for a refund.", "refund"),
    ("No need for an exchange, a refund is fine.", "refund"),
    # a request marker closing a question that asks for the thing itself
    ("Could I get a refund please?", "refund"),
    ("Could I just get a refund please, not an exchange.", "refund"),
    ("Can you do an exchange please?", "exchange"),
    # the speaker's own plan, the option its verb
    ("I'll exchange it at the store myself.", "exchange"),
    ("我自己去门店换货。", "exchange"),
    ("我会退款。", "refund"),
    ("不要换货，就退款吧。", "refund"),
    # an excepting word after a negation: the thing excepted is wanted
    ("I don't want anything except a refund.", "refund"),
    ("Nothing other than a refund, please.", "refund"),
    ("No exchange, nothing except a refund.", "refund"),
])
def test_the_option_asked_for_is_chosen_and_the_negated_one_is_not(text: str,
                                                                  method: str) -> None:
    assert case_after(text).refund_method == method


@pytest.mark.parametrize("text", [
    "The exchange it offered was bad.", "We refund the shipping fee only.",
    "Don't refund it.", "Refund it? No way.", "Exchange?! No way.",
    "Today the courier never showed up.",
    "Today it rained.", "Tomorrow the store is closed, right",
])
def test_a_noun_or_a_report_before_an_object_is_no_imperative(text: str) -> None:
    case = case_after(text)
    assert case.refund_method is None and case.urgency is None


@pytest.mark.parametrize("text", [
    "I don't want an exchange.",
    "I never want an exchange.",
    "No exchange.",
    "不用换货",
    "别换货",
    "不换了",
    "我不想要换货了",
    "换货不行",
    "No need for an exchange.",
    "There's no need for an exchange.",
])
def test_a_negated_option_is_not_chosen(text: str) -> None:
    assert case_after(text).refund_method is None


@pytest.mark.parametrize("text", [
    "My friend got an exchange last time.",  # a report
    "我朋友上次换货了，很快。",
    "他想换货，我不确定。",  # a third party's want
    "Can I get an exchange?",  # a question asks, it does not choose
    "可以换货吗？",
    "要不要换货呢",
    "I want to know how an exchange works.",  # an inquiry
    # what another object is about: an update, a call, a talk about it
    "Give me an update on the exchange.", "Just give me the status of my exchange.",
    "Give me a call about the exchange.", "Let's talk about the exchange first.",
    "I'm asking for an update on my exchange.",
    "我想了解一下换货的流程",
    "I need help because the exchange never arrived.",  # a subordinate clause
    # a plan whose verb is another act, a condition's, a negated one, a doubtful one; a
    # report (我换货过一次)
    "I'll call you about the exchange.", "If it breaks again I'll exchange it.",
    "I will not exchange it.", "我讨厌换货。", "I'll exchange it if the refund fails.",
    "I'll probably exchange it.", "我换货过一次，体验很差", "我到店里换货被拒了",
    "我换货的那个订单还没到",
    # an excepting word in a report is no double negation of the speaker's
    "Nobody offered me anything except an exchange.",
    "I never got anything except an exchange offer.",
    "Nothing except the exchange has been processed so far.",
])
def test_a_mention_that_is_not_a_request_chooses_nothing(text: str) -> None:
    assert case_after(text).refund_method is None


@pytest.mark.parametrize("text, urgency", [
    ("It arrived today.", None),
    ("今天到的，包装破了。", None),
    ("Can you deliver it today?", None),
    ("He has to work today.", None),
    ("I need it today.", "today"),
    ("It has to arrive today.", "today"),
    ("今天必须到", "today"),
    ("今天之内必须给我处理好。", "today"),
    ("I don't need it today.", None),
    ("Today doesn't work for me.", None),
    ("必须今天处理完，麻烦加急。", "expedite"),
    ("Could you expedite it please?", "expedite"),
    ("Can you tell me about expedite options, please?", None),  # an inquiry still
])
def test_urgency_is_set_by_a_request_not_by_a_date_that_is_mentioned(
        text: str, urgency: str | None) -> None:
    assert case_after(text).urgency == urgency


def test_a_later_turn_of_the_batch_takes_a_choice_back_and_the_latest_choice_wins() -> None:
    assert case_after("I'd like an exchange.", "Actually, no exchange.").refund_method is None
    assert case_after("我要换货", "算了，不要换货，我要退款").refund_method == "refund"
    assert case_after("我要换货", "我朋友上次退款了").refund_method == "exchange"
    # "forget" lets go of what it names, unless negated itself
    assert case_after("I want a refund.", "On second thought, forget the refund."
                      ).refund_method is None
    assert case_after("我要退款", "退款就算了").refund_method is None
    assert case_after("I want a refund.", "Please don't forget the refund."
                      ).refund_method == "refund"
    # a contrast after a negation chooses only the other option ("not X but Y")
    for later in ("我没收到短信但是退款到账了", "It's not my fault but the refund is late."):
        assert case_after("I want an exchange.", later).refund_method == "exchange", later


def fold_batches(*batches: tuple[tuple[str, str], ...],
                 model: type[ConversationState] = Case) -> ConversationState:
    """The state after each batch of turns is extracted and folded on its own."""
    turns = make_turns(*(t for batch in batches for t in batch))
    state, at = model(), 0
    for batch in batches:
        delta = RuleExtractor().extract(turns[at:at + len(batch)], [],
                                        delta_model(model)).delta
        state, _ = fold_report(state, delta, sources(turns))
        at += len(batch)
    return state


def test_a_later_refusal_lets_go_of_the_option_an_earlier_fold_chose() -> None:
    state = fold_batches((("user", "我要换货"), ("assistant", "好的，为您申请换货。")),
                         (("user", "算了，不要换货了。"),))
    assert isinstance(state, Case) and state.refund_method is None
    assert [(h.value, h.turn) for h in state.history("refund_method")] == [
        ("exchange", 0), (None, 2)]
    # letting go of it: holding off, changing one's mind, 先不办了
    for later in ("Hold off on the exchange for now.", "I changed my mind about the exchange.",
                  "换货先不办了。", "换货暂时不弄了，我再想想。", "Let's call off the exchange."):
        state = fold_batches((("user", "我要换货"), ("assistant", "好的。")),
                             (("user", later),))
        assert isinstance(state, Case) and state.refund_method is None, later
    # refusing another option, or only mentioning one, leaves the choice alone
    state = fold_batches((("user", "I'd like an exchange."),),
                         (("user", "I don't want a refund."),),
                         (("user", "My friend got a refund last time."),))
    assert isinstance(state, Case) and state.refund_method == "exchange"
    # a later choice still wins
    state = fold_batches((("user", "I'd like an exchange."),),
                         (("user", "No exchange, a refund please."),))
    assert isinstance(state, Case) and state.refund_method == "refund"


class FirstWord(ConversationState):
    refund_method: Annotated[Literal["refund", "exchange"] | None, SetOnce(),
                             Cue({"refund": "退款|refund", "exchange": "换货|exchange"})] = None


def test_a_refusal_does_not_undo_a_set_once_field() -> None:
    state = fold_batches((("user", "我要换货"),), (("user", "不要换货了"),), model=FirstWord)
    assert isinstance(state, FirstWord) and state.refund_method == "exchange"


def test_the_memory_reads_the_field_through_the_same_rule() -> None:
    mem = ConversationMemory("neg", store=InMemoryStore(), state_model=Case,
                             context_window=2000)
    for role, text in [("user", "耳机坏了，今天刚到的。"), ("assistant", "您想退款还是换货？"),
                       ("user", "我要退款，不要换货了。"), ("assistant", "好的。")]:
        mem.add(role, text)
    mem.compact(keep_recent_turns=0)
    case = mem.state
    assert isinstance(case, Case)
    assert case.refund_method == "refund" and case.urgency is None
    mem.add("user", "Actually, I don't want a refund anymore, I'll keep it.")
    mem.compact(keep_recent_turns=0)
    assert mem.state.refund_method is None  # type: ignore[attr-defined]


@pytest.mark.parametrize("texts, method", [
    (("Either a refund or an exchange is fine.",), None), (("退款或者换货都可以",), None),
    (("I want a refund or maybe an exchange.",), None),
    # left open later: the earlier choice stands
    (("I want a refund.", "A refund or an exchange, whichever is faster."), "refund"),
    (("I want a refund, not an exchange.",), "refund"),  # no "or": a choice
    # an "or" opening the next clause of the sentence joins them too
    (("I'm going to exchange it, or maybe get a refund.",), None),
    (("I'd like an exchange, or a refund if that is easier.",), None),
    (("我想换货，或者退款也行。",), None),
    # ... but not to one refused, nor by "or else", nor "or" that corrects ("or actually
    # no, ..."); 还是…吧 is "rather"
    (("不要换货了，还是退款吧。",), "refund"),
    (("我想换货，还是退款吧。",), "refund"),
    (("I want a refund, or else I'll dispute the charge.",), "refund"),
    (("I want a refund, or actually no, an exchange.",), "exchange"),
    (("I want an exchange, or at least I think so, definitely not a refund.",), "exchange"),
    # ... nor a fallback, a threat or "or rather"; a later clause chooses anew
    (("I'd prefer an exchange, or failing that a refund.",), "exchange"),
    (("I want an exchange, or otherwise a refund.",), "exchange"),
    (("I want a refund, or I'm filing a complaint about your exchange policy.",), "refund"),
    (("我想换货，或者说我其实想退款。",), "refund"),
    (("I was going to exchange it, or get a refund, but now I just want a refund.",),
     "refund"),
    # a refusal chooses nothing that the clauses after it only mention
    (("No refund, I heard exchanges take forever.",), None),
    (("I don't want a refund, just checking on the exchange status.",), None),
])
def test_options_joined_by_or_are_left_open(texts: tuple[str, ...], method) -> None:
    assert case_after(*texts).refund_method == method


@pytest.mark.parametrize("texts, method", [
    # the rest turned down: the one set apart is chosen, over an earlier choice
    (("I want an exchange.", "Other than a refund, I don't want anything."), "refund"),
    (("Apart from a refund I don't need anything.",), "refund"),
    (("我要换货", "除了退款，其他都不要。"), "refund"),
    (("除了退款以外，别的我都不要。",), "refund"), (("除了退款其他都不要",), "refund"),
    # the rest accepted: it is turned down, and an earlier choice of it let go
    (("I want a refund.", "Other than a refund, anything else is fine."), None),
    (("I want a refund.", "Other than an exchange, anything else is fine."), "refund"),
    (("我要退款", "除了退款，其他都可以。"), None),
    (("我要换货", "除了退款，其他都可以。"), "exchange"),
    # only set apart: besides it, a question, someone else's rest
    (("I want an exchange.", "Other than a refund, is anything else possible?"), "exchange"),
    (("我要换货", "除了退款，我还要赔偿。"), "exchange"),
    (("我要换货", "除了退款，他其他都不要。"), "exchange"),
    # ... nor what the rest's sentence goes on to say, a report or a tag after it, a
    # quote, or a rest that is no choice ("... anything else to go wrong", 不要拖了)
    (("I want an exchange.", "Other than a refund, I don't want anything, right?"),
     "exchange"),
    (("I want an exchange.", "Other than a refund, I don't want anything unless you can do "
      "an exchange."), "exchange"),
    (("I want an exchange.", '"Other than a refund, I don\'t want anything," he said.'),
     "exchange"),
    (("I want an exchange.", "Apart from a refund, I won't accept anything, said my "
      "husband."), "exchange"),
    (("我要换货", "我老公说，除了退款，其他都不要。"), "exchange"),
    (("I want an exchange.", "Except for the refund, I don't want anything else to be "
      "delayed."), "exchange"),
    (("我要换货", "除了退款，其他都不要拖了"), "exchange"),
    (("我要换货", "除了退款，其他都不要紧"), "exchange"),
    (("我要换货", "除非退款，其他都不要。"), "exchange"),  # 除非: "unless"
])
def test_what_is_said_of_the_rest_decides_an_option_set_apart(texts: tuple[str, ...],
                                                              method) -> None:
    assert case_after(*texts).refund_method == method


def _documented() -> list[tuple[str, str | None]]:
    """The rows of docs/customer-service.md's table of what sets ``refund_method``: each
    text with the value documented (None: "not set")."""
    page = (Path(__file__).parents[1] / "docs" / "customer-service.md").read_text()
    table = page.split("| the user says | `refund_method` |", 1)[1].split("\n\n", 1)[0]
    out = []
    for texts, value in re.findall(r"^\| (.+) \| (`\w+`|not set[^|]*) \|$", table, re.M):
        out += [(t, value.strip("`") if value.startswith("`") else None)
                for t in texts.split(" · ")]
    return out


@pytest.mark.parametrize("text, method", _documented())
def test_the_documented_readings_hold(text: str, method) -> None:
    assert len(_documented()) > 30  # (the table was found)
    assert case_after(text).refund_method == method


@pytest.mark.parametrize("offer, reply, method", [
    ("Sorry about that! Would you like a refund?", "Yes, please.", "refund"),
    ("需要帮您办理退款吗？", "好的，麻烦了。", "refund"),
    ("Would you like a refund?", "No thanks.", None),  # turned down: nothing chosen
    ("Would you like a refund?", "No, I want an exchange.", "exchange"),  # its own choice
    ("Would you like a refund or an exchange?", "Yes.", None),  # which one is not said
    ("Your refund was sent. Anything else?", "Yes, my address.", None),  # no offer
    ("需要帮您办理退款吗？", "需要", "refund"),
    ("The refund would be $50. Would you like that refund?", "Yes", "refund"),
    # an agreement that does more than agree chooses nothing
    ("Would you like a refund?", "Ok thanks, I'll think about it.", None),
    ("需要帮您办理退款吗？", "嗯，我再想想", None),
    ("Would you like a refund?", "Okay, no I don't want that.", None),
    ("Would you like a refund?", "Sure, but I'd like a replacement instead.", None),
    ("Would you like a refund?", "OK if it's fast, otherwise an exchange.", None),
    ("需要帮您办理退款吗？", "好的，不过我还是想换一个新的", None),
    # ... and an offer among others, or of what is not offered, offers nothing
    ("Would you like a refund? We can also do an exchange.", "Yes", None),
    ("Would you like a refund? Is your address still 5 Main St?", "Yes", None),
    ("Would you like a refund? Or would you prefer an exchange?", "Yes", None),
    ("需要帮您办理退款吗？还是需要换货？", "好的", None),
    ("Would you like me to cancel the refund?", "Yes", None),
    ("Would you like to know why you aren't eligible for a refund?", "Yes", None),
    ("Would you like our refund policy link?", "Yes", None),
])
def test_agreeing_to_an_offer_of_one_option_chooses_it(offer, reply, method) -> None:
    """A reply that agrees to an offer of one option of a Cue field takes that option,
    whether the turns are read one at a time (live) or in one batch (a fold)."""
    turns = [("user", "The headphones arrived broken."), ("assistant", offer),
             ("user", reply)]
    mem = ConversationMemory("offer", store=InMemoryStore(), state_model=Case,
                             context_window=8192)
    for role, text in turns:
        mem.add(role, text)
        mem.context()
    assert mem.state.refund_method == method  # type: ignore[attr-defined]
    assert case_after_turns(turns).refund_method == method


@pytest.mark.parametrize("offer, urgency", [
    ("Do you want me to expedite it?", "expedite"),  # a verb offered with its object
    ("Would you like me to expedite them?", "expedite"),
    ("Do you want me to cancel the expedite request?", None),
])
def test_agreeing_to_an_offered_act_chooses_it(offer: str, urgency: str | None) -> None:
    turns = [("user", "My parcel is late."), ("assistant", offer), ("user", "Yes please.")]
    assert case_after_turns(turns).urgency == urgency


def built_in(text: str) -> dict[str, list[str]]:
    """What the rule extractor makes of one user turn, by section."""
    delta = RuleExtractor().extract(make_turns(("user", text)), []).delta
    out: dict[str, list[str]] = {
        kind: [a.value for a in delta.anchors if a.kind == kind]
        for kind in ("constraint", "negative_constraint")}
    for name in ("goals", "decisions", "facts"):
        out[name] = [i.text for i in getattr(delta, name)]
    out["preferences"] = [f"{p.polarity}:{p.text}" for p in delta.preferences]
    return out


@pytest.mark.parametrize("text", [
    "Stop calling me after 8pm.", "Please refrain from texting my work number.",
    "No more phone calls, please.", "I'd rather you didn't call me.",
])
def test_a_halt_or_a_wish_that_the_listener_not_act_refuses(text: str) -> None:
    got = built_in(text)
    assert got["negative_constraint"] and not got["preferences"], got


def test_asking_to_hear_an_explanation_is_a_want_not_a_complaint() -> None:
    assert built_in("我想听听你们的解释。")["goals"] == ["我想听听你们的解释"]


def test_a_negated_want_is_a_refusal_not_a_goal_or_a_decision() -> None:
    got = built_in("我不希望再等了")
    assert got["negative_constraint"] == ["我不希望再等了"] and not got["goals"]
    got = built_in("I never want to be called after 8pm.")
    assert got["negative_constraint"] == ["I never want to be called after 8pm"]
    assert not got["facts"]
    assert built_in("I won't need insurance.")["negative_constraint"]
    assert not built_in("我不同意换货")["decisions"]
    assert not built_in("I haven't decided yet, don't go ahead.")["decisions"]
    assert built_in("我不太喜欢辣的")["preferences"] == ["dislike:我不太喜欢辣的"]
    assert built_in("我喜欢辣的")["preferences"] == ["like:我喜欢辣的"]
    got = built_in("我要退款，不要换货了。")
    assert got["goals"] == ["我要退款"] and got["negative_constraint"] == ["不要换货了"]


@pytest.mark.parametrize("text", [
    "You do not currently know my name.",  # a statement about the listener
    "Don't forget to spay or neuter your pet!",  # a reminder asks that it be done
    "终于不用为住宿担心了呢",  # a reassurance
    "我还想去别家尝尝特色。",  # 别家: another place, not "don't"
    "我很纠结要不要送",  # a question that offers both answers
    "No, make it a shared ride.",
    # a pleasantry; a condition is no constraint of its own
    "不要紧的，你们慢慢查。", "没关系，不要紧。",
    "If I do not pick up, call my other number.", "If you can't reach me, text me.",
    "In case I don't answer, leave a message.", "不在家的话，放门口就行。",
    "如果我不接电话，请发短信。",
    # picking up is no choosing
    "I will not pick it up before Monday, I'm away.",
    # what did not come is a report, no rule ("No more phone calls, please" is one)
    "I have received no messages from you about the refund.",
    "I've had no visits from the technician so far.",
    "No more messages came after that.",
    "There were no texts or emails about the delivery.",
])
def test_a_statement_is_not_a_negative_constraint(text: str) -> None:
    assert not built_in(text)["negative_constraint"]


@pytest.mark.parametrize("text", ["我不要紧身的款式", "不要紧急处理"])
def test_what_starts_as_a_pleasantry_may_still_refuse(text: str) -> None:
    assert built_in(text)["negative_constraint"]


def test_words_in_quotation_marks_are_not_the_users_requirements() -> None:
    text = ("'The best and most beautiful things in the world cannot be seen or even "
            "touched - they must be felt with the heart.' - Helen Keller")
    got = built_in(text)
    assert not got["constraint"] and not got["negative_constraint"]
    assert built_in('The title must begin with "Unit 4".')["constraint"]


@pytest.mark.parametrize("text", [
    "This is the second time I have to chase you.",
    "你们这服务太差了",
    "thanks, have a nice day",
    "Thank you so much, have a great weekend!",
    "I'm so frustrated.",
    "我很生气",
    "气死我了！",
    "不需要其他信息了，多谢您了。",
    "No, I don't need anything else.",
    "I still haven't heard back from anyone.",
    "又没人回复，等了三天了。",
    "You have to be kidding me.",  # supposes, does not demand
    "I'm really upset and disappointed with how this was handled.",
    "I have to say, you guys are slow.",  # a frame, then a judgement
    "I must say I'm impressed with the speed.",
    "我真的很失望。",
    "你们这效率也太低了吧",
    "不用了，谢谢。",  # a refusal that refuses nothing named: an answer, no constraint
    "不需要。",
    # a guess about the past, what should not have been needed, disbelief, recurrence
    "I must have called you guys five times already.",
    "You must have lost my parcel.",
    "I shouldn't have to explain this again.",
    "I can't believe I have to wait again.",
    "Every time I have to repeat my order number!",
    # a hedge: how the speaker sounds, not what they want
    "I don't want to be rude, but this is the third time I'm calling.",
    "No offense, I don't mean to be pushy.",
    "不是我说，这已经是第三次了。",
    # a feeling with a time after it, or qualifying a noun; who is made to feel it; a
    # judgement of the service; an acknowledgment
    "I'm so angry right now, this is the worst experience ever.",
    "This is the most useless company I've ever dealt with.",
    "What a waste of time.",
    "我很生气，你们太不负责了。",
    "太气人了，我真的很失望。",
    "太让人失望了！",
    "这是最差的服务",
    "我现在很生气。",
    "The app keeps crashing.",
    "I understand.",
    "Okay, I see what you mean.",
    # forbidding how the service treats the speaker complains, constrains nothing
    "Don't make me repeat myself.",
    "别再让我重复一遍了",
    "Don't give me that excuse again.",
    "Don't tell me to be patient.",
    "不要敷衍我",
    "别跟我说什么系统问题",
    "不要再推脱了",
    "Don't make me say it again.",
    "不要再让我重复了",
    "Don't give me that scripted answer again.",
    # weariness and giving up, and what the service says instead of acting
    "I'm tired of this.",
    "Honestly, I'm exhausted.",
    "Whatever, I give up.",
    "Honestly, I don't care anymore.",
    "别跟我说抱歉了，没用。",
    "我不想再听你们的解释了。",
    "Stop wasting my time.",
    # a judgement of the service's thing, an apology
    "Your app is garbage.",
    "Your refund policy is ridiculous.",
    "I'm so sorry to bother you again.",
])
def test_complaints_pleasantries_and_feelings_ask_for_nothing(text: str) -> None:
    got = built_in(text)
    assert got == {"constraint": [], "negative_constraint": [], "goals": [],
                   "decisions": [], "facts": [], "preferences": []}, got


def test_a_complaint_or_a_greeting_put_as_a_question_asks_nothing() -> None:
    def asked(text: str) -> list[str]:
        delta = RuleExtractor().extract(make_turns(("user", text)), []).delta
        return [r.text for r in delta.requests]
    assert asked("Are you kidding me?") == [] and asked("Hello?") == []
    assert asked("Sorry, what time was that?") == ["what time was that?"]
    # a question that asks something asks, however it sounds
    for text in ("Can you people send me the invoice?", "到底能不能退款？",
                 "Why is the refund still not here?", "为什么退款还没到账？",
                 "Is this the third time you've lost my parcel?",
                 "Can you explain why I was charged a second time?"):
        assert asked(text) != [], text


@pytest.mark.parametrize("text", ["Don't make me repeat myself.", "不要敷衍我",
                                  "Don't give me that excuse again."])
def test_a_complaint_of_how_the_user_is_treated_is_the_sentiments(text: str) -> None:
    delta = RuleExtractor().extract(make_turns(("user", text)), []).delta
    assert delta.sentiment is not None and delta.sentiment.label == "negative"


@pytest.mark.parametrize("text", ["You must have a receipt to return it.",
                                  "I must have it delivered by Friday."])
def test_must_have_with_what_is_required_is_a_constraint(text: str) -> None:
    assert built_in(text)["constraint"] == [text.rstrip(".")]


def test_what_a_complaint_asks_for_stays() -> None:
    got = built_in("这是我第三次打电话了，你们必须今天给我解决")
    assert got["constraint"] == ["你们必须今天给我解决"]
    got = built_in("This is the second time I call. Please never call me after 8pm.")
    assert got["negative_constraint"] == ["Please never call me after 8pm"]
    assert built_in("别再给我打电话了")["negative_constraint"] == ["别再给我打电话了"]
    # a complaint of how the user is treated beside what they ask for: the ask stays
    assert built_in("No excuses, I want a refund by Friday.")["goals"] == \
        ["I want a refund by Friday"]
    assert built_in("Don't put me on hold again.")["negative_constraint"]  # the case's
    assert built_in("不要让我重复付款")["negative_constraint"]  # "don't charge me twice"
    assert built_in("不要三点。")["negative_constraint"] == ["不要三点"]
    assert built_in("I need at least two bedrooms.")["constraint"]
    assert built_in("You have to send it today.")["constraint"]
    assert built_in("说实话，我必须今天拿到退款。")["constraint"]
    assert built_in("My internet has been slow since Monday.")["facts"]


@pytest.mark.parametrize("text, facts, negative", [
    # how the user is or lives, said short (不 and a verb: a habit), is a fact
    ("我不吃猪肉。", ["我不吃猪肉"], []),
    ("我是素食者。", ["我是素食者"], []),
    ("我吃素", ["我吃素"], []),
    # ... also beside a request another section takes
    ("我对花生过敏，别放花生。", ["我对花生过敏"], ["别放花生"]),
    ("I'm allergic to peanuts, please don't put any in.", ["I'm allergic to peanuts"],
     ["please don't put any in"]),
    # a short sentence that says no trait is still nothing (没 and a verb: an event)
    ("我知道了", [], []),
    ("我没吃猪肉", [], []),
    # a clause that frames a rule for every time is the rule's words
    ("From now on, don't call me with promotions.", [],
     ["From now on, don't call me with promotions"]),
    ("以后，别给我打电话。", [], ["以后，别给我打电话"]),
])
def test_a_trait_is_a_fact_however_short_and_a_rule_keeps_its_frame(
        text: str, facts: list[str], negative: list[str]) -> None:
    got = built_in(text)
    assert (got["facts"], got["negative_constraint"]) == (facts, negative), got


def test_a_complaint_about_the_service_is_read_as_negative_sentiment() -> None:
    delta = RuleExtractor().extract(make_turns(("user", "你们这服务太差了")), []).delta
    assert delta.sentiment is not None and delta.sentiment.label == "negative"


@pytest.mark.parametrize("text", ["退款要多久", "换货需要提供什么", "What does an exchange need"])
def test_a_question_without_its_mark_chooses_nothing(text: str) -> None:
    assert case_after(text).refund_method is None


@pytest.mark.parametrize("text, polarity", [
    ("I'd rather not get a replacement.", "dislike"),
    ("I'd prefer not to wait.", "dislike"),
    ("I'd prefer to speak to a human.", "like"),
    ("我最好不要周末上门。", None),  # (a refusal: a negative constraint, no preference)
    # a negation after a cue that does not weigh says what is liked
    ("我喜欢不辣的菜", "like"),
    ("我不喜欢不守时的快递员", "dislike"),
    ("I like not having to wait in line.", "like"),
    # 爱 with what one does to a thing is a liking (爱吃); not 可爱
    ("我特别爱吃烤鸭", "like"), ("我不爱喝咖啡", "dislike"), ("小狗好可爱吃东西很乖", None),
])
def test_a_preference_negated_after_its_cue_is_a_dislike(text, polarity) -> None:
    got = built_in(text)["preferences"]
    assert [p.split(":")[0] for p in got] == ([polarity] if polarity else [])


@pytest.mark.parametrize("later, method, goal", [
    # a clause that gives up what a goal wants gives up the goal, and the option
    ("Actually, never mind the refund, I'll keep it.", None, "abandoned"),
    ("I don't want a refund anymore.", None, "abandoned"),
    ("Should I cancel the refund?", "refund", "active"),  # asks
    ("I don't need the box.", "refund", "active"),  # gives up something else
    ("I don't want to pay for shipping twice.", "refund", "active"),  # (paying)
    ("Please don't forget my refund.", "refund", "active"),  # a withdrawal negated
    ("I don't want a refurbished one, I want a refund.", "refund", "active"),  # (whole words)
    ("Never mind the refunds.", None, "abandoned"),  # a form of the word
])
def test_giving_up_what_a_goal_wants_abandons_it(later, method, goal) -> None:
    mem = ConversationMemory("s", store=InMemoryStore(), state_model=Case)
    for role, text in [("user", "I want a refund."), ("assistant", "Sure."), ("user", later)]:
        mem.add(role, text)
    assert mem.state.refund_method == method
    assert [g.status for g in mem.state.goals] == [goal]


@pytest.mark.parametrize("later, goal", [
    ("算了，不退了。", "abandoned"),
    ("我不想退款了，还是换货吧。", "abandoned"),
    ("退款要多久？", "active"),
    ("不用这家店的信息了，谢谢。", "active"),  # no more about it: the goal stands
    ("不要送到旧地址。", "active"),  # (sending)
    ("我不想退货，只想退款。", "active"),  # 退货 is not 退款
    ("算了，先不退了。", "abandoned"),  # 先, 也, 还, 就 before 不
])
def test_giving_up_a_goal_in_chinese(later, goal) -> None:
    mem = ConversationMemory("s", store=InMemoryStore())
    for role, text in [("user", "我要退款。"), ("assistant", "好的。"), ("user", later)]:
        mem.add(role, text)
    assert mem.state.goals[0].text == "我要退款" and mem.state.goals[0].status == goal


@pytest.mark.parametrize("rule, later, lifted", [
    # allowing what a negative constraint forbade lifts it
    ("别打电话联系我。", "算了，还是打电话吧，短信我看不到。", True),
    ("周末不要上门。", "周末上门也可以。", True),
    ("Don't call me after 8pm.", "Actually, calling after 8 is fine.", True),
    # not something else allowed, nor the rule said again
    ("Don't call me after 8pm.", "Calling before 8 is fine.", False),
    ("不要换货。", "还是退款吧。", False),
    ("别打电话联系我。", "还是别打电话了。", False),
    ("别打电话联系我。", "发短信联系我也可以。", False),  # another act
    ("不要周末上门。", "工作日上门也可以。", False),  # another time
    ("请不要在周末上门", "周末上门也可以", True),  # (a preposition after the negator)
    ("不要给我打电话", "还是打电话吧", True),
    ("No calls after 8pm please.", "Calls after 8 are fine now.", True),
    ("Do not send the package via FedEx.", "Sending the refund via PayPal is fine.", False),
])
def test_allowing_what_was_forbidden_lifts_the_rule(rule, later, lifted) -> None:
    mem = ConversationMemory("s", store=InMemoryStore())
    for role, text in [("user", rule), ("assistant", "OK."), ("user", later)]:
        mem.add(role, text)
    first = mem.state.history("negative_constraint")[0]
    assert first.value == rule.rstrip("。.") and (first.status != "active") == lifted


def test_a_goal_to_cancel_is_not_given_up_by_asking_to_cancel() -> None:
    for first, later in (("I want to cancel my subscription.",
                          "Please cancel the subscription today, I do not want to be charged."),
                         ("我想取消订单", "请尽快帮我取消订单")):
        mem = ConversationMemory("s", store=InMemoryStore())
        for role, text in [("user", first), ("assistant", "OK."), ("user", later)]:
            mem.add(role, text)
        assert mem.state.goals[0].status == "active", first


@pytest.mark.parametrize("text, kind", [
    # a hedge is left out, not what the clause goes on to ask
    ("No offense but I want a full refund for this.", "goals"),
    ("With respect to my order I need a replacement by Friday.", "goals"),
    ("不是我说你们我要退款", "goals"),
    ("恕我直言你们必须今天给我退款", "constraint"),
])
def test_a_hedge_leaves_what_its_clause_asks(text: str, kind: str) -> None:
    assert built_in(text)[kind]


@pytest.mark.parametrize("text", ["我已经等了一周了我希望今天能发货", "我已经受够了我要投诉"])
def test_a_wait_told_before_a_want_leaves_the_goal(text: str) -> None:
    assert built_in(text)["goals"] == [text]


@pytest.mark.parametrize("text", [
    "I just want to pause my subscription for a month.", "I really need a new charger.",
    "I'd really like to upgrade my plan.", "只是想暂停一个月。", "我只想暂停一个月。",
])
def test_a_want_with_an_adverb_is_a_goal(text: str) -> None:
    """"just", "really", 只是, 只, 就 between the speaker and the want leave it a goal."""
    assert built_in(text)["goals"] == [text.rstrip("。.")]


def test_a_past_want_is_no_goal() -> None:
    assert built_in("I just wanted to say thanks.")["goals"] == []


@pytest.mark.parametrize("text", ["APP一直崩溃，怎么办？", "Is the Mad Max DVD in stock?",
                                  "My screen is getting worse every day.", "吃了以后有点恶心"])
def test_a_word_of_feeling_said_of_a_thing_sets_no_mood(text: str) -> None:
    mem = ConversationMemory("s", store=InMemoryStore())
    mem.add("user", text)
    assert mem.state.sentiment is None


def test_a_thing_that_keeps_failing_is_a_fact_not_a_complaint() -> None:
    mem = ConversationMemory("s", store=InMemoryStore())
    mem.add("user", "The app keeps crashing when I upload photos.")
    assert [f.text for f in mem.state.facts] == ["The app keeps crashing when I upload photos"]


@pytest.mark.parametrize("text", [
    "It keeps charging my card twice.",  # the fault, however it recurs
    "Your app crashes every time I open the payment page.",
    "I'm so sorry I missed the delivery yesterday.",  # what follows the apology
])
def test_a_fault_or_what_follows_an_apology_is_still_a_fact(text: str) -> None:
    assert built_in(text)["facts"], text
