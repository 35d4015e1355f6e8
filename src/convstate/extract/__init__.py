"""Extractors: turn a batch of expiring turns into a StateDelta.

The LLM extractors import openai and instructor, so they load on first use: the offline
path stays light.
"""

from __future__ import annotations

import os
from typing import Any

from ..registry import EXTRACTORS
from .base import BaseExtractor, Extraction, Extractor
from .rules import RuleExtractor

__all__ = ["BaseExtractor", "Extraction", "Extractor", "HybridExtractor", "LLMExtractor",
           "RuleExtractor", "default_extractor"]


def _llm(**options: Any) -> Extractor:
    from .llm import LLMExtractor

    return LLMExtractor(**options)


def _hybrid(**options: Any) -> Extractor:
    from .llm import HybridExtractor, LLMExtractor

    return HybridExtractor(LLMExtractor(**options))


def _rules(**options: Any) -> Extractor:
    return RuleExtractor()  # offline: an LLM's options do not apply


EXTRACTORS.register("rules", _rules)
EXTRACTORS.register("llm", _llm)
EXTRACTORS.register("hybrid", _hybrid)


def default_extractor() -> Extractor:
    """HybridExtractor when an LLM is configured for convstate (``CONVSTATE_MODEL`` set),
    else the offline RuleExtractor. An API key alone sends no turn anywhere."""
    if os.environ.get("CONVSTATE_MODEL"):
        from .llm import HybridExtractor, LLMExtractor

        return HybridExtractor(LLMExtractor())
    return RuleExtractor()


def __getattr__(name: str) -> Any:
    if name in ("LLMExtractor", "HybridExtractor"):
        from . import llm

        return getattr(llm, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
