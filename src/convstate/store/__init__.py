"""Stores: where turns, state versions and the compaction log live."""

from .base import CompactionRecord, Store
from .sqlite import InMemoryStore, SQLiteStore

__all__ = ["CompactionRecord", "InMemoryStore", "SQLiteStore", "Store"]
