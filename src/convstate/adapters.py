"""Put the state into any prompt (an OpenAI system message, Anthropic's ``system=``, a
plain template, LangChain message objects), and take messages from other clients
(Anthropic, LangChain) in. LangChain is imported only when asked for."""

from __future__ import annotations

import json
from typing import Any

from .errors import ConfigError, InvalidMessageError
from .render import render
from .state import ConversationState
from .turns import content_text


def as_system_message(state: ConversationState, format: str = "text",
                      lang: str | None = None) -> dict[str, str]:
    """The state block as one OpenAI system message."""
    return {"role": "system", "content": render(state, format, lang)}


def fill_template(template: str, state: ConversationState, format: str = "text",
                  lang: str | None = None) -> str:
    """``template`` with ``{state}`` replaced by the block (other braces are left alone)."""
    if "{state}" not in template:
        raise ConfigError("template", "has no {state} placeholder")
    return template.replace("{state}", render(state, format, lang))


# Anthropic's Messages API wants at least one message, the first from the user.
CONTINUED = "(The conversation so far is summarized above.)"


def to_anthropic(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """OpenAI-format messages (e.g. ``mem.context()``) as Anthropic Messages API
    arguments: ``{"system": str, "messages": [...]}``, following the API's rules.

    System and developer messages (your prompt, the state block, a notice) join the
    system string in order; tool calls and results become ``tool_use`` / ``tool_result``
    blocks; turns of one role in a row (parallel tool results, a result and the user's
    next words) merge into one message; empty content is left out; a first message that
    is not the user's, or no message at all, is preceded by a short user turn
    (``CONTINUED``)."""
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for m in messages:
        role = m["role"]
        if role in ("system", "developer"):
            system.append(content_text(m.get("content")))
            continue
        blocks = _blocks(m.get("content"))
        if role == "tool":
            role, blocks = "user", [{"type": "tool_result", "tool_use_id": m["tool_call_id"],
                                     "content": content_text(m.get("content"))}]
        for call in m.get("tool_calls") or []:
            fn = call["function"]
            blocks.append({"type": "tool_use", "id": call["id"], "name": fn["name"],
                           "input": json.loads(fn.get("arguments") or "{}")})
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"] += blocks
        else:
            out.append({"role": role, "content": blocks})
    if not out or out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": [{"type": "text", "text": CONTINUED}]})
    for msg in out:  # one plain text stays a plain string, as people write it
        if len(msg["content"]) == 1 and msg["content"][0]["type"] == "text":
            msg["content"] = msg["content"][0]["text"]
    return {"system": "\n\n".join(t for t in system if t), "messages": out}


def _blocks(content: Any) -> list[dict[str, Any]]:
    """Anthropic content blocks of an OpenAI content: text (never empty) and images."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content.strip() else []
    blocks: list[dict[str, Any]] = []
    for part in content or []:
        if part.get("type") == "text" and part.get("text", "").strip():
            blocks.append({"type": "text", "text": part["text"]})
        elif part.get("type") == "image_url":
            url = part["image_url"]["url"] if isinstance(part["image_url"], dict) \
                else part["image_url"]
            if url.startswith("data:") and ";base64," in url:
                media, data = url[5:].split(";base64,", 1)
                blocks.append({"type": "image", "source": {
                    "type": "base64", "media_type": media, "data": data}})
            else:
                blocks.append({"type": "image", "source": {"type": "url", "url": url}})
    return blocks


def from_anthropic(messages: list[dict[str, Any]], system: str | None = None
                   ) -> list[dict[str, Any]]:
    """Anthropic Messages API messages (and its ``system=``) as OpenAI-format messages
    for ``mem.add_messages``: text blocks join as content, ``tool_use`` blocks become
    tool calls and each ``tool_result`` block a tool turn."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for i, m in enumerate(messages):
        role, content = m.get("role"), m.get("content")
        if role not in ("user", "assistant"):
            raise InvalidMessageError(f"messages[{i}].role", f"{role!r} is not an Anthropic "
                                      "role (user or assistant)")
        if isinstance(content, str):
            out.append({"role": role, "content": content})
            continue
        texts, calls = [], []
        for b in content or []:
            kind = b.get("type")
            if kind == "text":
                texts.append(b["text"])
            elif kind == "tool_use":
                calls.append({"id": b["id"], "type": "function", "function": {
                    "name": b["name"], "arguments": json.dumps(b.get("input", {}),
                                                               ensure_ascii=False)}})
            elif kind == "tool_result":
                out.append({"role": "tool", "tool_call_id": b["tool_use_id"],
                            "content": content_text(b.get("content"))})
        if texts or calls:
            msg: dict[str, Any] = {"role": role, "content": "\n".join(texts)}
            if calls:
                msg["tool_calls"] = calls
            out.append(msg)
    return out


def from_langchain(messages: list[Any]) -> list[dict[str, Any]]:
    """LangChain message objects as OpenAI-format messages for ``mem.add_messages``
    (needs ``langchain-core``)."""
    try:
        from langchain_core.messages import convert_to_openai_messages
    except ImportError:
        raise ImportError("from_langchain needs LangChain: pip install langchain-core") \
            from None
    out = convert_to_openai_messages(messages)
    return out if isinstance(out, list) else [out]


def to_langchain(messages: list[dict[str, Any]]) -> list[Any]:
    """OpenAI-format messages as LangChain message objects (needs ``langchain-core``)."""
    try:
        from langchain_core.messages import convert_to_messages
    except ImportError:
        raise ImportError("to_langchain needs LangChain: pip install langchain-core") \
            from None
    return convert_to_messages(messages)
