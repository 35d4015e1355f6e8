"""A memory's settings after construction: each one a running bot may change takes
effect at the next call when assigned (validated as the constructor validates it); each
other one refuses the assignment with ReadOnlySettingError saying how to get the change.
Never an assignment silently ignored."""

from __future__ import annotations

import asyncio
import inspect
import threading
from typing import Any

import pytest
from conftest import RecordingExtractor

from convstate import (
    ConfigError,
    ConversationMemory,
    InMemoryStore,
    MemoryConfig,
    ReadOnlySettingError,
    RuleExtractor,
    SQLiteStore,
    TurnTooLargeError,
    WindowPolicy,
)
from convstate.cli import load_demo
from convstate.settings import Changeable, Fixed, MemorySettings

PHONE, ORDER = "13812345678", "SR-20240315-889"
TEXT_TITLE, XML_TITLE, ZH_TITLE = "[Conversation record]", "<conversation_state", "【对话状态记录】"


def support(**options: Any) -> ConversationMemory:
    """A session whose first exchange (a phone and an order number) has left the raw
    turns of its small window: its context carries a state block."""
    options = {"system_prompt": "You are a support agent.", **options}
    mem = ConversationMemory("s", store=InMemoryStore(), context_window=300, **options)
    mem.add("user", f"My phone is {PHONE} and my order is {ORDER}.")
    mem.add("assistant", "Thanks, I will check the order and call you back.")
    for i in range(8):
        mem.add("user", f"Question {i}: where is the parcel now, and when does it arrive?")
        mem.add("assistant", f"Answer {i}: it is on its way and should arrive tomorrow.")
        mem.context()
    return mem


def block(context: list[dict[str, Any]]) -> str:
    """The context's state block ('' when it has none)."""
    return next((m["content"] for m in context[1:] if m["role"] == "system"), "")


# -- settings that take effect --------------------------------------------------------


def test_an_assigned_system_prompt_opens_the_next_context() -> None:
    mem = ConversationMemory("x", store=InMemoryStore(), context_window=8192,
                             system_prompt="A")
    mem.system_prompt = "B"
    mem.add("user", "hi")
    assert mem.context()[0] == {"role": "system", "content": "B"}
    mem.system_prompt = None
    assert mem.context() == [{"role": "user", "content": "hi"}]
    mem.system_prompt = "C"
    assert mem.context()[0]["content"] == "C" and mem.config.system_prompt == "C"


def test_a_system_prompt_that_leaves_no_room_is_refused_and_the_old_one_stays() -> None:
    mem = ConversationMemory("x", store=InMemoryStore(), context_window=300,
                             system_prompt="A")
    with pytest.raises(ConfigError) as err:
        mem.system_prompt = "Be helpful. " * 200
    assert err.value.field == "system_prompt"
    mem.add("user", "hi")
    assert mem.system_prompt == "A" and mem.context()[0]["content"] == "A"


def test_an_on_fold_hook_assigned_later_is_called_at_the_next_fold() -> None:
    mem = ConversationMemory("x", store=InMemoryStore(), context_window=8192)
    mem.add("user", f"My order is {ORDER}.")
    mem.add("assistant", "I will look into it.")
    seen: list[Any] = []
    mem.on_fold = seen.append
    record = mem.compact(keep_recent_turns=0)
    assert record is not None and seen == [record]
    mem.on_fold = None
    mem.add("user", "Any news?")
    assert mem.compact(keep_recent_turns=0) is not None and seen == [record]


def test_an_assigned_state_format_and_language_render_the_next_block() -> None:
    mem = support()
    assert block(mem.context()).startswith(TEXT_TITLE)
    mem.state_format = "xml"
    xml = block(mem.context())
    assert xml.startswith(XML_TITLE) and f">{PHONE}</item>" in xml
    assert mem.render().startswith(XML_TITLE)
    mem.lang = "zh"
    assert ZH_TITLE in block(mem.context())
    mem.state_format, mem.lang = "text", None
    assert block(mem.context()).startswith(TEXT_TITLE)


def test_an_assigned_state_budget_bounds_the_next_block() -> None:
    mem = support()
    before = mem.counter.count(block(mem.context()))
    mem.state_budget = 60
    after = block(mem.context())
    assert 0 < mem.counter.count(after) <= 60 < before
    mem.state_budget = None  # the default share of the budget again
    assert mem.state_budget == MemoryConfig(policy=mem.policy).state_budget
    assert mem.counter.count(block(mem.context())) == before


def test_an_assigned_redact_masks_the_next_block_and_the_store_keeps_all() -> None:
    mem = support()
    assert PHONE in block(mem.context())
    mem.redact = lambda text: text.replace(PHONE, "[phone]")
    ctx = mem.context()
    assert "[phone]" in block(ctx) and PHONE not in str(ctx)
    assert PHONE in mem.history()[0].content
    mem.redact = None
    assert PHONE in block(mem.context())


def test_an_assigned_max_turn_chars_bounds_the_next_add() -> None:
    mem = ConversationMemory("x", store=InMemoryStore())
    mem.max_turn_chars = 20
    assert mem.config.max_turn_chars == 20  # what from_config(..., mem.config) carries
    with pytest.raises(TurnTooLargeError):
        mem.add("user", "x" * 21)
    with pytest.raises(TurnTooLargeError):
        mem.add_messages([{"role": "user", "content": "short"},
                          {"role": "user", "content": "y" * 21}])
    assert mem.history() == []
    mem.max_turn_chars = 100
    assert mem.add("user", "x" * 21).index == 0


class Gated(RecordingExtractor):
    """The rules, blocked inside extract() until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.started, self.gate = threading.Event(), threading.Event()

    def extract(self, turns, index, delta_model=None):  # type: ignore[no-untyped-def]
        self.started.set()
        assert self.gate.wait(10), "the fold ran in the caller's thread"
        return super().extract(turns, index)


def test_background_assigned_later_folds_without_the_caller_waiting() -> None:
    ex = Gated()
    mem = ConversationMemory("bg", store=InMemoryStore(), extractor=ex, context_window=800)
    mem.background = True
    for m in load_demo("zh")["messages"][:30]:
        mem.add_message(m)
        mem.context()  # returns while the fold's thread is blocked in the extractor
    assert ex.started.wait(10) and mem.compactions() == []
    ex.gate.set()
    assert mem.wait(30) and len(mem.compactions()) >= 1


class LeaseRecording(InMemoryStore):
    """Records the lease length every fold asks for."""

    def __init__(self) -> None:
        super().__init__()
        self.ttls: list[float] = []

    def acquire_lease(self, session_id: str, owner: str, ttl: float) -> bool:
        self.ttls.append(ttl)
        return super().acquire_lease(session_id, owner, ttl)


def test_an_assigned_lease_ttl_is_the_next_folds_lease() -> None:
    store = LeaseRecording()
    mem = ConversationMemory("x", store=store)
    mem.add("user", f"My order is {ORDER}.")
    mem.lease_ttl = 90
    assert mem.compact(keep_recent_turns=0) is not None and store.ttls == [90]


class Buggy(RuleExtractor):
    """The rules, with a bug: a turn saying 'boom' raises what is not an ExtractionError."""

    name = "buggy"

    def __init__(self, live: bool) -> None:
        self.live = live  # True: it reads every turn as it comes (the live state)

    def extract(self, turns, index, delta_model=None):  # type: ignore[no-untyped-def]
        if any("boom" in (t.content or "") for t in turns):
            raise RuntimeError("a bug in the extractor")
        return super().extract(turns, index, delta_model)


@pytest.mark.parametrize("live", [True, False])
def test_strict_assigned_later_raises_the_next_extractor_bug(live: bool) -> None:
    mem = ConversationMemory("x", store=InMemoryStore(), extractor=Buggy(live), strict=False)
    mem.strict = True
    mem.add("user", "boom, my order SR-7 is late")
    with pytest.raises(RuntimeError, match="a bug"):
        mem.state if live else mem.compact(keep_recent_turns=0)  # noqa: B018


def test_strict_assigned_off_logs_the_next_extractor_bug() -> None:
    mem = ConversationMemory("x", store=InMemoryStore(), extractor=Buggy(False), strict=True)
    mem.strict = False
    mem.add("user", "boom, my order SR-7 is late")
    record = mem.compact(keep_recent_turns=0)
    assert record is not None and "RuntimeError" in (record.error or "")


def test_assigned_settings_reach_the_async_face() -> None:
    async def chat() -> None:
        mem = support(system_prompt=None)
        mem.system_prompt, mem.state_format = "B", "xml"
        seen: list[Any] = []
        mem.on_fold = seen.append
        ctx = await mem.acontext()
        assert ctx[0]["content"] == "B" and block(ctx).startswith(XML_TITLE)
        await mem.aadd("user", "Please also change the address.")
        record = await mem.acompact(keep_recent_turns=0)
        assert record is not None and seen == [record]

    asyncio.run(chat())


def test_a_setting_belongs_to_its_memory_not_to_a_shared_config() -> None:
    config = MemoryConfig(policy=WindowPolicy(context_window=1000, reply_reserve=200),
                          system_prompt="A")
    a = ConversationMemory.from_config("a", config, store=InMemoryStore())
    b = ConversationMemory.from_config("b", config, store=InMemoryStore())
    a.system_prompt = "B"
    assert b.system_prompt == "A" and b.config is config and config.system_prompt == "A"
    c = ConversationMemory.from_config("c", a.config, store=InMemoryStore())
    assert c.system_prompt == "B" and c.policy == a.policy


def test_another_memory_of_the_session_keeps_its_own_settings(tmp_path) -> None:
    db = tmp_path / "s.db"
    a = ConversationMemory("s", store=SQLiteStore(db), system_prompt="A")
    b = ConversationMemory("s", store=SQLiteStore(db), system_prompt="A")
    a.system_prompt = "B"
    b.add("user", "hi")
    assert a.context()[0]["content"] == "B" and b.context()[0]["content"] == "A"


BAD = [("system_prompt", 5), ("state_format", "yaml"), ("lang", "fr"), ("state_budget", 0),
       ("max_turn_chars", 0), ("on_fold", "not a function"), ("redact", 3),
       ("lease_ttl", -1)]


@pytest.mark.parametrize(("name", "bad"), BAD)
def test_an_assigned_value_is_validated_as_the_constructor_validates_it(name: str,
                                                                      bad: Any) -> None:
    with pytest.raises(ConfigError) as built:
        ConversationMemory("x", store=InMemoryStore(), **{name: bad})
    mem = ConversationMemory("x", store=InMemoryStore())
    before = getattr(mem, name)
    with pytest.raises(ConfigError) as assigned:
        setattr(mem, name, bad)
    assert built.value.field == assigned.value.field == name
    assert str(built.value) == str(assigned.value)
    assert getattr(mem, name) == before


# -- settings that are fixed ----------------------------------------------------------

FIXED = sorted(n for n, v in vars(MemorySettings).items() if isinstance(v, Fixed))


def test_the_fixed_settings_are_the_session_the_extractor_the_model_and_the_window(
        ) -> None:
    assert {"session_id", "store", "user_id", "extractor", "state_model", "delta_model",
            "config", "policy", "context_window", "keep_recent_turns", "counter",
            "token_counter", "model"} <= set(FIXED)


@pytest.mark.parametrize("name", FIXED)
def test_assigning_a_fixed_setting_is_refused_and_says_how_to_change_it(name: str) -> None:
    mem = ConversationMemory("x", store=InMemoryStore())
    before = getattr(mem, name)
    with pytest.raises(ReadOnlySettingError) as err:
        setattr(mem, name, before)
    assert isinstance(err.value, AttributeError) and err.value.field == name
    assert f"'{name}'" in str(err.value) and "ConversationMemory" in str(err.value)
    assert getattr(mem, name) is before and name not in vars(mem)


def test_every_constructor_argument_is_a_setting_that_reads_back() -> None:
    params = inspect.signature(ConversationMemory.__init__).parameters
    kinds = {name: type(inspect.getattr_static(ConversationMemory, name, None))
             for name in params if name != "self"}
    assert {n for n, k in kinds.items() if k not in (Changeable, Fixed)} == set()
    given = dict(context_window=4000, reply_reserve=500, trigger_ratio=0.6,
                 target_ratio=0.25, keep_recent_turns=3, min_fold_tokens=7,
                 system_prompt="P", state_format="markdown", lang="zh", state_budget=300,
                 max_turn_chars=999, lease_ttl=12.0, strict=False, background=True,
                 tool_call_content=None, model="gpt-4")
    mem = ConversationMemory("given", store=InMemoryStore(), **given)
    assert {name: getattr(mem, name) for name in given} == given
    assert mem.session_id == "given" and mem.user_id is None and mem.token_counter is None


def test_two_assignments_at_once_both_take_effect() -> None:
    """One thread's new system prompt is being counted while another sets the format:
    neither assignment is lost (each reads, checks and writes the config at once)."""
    counting, release = threading.Event(), threading.Event()

    class Slow:  # counts a new prompt slowly, at a moment the test chooses
        def count(self, text: str) -> int:
            if "NEW PROMPT" in text:
                counting.set()
                release.wait(5)
            return len(text) // 4 + 1

        def message(self, msg: dict[str, Any]) -> int:
            return self.count(str(msg.get("content") or "")) + 4

    mem = ConversationMemory("race", store=InMemoryStore(), context_window=2000,
                             token_counter=Slow())
    first = threading.Thread(target=setattr, args=(mem, "system_prompt", "NEW PROMPT"))
    first.start()
    assert counting.wait(5)
    second = threading.Thread(target=setattr, args=(mem, "state_format", "markdown"))
    second.start()
    second.join(0.3)  # unlocked, it would be done now, from the config before the prompt
    release.set()
    first.join(5)
    second.join(5)
    assert (mem.system_prompt, mem.state_format) == ("NEW PROMPT", "markdown")
