"""Messages and tokens as real client libraries have them: OpenAI SDK objects, the
developer role, content parts, LangChain and Anthropic messages in; Anthropic requests
out; any token counter."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from conftest import Chars
from hypothesis import given, settings, strategies as st
from openai.types.chat import ChatCompletionMessage

from convstate import (
    ConfigError,
    ConversationMemory,
    InMemoryStore,
    InvalidMessageError,
    SQLiteStore,
    from_anthropic,
    from_langchain,
    to_anthropic,
)
from convstate.adapters import CONTINUED
from convstate.tokens import IMAGE_TOKENS, TokenCounter, count_messages, counter_for

CALL = {"id": "call_1", "type": "function",
        "function": {"name": "lookup_order", "arguments": '{"order_id": "DD20240315889"}'}}


def memory(**kw) -> ConversationMemory:
    return ConversationMemory("c", store=kw.pop("store", InMemoryStore()), **kw)


def test_an_openai_reply_is_stored_as_it_comes() -> None:
    reply = ChatCompletionMessage.model_validate({
        "role": "assistant", "content": None, "tool_calls": [CALL], "refusal": None,
        "annotations": []})
    mem = memory()
    mem.add("user", "Where is order DD20240315889?")
    for msg in (reply, reply.model_dump(), reply.model_dump(exclude_unset=True)):
        turn = mem.add_message(msg)
        assert turn.role == "assistant" and turn.tool_calls[0]["id"] == "call_1"
    said = ChatCompletionMessage(role="assistant", content=None, refusal="I can't help.")
    assert mem.add_message(said).content == "I can't help."
    with pytest.raises(InvalidMessageError, match="colour"):  # a typo is still an error
        mem.add_message({"role": "user", "content": "x", "colour": "red"})


def test_the_developer_role_is_an_instruction_not_the_users_words() -> None:
    mem = memory()
    mem.add("developer", "Never promise a refund date.")
    mem.add("user", "hi")
    assert [m["role"] for m in mem.context()] == ["developer", "user"]
    request = to_anthropic(mem.context())
    assert request["system"] == "Never promise a refund date."
    assert request["messages"] == [{"role": "user", "content": "hi"}]


def test_content_parts_are_kept_read_and_counted(tmp_path: Path) -> None:
    parts = [{"type": "text", "text": "My order DD20240315889 arrived broken, see:"},
             {"type": "image_url", "image_url": {"url": "https://example.com/a.jpg"}}]
    db = tmp_path / "parts.db"
    with memory(store=SQLiteStore(db), context_window=4096) as mem:
        mem.add("user", parts)
        mem.add("assistant", "Sorry, I will check order DD20240315889.")
        assert mem.context()[0]["content"] == parts  # the model gets the image too
        mem.compact(keep_recent_turns=0)
        assert mem.state.anchor("order_id").value == "DD20240315889"  # the text was read
    with memory(store=SQLiteStore(db), context_window=4096) as again:  # from the file
        turn = again.history()[0]
        assert turn.parts == parts and turn.content == parts[0]["text"]
    counter = TokenCounter("gpt-4")
    with_image = counter.message({"role": "user", "content": parts})
    text_only = counter.message({"role": "user", "content": parts[0]["text"]})
    assert with_image == text_only + IMAGE_TOKENS


def test_langchain_messages_go_in_as_they_are() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    msgs = [lc.SystemMessage("Be brief."), lc.HumanMessage("Refund DD20240315889"),
            lc.AIMessage("", tool_calls=[{"id": "c1", "name": "lookup",
                                          "args": {"order_id": "DD20240315889"}}]),
            lc.ToolMessage("shipped", tool_call_id="c1"), lc.AIMessage("It shipped.")]
    mem = memory()
    for m in msgs:
        mem.add_message(m)
    assert [t.message() for t in mem.history()] == [
        {k: v for k, v in m.items() if k not in ("id",)} for m in from_langchain(msgs)]
    roles = [t.role for t in mem.history()]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert json.loads(mem.history()[2].tool_calls[0]["function"]["arguments"]) == {
        "order_id": "DD20240315889"}


def test_anthropic_messages_round_trip() -> None:
    request = {"system": "Be brief.", "messages": [
        {"role": "user", "content": "Refund DD20240315889"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "t1", "name": "lookup", "input": {"id": 1}},
            {"type": "tool_use", "id": "t2", "name": "lookup", "input": {"id": 2}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "shipped"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "lost"}]},
        {"role": "assistant", "content": "One shipped, one is lost."}]}
    messages = from_anthropic(request["messages"], request["system"])
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool",
                                             "assistant"]
    mem = memory()
    mem.add_messages(messages)  # every converted message is a valid turn
    assert to_anthropic(messages) == request
    with pytest.raises(InvalidMessageError, match="role"):
        from_anthropic([{"role": "system", "content": "x"}])


def test_to_anthropic_follows_the_apis_rules() -> None:
    # no message at all (everything folded): one short user turn
    assert to_anthropic([{"role": "system", "content": "S"}])["messages"] == [
        {"role": "user", "content": CONTINUED}]
    # a first message from the assistant (the user's turn was left out behind a notice)
    out = to_anthropic([{"role": "assistant", "content": "Hello again."},
                        {"role": "user", "content": "hi"}])["messages"]
    assert out[0] == {"role": "user", "content": CONTINUED}
    # parallel tool results: one user turn with both results, then the user's words
    out = to_anthropic([
        {"role": "user", "content": "two orders"},
        {"role": "assistant", "content": "", "tool_calls": [CALL, dict(CALL, id="call_2")]},
        {"role": "tool", "content": "a", "tool_call_id": "call_1"},
        {"role": "tool", "content": "b", "tool_call_id": "call_2"},
        {"role": "user", "content": "and?"}])["messages"]
    assert [m["role"] for m in out] == ["user", "assistant", "user"]
    assert [b["type"] for b in out[2]["content"]] == ["tool_result", "tool_result", "text"]
    assert [b["type"] for b in out[1]["content"]] == ["tool_use", "tool_use"]  # no "" text
    # an empty assistant turn is left out, and the user turns around it merge
    out = to_anthropic([{"role": "user", "content": "a"}, {"role": "assistant", "content": ""},
                        {"role": "user", "content": "b"}])["messages"]
    assert out == [{"role": "user", "content": [{"type": "text", "text": "a"},
                                                {"type": "text", "text": "b"}]}]


MESSAGES = st.one_of(
    st.builds(lambda r, t: {"role": r, "content": t},
              st.sampled_from(["system", "developer", "user", "assistant"]),
              st.sampled_from(["", " ", "hi", "订单"])),
    st.just({"role": "assistant", "content": None, "tool_calls": [CALL]}),
    st.just({"role": "tool", "content": "ok", "tool_call_id": "call_1"}))


@settings(max_examples=200, deadline=None)
@given(st.lists(MESSAGES, max_size=12))
def test_any_context_becomes_a_request_anthropic_accepts(messages) -> None:
    out = to_anthropic(messages)["messages"]
    assert out and out[0]["role"] == "user"
    assert all(a["role"] != b["role"] for a, b in zip(out, out[1:], strict=False))
    for m in out:
        blocks = m["content"] if isinstance(m["content"], list) else [
            {"type": "text", "text": m["content"]}]
        assert blocks and all(b["text"].strip() for b in blocks if b["type"] == "text")


def test_a_compacted_memory_still_makes_a_valid_request() -> None:
    mem = memory(context_window=600)
    mem.add("user", "Refund DD20240315889 please.")
    mem.add("assistant", "Done.")
    mem.compact(keep_recent_turns=0)
    request = to_anthropic(mem.context())
    assert "DD20240315889" in json.dumps(request) and request["messages"][0]["role"] == "user"


def test_a_tool_call_goes_out_with_empty_content_unless_asked() -> None:
    for setting, expected in (("", ""), (None, None)):
        mem = memory(tool_call_content=setting)
        mem.add("user", "where is it?")
        mem.add_message({"role": "assistant", "content": None, "tool_calls": [CALL]})
        assert mem.context()[1]["content"] == expected
        assert mem.history()[1].content is None  # the store keeps what was given
    with pytest.raises(ConfigError, match="tool_call_content"):
        memory(tool_call_content=0)


def test_any_counter_can_be_given() -> None:
    mem = memory(context_window=300, token_counter=Chars())
    for i in range(30):
        mem.add("user", f"第{i}个问题：订单 DD2024031588{i % 10} 什么时候发货？")
        mem.add("assistant", "正在为您查询，请稍候。")
        ctx = mem.context()
        assert count_messages(Chars(), ctx) == mem.tokens(ctx) <= mem.policy.budget
    assert mem.compactions()  # folds were triggered by the characters' count
    with pytest.raises(ConfigError, match="token_counter"):
        memory(token_counter=len)


def test_an_estimate_is_said_once_never_silent() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        counter_for("claude-test-model-1")
        counter_for("claude-test-model-1")
        counter_for("gpt-4")
    said = [w for w in caught if "claude-test-model-1" in str(w.message)]
    assert len(said) == 1 and issubclass(said[0].category, RuntimeWarning)
    assert not [w for w in caught if "'gpt-4'" in str(w.message)]


def test_a_hugging_face_tokenizer_with_its_chat_template(tmp_path: Path) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    from convstate.counters import tokenizer_counter

    tok = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    special = ["[UNK]", "<|im_start|>", "<|im_end|>"]
    tok.train_from_iterator(["refund the order please", "订单 已经 发货", "system user"] * 50,
                            tokenizers.trainers.BpeTrainer(vocab_size=200,
                                                           special_tokens=special))
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    counter = tokenizer_counter(path, chat_template="chatml")
    msgs = [{"role": "system", "content": "refund system"},
            {"role": "user", "content": "refund the order please"},
            {"role": "assistant", "content": "订单 已经 发货"}]
    rendered = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in msgs)
    real = len(tok.encode(rendered + "<|im_start|>assistant\n",
                          add_special_tokens=False).ids)
    counted = count_messages(counter, msgs)
    assert real <= counted <= real + 1  # + the BOS a server may add
    mem = memory(context_window=400, token_counter=counter)
    mem.add("user", "refund the order please")
    assert mem.tokens() == count_messages(counter, mem.context())
