"""What a chat message's fields count besides its role: its content (text, images,
other parts), its name, its tool calls and the id of the call a tool turn answers.

Any counter of texts counts them (tokens.py's ``Counter``, counters.py's); content given
as a list of parts counts its text parts as text, each image part as ``IMAGE_TOKENS``
(OpenAI's cost of a high-detail 1024x1024 image; the store keeps the image, not its
size) and any other part as its JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

TOKENS_PER_NAME = 1
IMAGE_TOKENS = 765
IMAGE_PARTS = frozenset({"image_url", "input_image", "image"})


class Counts(Protocol):
    """A counter of texts."""

    def count(self, text: str) -> int: ...


def content_tokens(counter: Counts, content: Any) -> int:
    """Tokens of a message's content: a string, or a list of parts (see the module)."""
    if isinstance(content, str):
        return counter.count(content) if content else 0
    if not isinstance(content, list):
        return 0
    n = 0
    for part in content:
        if not isinstance(part, dict):
            n += counter.count(json.dumps(part, ensure_ascii=False, default=str))
        elif part.get("type") in IMAGE_PARTS:
            n += IMAGE_TOKENS
        elif isinstance(part.get("text"), str):  # a text part (or another kind of text)
            n += counter.count(part["text"])
        else:
            n += counter.count(json.dumps(part, ensure_ascii=False, sort_keys=True))
    return n


def fields_tokens(counter: Counts, msg: Mapping[str, Any]) -> int:
    """Tokens of a message's fields besides its role: content, name, tool calls and the
    id of the call a tool turn answers."""
    n = content_tokens(counter, msg.get("content"))
    if msg.get("name"):
        n += TOKENS_PER_NAME + counter.count(msg["name"])
    if msg.get("tool_calls"):
        n += counter.count(json.dumps(msg["tool_calls"], ensure_ascii=False, sort_keys=True))
    if msg.get("tool_call_id"):
        n += counter.count(msg["tool_call_id"])
    return n
