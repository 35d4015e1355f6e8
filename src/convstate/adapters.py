"""Put the state into any prompt: an OpenAI system message, Anthropic's ``system=``, a
plain template, or LangChain message objects (imported only when asked for)."""

from __future__ import annotations

import json
from typing import Any

from .errors import ConfigError
from .render import render
from .state import ConversationState


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


def to_anthropic(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """OpenAI-format messages (e.g. ``mem.context()``) as Anthropic Messages API
    arguments: ``{"system": str, "messages": [...]}``. System messages (your prompt, the
    state block, a notice) join the system string in order; tool calls and results become
    ``tool_use`` / ``tool_result`` blocks."""
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for m in messages:
        role = m["role"]
        if role == "system":
            system.append(m["content"])
        elif role == "tool":
            out.append({"role": "user", "content": [{
                "type": "tool_result", "tool_use_id": m["tool_call_id"],
                "content": m.get("content") or ""}]})
        elif m.get("tool_calls"):
            blocks: list[dict[str, Any]] = [{"type": "text", "text": m["content"]}] \
                if m.get("content") else []
            for call in m["tool_calls"]:
                fn = call["function"]
                blocks.append({"type": "tool_use", "id": call["id"], "name": fn["name"],
                               "input": json.loads(fn.get("arguments") or "{}")})
            out.append({"role": "assistant", "content": blocks})
        else:
            out.append({"role": role, "content": m.get("content") or ""})
    return {"system": "\n\n".join(system), "messages": out}


def to_langchain(messages: list[dict[str, Any]]) -> list[Any]:
    """OpenAI-format messages as LangChain message objects (needs ``langchain-core``)."""
    try:
        from langchain_core.messages import convert_to_messages
    except ImportError:
        raise ImportError("to_langchain needs LangChain: pip install langchain-core") \
            from None
    return convert_to_messages(messages)
