"""convstate: keep long LLM conversations inside a token budget with a typed state.

Expiring turns are read once by an extractor, folded into a typed state (goals,
preferences, decisions, open tasks, verbatim anchors, sentiment), and rendered into one
compact system block. The full history stays in a durable store.
"""

from typing import Any

from .delta import StateDelta
from .errors import (
    ConfigError,
    ConvStateError,
    ExtractionError,
    InvalidMessageError,
    TurnTooLargeError,
    VersionConflictError,
)
from .extract import Extraction, Extractor, RuleExtractor
from .fold import FoldStats, fold, fold_report
from .memory import ConversationMemory, Usage
from .render import render
from .state import (
    Anchor,
    ConversationState,
    Decision,
    Goal,
    IndexEntry,
    OpenTask,
    Preference,
    Sentiment,
)
from .store import CompactionRecord, InMemoryStore, SQLiteStore, Store
from .tokens import TokenCounter
from .turns import Turn

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # The LLM extractors load openai and instructor: only when asked for.
    if name in ("LLMExtractor", "HybridExtractor"):
        from .extract import llm

        return getattr(llm, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Anchor", "CompactionRecord", "ConfigError", "ConvStateError", "ConversationMemory",
    "ConversationState", "Decision", "Extraction", "ExtractionError", "Extractor", "FoldStats",
    "Goal", "HybridExtractor", "InMemoryStore", "IndexEntry", "InvalidMessageError",
    "LLMExtractor", "OpenTask", "Preference", "RuleExtractor", "SQLiteStore", "Sentiment",
    "StateDelta", "Store", "TokenCounter", "Turn", "TurnTooLargeError", "Usage",
    "VersionConflictError", "fold", "fold_report", "render",
]
