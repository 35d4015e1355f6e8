"""convstate: keep long LLM conversations inside a token budget with a typed state.

Expiring turns are read once by an extractor, folded into a typed state (goals,
preferences, decisions, open tasks, verbatim anchors, sentiment), and rendered into one
compact system block. The full history stays in a durable store.
"""

from typing import Any

from .adapters import (
    as_system_message,
    fill_template,
    from_anthropic,
    from_langchain,
    to_anthropic,
    to_langchain,
)
from .config import MemoryConfig
from .delta import AnchorValue, FieldValue, StateDelta, delta_model
from .documents import CompressedDocuments, compress_documents
from .errors import (
    ConfigError,
    ConvStateError,
    DataError,
    ExtractionError,
    FieldTypeError,
    InvalidMessageError,
    StoreError,
    TurnTooLargeError,
    VersionConflictError,
)
from .extract import BaseExtractor, Extraction, Extractor, RuleExtractor
from .fields import AnchorOf, Cue, Keyed, Label, Latest, SetOnce
from .fold import FoldStats, fold, fold_report
from .memory import ConversationMemory, Usage
from .oneshot import compress
from .render import render
from .sections import Fact, Item, New, Request, Section
from .state import (
    Anchor,
    ConversationState,
    Decision,
    FieldEvent,
    Goal,
    HistoryEntry,
    IndexEntry,
    OpenTask,
    Preference,
    Sentiment,
    StateDiff,
)
from .store import CompactionRecord, InMemoryStore, SQLiteStore, Store
from .tokens import Counter, TokenCounter
from .turns import Turn
from .window import WindowPolicy

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # The LLM extractors load openai and instructor: only when asked for.
    if name in ("LLMExtractor", "HybridExtractor"):
        from .extract import llm

        return getattr(llm, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Anchor", "AnchorOf", "AnchorValue", "BaseExtractor", "Fact", "Item", "New", "Request",
    "Section", "CompactionRecord", "ConfigError", "ConvStateError",
    "ConversationMemory", "ConversationState", "Cue", "DataError", "Decision", "Extraction",
    "ExtractionError", "Extractor", "FieldEvent", "FieldTypeError", "FieldValue", "FoldStats",
    "Goal", "HistoryEntry", "HybridExtractor", "InMemoryStore", "IndexEntry",
    "InvalidMessageError", "Keyed", "LLMExtractor", "Label", "Latest", "MemoryConfig",
    "OpenTask", "Preference",
    "RuleExtractor", "SQLiteStore", "Sentiment", "SetOnce", "StateDelta", "StateDiff", "Store",
    "StoreError",
    "TokenCounter", "Turn", "TurnTooLargeError", "Usage", "VersionConflictError",
    "WindowPolicy",
    "as_system_message", "delta_model", "fill_template", "fold", "fold_report", "render",
    "to_anthropic", "to_langchain", "from_anthropic", "from_langchain", "Counter", "compress",
    "compress_documents", "CompressedDocuments",
]
