"""Stores: where turns, state versions, the compaction log and fold leases live."""

from __future__ import annotations

from typing import Any

from .base import CompactionRecord, Store
from .sqlite import InMemoryStore, SQLiteStore

__all__ = ["CompactionRecord", "InMemoryStore", "PostgresStore", "SQLiteStore", "Store",
           "open_store"]


def open_store(target: str, readonly: bool = False) -> Store:
    """A store from a path or a DSN: ``postgresql://...`` opens PostgreSQL, anything else
    a SQLite file (``readonly``: opened only to look, never created or changed)."""
    if target.startswith(("postgresql://", "postgres://")):
        from .postgres import PostgresStore

        return PostgresStore(target)
    return SQLiteStore(target, readonly=readonly)


def __getattr__(name: str) -> Any:
    if name == "PostgresStore":  # psycopg loads only when asked for
        from .postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
