"""One stored message of a conversation (a turn), and the checks on what a caller adds."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .errors import InvalidMessageError, TurnTooLargeError

Role = Literal["system", "developer", "user", "assistant", "tool"]
ROLES: tuple[str, ...] = ("system", "developer", "user", "assistant", "tool")
DEFAULT_MAX_TURN_CHARS = 2_000_000
# How deep the JSON of a content part or a tool call may nest: real ones nest 2-5 levels
# ({"type": "image_url", "image_url": {"url": ...}}). A part 250 levels deep was stored,
# then failed every context that held it (pydantic's serializer stops near there).
MAX_NESTING = 32
FIELDS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id"})
# What the OpenAI SDK puts on a reply besides the message itself: dropped when stored
# (a refusal's text becomes the content when there is none).
REPLY_FIELDS = frozenset({"annotations", "refusal", "audio", "function_call",
                          "reasoning", "reasoning_content"})


class Turn(BaseModel):
    """A turn as stored: its index in the session (0-based, gap-free) and its message fields."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(description="Position of the turn in its session, from 0.")
    role: Role
    content: str | None = Field(default=None, description=(
        "The text: the content, or the text parts of a content list joined by newlines."))
    parts: list[dict[str, Any]] | None = Field(
        default=None, description="The content as the caller gave it, when a list of parts.")
    name: str | None = None
    tool_calls: list[dict[str, Any]] | None = Field(
        default=None, description="OpenAI tool calls of an assistant turn."
    )
    tool_call_id: str | None = Field(default=None, description="The call a tool turn answers.")
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))

    @property
    def text(self) -> str:
        """The text an extractor reads: the content, or the tool calls as JSON."""
        if self.content:
            return self.content
        if self.tool_calls:
            return json.dumps(self.tool_calls, ensure_ascii=False, sort_keys=True)
        return ""

    def message(self, null_content: str | None = None) -> dict[str, Any]:
        """The turn as an OpenAI chat message dict, content parts as given; a tool call
        without content has ``null_content`` (a context uses '': many servers refuse
        null)."""
        content: Any = self.parts if self.parts is not None else self.content
        msg: dict[str, Any] = {"role": self.role,
                               "content": null_content if content is None else content}
        if self.name is not None:
            msg["name"] = self.name
        if self.tool_calls is not None:
            msg["tool_calls"] = self.tool_calls
        if self.tool_call_id is not None:
            msg["tool_call_id"] = self.tool_call_id
        return msg


def check_message(
    msg: Any, max_chars: int = DEFAULT_MAX_TURN_CHARS
) -> dict[str, Any]:
    """Validate an OpenAI-style message (a dict, an OpenAI SDK message object or its
    dump, or a LangChain message); return the fields a Turn stores.

    Raises InvalidMessageError naming the field, before anything is written.
    """
    if type(msg).__module__.startswith("langchain_core."):  # a LangChain message object
        from langchain_core.messages import convert_to_openai_messages  # (adapters' way)
        msg = convert_to_openai_messages([msg])[0]
    elif not isinstance(msg, dict) and callable(getattr(msg, "model_dump", None)):
        msg = msg.model_dump(exclude_none=True)  # an OpenAI SDK message
    if not isinstance(msg, dict):
        raise InvalidMessageError("message", f"expected a dict, got {type(msg).__name__}")
    if REPLY_FIELDS & msg.keys():
        if not msg.get("content") and isinstance(msg.get("refusal"), str):
            msg = dict(msg, content=msg["refusal"])
        msg = {k: v for k, v in msg.items() if k not in REPLY_FIELDS}
    unknown = set(msg) - FIELDS
    if unknown:
        raise InvalidMessageError(sorted(unknown)[0], "unknown message field")
    if "role" not in msg:
        raise InvalidMessageError("role", "missing; expected one of " + ", ".join(ROLES))
    role = msg["role"]
    if role not in ROLES:
        raise InvalidMessageError("role", f"unknown role {role!r}; expected one of {ROLES}")
    content, parts = msg.get("content"), None
    tool_calls = msg.get("tool_calls")
    if isinstance(content, list):
        parts, content = content, _parts_text(content)
    if content is not None and not isinstance(content, str):
        raise InvalidMessageError(
            "content", f"expected a string, got {type(content).__name__}"
        )
    if content is not None and len(content) > max_chars:
        raise TurnTooLargeError(
            "content", f"{len(content)} characters is over the limit of {max_chars}"
        )
    if tool_calls is not None:
        if role != "assistant":
            raise InvalidMessageError("tool_calls", "only an assistant turn can call tools")
        _check_tool_calls(tool_calls)
    for field, values in (("content", parts), ("tool_calls", tool_calls)):
        for i, value in enumerate(values or []):
            if _nests_deeper(value, MAX_NESTING):
                raise InvalidMessageError(f"{field}[{i}]", f"nested deeper than {MAX_NESTING} "
                                          "levels")
    if content is None and not tool_calls:
        raise InvalidMessageError("content", "missing (only an assistant tool call may omit it)")
    if role == "tool" and not isinstance(msg.get("tool_call_id"), str):
        raise InvalidMessageError("tool_call_id", "a tool turn needs the id of the call it answers")
    if role != "tool" and msg.get("tool_call_id") is not None:
        raise InvalidMessageError("tool_call_id", "only a tool turn answers a call")
    name = msg.get("name")
    if name is not None and not isinstance(name, str):
        raise InvalidMessageError("name", f"expected a string, got {type(name).__name__}")
    _check_text({"content": content, "name": name, "tool_call_id": msg.get("tool_call_id"),
                 "tool_calls": _as_json(tool_calls) if tool_calls is not None else None,
                 "parts": _as_json(parts, "content") if parts is not None else None},
                max_chars)
    return {
        "role": role,
        "content": content,
        "parts": parts,
        "name": name,
        "tool_calls": tool_calls,
        "tool_call_id": msg.get("tool_call_id"),
    }


def check_messages(messages: Any, max_chars: int = DEFAULT_MAX_TURN_CHARS
                   ) -> list[dict[str, Any]]:
    """``check_message`` of each message of a list, a fault naming the message's index
    among several (``messages[3].role``); anything but a list (one message, say) is
    refused whole."""
    if isinstance(messages, str | bytes | Mapping) or not isinstance(messages, Iterable):
        one = " (one message goes to add_message)" if isinstance(messages, Mapping) else ""
        raise InvalidMessageError("messages", f"expected a list of messages, got "
                                  f"{type(messages).__name__}{one}")
    messages = list(messages)
    checked = []
    for k, msg in enumerate(messages):
        try:
            checked.append(check_message(msg, max_chars))
        except InvalidMessageError as exc:
            if len(messages) == 1:
                raise
            raise type(exc)(f"messages[{k}].{exc.field}", exc.problem) from None
    return checked


def _check_tool_calls(tool_calls: Any) -> None:
    if not isinstance(tool_calls, list) or not tool_calls:
        raise InvalidMessageError("tool_calls", "expected a non-empty list")
    for i, call in enumerate(tool_calls):
        if not isinstance(call, dict) or not isinstance(call.get("id"), str):
            raise InvalidMessageError(f"tool_calls[{i}].id", "each call needs a string id")
        fn = call.get("function")
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise InvalidMessageError(f"tool_calls[{i}].function", "needs a function name")


def content_text(content: Any) -> str:
    """A message content's text: the string, or the text parts of a list joined by
    newlines (what an extractor reads); '' for none."""
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content if p.get("type") == "text")
    return content or ""


def _parts_text(parts: list[Any]) -> str:
    """The text of a content list, after checking each part."""
    if not parts:
        raise InvalidMessageError("content", "an empty list of parts")
    for i, part in enumerate(parts):
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            raise InvalidMessageError(f"content[{i}]", "each part needs a string type")
        if part["type"] == "text" and not isinstance(part.get("text"), str):
            raise InvalidMessageError(f"content[{i}].text", "a text part needs its text")
    return content_text(parts)


def _nests_deeper(value: Any, limit: int) -> bool:
    """Whether dicts and lists nest deeper than ``limit`` levels in ``value`` (walked
    without recursion: any depth, even a structure that holds itself, is measured)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else \
            node if isinstance(node, list | tuple) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _as_json(value: list[Any], field: str = "tool_calls") -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidMessageError(field, f"not JSON: {exc}") from None


def _check_text(fields: dict[str, Any], max_chars: int) -> None:
    """Every text field of a message: storable by every store (no NUL, no lone
    surrogate) and, together, within ``max_chars``."""
    total = 0
    for field, text in fields.items():
        if not isinstance(text, str):
            continue
        if "\0" in text:
            raise InvalidMessageError(field, "contains a NUL character")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidMessageError(field, "is not valid Unicode (a lone surrogate)") \
                from None
        total += len(text)
    if total > max_chars:
        biggest = max((f for f, t in fields.items() if isinstance(t, str)),
                      key=lambda f: len(fields[f]))
        raise TurnTooLargeError(biggest, f"the message holds {total} characters, over the "
                                f"limit of {max_chars}")
