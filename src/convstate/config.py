"""How a memory builds contexts and folds: one frozen, validated value.

``MemoryConfig`` holds everything but the session, its store and its extractor: the
window policy, the model whose tokens are counted, the system prompt, the block's
format, language and budget, and the fold's settings. ``ConversationMemory(...)``
builds one from its keyword arguments; ``ConversationMemory.from_config`` takes one
(the same config serves every session of a bot).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfigError
from .registry import FORMATS, LANGUAGES
from .state import ConversationState
from .store.base import CompactionRecord
from .tokens import DEFAULT_COUNT, Counter
from .turns import DEFAULT_MAX_TURN_CHARS
from .window import BLOCK_SHARE, WindowPolicy, default_reserve

# A fold lease lasts this long unless renewed (its fold renews it while it runs): a dead
# worker's sessions are folded by another within this many seconds.
LEASE_TTL = 30.0


@dataclass(frozen=True)
class MemoryConfig:
    """A memory's settings (see ConversationMemory for each). ``state_budget`` None is
    ``BLOCK_SHARE`` of the policy's budget; ``strict`` None reads ``CONVSTATE_STRICT``."""

    policy: WindowPolicy = field(default_factory=lambda: WindowPolicy(
        reply_reserve=default_reserve(8192)))
    model: str = DEFAULT_COUNT
    system_prompt: str | None = None
    state_format: str = "text"
    lang: str | None = None
    state_budget: int | None = None
    max_turn_chars: int = DEFAULT_MAX_TURN_CHARS
    state_model: type[ConversationState] = ConversationState
    on_fold: Callable[[CompactionRecord], None] | None = None
    redact: Callable[[str], str] | None = None
    background: bool = False
    lease_ttl: float = LEASE_TTL
    strict: bool | None = None
    token_counter: Counter | None = None
    tool_call_content: str | None = ""

    def __post_init__(self) -> None:
        if not isinstance(self.policy, WindowPolicy):
            raise ConfigError("policy", "expected a WindowPolicy")
        if not (isinstance(self.state_model, type)
                and issubclass(self.state_model, ConversationState)):
            raise ConfigError("state_model", "expected ConversationState or a subclass")
        if self.system_prompt is not None and not isinstance(self.system_prompt, str):
            raise ConfigError("system_prompt", "expected a string or None")
        if self.state_format not in FORMATS:
            raise ConfigError("state_format", f"expected one of {FORMATS.names()}")
        if self.lang is not None and self.lang not in LANGUAGES:
            raise ConfigError("lang", f"expected one of {LANGUAGES.names()} or None")
        for hook in ("on_fold", "redact"):
            if getattr(self, hook) is not None and not callable(getattr(self, hook)):
                raise ConfigError(hook, "expected a callable or None")
        chars = self.max_turn_chars
        if not isinstance(chars, int) or isinstance(chars, bool) or chars < 1:
            raise ConfigError("max_turn_chars", "expected a positive integer")
        budget = self.state_budget
        if budget is None:
            budget = int(self.policy.budget * BLOCK_SHARE)
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
            raise ConfigError("state_budget", "expected a positive integer")
        if self.token_counter is not None and not isinstance(self.token_counter, Counter):
            raise ConfigError("token_counter", "expected an object with count(text) and "
                              "message(msg) (see convstate.tokens.Counter)")
        if self.tool_call_content is not None and not isinstance(self.tool_call_content, str):
            raise ConfigError("tool_call_content", "expected a string or None")
        if not isinstance(self.lease_ttl, int | float) or self.lease_ttl <= 0:
            raise ConfigError("lease_ttl", "expected a positive number of seconds")
        strict = os.environ.get("CONVSTATE_STRICT") == "1" if self.strict is None \
            else bool(self.strict)
        object.__setattr__(self, "state_budget", budget)
        object.__setattr__(self, "strict", strict)

    @classmethod
    def from_options(cls, *, context_window: int, reply_reserve: int | None,
                     trigger_ratio: float, target_ratio: float, keep_recent_turns: int,
                     min_batch: int | None = None, **rest: Any) -> MemoryConfig:
        """A config from ConversationMemory's keyword arguments (a reply reserve of None
        is the window's default)."""
        if isinstance(context_window, int) and reply_reserve is None:
            reply_reserve = default_reserve(context_window)
        policy = WindowPolicy(context_window=context_window,
                              reply_reserve=reply_reserve,
                              trigger_ratio=trigger_ratio, target_ratio=target_ratio,
                              keep_recent_turns=keep_recent_turns, min_batch=min_batch)
        return cls(policy=policy, **rest)
