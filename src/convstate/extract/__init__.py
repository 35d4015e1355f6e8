"""Extractors: turn a batch of expiring turns into a StateDelta.

The LLM extractors import openai and instructor, so they load on first use: the offline
path stays light.
"""

from __future__ import annotations

import os
from typing import Any

from .base import BaseExtractor, Extraction, Extractor
from .rules import RuleExtractor

__all__ = ["BaseExtractor", "Extraction", "Extractor", "HybridExtractor", "LLMExtractor",
           "RuleExtractor", "default_extractor"]


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
