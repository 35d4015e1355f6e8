"""convstate: keep long LLM conversations inside a token budget with a typed state.

Expiring turns are read once by an extractor, folded into a typed state (goals,
preferences, decisions, open tasks, verbatim anchors, sentiment), and rendered into one
compact system block. The full history stays in a durable store.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

__version__ = "0.4.0"

# Public names by the module that defines them. ``import convstate`` loads none of
# them (pydantic, the language packs and the extractors cost ~150 ms together); each
# name loads its module on first use (PEP 562), so a CLI call or a worker's cold start
# pays only for what it touches.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "adapters": (
        "as_system_message", "fill_template", "from_anthropic", "from_langchain",
        "to_anthropic", "to_langchain",
    ),
    "config": ("MemoryConfig",),
    "delta": ("AnchorValue", "delta_model", "FieldValue", "StateDelta"),
    "documents": ("compress_documents", "CompressedDocuments"),
    "errors": (
        "ConfigError", "ConvStateError", "DataError", "ExtractionError", "FieldTypeError",
        "IdempotencyConflictError", "InvalidMessageError", "ReadOnlySettingError",
        "SessionErasedError", "StoreError", "TurnTooLargeError", "VersionConflictError",
    ),
    "extract": ("BaseExtractor", "Extraction", "Extractor", "RuleExtractor"),
    "extract.llm": ("HybridExtractor", "LLMExtractor"),
    "fields": ("AnchorOf", "Cue", "Keyed", "Label", "Latest", "SetOnce"),
    "fold": ("fold", "fold_report", "FoldStats"),
    "memory": ("ConversationMemory", "Usage"),
    "oneshot": ("compress",),
    "render": ("render",),
    "sections": ("Fact", "Item", "New", "Request", "Section"),
    "state": (
        "Anchor", "ConversationState", "Decision", "FieldEvent", "Goal", "HistoryEntry",
        "IndexEntry", "OpenTask", "Preference", "Sentiment", "StateDiff",
    ),
    "store": ("CompactionRecord", "InMemoryStore", "SQLiteStore", "Store"),
    "tokens": ("Counter", "TokenCounter"),
    "turns": ("Turn",),
    "window": ("WindowPolicy",),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF, key=str.lower)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


class _Package(ModuleType):
    """Importing a submodule binds it on its package: ``convstate.render`` (the module)
    would then hide ``convstate.render`` (the function). Public names win."""

    def __setattr__(self, name: str, value: Any) -> None:
        if not (isinstance(value, ModuleType) and name in _MODULE_OF):
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


if TYPE_CHECKING:  # the same names, for type checkers and editors
    from .adapters import (
        as_system_message as as_system_message,
        fill_template as fill_template,
        from_anthropic as from_anthropic,
        from_langchain as from_langchain,
        to_anthropic as to_anthropic,
        to_langchain as to_langchain,
    )
    from .config import MemoryConfig as MemoryConfig
    from .delta import (
        AnchorValue as AnchorValue,
        FieldValue as FieldValue,
        StateDelta as StateDelta,
        delta_model as delta_model,
    )
    from .documents import (
        CompressedDocuments as CompressedDocuments,
        compress_documents as compress_documents,
    )
    from .errors import (
        ConfigError as ConfigError,
        ConvStateError as ConvStateError,
        DataError as DataError,
        ExtractionError as ExtractionError,
        FieldTypeError as FieldTypeError,
        IdempotencyConflictError as IdempotencyConflictError,
        InvalidMessageError as InvalidMessageError,
        ReadOnlySettingError as ReadOnlySettingError,
        SessionErasedError as SessionErasedError,
        StoreError as StoreError,
        TurnTooLargeError as TurnTooLargeError,
        VersionConflictError as VersionConflictError,
    )
    from .extract import (
        BaseExtractor as BaseExtractor,
        Extraction as Extraction,
        Extractor as Extractor,
        RuleExtractor as RuleExtractor,
    )
    from .extract.llm import HybridExtractor as HybridExtractor, LLMExtractor as LLMExtractor
    from .fields import (
        AnchorOf as AnchorOf,
        Cue as Cue,
        Keyed as Keyed,
        Label as Label,
        Latest as Latest,
        SetOnce as SetOnce,
    )
    from .fold import FoldStats as FoldStats, fold as fold, fold_report as fold_report
    from .memory import ConversationMemory as ConversationMemory, Usage as Usage
    from .oneshot import compress as compress
    from .render import render as render
    from .sections import (
        Fact as Fact,
        Item as Item,
        New as New,
        Request as Request,
        Section as Section,
    )
    from .state import (
        Anchor as Anchor,
        ConversationState as ConversationState,
        Decision as Decision,
        FieldEvent as FieldEvent,
        Goal as Goal,
        HistoryEntry as HistoryEntry,
        IndexEntry as IndexEntry,
        OpenTask as OpenTask,
        Preference as Preference,
        Sentiment as Sentiment,
        StateDiff as StateDiff,
    )
    from .store import (
        CompactionRecord as CompactionRecord,
        InMemoryStore as InMemoryStore,
        SQLiteStore as SQLiteStore,
        Store as Store,
    )
    from .tokens import Counter as Counter, TokenCounter as TokenCounter
    from .turns import Turn as Turn
    from .window import WindowPolicy as WindowPolicy
